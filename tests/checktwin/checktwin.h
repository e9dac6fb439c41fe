/*
 * checktwin: every GPU twin against its CPU extractor, like dav1d's checkasm.
 *
 * One harness (checktwin.c: seeding, frame sources, the compare-and-report loop, the bench
 * timer) and one file per family of twins (psnr_motion.c, vif.c, adm.c, cambi.c, ciede.c,
 * float.c, speed.c, ssim.c). A family adds cases with checktwin_case(); each case runs the
 * same frames through a CPU context and a CUDA context, both write their complete output
 * (%.17g: every metric, frame, pooled value and aggregate), and the two files must be
 * identical apart from the fps line. On failure the case, the first differing line and the
 * seed are printed; `--seed N` replays a run.
 */
#ifndef VMAF_TESTS_CHECKTWIN_H
#define VMAF_TESTS_CHECKTWIN_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"

typedef struct CheckRng {
    uint64_t s;
} CheckRng;

uint32_t checktwin_rand(CheckRng *r);

/** Synthetic frames: random, extremes (0 vs max), checkerboard, noise around mid-grey,
 *  ramps; one frame in seven has dist == ref. */
enum CheckPattern { PAT_RANDOM, PAT_EXTREME, PAT_CHECKER, PAT_NOISE, PAT_FLAT, PAT_COUNT };

/** Real content: frames of a shared clip, resampled to the case's size and bit depth. */
typedef struct CheckClip {
    const char *name;        /* e.g. "boats_576x324_420p" (file NAME_ref.yuv / NAME_dis.yuv) */
    unsigned w, h, bpc, frames;
    enum VmafPixelFormat fmt;
} CheckClip;

/** What the distorted picture of a real-content case is. */
enum CheckDistortion {
    DIST_CODEC,    /* the clip's own distorted file (a real codec or filter) */
    DIST_BLUR,     /* 3x3 box blur of the reference */
    DIST_NOISE,    /* reference + seeded noise of +-(max/16) */
    DIST_QUANT,    /* reference quantised to 1/16 of its levels */
};

/** Where pictures come from: vmaf_picture_alloc (pageable), or the CUDA pool. */
enum CheckSource { SRC_PAGEABLE, SRC_PINNED, SRC_DEVICE, SRC_COUNT };

typedef struct CheckCase {
    unsigned w, h, bpc, frames, subsample;
    enum VmafPixelFormat fmt;
    bool graph;
    const char *const *features; /* NULL-terminated "name[=k=v:...]" */
    const char *model;           /* a built-in model version, or NULL */
    const CheckClip *clip;       /* real content, or NULL for the synthetic patterns */
    enum CheckDistortion distortion;
    enum CheckSource source;
    unsigned threads;            /* n_threads of both contexts */
} CheckCase;

enum CheckBackend { CHECK_CUDA, CHECK_OPENCL };

typedef struct CheckEnv {
    enum CheckBackend backend;
    VmafCudaState *state;        /* CHECK_CUDA */
    VmafOpenCLState *cl_state;   /* CHECK_OPENCL */
    bool all_on_device;          /* a case fails when an extractor with a twin ran on the CPU */
    const char *allow_cpu;       /* EXTRACTOR[,...] exempt from all_on_device (NULL: none) */
    unsigned n_off_device;       /* cases in which one did */
    const char *dir;             /* scratch directory for the output files */
    const char *clips;           /* decompressed clips (NAME_ref.yuv), or NULL: no real content */
    uint64_t seed;
    bool quick, bench;
    unsigned n_cases, n_failed, n_refused;
} CheckEnv;

/** Run one case on the CPU and on the GPU and compare the outputs; counts and reports. */
void checktwin_case(CheckEnv *env, const CheckCase *c);

/** Two CUDA contexts of different geometry interleaved on one state, each against the CPU. */
void checktwin_shared_state(CheckEnv *env, const char *const *features, const char *model);

/** The shared clips (MANIFEST.tsv's geometry), for real-content cases. */
extern const CheckClip checktwin_clips[];
extern const unsigned checktwin_n_clips;
const CheckClip *checktwin_clip(const char *name);

/** Time `frames` frames of a case on the GPU with VMAF_CUDA_PROFILE=ops (prints the per-operation profile). */
void checktwin_bench(CheckEnv *env, const CheckCase *c);

/* The families. */
void checktwin_psnr_motion(CheckEnv *env);
void checktwin_vif(CheckEnv *env);
void checktwin_adm(CheckEnv *env);
void checktwin_speed(CheckEnv *env);
void checktwin_float(CheckEnv *env);
void checktwin_ssim(CheckEnv *env);
void checktwin_cambi(CheckEnv *env);
void checktwin_ciede(CheckEnv *env);

#endif /* VMAF_TESTS_CHECKTWIN_H */
