/* video_input_read_at (the CLI's parallel readers) against in-order video_input_read: raw and
 * Y4M files, odd sizes, 8 and 10 bit, after skips; files it must refuse or leave in order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/picture.h"
#include "video_input.h"
#include "test_util.h"

#define EXPECT(c) CHECK(c, "check failed")

/* Writes n frames of w x h (ceil chroma) with a per-frame pattern; y4m selects the format. */
static void write_file(const char *path, unsigned w, unsigned h, unsigned bpc, unsigned n,
                       int y4m, const char *frame_line)
{
    FILE *f = fopen(path, "wb");
    if (y4m)
        fprintf(f, "YUV4MPEG2 W%u H%u F25:1 C%s\n", w, h, bpc == 8 ? "420jpeg" : "420p10");
    const unsigned cw = (w + 1) / 2, ch = (h + 1) / 2, bytes = bpc > 8 ? 2 : 1;
    for (unsigned k = 0; k < n; k++) {
        if (y4m) fputs(frame_line && k == n / 2 ? frame_line : "FRAME\n", f);
        const size_t samples = (size_t)w * h + 2 * (size_t)cw * ch;
        for (size_t i = 0; i < samples; i++) {
            const unsigned v = (unsigned)((i * 7 + k * 131) % (1u << bpc));
            if (bytes == 1) fputc((int)v, f);
            else { fputc((int)(v & 0xff), f); fputc((int)(v >> 8), f); }
        }
    }
    fclose(f);
}

static int same_picture(const VmafPicture *a, const VmafPicture *b)
{
    for (unsigned p = 0; p < 3; p++)
        for (unsigned y = 0; y < a->h[p]; y++)
            if (memcmp((const uint8_t *)a->data[p] + y * a->stride[p],
                       (const uint8_t *)b->data[p] + y * b->stride[p],
                       (size_t)a->w[p] * (a->bpc > 8 ? 2 : 1)))
                return 0;
    return 1;
}

static void check_file(const char *path, unsigned w, unsigned h, unsigned bpc, unsigned n,
                       int y4m, unsigned skip)
{
    const VideoInfo raw = { w, h, bpc, VMAF_PIX_FMT_YUV420P };
    char msg[512];
    VideoInput *seq, *par;
    EXPECT(!video_input_open(&seq, path, y4m ? NULL : &raw, msg, sizeof(msg)));
    EXPECT(!video_input_open(&par, path, y4m ? NULL : &raw, msg, sizeof(msg)));
    EXPECT(video_input_can_read_at(par));
    EXPECT(video_input_skip(seq, skip, msg, sizeof(msg)) == (int)skip);
    EXPECT(video_input_skip(par, skip, msg, sizeof(msg)) == (int)skip);
    const unsigned long long base = video_input_next_index(par);
    EXPECT(base == skip);
    for (unsigned k = skip; k < n; k++) {
        VmafPicture a, b;
        vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, bpc, w, h);
        vmaf_picture_alloc(&b, VMAF_PIX_FMT_YUV420P, bpc, w, h);
        EXPECT(video_input_read(seq, &a, msg, sizeof(msg)) == 1);
        /* read backwards through the file: order must not matter */
        const unsigned back = n - 1 - (k - skip);
        VmafPicture c;
        vmaf_picture_alloc(&c, VMAF_PIX_FMT_YUV420P, bpc, w, h);
        EXPECT(video_input_read_at(par, back, &c, msg, sizeof(msg)) == 1);
        EXPECT(video_input_read_at(par, k, &b, msg, sizeof(msg)) == 1);
        EXPECT(same_picture(&a, &b));
        vmaf_picture_unref(&a);
        vmaf_picture_unref(&b);
        vmaf_picture_unref(&c);
    }
    VmafPicture a;
    vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    EXPECT(video_input_read_at(par, n, &a, msg, sizeof(msg)) == 0);
    EXPECT(video_input_read(seq, &a, msg, sizeof(msg)) == 0);
    vmaf_picture_unref(&a);
    video_input_close(seq);
    video_input_close(par);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char path[1024];
    static const unsigned geo[][3] = { { 33, 17, 8 }, { 64, 32, 10 }, { 1, 1, 8 }, { 257, 145, 10 } };
    for (unsigned g = 0; g < 4; g++) {
        for (int y4m = 0; y4m < 2; y4m++) {
            snprintf(path, sizeof(path), "%s/read_at_%u.%s", dir, g, y4m ? "y4m" : "yuv");
            write_file(path, geo[g][0], geo[g][1], geo[g][2], 7, y4m, NULL);
            check_file(path, geo[g][0], geo[g][1], geo[g][2], 7, y4m, g & 1 ? 2 : 0);
        }
    }
    /* a FRAME line with parameters: the sizes no longer divide, so in-order reading only */
    snprintf(path, sizeof(path), "%s/read_at_params.y4m", dir);
    write_file(path, 16, 8, 8, 5, 1, "FRAME Ip\n");
    char msg[512];
    VideoInput *in;
    EXPECT(!video_input_open(&in, path, NULL, msg, sizeof(msg)));
    EXPECT(!video_input_can_read_at(in));
    VmafPicture p;
    vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 16, 8);
    EXPECT(video_input_read_at(in, 0, &p, msg, sizeof(msg)) == -22);
    EXPECT(strstr(msg, "cannot be read at an index") != NULL);
    vmaf_picture_unref(&p);
    video_input_close(in);
    /* same size, wrong magic in the middle frame: refused by read_at with a clear message */
    snprintf(path, sizeof(path), "%s/read_at_bad.y4m", dir);
    write_file(path, 16, 8, 8, 5, 1, "FRAMX\n");
    EXPECT(!video_input_open(&in, path, NULL, msg, sizeof(msg)));
    EXPECT(video_input_can_read_at(in));
    vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 16, 8);
    EXPECT(video_input_read_at(in, 1, &p, msg, sizeof(msg)) == 1);
    EXPECT(video_input_read_at(in, 2, &p, msg, sizeof(msg)) == -22);
    EXPECT(strstr(msg, "bad FRAME header at frame 2") != NULL);
    vmaf_picture_unref(&p);
    video_input_close(in);
    /* pipes and devices: in order only */
    const VideoInfo raw = { 16, 8, 8, VMAF_PIX_FMT_YUV420P };
    if (!video_input_open(&in, "/dev/zero", &raw, msg, sizeof(msg))) {
        EXPECT(!video_input_can_read_at(in));
        video_input_close(in);
    }
    printf("read_at: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
