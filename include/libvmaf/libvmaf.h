/*
 * Twin VMAF — the public API (drop-in for Netflix libvmaf 3.2.0).
 *
 * Every function returns 0 on success or a negative errno. A context scores one pair of
 * sequences: register features (vmaf_use_feature), feed picture pairs (vmaf_read_pictures),
 * flush with two NULL pictures, then query scores or write an output file.
 */
#ifndef VMAF_LIBVMAF_H
#define VMAF_LIBVMAF_H

#include <stddef.h>
#include <stdint.h>

#include "feature.h"
#include "model.h"
#include "picture.h"

#ifdef __cplusplus
extern "C" {
#endif

enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN,
    VMAF_POOL_METHOD_NB,
};

typedef struct VmafConfiguration {
    enum VmafLogLevel log_level; /**< messages up to this level go to stderr */
    unsigned n_threads;          /**< 0: extract in the calling thread; N: N worker threads, frames in parallel */
    unsigned n_subsample;        /**< >1: extract only when index % n_subsample == 0 */
    uint64_t cpumask;            /**< SIMD disable mask (accepted; the C path is always exact) */
    uint64_t gpumask;            /**< nonzero disables CUDA */
} VmafConfiguration;

typedef struct VmafContext VmafContext;

/** Create a context. */
int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/**
 * Register the feature extractor `feature_name` (e.g. "psnr", "motion") with options.
 * Takes ownership of opts_dict unless the name is unknown (-EINVAL, dictionary untouched).
 * Bad option values give -EINVAL. An extractor whose name and non-default feature
 * parameters equal an already registered one is silently dropped.
 */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/**
 * Register the feature extractors a model needs, each with the model's options for it
 * (after any vmaf_model_feature_overload()). Features several models share are extracted
 * once. Call before the first picture. The context keeps no reference to the model.
 * @return 0, -EINVAL (no extractor provides a model feature, bad option value, or pictures
 *         were already read), -ENOMEM
 */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/** vmaf_use_features_from_model() for every member of a model collection. */
int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/** Store an externally computed score for `feature_name` at `index`. */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/**
 * Score one pair of pictures. Takes ownership of both (they are unref'd by the library).
 * All pairs must match the first one's size, format and depth. Both NULL flushes the
 * context (temporal outputs such as motion2/motion3 are written); later reads give -EINVAL.
 * A host picture of 9..15 bits with a sample above (1 << bpc) - 1 is refused (-EINVAL, and a
 * log line naming the picture, plane and sample); pictures in CUDA device memory are not
 * scanned.
 */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/** The score of `feature_name` (internal name, not the output alias) at `index`. */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/**
 * Pool `feature_name` over [index_low, index_high] (skipping subsampled indices).
 * Fails if any value in the range is missing, or if the range holds no scored index.
 */
int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

/**
 * The model's score at `index`: the stored one if this model (by name) was scored there
 * already, else predicted from the features stored at `index` and stored under the model's
 * name (so it appears in the output). Call after the features of `index` are complete
 * (after the flush for the last frames: motion2 is written then).
 * @return 0, -EINVAL (a feature is missing at index, bad argument), -ENOMEM
 */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score, unsigned index);

/**
 * Bootstrap score of a model collection at `index`. Stores each member's score under its
 * name ("<name>_0001", ...) and "<name>_bagging", "<name>_stddev", "<name>_ci_p95_lo",
 * "<name>_ci_p95_hi". Asked again for the same index, returns the stored values.
 */
int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score, unsigned index);

/**
 * Score every index in [index_low, index_high] (skipping subsampled ones) with
 * vmaf_score_at_index(), then pool the model's scores over that range.
 */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

/**
 * Score every index in the range with vmaf_score_at_index_model_collection(), then pool
 * the bagging score, stddev and confidence bounds over it.
 */
int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

/** Create a pool of pic_cnt pictures for vmaf_fetch_preallocated_picture(). */
int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg);

/** Take a picture from the pool; blocks until one is unref'd if all are in use. */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/** Wait for outstanding work and free everything. */
int vmaf_close(VmafContext *vmaf);

/**
 * Write every score to output_path as XML, JSON, CSV or SUB. The file is written to a
 * temporary name beside it and renamed into place, so no half-written file remains.
 */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/** The version string ("git describe" of the build, or "3.2.0"). */
const char *vmaf_version(void);

/* ---- Segments: score a title in pieces, anywhere, and merge them ---------------------------
 *
 * A title of N frames is cut into segments [first, last); each is scored by its own context
 * (any process, host, GPU) and written as a segment result; vmaf_segment_merge() turns the
 * results into exactly the output file that one run over the whole title writes: every value,
 * the metric order, the pooled values, the aggregates (apsnr), the model scores and bootstrap.
 *
 * A segment context reads the frames of context its extractors need around the segment
 * (motion's previous frame or two, float_motion's next one, ...): their scores are computed
 * and dropped. Cross-frame results (motion2/motion3 of the integer motion, apsnr) are not
 * computed by segments but by the merge, through the extractor's own flush, from the merged
 * per-frame scores and the counters each part recorded.
 *
 * The merge re-creates the models from what the parts recorded (built-in version or file
 * path -- made absolute -- name, flags, overloads, collection) and scores them as the vmaf
 * CLI does: each model pooled (mean) over all frames in registration order, then each
 * collection. Models must come from vmaf_model_load*() / vmaf_model_collection_load*().
 *
 * Additions to the contract of issue #15 (all extra, nothing changed):
 * vmaf_segment_set_prediction(), vmaf_segment_set_title_frames(),
 * vmaf_segment_merge_with_precision(), and the results in memory: vmaf_segment_write_buffer(),
 * vmaf_segment_buffer_free(), vmaf_segment_merge_buffers(); vmaf_segment_set_fingerprint().
 *
 * The merge validates every field of every part before using it (geometry within the
 * library's limits, bit depth 8..16, pixel format, frame counts and context, names, the
 * library version that wrote it -- even for a lone part -- and the title fingerprint) and
 * refuses a bad part with -EINVAL and one message naming the part and the field.
 */

/**
 * Frames of context the registered extractors need around a segment: call after every model
 * and feature is registered, before the first picture. The values depend on the options
 * (e.g. motion_five_frame_window needs two frames before).
 */
int vmaf_segment_context(VmafContext *vmaf, unsigned *frames_before, unsigned *frames_after);

/**
 * This context scores frames [first, last) of a title (first < last). Call before the first
 * vmaf_read_pictures(). The caller then passes pictures with their title frame index as
 * `index`, from first - min(before, first) up to min(last + after, title length) - 1, in
 * order, then flushes with vmaf_read_pictures(vmaf, NULL, NULL, 0). Scores of context frames
 * are not kept; n_subsample counts title indices.
 */
int vmaf_segment_set(VmafContext *vmaf, unsigned first, unsigned last);

/**
 * Whether the merge writes model scores (default 1). 0 is the CLI's --no_prediction: the
 * models' extractors run, their scores are not predicted. Call before vmaf_segment_write().
 */
int vmaf_segment_set_prediction(VmafContext *vmaf, int predict);

/**
 * Optional: what the caller knows of the title's length, recorded in the segment result: it
 * has exactly `frames` frames (exact = 1), or at least `frames` (exact = 0, e.g. a frame past
 * the segment's context was seen). The merge refuses parts that contradict the title the
 * parts tile (so a missing last segment is found). Call before vmaf_segment_write().
 */
int vmaf_segment_set_title_frames(VmafContext *vmaf, unsigned frames, int exact);

/**
 * Optional: the caller's fingerprint of the title (1..255 printable ASCII characters, e.g. a
 * hash of its inputs), recorded in the segment result. The merge refuses parts whose
 * fingerprints differ, and a part with one beside a part without: parts of another title
 * with the same options are not merged. The vmaf CLI and twinvmaf record
 * "ref=SIZE:CRC,dist=SIZE:CRC,skip=A:B" (README: the title fingerprint). NULL removes it.
 * Call before vmaf_segment_write().
 */
int vmaf_segment_set_fingerprint(VmafContext *vmaf, const char *fingerprint);

/**
 * After the flush: write the segment result to path (a JSON file of Twin VMAF's own; every
 * double as the hex of its 64 bits, so the merge is exact). Refused (-EINVAL, with a message)
 * when the frames passed did not cover the segment and its context before it.
 */
int vmaf_segment_write(VmafContext *vmaf, const char *path);

/**
 * vmaf_segment_write() into memory: on success *data holds the segment result (the bytes
 * vmaf_segment_write() puts in its file, NUL-terminated; *size excludes the NUL), to be
 * released with vmaf_segment_buffer_free(). On failure *data is NULL and *size 0. For
 * segments scored in one process (the vmaf CLI's --split) or sent over a network as bytes.
 */
int vmaf_segment_write_buffer(VmafContext *vmaf, char **data, size_t *size);

/** Release a result of vmaf_segment_write_buffer(). NULL is a no-op. */
void vmaf_segment_buffer_free(char *data);

/**
 * vmaf_segment_merge_with_precision() over segment results in memory: part i is the size[i]
 * bytes at data[i] (from vmaf_segment_write_buffer(), or a result file's contents); names
 * (NULL, or NULL entries: "(part i in memory)") name the parts in messages. The same checks,
 * the same output file, byte for byte.
 */
int vmaf_segment_merge_buffers(const char *const *data, const size_t *size,
                               const char *const *names, unsigned n_parts,
                               const char *output_path, enum VmafOutputFormat fmt,
                               int precision);

/**
 * Merge segment results (any order of parts) into the output file a single run of the whole
 * title writes, in format fmt, numbers as the reference prints them. A missing or
 * overlapping part, or one that differs from the others (extractors and their options,
 * models, n_subsample, threading mode, geometry, context, title fingerprint), or one written
 * by another library version, is refused with a clear message and -EINVAL; nothing is
 * written then.
 */
int vmaf_segment_merge(const char *const *parts, unsigned n_parts, const char *output_path,
                       enum VmafOutputFormat fmt);

/** vmaf_segment_merge() with the CLI's --precision: < 0 the reference format, 1..17 %.<p>g. */
int vmaf_segment_merge_with_precision(const char *const *parts, unsigned n_parts,
                                      const char *output_path, enum VmafOutputFormat fmt,
                                      int precision);

/* ---- Ladders: one reference against several distorted streams, in one pass ---------------
 *
 * An encoding ladder (one source, many renditions), a CRF search (one sample, encode after
 * encode): each distorted stream k is scored by its own context, its "rung", set up exactly
 * as for a single pair (vmaf_init, features, models, an imported device state), and the
 * rungs read their pictures together through the ladder. Each rung's scores, pooled values
 * and output file are those the rung would give alone, bit for bit (its metric order too);
 * what depends only on the reference is done once per frame for every rung that needs it:
 * the extractors that read only the reference and finish from their per-frame scores
 * (motion, motion_v2) run once for all rungs on the CPU path with equal options and
 * n_subsample. A rung with a device state scores on it as alone.
 *
 * Memory grows linearly with the rungs: each holds what its single-pair context holds
 * (collector, extractors, pictures in flight, device buffers); the shared extractors' state
 * and one reference history exist once.
 */
typedef struct VmafLadder VmafLadder;

/**
 * Make a ladder of n >= 1 rungs (distinct contexts that have read no picture yet; rungs of a
 * segment, vmaf_segment_set(), share no extractor but still the reference picture). The
 * ladder does not own them: close the ladder, then the rungs (a rung
 * closed first leaves the ladder). A rung's pictures come only through the ladder after
 * this (vmaf_read_pictures() on it gives -EINVAL); it is written, pooled and queried as any
 * context.
 */
int vmaf_ladder_init(VmafLadder **ladder, VmafContext *const *rung, unsigned n);

/**
 * Score one frame: ref against dist[k] in rung k, for every rung still in the ladder.
 * dist[k] with a NULL ref field means rung k's distorted ended before this index: the rung
 * is flushed (as a single run ends where its shorter input does) and leaves the ladder,
 * complete. A rung whose scoring fails leaves the ladder unflushed; the others go on.
 * The ladder takes every picture it is given (ref and each dist[k]), on success and on
 * failure. status (NULL, or n entries): per rung, 0 or the negative errno of its failure
 * at this call (a rung already out: -ENOENT).
 * ref and dist both NULL: flush every rung still in the ladder (vmaf_read_pictures()'
 * flush), after which the rungs' scores are complete.
 * Returns 0 when every rung that took part succeeded, else the first failure's errno.
 */
int vmaf_ladder_read_pictures(VmafLadder *ladder, VmafPicture *ref, VmafPicture *dist,
                              int *status, unsigned index);

/** Rungs still in the ladder (not out by a NULL picture or a failure). */
unsigned vmaf_ladder_rungs_left(const VmafLadder *ladder);

/** Free the ladder (its rungs stay, each with what it scored). */
int vmaf_ladder_close(VmafLadder *ladder);

/*
 * Reports (a Twin VMAF addition): one self-contained HTML file (inline SVG, no network) of
 * per-frame curves, pooled scores and worst frames, one rendition per JSON output file
 * (ours or reference libvmaf's); the rules it draws by are in the file and the README.
 */

/**
 * Write the report of json_path[0..n) (n >= 1; several: a ladder, one curve each per metric)
 * to report_path, atomically as vmaf_write_output() writes, never over one of the JSON
 * files. fps_num / fps_den: the frame rate for time codes (fps_num or fps_den 0: none).
 * 0 or a negative errno (a file that is not such an output: -EINVAL, the reason logged).
 */
int vmaf_report_from_json(const char *const *json_path, unsigned n, const char *report_path,
                          unsigned fps_num, unsigned fps_den);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_LIBVMAF_H */
