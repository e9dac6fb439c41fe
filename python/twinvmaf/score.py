"""Scoring a title, or one segment of it, as the `vmaf` CLI does (tools/vmaf.c)."""
import os
import sys

from . import _files, _lib
from .binding import Context, ModelSpec, parse_feature, output_format as _fmt
from ._lib import VmafError
from .video import VideoFile, geometry_from

DEFAULT_MODEL = "version=vmaf_v0.6.1"
READ_AHEAD = 2  # the CLI's in-order read depth: only sizes the picture pool


class Options:
    """What the CLI's flags say, beyond the inputs: models, features and processing."""

    FIELDS = ("models", "features", "no_prediction", "threads", "subsample", "backend",
              "opencl_device", "frame_cnt", "frame_skip_ref", "frame_skip_dist", "cpumask",
              "gpumask", "output_format", "log_level", "pictures")
    BACKENDS = ("cpu", "cuda", "opencl", "auto")

    def __init__(self, models=None, features=(), no_prediction=False, threads=0, subsample=0,
                 backend="auto", frame_cnt=0, frame_skip_ref=0, frame_skip_dist=0, cpumask=0,
                 gpumask=0, output_format="xml", log_level=_lib.LOG_INFO, pictures="pool",
                 opencl_device=None):
        if models is None:  # the CLI: the default model unless -n
            models = [] if no_prediction else [DEFAULT_MODEL]
        elif isinstance(models, (str, dict, ModelSpec)):
            models = [models]
        self.models = [ModelSpec.parse(m) for m in models]
        names = [m.name for m in self.models]
        if len(set(names)) != len(names):
            raise VmafError(f"two models are named the same ({', '.join(names)}); give name=")
        self.features = [parse_feature(f) for f in features]
        self.no_prediction = bool(no_prediction)
        for k in ("threads", "subsample", "frame_cnt", "frame_skip_ref", "frame_skip_dist",
                  "cpumask", "gpumask"):
            v = locals()[k]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise VmafError(f"option {k}={v!r}: must be an unsigned integer")
            setattr(self, k, v)
        # backend: where features with GPU twins run, the scores the same either way: cuda,
        # opencl (device opencl_device, default 0), or auto (CUDA when a device answers, else
        # the first OpenCL GPU or the opencl_device named, else the CPU)
        if backend not in self.BACKENDS:
            raise VmafError(f"backend {backend!r} is not one of cpu, cuda, opencl, auto")
        if opencl_device is not None:
            if (not isinstance(opencl_device, int) or isinstance(opencl_device, bool) or
                    not 0 <= opencl_device < 1 << 31):
                raise VmafError(f"option opencl_device={opencl_device!r}: must be a device "
                                "index (0, 1, ...)")
            if backend not in ("opencl", "auto"):
                raise VmafError("opencl_device picks the device of backend opencl (or auto)")
        self.opencl_device = opencl_device
        if pictures not in ("pool", "alloc"):
            raise VmafError(f"pictures {pictures!r} is not one of pool, alloc")
        self.backend, self.pictures, self.log_level = backend, pictures, log_level
        _fmt(output_format)  # checked here, before any scoring
        self.output_format = output_format

    @classmethod
    def from_any(cls, opts):
        if isinstance(opts, Options):
            return opts
        return cls(**(opts or {}))

    def to_dict(self):
        d = {k: getattr(self, k) for k in self.FIELDS}
        d["models"] = [m.to_cli() for m in self.models]
        d["features"] = [(n, list(o)) for n, o in self.features]
        return d

    def cli_args(self):
        """The `vmaf` flags that mean the same (for comparisons and messages)."""
        a = []
        if self.no_prediction:
            a.append("-n")
        for m in self.models:
            a += ["-m", m.to_cli()]
        for name, opts in self.features:
            a += ["--feature", name + "".join(
                ("=" if i == 0 else ":") + f"{k}={_opt(v)}" for i, (k, v) in enumerate(opts))]
        for k in ("threads", "subsample", "frame_cnt", "frame_skip_ref", "frame_skip_dist"):
            if getattr(self, k):
                a += [f"--{k}", str(getattr(self, k))]
        a += ["--backend", self.backend, f"--{self.output_format}"]
        if self.opencl_device is not None:
            a += ["--opencl_device", str(self.opencl_device)]
        return a


def _opt(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def check_output(path, inputs):
    """Refuse, before scoring, an output path that is an input (also through links), a
    directory or not writable: the vmaf CLI's checks and messages."""
    path = os.fspath(path)
    _files.check_not_input(path, zip(("reference", "distorted"), map(os.fspath, inputs)),
                           "{} input")
    _files.check_writable(path)


def make_context(lib, geometry, o, devices=None, pool_only=False):
    """A context set up as the CLI's: backend, picture pool, models, then features.
    devices: a binding.Devices whose states are imported (made once for many contexts), or
    None (a state of its own). pool_only: no models or features (a pool of pictures)."""
    ctx = Context(lib, threads=o.threads, subsample=o.subsample, log_level=o.log_level,
                  cpumask=o.cpumask, gpumask=o.gpumask)
    try:
        # as the CLI: CUDA first (cuda, auto), else OpenCL (opencl, auto); a nonzero
        # gpumask keeps everything on the CPU
        if o.backend in ("cuda", "auto") and not o.gpumask:
            ctx.use_cuda(required=o.backend == "cuda", devices=devices)
        if o.backend in ("opencl", "auto") and not o.gpumask and not ctx.cuda:
            ctx.use_opencl(o.opencl_device, required=o.backend == "opencl", devices=devices)
        if o.pictures == "pool" or ctx.cuda:
            cnt = (2 * (o.threads + 1) + 1 if o.threads else 4) + 2 * READ_AHEAD
            if ctx.opencl:
                cnt += 2 * 4  # as the CLI: the OpenCL backend's frames in flight
            ctx.preallocate(geometry, cnt)
        if not pool_only:
            for m in o.models:
                ctx.add_model(m)
            for name, opts in o.features:
                ctx.use_feature((name, opts))
    except BaseException:
        ctx.close()
        raise
    return ctx


def plan_frames(ref, dist, opts):
    """The frames the CLI scores of the pair (VideoFiles) under opts: (count, the 'ended
    before' message or None). Raises where the CLI fails: a truncated frame where the
    shorter input ends, no frame at all."""
    ref_avail = max(ref.frames - opts.frame_skip_ref, 0)
    dist_avail = max(dist.frames - opts.frame_skip_dist, 0)
    n = min(ref_avail, dist_avail)
    if opts.frame_cnt:
        n = min(n, opts.frame_cnt)
    # the CLI reads both inputs at frame n; a truncated frame there is an error
    if not opts.frame_cnt or n < opts.frame_cnt:
        for f, avail, skip in ((ref, ref_avail, opts.frame_skip_ref),
                               (dist, dist_avail, opts.frame_skip_dist)):
            if avail == n and f.truncated:
                raise VmafError(f"{f.path}: truncated frame {n + skip}", -5)
    shorter = None
    if n < (opts.frame_cnt or n + 1) and ref_avail != dist_avail:
        short, long_ = (ref, dist) if ref_avail < dist_avail else (dist, ref)
        shorter = f'"{short.path}" ended before "{long_.path}".'
    if not n:
        raise VmafError("no frames to score")
    return n, shorter


class Title:
    """A (reference, distorted) pair opened as the CLI opens it, with its common frame count."""

    def __init__(self, reference, distorted, geometry=None, options=None):
        self.opts = Options.from_any(options)
        g = geometry_from(geometry)
        self.ref = VideoFile(reference, g)
        try:
            self.dist = VideoFile(distorted, g)
        except BaseException:
            self.ref.close()
            raise
        a, b = self.ref.geometry, self.dist.geometry
        if a != b:
            self.close()
            raise VmafError(f"videos are incompatible: reference {a}, distorted {b}")
        self.geometry = a
        try:
            self.ref.check_first_frame()
            self.dist.check_first_frame()
        except BaseException:
            self.close()
            raise
        try:
            self.frames, self.shorter = plan_frames(self.ref, self.dist, self.opts)
        except BaseException:
            self.close()
            raise

    def close(self):
        self.ref.close()
        self.dist.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def context(self, lib, devices=None):
        """A context set up as the CLI's: backend, picture pool, models, then features."""
        return make_context(lib, self.geometry, self.opts, devices)

    def feed(self, ctx, first, end):
        """Frames first..end-1 (title indices) into ctx."""
        o = self.opts
        for index in range(first, end):
            ref = ctx.picture(self.geometry)
            try:
                dist = ctx.picture(self.geometry)
            except BaseException:
                ctx.unref(ref)
                raise
            try:
                self.ref.read_into(o.frame_skip_ref + index, ref)
                self.dist.read_into(o.frame_skip_dist + index, dist)
            except BaseException:
                ctx.unref(ref)
                ctx.unref(dist)
                raise
            ctx.read_pictures(ref, dist, index)  # owns both pictures now
            _test_hook(index, first, end)


def _test_hook(index, first, end):
    """Tests only: TWINVMAF_TEST_PAUSE=DIR makes the first segment that reaches its middle
    frame write DIR/pid and wait there (up to 120 s) to be killed, once (DIR/claimed)."""
    d = os.environ.get("TWINVMAF_TEST_PAUSE")
    if not d or first == 0 or index != (first + end) // 2:
        return
    try:
        fd = os.open(os.path.join(d, "claimed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{first}:{end}\n".encode())
    os.close(fd)
    with open(os.path.join(d, "pid.tmp"), "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.path.join(d, "pid.tmp"), os.path.join(d, "pid"))
    import time
    time.sleep(120)


def _score_models(ctx, frames):
    """As the CLI: every model pooled over all frames (this stores the per-frame scores, so
    the output lists them after the features), then every collection."""
    pooled = {}
    for m in ctx.models:
        pooled[m.spec.name] = ctx.score_pooled(m, _lib.POOL_MEAN, 0, frames - 1)
    for m in ctx.models:
        if m.collection.value:
            pooled[m.spec.name + "_bagging"] = ctx.score_pooled_collection(
                m, _lib.POOL_MEAN, 0, frames - 1)["bagging_score"]
    return pooled


def score(reference, distorted, output=None, geometry=None, options=None, lib=None, **kw):
    """Score a title as `vmaf -r REF -d DIS ... -o output` does and write the same file.

    geometry: None for Y4M inputs, else (width, height, '420'|'422'|'444'|'400', bits) or a
    dict with those keys. options: an Options, a dict of its fields, or keywords here
    (models=['version=vmaf_v0.6.1'], features=['psnr', ...], threads=0, output_format='xml',
    ...). Returns the pooled mean of each model ({name: score}); raises VmafError.
    """
    opts = Options.from_any(options) if not kw else Options(**{**(options or {}), **kw})
    lib = lib if isinstance(lib, _lib.Library) else _lib.load(lib)
    if output is not None:
        check_output(output, (reference, distorted))
    with Title(reference, distorted, geometry, opts) as t:
        ctx = t.context(lib)
        try:
            t.feed(ctx, 0, t.frames)
            if t.shorter:
                print(t.shorter, file=sys.stderr)
            ctx.flush()
            pooled = {} if opts.no_prediction else _score_models(ctx, t.frames)
            if output is not None:
                ctx.write_output(output, opts.output_format)
            return pooled
        finally:
            ctx.close()


def frame_count(reference, distorted, geometry=None, options=None):
    """The number of frames the CLI would score (after skips and frame_cnt); raises on bad input."""
    with Title(reference, distorted, geometry, options) as t:
        return t.frames


FINGERPRINT_WINDOW = 65536


def title_fingerprint(reference, distorted, skip_ref=0, skip_dist=0):
    """The vmaf CLI's title fingerprint (tools/title_fingerprint.h): each input's size and the
    CRC-32 of three windows of min(size, 64 KiB) bytes at 0, (size - n) // 2 and size - n,
    then the frame skips; None when an input is not a regular file."""
    import stat
    import zlib
    fields = []
    for what, path in (("ref", reference), ("dist", distorted)):
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                return None
            size = st.st_size
            n = min(size, FINGERPRINT_WINDOW)
            crc = 0
            for offset in (0, (size - n) // 2, size - n):
                f.seek(offset)
                crc = zlib.crc32(f.read(n), crc)
        fields.append(f"{what}={size}:{crc:08x}")
    return ",".join(fields) + f",skip={skip_ref}:{skip_dist}"


def _set_fingerprint(lib, ctx, fingerprint):
    """vmaf_segment_set_fingerprint, where the library has it (parts then merge with the CLI's)."""
    import ctypes
    fn = getattr(lib.handle, "vmaf_segment_set_fingerprint", None)
    if fn is None or fingerprint is None:
        return
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]
    err = fn(ctx.ptr, fingerprint.encode())
    if err:
        raise VmafError(f"problem recording the title fingerprint: {_lib.strerror(err)}", err)


def score_segment(reference, distorted, first, last, part, geometry=None, options=None, lib=None,
                  **kw):
    """Score title frames first..last-1 with the context the extractors need around them, and
    write the segment result `part` (the CLI's `--segment first:last -o part`)."""
    opts = Options.from_any(options) if not kw else Options(**{**(options or {}), **kw})
    lib = lib if isinstance(lib, _lib.Library) else _lib.load(lib)
    check_output(part, (reference, distorted))
    with Title(reference, distorted, geometry, opts) as t:
        if not 0 <= first < last <= t.frames:
            raise VmafError(f"segment {first}:{last} is not within the title's {t.frames} frames")
        ctx = t.context(lib)
        try:
            before, after = ctx.segment_context()
            ctx.segment_set(first, last)
            if opts.no_prediction:
                ctx.segment_set_prediction(False)
            t.feed(ctx, first - min(before, first), min(last + after, t.frames))
            ctx.flush()
            # the reader knows the title's exact length: the merge then finds a missing part
            ctx.segment_set_title_frames(t.frames, True)
            _set_fingerprint(lib, ctx, title_fingerprint(reference, distorted,
                                                         opts.frame_skip_ref, opts.frame_skip_dist))
            ctx.segment_write(part)
        finally:
            ctx.close()
        return t.frames


def merge(parts, output, fmt="xml", lib=None, precision=None):
    """Merge segment results (in any order; parts that do not tile the title, or differ in
    options, are refused) into the title's output file, equal to a single run's. precision:
    None the reference's number format, 1..17 %.<precision>g (the CLI's --precision)."""
    output = os.fspath(output)
    _files.check_not_input(output, [(None, os.fspath(p)) for p in parts], "segment result")
    _files.check_writable(output)
    lib = lib if isinstance(lib, _lib.Library) else _lib.load(lib)
    if not lib.has("segment_merge"):
        raise VmafError(f"{lib.path} has no segment API (vmaf_segment_merge)")
    import ctypes
    enc = [os.fspath(p).encode() for p in parts]
    arr = (ctypes.c_char_p * len(enc))(*enc)
    if precision is None:
        err = lib.segment_merge(arr, len(enc), os.fspath(output).encode(), _fmt(fmt))
    else:
        if (not lib.has("segment_merge_with_precision") or not isinstance(precision, int) or
                not 1 <= precision <= 17):
            raise VmafError(f"precision {precision!r}: 1..17, with vmaf_segment_merge_with_precision")
        err = lib.segment_merge_with_precision(arr, len(enc), os.fspath(output).encode(),
                                               _fmt(fmt), int(precision))
    if err:
        raise VmafError(f"problem merging {len(enc)} segment files into {output}: "
                        f"{_lib.strerror(err)}", err)
