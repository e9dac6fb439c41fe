/* The `vmaf` command line tool: reads two videos into pool pictures and scores them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "cli.h"
#include "feature/feature_extractor.h"
#include "output.h"
#include "video_input.h"

/* Exit statuses (CONTRACT.md §2). */
#define EXIT_USAGE 1
#define EXIT_SETUP 255

static int read_status(int err)
{
    return (-err) & 0xff;
}

static const char *pix_fmt_name(enum VmafPixelFormat f)
{
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return "420";
    case VMAF_PIX_FMT_YUV422P: return "422";
    case VMAF_PIX_FMT_YUV444P: return "444";
    case VMAF_PIX_FMT_YUV400P: return "400";
    default: return "unknown";
    }
}

static int open_input(const CliSettings *c, const char *path, VideoInput **in)
{
    char msg[512];
    const VideoInfo raw = {
        .w = c->width, .h = c->height, .bpc = c->bitdepth, .pix_fmt = c->pix_fmt,
    };
    int err = video_input_open(in, path, c->use_yuv ? &raw : NULL, msg, sizeof(msg));
    if (err) fprintf(stderr, "%s\n", msg);
    return err;
}

static int check_compatible(VideoInput *ref, VideoInput *dist)
{
    VideoInfo a, b;
    video_input_info(ref, &a);
    video_input_info(dist, &b);
    if (a.w == b.w && a.h == b.h && a.pix_fmt == b.pix_fmt && a.bpc == b.bpc) return 0;
    fprintf(stderr, "videos are incompatible: reference %ux%u %s %u-bit, distorted %ux%u %s %u-bit\n",
            a.w, a.h, pix_fmt_name(a.pix_fmt), a.bpc, b.w, b.h, pix_fmt_name(b.pix_fmt), b.bpc);
    return -EINVAL;
}

/* Output must be creatable before hours of scoring, not after. */
static int check_output_writable(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof(dir), ".");
    else if (slash == path) snprintf(dir, sizeof(dir), "/");
    else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    if (!access(path, F_OK)) {
        if (access(path, W_OK)) goto fail;
        return 0;
    }
    if (access(dir, W_OK | X_OK)) goto fail;
    return 0;
fail:
    fprintf(stderr, "cannot write output file %s: %s\n", path, strerror(errno));
    return -errno;
}

/* 1: a frame is in pic; 0: end of file; < 0: error (message printed). */
static int fetch_frame(VmafContext *vmaf, VideoInput *in, VmafPicture *pic)
{
    int err = vmaf_fetch_preallocated_picture(vmaf, pic);
    if (err) {
        fprintf(stderr, "could not get a picture from the pool: %s\n", strerror(-err));
        return err;
    }
    char msg[512];
    const int ret = video_input_read(in, pic, msg, sizeof(msg));
    if (ret < 0) fprintf(stderr, "%s\n", msg);
    if (ret != 1) vmaf_picture_unref(pic);
    return ret;
}

static int skip_frames(VmafContext *vmaf, VideoInput *in, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        VmafPicture pic;
        const int ret = fetch_frame(vmaf, in, &pic);
        if (ret < 0) return ret;
        if (!ret) break;
        vmaf_picture_unref(&pic);
    }
    return 0;
}

static int load_models(VmafContext *vmaf, const CliSettings *c)
{
    (void)vmaf;
    for (unsigned i = 0; i < c->model_cnt; i++) {
        const CliModel *m = &c->model[i];
        fprintf(stderr, "problem loading model: %s: VMAF models are not supported by this "
                "build yet (use --no_prediction with --feature)\n",
                m->version ? m->version : m->path);
        return -ENOTSUP;
    }
    return 0;
}

static int use_features(VmafContext *vmaf, CliSettings *c)
{
    for (unsigned i = 0; i < c->feature_cnt; i++) {
        CliFeature *f = &c->feature[i];
        /* the context owns the options now, unless it does not know the extractor */
        const bool known = vmaf_feature_extractor_by_name(f->name) != NULL;
        const int err = vmaf_use_feature(vmaf, f->name, f->opts);
        if (known) f->opts = NULL;
        if (err) {
            fprintf(stderr, "problem loading feature extractor: %s\n", f->name);
            return err;
        }
    }
    return 0;
}

static void show_progress(unsigned index, clock_t t0, double *fps)
{
    static const char spinner[] = "|/-\\";
    if (index > 0 && !(index % 10))
        *fps = (index + 1) / ((double)(clock() - t0) / CLOCKS_PER_SEC);
    fprintf(stderr, "\r%u frame%s %c %.2f FPS\033[K", index + 1, index ? "s" : " ",
            spinner[index % 4], *fps);
    fflush(stderr);
}

static int score(CliSettings *c, VideoInput *ref_in, VideoInput *dist_in, int istty)
{
    VideoInfo info;
    video_input_info(ref_in, &info);

    VmafConfiguration cfg = {
        .log_level = VMAF_LOG_LEVEL_INFO,
        .n_threads = c->threads,
        .n_subsample = c->subsample,
        .cpumask = c->cpumask,
        .gpumask = c->gpumask,
    };
    VmafContext *vmaf;
    int err = vmaf_init(&vmaf, cfg);
    if (err) {
        fprintf(stderr, "problem initializing VMAF context: %s\n", strerror(-err));
        return EXIT_SETUP;
    }
    int status = 0;

    const VmafPictureConfiguration pic_cfg = {
        .pic_params = { .w = info.w, .h = info.h, .bpc = info.bpc, .pix_fmt = info.pix_fmt },
        .pic_cnt = c->threads ? 2 * (c->threads + 1) + 1 : 4,
    };
    err = vmaf_preallocate_pictures(vmaf, pic_cfg);
    if (err) {
        fprintf(stderr, "problem preallocating pictures: %s\n", strerror(-err));
        status = EXIT_SETUP;
        goto close;
    }
    if (istty && !c->quiet)
        fprintf(stderr, "picture pool: %u pictures pre-allocated\n", pic_cfg.pic_cnt);

    if (load_models(vmaf, c) || use_features(vmaf, c)) {
        status = EXIT_SETUP;
        goto close;
    }

    err = skip_frames(vmaf, ref_in, c->frame_skip_ref);
    if (!err) err = skip_frames(vmaf, dist_in, c->frame_skip_dist);
    if (err) {
        status = read_status(err);
        goto close;
    }

    const clock_t t0 = clock();
    double fps = 0.;
    unsigned index = 0;
    for (;; index++) {
        if (c->frame_cnt && index >= c->frame_cnt) break;
        VmafPicture ref, dist;
        const int r1 = fetch_frame(vmaf, ref_in, &ref);
        if (r1 < 0) {
            status = read_status(r1);
            break;
        }
        const int r2 = fetch_frame(vmaf, dist_in, &dist);
        if (r2 < 0) {
            if (r1 == 1) vmaf_picture_unref(&ref);
            status = read_status(r2);
            break;
        }
        if (!r1 || !r2) {
            if (r1 != r2)
                fprintf(stderr, "\"%s\" ended before \"%s\".\n", r1 ? c->path_dist : c->path_ref,
                        r1 ? c->path_ref : c->path_dist);
            if (r1 == 1) vmaf_picture_unref(&ref);
            if (r2 == 1) vmaf_picture_unref(&dist);
            break;
        }
        if (istty && !c->quiet) show_progress(index, t0, &fps);
        err = vmaf_read_pictures(vmaf, &ref, &dist, index);
        if (err) {
            fprintf(stderr, "%sproblem scoring frame %u: %s\n", istty && !c->quiet ? "\n" : "",
                    index, strerror(-err));
            status = read_status(err);
            break;
        }
    }
    if (istty && !c->quiet) fprintf(stderr, "\n");
    if (status) goto close;
    if (!index) {
        fprintf(stderr, "no frames to score\n");
        status = EXIT_SETUP;
        goto close;
    }

    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        fprintf(stderr, "problem flushing context: %s\n", strerror(-err));
        status = read_status(err);
        goto close;
    }

    if (c->output_path) {
        err = vmaf_write_output_with_precision(vmaf, c->output_path, c->output_fmt, c->precision);
        if (err) {
            fprintf(stderr, "problem writing output file %s: %s\n", c->output_path,
                    strerror(-err));
            status = EXIT_SETUP;
        }
    }
close:
    vmaf_close(vmaf);
    return status;
}

int main(int argc, char *argv[])
{
    const int istty = isatty(fileno(stderr));
    CliSettings c;
    cli_parse(argc, argv, &c);
    if (istty && !c.quiet) fprintf(stderr, "VMAF version %s\n", vmaf_version());

    int status = EXIT_SETUP;
    VideoInput *ref = NULL, *dist = NULL;
    if (c.output_path && check_output_writable(c.output_path)) goto done;
    if (open_input(&c, c.path_ref, &ref) || open_input(&c, c.path_dist, &dist)) goto done;
    if (check_compatible(ref, dist)) goto done;
    status = score(&c, ref, dist, istty);
done:
    if (ref) video_input_close(ref);
    if (dist) video_input_close(dist);
    cli_free(&c);
    return status;
}
