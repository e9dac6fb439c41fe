# cmake -DIN=file -DOUT=file.c -DSYM=name -P embed.cmake
# Writes `const unsigned char SYM[]` holding IN's bytes (16-byte aligned), then a NUL.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "/* generated from ${IN}; do not edit */\n"
     "__attribute__((aligned(16))) const unsigned char ${SYM}[] = {\n${bytes}0x00\n};\n")
