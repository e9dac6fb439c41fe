#!/bin/sh
# The installed tree, as a packager and an FFmpeg build see it: `cmake --install` into a staging
# prefix (and once more with DESTDIR), pkg-config pointing into it, the installed `vmaf` CLI,
# and a small program built against the installed headers and library (shared and static).
#   install.sh BUILD_DIR SCRATCH_DIR CC [COMPILER FLAGS...]
set -u
B=$1; S=$2; CC=$3; shift 3
rm -rf "$S"; mkdir -p "$S"
P=$S/prefix
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

if ! cmake --install "$B" --prefix "$P" > "$S/install.log" 2>&1; then
  cat "$S/install.log"; echo "FAIL cmake --install"; exit 1
fi
pc=$(find "$P" -name libvmaf.pc | head -n 1)
[ -n "$pc" ] && ok "libvmaf.pc installed: ${pc#$P/}" || { echo "FAIL no libvmaf.pc under $P"; exit 1; }
export PKG_CONFIG_PATH="${pc%/libvmaf.pc}"
libdir=$(pkg-config --variable=libdir libvmaf)
flags=$(pkg-config --cflags --libs libvmaf)
echo "     pkg-config --cflags --libs libvmaf: $flags"
case "$libdir" in "$P"/*) ok "libdir in the prefix: $libdir" ;; *) fail "libdir $libdir is not under $P" ;; esac
for want in "-I$P/include" "-I$P/include/libvmaf" "-L$libdir" "-lvmaf"; do
  case " $flags " in *" $want "*) ok "pkg-config gives $want" ;; *) fail "pkg-config lacks $want" ;; esac
done
pkg-config --atleast-version=2.0.0 libvmaf && ok "libvmaf >= 2.0.0 (FFmpeg's check)" || fail "version check"
[ "$(pkg-config --modversion libvmaf)" = 3.2.0 ] && ok "version 3.2.0" || fail "modversion $(pkg-config --modversion libvmaf)"
for h in libvmaf.h feature.h model.h picture.h version.h libvmaf_cuda.h; do
  [ -f "$P/include/libvmaf/$h" ] || fail "header $h not installed"
done
soname=$(readelf -d "$libdir/libvmaf.so" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libvmaf.so.3 ] && ok "SONAME libvmaf.so.3" || fail "SONAME '$soname'"

# the installed CLI
if "$P/bin/vmaf" -v > "$S/v.out" 2> "$S/v.err" && [ -s "$S/v.err" ]; then
  ok "$P/bin/vmaf -v: $(cat "$S/v.err")"
else
  fail "$P/bin/vmaf -v (exit $?)"
fi

# a program using the public headers the way FFmpeg includes them
cat > "$S/prog.c" <<'EOF'
#include <stdio.h>
#include <libvmaf.h>
#include <libvmaf/version.h>
int main(void) {
    VmafContext *vmaf; VmafPicture ref, dist; double psnr;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_INFO };
    if (vmaf_init(&vmaf, cfg) || vmaf_use_feature(vmaf, "psnr", NULL)) return 1;
    if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 48) ||
        vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) return 1;
    if (vmaf_read_pictures(vmaf, &ref, &dist, 0) || vmaf_read_pictures(vmaf, NULL, NULL, 0) ||
        vmaf_feature_score_at_index(vmaf, "psnr_y", &psnr, 0)) return 1;
    printf("%d.%d.%d psnr_y %f\n", VMAF_API_VERSION_MAJOR, VMAF_API_VERSION_MINOR,
           VMAF_API_VERSION_PATCH, psnr);
    return vmaf_close(vmaf);
}
EOF
expect="3.2.0 psnr_y 60.000000"
# shellcheck disable=SC2046
if "$CC" "$@" $(pkg-config --cflags libvmaf) -o "$S/prog" "$S/prog.c" $(pkg-config --libs libvmaf) \
     -Wl,-rpath,"$libdir" 2> "$S/cc.err"; then
  out=$("$S/prog" 2>&1)
  [ "$out" = "$expect" ] && ok "program on the installed libvmaf.so: $out" || fail "program printed '$out'"
  ldd "$S/prog" | grep -q "libvmaf.so.3 => $libdir/libvmaf.so.3" && ok "it loads $libdir/libvmaf.so.3" \
    || fail "it loads $(ldd "$S/prog" | grep libvmaf)"
else
  cat "$S/cc.err"; fail "building against the installed headers and libvmaf.so"
fi
# static: libvmaf.a plus pkg-config's Libs.private
# shellcheck disable=SC2046
if "$CC" "$@" $(pkg-config --cflags libvmaf) -o "$S/prog_static" "$S/prog.c" "$libdir/libvmaf.a" \
     $(pkg-config --static --libs-only-l libvmaf | sed 's/-lvmaf//') 2> "$S/cc_static.err"; then
  out=$("$S/prog_static" 2>&1)
  [ "$out" = "$expect" ] && ok "program on the installed libvmaf.a" || fail "static program printed '$out'"
else
  cat "$S/cc_static.err"; fail "building against libvmaf.a with pkg-config --static"
fi

# DESTDIR staging keeps the final prefix in libvmaf.pc
if DESTDIR="$S/dest" cmake --install "$B" --prefix /opt/twin-vmaf > "$S/install2.log" 2>&1; then
  pc2=$(find "$S/dest" -name libvmaf.pc | head -n 1)
  grep -qx "prefix=/opt/twin-vmaf" "$pc2" && ok "DESTDIR install: prefix=/opt/twin-vmaf" \
    || fail "DESTDIR install: $(grep prefix= "$pc2")"
  [ -x "$S/dest/opt/twin-vmaf/bin/vmaf" ] || fail "DESTDIR install has no bin/vmaf"
else
  fail "DESTDIR install"
fi

echo "install: $fails failed"
[ $fails -eq 0 ]
