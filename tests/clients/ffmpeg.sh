#!/bin/sh
# A real client: FFmpeg 7.1's libvmaf filter, built against our INSTALLED library (a staging
# prefix this test installs, found through pkg-config), must write the same score files as our
# CLI for the same options: every value (parsed as doubles), every name, the metric order,
# at n_threads 0 (FFmpeg's default) and 2, with models, features and overloads; and -v quiet
# must silence the library. With VMAF_BACKEND=opencl in FFmpeg's environment (PoCL: the
# library attaches an OpenCL device at vmaf_init for the unmodified filter) it must write the
# same values as without it, and a device that is not there must fail the filter.
#
#   ffmpeg.sh BUILD_DIR CACHE_DIR WORK_DIR CLIPS_DIR MODELS_DIR SOURCE_SCRIPT JSON_COMPARE CC
#
# The FFmpeg build is cached in CACHE_DIR (a second run reuses it; it is rebuilt only when the
# configure line changes). It links libvmaf.so.3 dynamically and runs with the freshly
# installed one, so every run tests the current library. Without FFmpeg's source (no
# network) the test is skipped (exit 77). VMAF_FFMPEG_SOURCE=DIR uses an unpacked source.
set -u
B=$1; CACHE=$2; W=$3; CLIPS=$4; MODELS=$5; SOURCE_SCRIPT=$6; COMPARE=$7; CC=$8
SKIP=77
start=$(date +%s)
rm -rf "$W"; mkdir -p "$W" "$CACHE"
P=$W/prefix
command -v pkg-config >/dev/null || { echo "skipped: no pkg-config"; exit $SKIP; }
cmake --install "$B" --prefix "$P" > "$W/install.log" 2>&1 || { cat "$W/install.log"; echo "FAIL install"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$(find "$P" -name libvmaf.pc | head -n 1)")
export PKG_CONFIG_PATH
LIBDIR=$(pkg-config --variable=libdir libvmaf)

# ---- FFmpeg, configured once against the staging prefix -----------------------------------
if [ -n "${VMAF_FFMPEG_SOURCE:-}" ]; then
  SRC=$VMAF_FFMPEG_SOURCE
elif ! SRC=$("$SOURCE_SCRIPT" "$CACHE/source" 2> "$W/source.err" | tail -n 1) || [ ! -x "$SRC/configure" ]; then
  echo "skipped: FFmpeg's source could not be had ($(tail -n 1 "$W/source.err"))"
  exit $SKIP
fi
CONFIGURE="--cc=$CC --disable-everything --disable-autodetect --disable-asm --disable-doc
  --disable-debug --disable-network --disable-avdevice --disable-swresample --disable-postproc
  --disable-ffplay --disable-ffprobe --enable-ffmpeg --enable-libvmaf
  --enable-demuxer=rawvideo --enable-decoder=rawvideo --enable-filter=libvmaf,format,null
  --enable-muxer=null --enable-encoder=wrapped_avframe --enable-protocol=file,pipe"
STAMP="$(basename "$SRC") $CONFIGURE"
FF=$CACHE/build/ffmpeg
if [ -x "$FF" ] && [ "$(cat "$CACHE/stamp" 2>/dev/null)" = "$STAMP" ]; then
  echo "FFmpeg: cached build $FF ($(basename "$SRC"))"
else
  echo "FFmpeg: building $(basename "$SRC") in $CACHE/build"
  rm -rf "$CACHE/build" "$CACHE/stamp"; mkdir -p "$CACHE/build"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! (cd "$CACHE/build" && "$SRC/configure" $CONFIGURE > configure.log 2>&1); then
    tail -n 20 "$CACHE/build/configure.log"; tail -n 30 "$CACHE/build/ffbuild/config.log"
    echo "FAIL FFmpeg's configure (libvmaf through pkg-config at $PKG_CONFIG_PATH)"; exit 1
  fi
  if ! make -C "$CACHE/build" -j "$(nproc 2>/dev/null || echo 2)" ffmpeg > "$CACHE/build/make.log" 2>&1; then
    tail -n 30 "$CACHE/build/make.log"; echo "FAIL building FFmpeg"; exit 1
  fi
  echo "$STAMP" > "$CACHE/stamp"
  echo "FFmpeg: built in $(( $(date +%s) - t0 )) s"
fi
export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
loaded=$(ldd "$FF" | sed -n 's/.*libvmaf.so.3 => \([^ ]*\).*/\1/p')
fails=0; cases=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
[ "$loaded" = "$LIBDIR/libvmaf.so.3" ] && ok "ffmpeg loads $loaded" || fail "ffmpeg loads '$loaded', not $LIBDIR/libvmaf.so.3"

VMAF=$P/bin/vmaf
geometry() { # CLIP -> W H FMT BITS PIX_FMT
  g=${1#*_}; wh=${g%%_*}; f=${g#*_}; fmt=${f%%p*}; bits=${f#*p}; [ -n "$bits" ] || bits=8
  pf=yuv${fmt}p; [ "$bits" = 8 ] || pf=${pf}${bits}le
  echo "${wh%x*} ${wh#*x} $fmt $bits $pf"
}

# ffmpeg_run NAME CLIP FORMAT "FILTER OPTIONS" [ENV...]: $W/NAME.ffmpeg.FORMAT, its log in
# $W/NAME.ffmpeg.log; the exit status of ffmpeg, run with ENV (VAR=VALUE) added
ffmpeg_run() {
  name=$1; clip=$2; fmt_out=$3; fopts=$4; shift 4
  read -r w h fmt bits pf <<EOF
$(geometry "$clip")
EOF
  ref=$CLIPS/${clip}_ref.yuv; dis=$CLIPS/${clip}_dis.yuv
  ff_out=$W/$name.ffmpeg.$fmt_out
  raw="-f rawvideo -pix_fmt $pf -s ${w}x${h}"
  # shellcheck disable=SC2086
  env "$@" "$FF" -nostdin -hide_banner -loglevel error $raw -i "$dis" $raw -i "$ref" \
       -lavfi "[0:v][1:v]libvmaf=log_fmt=$fmt_out:log_path=$ff_out${fopts:+:$fopts}" -f null - \
       > "$W/$name.ffmpeg.log" 2>&1
}

# run NAME CLIP FORMAT "FILTER OPTIONS" CLI OPTIONS...
run() {
  name=$1; clip=$2; fmt_out=$3; fopts=$4; shift 4
  cases=$((cases + 1))
  if ! ffmpeg_run "$name" "$clip" "$fmt_out" "$fopts"; then
    fail "$name: ffmpeg failed:"; sed 's/^/     /' "$W/$name.ffmpeg.log"; return
  fi
  cli_out=$W/$name.cli.$fmt_out
  if ! "$VMAF" -r "$ref" -d "$dis" -w "$w" -h "$h" -p "$fmt" -b "$bits" "--$fmt_out" -o "$cli_out" \
       "$@" > "$W/$name.cli.log" 2>&1; then
    fail "$name: vmaf failed:"; sed 's/^/     /' "$W/$name.cli.log"; return
  fi
  case $fmt_out in
    json) if res=$("$COMPARE" "$ff_out" "$cli_out"); then ok "$name: $res"; else fail "$name: $res"; fi ;;
    xml)  sed '/<fyi fps=/d' "$ff_out" > "$ff_out.nofps"; sed '/<fyi fps=/d' "$cli_out" > "$cli_out.nofps"
          if cmp -s "$ff_out.nofps" "$cli_out.nofps"; then ok "$name: identical but for fps ($(wc -l < "$ff_out") lines)"
          else fail "$name: files differ"; diff "$ff_out.nofps" "$cli_out.nofps" | head -n 5; fi ;;
    *)    if cmp -s "$ff_out" "$cli_out"; then ok "$name: identical files ($(wc -l < "$ff_out") lines)"
          else fail "$name: files differ"; diff "$ff_out" "$cli_out" | head -n 5; fi ;;
  esac
}

# inside a quoted filter option, ':' is escaped once more for the option parser
M2='version=vmaf_v0.6.1\:name=vmaf|version=vmaf_v0.6.1neg\:name=vmaf_neg'
run default_t0      boats_576x324_420p    json ""
run default_t2      boats_576x324_420p    json "n_threads=2" --threads 2
run default_csv     boats_576x324_420p    csv  ""
run default_xml     forest_576x324_420p10 xml  ""
run two_models_t0   forest_576x324_420p10 json "model='$M2'" \
    -m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_v0.6.1neg:name=vmaf_neg
run two_models_t2   cups_352x288_444p     json "model='$M2':n_threads=2" --threads 2 \
    -m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_v0.6.1neg:name=vmaf_neg
run features_t0     cups_352x288_444p     json "feature='name=psnr|name=psnr_hvs'" \
    --feature psnr --feature psnr_hvs
run features_t2     leaf_480x270_422p12   json "feature='name=psnr|name=psnr_hvs':n_threads=2" \
    --feature psnr --feature psnr_hvs --threads 2
run path_overload   kite_257x145_420p     json \
    "model='path=$MODELS/vmaf_v0.6.1.json\\:vif.vif_enhn_gain_limit=1.0':feature='name=psnr\\:enable_chroma=false|name=motion\\:motion_force_zero=true'" \
    -m "path=$MODELS/vmaf_v0.6.1.json:vif.vif_enhn_gain_limit=1.0" --feature psnr=enable_chroma=false \
    --feature motion=motion_force_zero=true
run subsample_t2    jetty_1920x1080_420p  json "n_threads=2:n_subsample=3:feature=name=psnr" \
    --threads 2 --subsample 3 --feature psnr
# float_ssim exists only in builds that have it
if "$VMAF" -r "$CLIPS/boats_576x324_420p_ref.yuv" -d "$CLIPS/boats_576x324_420p_dis.yuv" -w 576 -h 324 \
     -p 420 -b 8 -n --feature float_ssim --frame_cnt 1 -o "$W/probe.json" --json > /dev/null 2>&1; then
  run float_ssim    boats_576x324_420p    json "feature='name=psnr|name=psnr_hvs|name=float_ssim'" \
      --feature psnr --feature psnr_hvs --feature float_ssim
else
  echo "--   float_ssim: not in this build, left out"
fi

# VMAF_BACKEND=opencl: the same values as the run without it (json_compare's rule), on PoCL's
# device (VMAF_OPENCL_DEVICE names it, wherever it is in the device list)
# run_opencl NAME BASE CLIP "FILTER OPTIONS": BASE is the case run above with these options
run_opencl() {
  name=$1; base=$2; clip=$3; fopts=$4
  cases=$((cases + 1))
  if ! ffmpeg_run "$name" "$clip" json "$fopts" VMAF_BACKEND=opencl VMAF_OPENCL_DEVICE="$pocl"; then
    fail "$name: ffmpeg failed:"; sed 's/^/     /' "$W/$name.ffmpeg.log"; return
  fi
  if res=$("$COMPARE" "$W/$name.ffmpeg.json" "$W/$base.ffmpeg.json"); then
    ok "$name: as $base without VMAF_BACKEND: $res"
  else
    fail "$name: not as $base without VMAF_BACKEND: $res"
  fi
}
pocl=$("$VMAF" --opencl_list 2>/dev/null |
       sed -n 's/^\([0-9]*\): platform "Portable Computing Language".*/\1/p' | head -n 1)
if [ -n "$pocl" ]; then
  run_opencl opencl_default_t0  default_t0    boats_576x324_420p   ""
  run_opencl opencl_default_t2  default_t2    boats_576x324_420p   "n_threads=2"
  run_opencl opencl_two_models  two_models_t2 cups_352x288_444p    "model='$M2':n_threads=2"
  run_opencl opencl_features    features_t2   leaf_480x270_422p12  "feature='name=psnr|name=psnr_hvs':n_threads=2"
  run_opencl opencl_subsample   subsample_t2  jetty_1920x1080_420p "n_threads=2:n_subsample=3:feature=name=psnr"
  # a device that is not there: the filter fails with the library's message
  cases=$((cases + 1))
  if ffmpeg_run opencl_no_device boats_576x324_420p json "" VMAF_BACKEND=opencl VMAF_OPENCL_DEVICE=99; then
    fail "VMAF_OPENCL_DEVICE=99: ffmpeg succeeded"
  elif grep -q 'VMAF_BACKEND=opencl: no usable OpenCL device 99' "$W/opencl_no_device.ffmpeg.log"; then
    ok "VMAF_OPENCL_DEVICE=99: ffmpeg fails: $(grep -m 1 'no usable' "$W/opencl_no_device.ffmpeg.log")"
  else
    fail "VMAF_OPENCL_DEVICE=99: ffmpeg failed without the library's message:"
    sed 's/^/     /' "$W/opencl_no_device.ffmpeg.log"
  fi
else
  echo "--   VMAF_BACKEND=opencl: no PoCL device (vmaf --opencl_list; tests/opencl/setup.sh installs it), left out"
fi

# -v quiet silences the library; -v error shows its message
for level in quiet error; do
  cases=$((cases + 1))
  "$FF" -nostdin -hide_banner -v $level -f rawvideo -pix_fmt yuv420p -s 576x324 -i "$CLIPS/boats_576x324_420p_dis.yuv" \
    -f rawvideo -pix_fmt yuv420p -s 576x324 -i "$CLIPS/boats_576x324_420p_ref.yuv" \
    -lavfi "[0:v][1:v]libvmaf=model=path=$W/no_such_model.json" -f null - > "$W/$level.log" 2>&1
  rc=$?
  n=$(grep -c "libvmaf ERROR" "$W/$level.log")
  if [ $rc -ne 0 ] && { { [ $level = quiet ] && [ ! -s "$W/$level.log" ]; } || { [ $level = error ] && [ "$n" -ge 1 ]; }; }; then
    ok "missing model, -v $level: exit $rc, $n library messages"
  else
    fail "missing model, -v $level: exit $rc, output:"; sed 's/^/     /' "$W/$level.log"
  fi
done

# an unknown extractor option warns once per extractor, also through a model overload
cases=$((cases + 1))
"$FF" -nostdin -hide_banner -v warning -f rawvideo -pix_fmt yuv420p -s 576x324 -i "$CLIPS/boats_576x324_420p_dis.yuv" \
  -f rawvideo -pix_fmt yuv420p -s 576x324 -i "$CLIPS/boats_576x324_420p_ref.yuv" \
  -lavfi "[0:v][1:v]libvmaf=model='version=vmaf_v0.6.1\\:vif.bogus=1':feature='name=psnr\\:bogus=2':n_threads=2" \
  -frames:v 3 -f null - > "$W/warn.log" 2>&1
rc=$?
n_vif=$(grep -c 'vif: unknown option "bogus"' "$W/warn.log"); n_psnr=$(grep -c 'psnr: unknown option "bogus"' "$W/warn.log")
if [ $rc -eq 0 ] && [ "$n_vif" = 1 ] && [ "$n_psnr" = 1 ]; then
  ok "unknown options: one warning each for vif (model overload) and psnr"
else
  fail "unknown options: exit $rc, $n_vif vif and $n_psnr psnr warnings:"; sed 's/^/     /' "$W/warn.log"
fi

echo "ffmpeg: $cases cases, $fails failed, $(( $(date +%s) - start )) s"
[ $fails -eq 0 ]
