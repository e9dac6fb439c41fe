#!/bin/bash
# FFmpeg 7.1's libvmaf_cuda filter against our installed library, on the GPU machine: frames
# uploaded with hwupload (-init_hw_device cuda), the default model; its log must hold the same
# scores as the CPU libvmaf filter's. Needs FFmpeg's release tarball and the nv-codec-headers
# (ffnvcodec) in CARRY (they are not in the repository).
#   bench/ffmpeg_cuda.sh CARRY_DIR CLIPS_DIR
set -u
CARRY=$(cd "$1" && pwd); C=$(cd "$2" && pwd); W=/tmp/ffcuda; rm -rf $W; mkdir -p $W/nv/include $W/nv/lib/pkgconfig
cp -r "$CARRY/ffnvcodec" $W/nv/include/
printf 'prefix=%s\nincludedir=${prefix}/include\nName: ffnvcodec\nDescription: headers\nVersion: 13.0.19.1\nCflags: -I${includedir}\n' $W/nv > $W/nv/lib/pkgconfig/ffnvcodec.pc
cmake --install build --prefix $W/prefix > $W/install.log 2>&1 || { echo "FAIL install"; exit 1; }
export PKG_CONFIG_PATH=$W/nv/lib/pkgconfig:$(dirname "$(find $W/prefix -name libvmaf.pc | head -1)")
export LD_LIBRARY_PATH=$(dirname "$(find $W/prefix -name 'libvmaf.so.3' | head -1)")
tar -xJf "$CARRY"/ffmpeg_7.1*.orig.tar.xz -C $W && cd $W/ffmpeg-7.1* || exit 1
s=$(date +%s)
./configure --disable-everything --disable-autodetect --disable-asm --disable-doc --disable-debug \
  --disable-network --disable-avdevice --disable-swresample --disable-postproc --disable-ffplay \
  --disable-ffprobe --enable-ffmpeg --enable-libvmaf --enable-nonfree --enable-ffnvcodec \
  --enable-cuda-nvcc --nvccflags="-gencode arch=compute_90,code=sm_90" \
  --enable-demuxer=rawvideo --enable-decoder=rawvideo --enable-filter=libvmaf,libvmaf_cuda,format,null,hwupload \
  --enable-muxer=null --enable-encoder=wrapped_avframe --enable-protocol=file > $W/configure.log 2>&1 \
  || { tail -5 $W/configure.log; echo "FAIL configure"; exit 1; }
grep -q "libvmaf_cuda" ffbuild/config.mak || true
make -j"$(nproc)" ffmpeg > $W/make.log 2>&1 || { tail -5 $W/make.log; echo "FAIL build"; exit 1; }
echo "FFmpeg built with libvmaf_cuda in $(( $(date +%s) - s )) s"
same=0; bad=0
for clip in boats_576x324_420p:576x324:yuv420p jetty_1920x1080_420p:1920x1080:yuv420p kite_257x145_420p:257x145:yuv420p; do
  IFS=: read -r name size pf <<< "$clip"
  IN="-f rawvideo -pix_fmt $pf -s $size -i $C/${name}_dis.yuv -f rawvideo -pix_fmt $pf -s $size -i $C/${name}_ref.yuv"
  ./ffmpeg -v error $IN -lavfi "[0:v][1:v]libvmaf=log_path=$W/cpu.xml:log_fmt=xml" -f null - 2> $W/cpu.err
  ./ffmpeg -v error -init_hw_device cuda=cu -filter_hw_device cu $IN \
    -lavfi "[0:v]hwupload[d];[1:v]hwupload[r];[d][r]libvmaf_cuda=log_path=$W/cuda.xml:log_fmt=xml" -f null - 2> $W/cuda.err
  if [ -s $W/cuda.xml ] && cmp -s <(grep -v fps $W/cpu.xml) <(grep -v fps $W/cuda.xml); then
    same=$((same + 1)); echo "identical $name: $(grep -o 'name="vmaf"[^/]*' $W/cuda.xml)"
  else
    bad=$((bad + 1)); echo "DIFFER $name"; head -3 $W/cuda.err; diff <(grep -v fps $W/cpu.xml) <(grep -v fps $W/cuda.xml) | head -4
  fi
done
echo "ffmpeg libvmaf_cuda vs libvmaf: $same identical, $bad different"
