/*
 * libFuzzer: the CLI's raw and Y4M readers. Byte 0 picks the mode (bit 0: raw, geometry from
 * bytes 1..4; else Y4M) and whether frames are skipped first (bit 1); the rest is the file.
 * Oracle beyond the sanitizers: every frame read holds only samples that fit its bit depth.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libvmaf/picture.h"
#include "video_input.h"

static void check_range(const VmafPicture *pic)
{
    if (pic->bpc == 8 || pic->bpc == 16) return;
    for (unsigned p = 0; p < 3; p++)
        for (unsigned y = 0; pic->data[p] && y < pic->h[p]; y++) {
            const uint16_t *row = (const uint16_t *)((const uint8_t *)pic->data[p] + y * pic->stride[p]);
            for (unsigned x = 0; x < pic->w[p]; x++)
                if (row[x] >> pic->bpc) abort(); /* the reader let an out-of-range sample through */
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    const int raw = data[0] & 1, skip = data[0] & 2;
    const VideoInfo geo = {
        .w = 1 + data[1] % 48, .h = 1 + data[2] % 48, .bpc = 8 + data[3] % 9,
        .pix_fmt = (enum VmafPixelFormat)(1 + data[4] % 4),
    };
    const uint8_t *file = data + (raw ? 5 : 1);
    const size_t len = size - (raw ? 5 : 1);

    const int fd = memfd_create("fuzz_video_input", 0);
    if (fd < 0) return 0;
    if (len && write(fd, file, len) != (ssize_t)len) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

    VideoInput *in = NULL;
    char err[512];
    if (!video_input_open(&in, path, raw ? &geo : NULL, err, sizeof(err))) {
        VideoInfo info;
        video_input_info(in, &info);
        VmafPicture pic;
        /* a Y4M header may ask for 16384x16384: the reader is what is tested, not malloc */
        if ((uint64_t)info.w * info.h <= (1u << 18) &&
            !vmaf_picture_alloc(&pic, info.pix_fmt, info.bpc, info.w, info.h)) {
            if (skip) video_input_skip(in, 1 + data[0] / 64, err, sizeof(err));
            for (unsigned f = 0; f < 64; f++) {
                const int r = video_input_read(in, &pic, err, sizeof(err));
                if (r != 1) break;
                check_range(&pic);
            }
            vmaf_picture_unref(&pic);
        }
        video_input_close(in);
    }
    close(fd);
    return 0;
}
