/* float_motion on the GPU: the blurred planes and their row sums on the device
 * (float_motion.cu); the means, the scores and flush from float_motion.c with its state.
 * Each frame blurs its own reference and the previous one (read from the previous frame's
 * slot), so frames in different slots never wait for each other's kernels. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/float_filter.h"
#include "feature/float_motion.h"

typedef struct FloatMotionTwin {
    VmafGpuKernel blur, rows, scale, scaled_rows;
    unsigned n_slots, n_planes;
    size_t blur_floats[3];     /* per picture and plane: stride * h */
    size_t scaled_floats[3];   /* scaled_stride * dst_h */
    size_t row_offset[3], scaled_row_offset[3], n_rows; /* floats in a slot's row block */
    VmafGpuPtr blur_buf[3];   /* [slot][picture] planes */
    VmafGpuPtr scaled_buf[3]; /* [slot][picture] half-size planes */
    VmafGpuPtr tables[3];     /* col_index, col_weight, row_index, row_weight of plane p */
    VmafGpuPtr rows_buf;      /* float [slot][n_rows] */
    float *host;               /* pinned [slot][n_rows] */
} FloatMotionTwin;

static int upload(VmafGpuDevice *dev, VmafGpuPtr dst, const void *src, size_t bytes)
{
    return vmaf_gpu_write(dev, dst, src, bytes);
}

static int float_motion_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    FloatMotionTwin *t = priv;
    const FloatMotionState *m = cpu_priv;
    VmafGpuDevice *dev = setup->dev;
    t->n_slots = setup->n_slots;
    t->n_planes = m->n_planes;
    setup->needs_chroma = m->n_planes > 1;
    int err = vmaf_gpu_kernel(dev, setup->geometry.bpc > 8 ? "vmaf_float_motion_blur_16"
                              : "vmaf_float_motion_blur_8", &t->blur);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_motion_rows", &t->rows);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_motion_scale", &t->scale);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_motion_scaled_rows", &t->scaled_rows);
    for (unsigned p = 0; !err && p < t->n_planes; p++) {
        t->blur_floats[p] = m->stride * m->h[p];
        t->row_offset[p] = t->n_rows;
        t->n_rows += m->h[p];
        /* zeroed: the CPU's planes are calloc'ed and motion_add_scale1 reads chroma rows with
         * a narrower stride than they are stored with, into the unwritten ends of rows */
        const size_t bytes = t->n_slots * 2 * t->blur_floats[p] * sizeof(float);
        err = vmaf_gpu_alloc(dev, bytes, &t->blur_buf[p]);
        if (!err)
            err = vmaf_gpu_clear(dev, t->blur_buf[p], bytes);
        if (err || !m->opt.add_scale1) continue;
        const VmafSpeedScaler *sc = &m->scaler[p];
        t->scaled_floats[p] = m->scaled_stride * sc->dst_h;
        t->scaled_row_offset[p] = t->n_rows;
        t->n_rows += sc->dst_h;
        err = vmaf_gpu_alloc(dev, t->n_slots * 2 * t->scaled_floats[p] * sizeof(float),
                             &t->scaled_buf[p]);
        if (err || sc->copy) continue;
        const size_t cols = 2 * (size_t)sc->dst_w, rows = 2 * (size_t)sc->dst_h;
        err = vmaf_gpu_alloc(dev, (cols + rows) * 2 * sizeof(float), &t->tables[p]);
        if (!err) err = upload(dev, t->tables[p], sc->col_index, cols * sizeof(int));
        if (!err) err = upload(dev, t->tables[p] + cols * 4, sc->col_weight, cols * sizeof(float));
        if (!err) err = upload(dev, t->tables[p] + cols * 8, sc->row_index, rows * sizeof(int));
        if (!err)
            err = upload(dev, t->tables[p] + cols * 8 + rows * 4, sc->row_weight,
                         rows * sizeof(float));
    }
    if (!err) err = vmaf_gpu_alloc(dev, t->n_slots * t->n_rows * sizeof(float), &t->rows_buf);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, t->n_slots * t->n_rows * sizeof(float), (void **)&t->host);
    return err;
}

static int float_motion_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                                    const VmafGpuSlotView *view)
{
    FloatMotionTwin *t = priv;
    const FloatMotionState *m = cpu_priv;
    if (m->opt.force_zero) return 0;
    const VmafGpuPtr rows = t->rows_buf + view->slot * t->n_rows * sizeof(float);
    int err = 0;
    for (unsigned p = 0; !err && p < t->n_planes; p++) {
        const VmafGpuPtr blur = t->blur_buf[p] + view->slot * 2 * t->blur_floats[p] * sizeof(float);
        FloatMotionCudaArgs a = {
            .src = { view->prev_ref->data[p], view->ref->data[p] },
            .src_stride = view->ref->stride[p],
            .blur = { blur, blur + t->blur_floats[p] * sizeof(float) },
            .stride = m->stride, .w = m->w[p], .h = m->h[p], .bpc = view->ref->bpc,
            .fw = m->kernel_width,
            .rows = rows + t->row_offset[p] * sizeof(float),
        };
        memcpy(a.f, m->kernel, (size_t)m->kernel_width * sizeof(float));
        const VmafGpuLaunch blur_launch = {
            .grid = { (a.w + FLOAT_MOTION_CUDA_TILE_W - 1) / FLOAT_MOTION_CUDA_TILE_W,
                      (a.h + FLOAT_MOTION_CUDA_TILE_H - 1) / FLOAT_MOTION_CUDA_TILE_H, 2 },
            .block = { FLOAT_MOTION_CUDA_THREADS, 1, 1 },
        };
        const VmafGpuLaunch rows_launch = {
            .grid = { (a.h + FLOAT_ROW_SUM_ROWS - 1) / FLOAT_ROW_SUM_ROWS, 1, 1 },
            .block = { FLOAT_ROW_SUM_THREADS, 1, 1 },
        };
        err = vmaf_gpu_rec_kernel(rec, t->blur, blur_launch, &a, sizeof(a), "float_motion blur");
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->rows, rows_launch, &a, sizeof(a), "float_motion rows");
        if (err || !m->opt.add_scale1) continue;
        const VmafSpeedScaler *sc = &m->scaler[p];
        const VmafGpuPtr scaled =
            t->scaled_buf[p] + view->slot * 2 * t->scaled_floats[p] * sizeof(float);
        const size_t cols = 2 * (size_t)sc->dst_w, nrows = 2 * (size_t)sc->dst_h;
        a.scaled[0] = scaled;
        a.scaled[1] = scaled + t->scaled_floats[p] * sizeof(float);
        a.scaled_stride = m->scaled_stride;
        a.read_stride = vmaf_float_stride(m->w[p]);
        a.dst_w = sc->dst_w;
        a.dst_h = sc->dst_h;
        a.copy = sc->copy;
        if (!sc->copy) {
            a.col_index = t->tables[p];
            a.col_weight = t->tables[p] + cols * 4;
            a.row_index = t->tables[p] + cols * 8;
            a.row_weight = t->tables[p] + cols * 8 + nrows * 4;
        }
        a.scaled_rows = rows + t->scaled_row_offset[p] * sizeof(float);
        const VmafGpuLaunch scale_launch = {
            .grid = { (a.dst_w + FLOAT_MOTION_CUDA_THREADS - 1) / FLOAT_MOTION_CUDA_THREADS,
                      a.dst_h, 2 },
            .block = { FLOAT_MOTION_CUDA_THREADS, 1, 1 },
        };
        const VmafGpuLaunch srows_launch = {
            .grid = { (a.dst_h + FLOAT_ROW_SUM_ROWS - 1) / FLOAT_ROW_SUM_ROWS, 1, 1 },
            .block = { FLOAT_ROW_SUM_THREADS, 1, 1 },
        };
        err = vmaf_gpu_rec_kernel(rec, t->scale, scale_launch, &a, sizeof(a), "float_motion scale");
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->scaled_rows, srows_launch, &a, sizeof(a),
                                      "float_motion scaled rows");
    }
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + view->slot * t->n_rows, rows,
                                    t->n_rows * sizeof(float), "float_motion download");
    return err;
}

static int float_motion_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                     const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    FloatMotionTwin *t = priv;
    FloatMotionState *m = cpu_priv;
    double score = 0.;
    /* frame 0 compared its slot with a stale one: unused, as on the CPU */
    if (!m->opt.force_zero && frame->index) {
        const float *rows = t->host + slot * t->n_rows;
        for (unsigned p = 0; p < t->n_planes; p++) {
            float plane = vmaf_float_motion_mean_from_rows(rows + t->row_offset[p], m->w[p], m->h[p]);
            if (m->opt.add_scale1)
                plane += vmaf_float_motion_mean_from_rows(rows + t->scaled_row_offset[p],
                                                          m->scaler[p].dst_w, m->scaler[p].dst_h);
            score += plane;
        }
    }
    return vmaf_float_motion_store(m, score, frame->index, sink);
}

static void float_motion_twin_close(void *priv, VmafGpuDevice *dev)
{
    FloatMotionTwin *t = priv;
    for (unsigned p = 0; p < 3; p++) {
        vmaf_gpu_free(dev, t->blur_buf[p]);
        vmaf_gpu_free(dev, t->scaled_buf[p]);
        vmaf_gpu_free(dev, t->tables[p]);
    }
    vmaf_gpu_free(dev, t->rows_buf);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_float_motion = {
    .name = "float_motion",
    .priv_size = sizeof(FloatMotionTwin),
    .init = float_motion_twin_init,
    .record = float_motion_twin_record,
    .collect = float_motion_twin_collect,
    .close = float_motion_twin_close,
};
