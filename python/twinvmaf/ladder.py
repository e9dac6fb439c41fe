"""One reference against several distorted inputs in one pass, and batches of jobs.

A ladder (libvmaf.h, "Ladders"; the vmaf CLI's several -d): one context per distorted input
(its "rung"), each set up exactly as score() sets up its single context, fed together through
vmaf_ladder_read_pictures(), so that the reference is read once per frame for all of them.
Each rung's scores and output file are those of score(reference, that distorted, output)
alone, byte for byte (the fps timing aside).

Failures. What every rung would fail on alike raises before any frame: the reference (cannot
be opened or read, a truncated frame where it ends), the options (an unknown model or
extractor, a backend that cannot open), an output that is an input, not writable, or named
twice, and, in score_ladder(), a distorted input of another geometry or format than the
reference. A distorted input that fails on its own fails alone: it cannot be opened, ends in
a truncated frame (a Y4M file cut mid-frame, a raw file with a partial last frame where it is
the shorter input: score() refuses these too), holds samples above the bit depth, or its
scoring or output fails. Its Result then carries the exception score() would have raised for
it (`error`), no scores, and its output file is not written; the others go on. A distorted
input with fewer whole frames than the reference ends its rung there, as a single run ends
at its shorter input (the same "ended before" line on stderr).
"""
import ctypes
import dataclasses
import errno
import os
import re
import sys
from typing import Any, Optional

from . import _files, _lib
from ._lib import VmafError, strerror
from .binding import Devices
from .score import (Options, _score_models, _set_fingerprint, _test_hook, make_context,
                    plan_frames, title_fingerprint)
from .video import VideoFile, geometry_from


@dataclasses.dataclass
class Result:
    """One distorted input's outcome in a ladder or a batch.

    scores: the pooled mean of each model ({name: score}, what score() returns; {} with
    no_prediction), None where it failed. error: the exception that made it fail (what
    score() would have raised for this input alone, or a VmafError saying why), else None.
    frames: the frames scored (score_segment_ladder: the title's frames). get() returns the
    scores or raises the error."""
    distorted: Optional[str]
    output: Optional[str] = None
    scores: Optional[dict] = None
    error: Optional[BaseException] = None
    frames: int = 0

    @property
    def ok(self):
        return self.error is None

    def get(self):
        if self.error is not None:
            raise self.error
        return self.scores


@dataclasses.dataclass
class Job:
    """One pair of score_batch(): score(reference, distorted, output, geometry, options).

    options: an Options, a dict of its fields, or None (the batch's); geometry: None (Y4M,
    or the batch's), (width, height, pixel_format, bitdepth) or a dict with those keys. A job
    may also be given as a dict with these keys or a tuple in this order."""
    reference: Any
    distorted: Any
    output: Any = None
    options: Any = None
    geometry: Any = None


class _Rung:
    """A distorted input of a ladder: its file, context, frame range and outcome."""

    def __init__(self, distorted, output=None, fmt="xml", part=None):
        self.distorted, self.output, self.fmt, self.part = distorted, output, fmt, part
        self.dist = self.ctx = None
        self.frames = self.start = self.end = 0
        self.shorter = None
        self.scores = None
        self.error = None

    def fail(self, e):
        if self.error is None:
            self.error = e
        self.release()

    def release(self):
        """The context closed (it leaves the ladder and lets go of the pictures it holds)."""
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None

    def close(self):
        self.release()
        if self.dist is not None:
            self.dist.close()
            self.dist = None

    def result(self):
        return Result(self.distorted, self.output, None if self.error else self.scores,
                      self.error, 0 if self.error else self.frames)


def _base_name(path):
    """The file name of path without directory and last extension (the CLI's {name})."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def expand_outputs(outputs, distorted):
    """One output path (or None) per distorted input: outputs None (no files), a list (one
    each), or one template whose {n} (1-based position) and {name} (the distorted file's
    name without directory and extension) are replaced, as the vmaf CLI's -o template. A
    template without either is refused for two or more inputs."""
    n = len(distorted)
    if outputs is None:
        return [None] * n
    if isinstance(outputs, (str, bytes, os.PathLike)):
        tpl = os.fsdecode(outputs)
        if n > 1 and "{n}" not in tpl and "{name}" not in tpl:
            raise VmafError(f"one output {tpl} for {n} distorted inputs: give one per input, "
                            "or a template with {n} or {name}")
        return [re.sub(r"\{n\}|\{name\}", lambda m, k=k, d=d: str(k + 1) if m.group() == "{n}"
                       else _base_name(d), tpl) for k, d in enumerate(distorted)]
    outs = [None if o is None else os.fspath(o) for o in outputs]
    if len(outs) != n:
        raise VmafError(f"{len(outs)} outputs for {n} distorted inputs: give one per input")
    return outs


def same_file(a, b):
    """Whether two output paths name one file: one spelling, the same file now, or the same
    directory (through links) and name (the vmaf CLI's rule)."""
    if a == b:
        return True
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return (os.path.basename(a) == os.path.basename(b) and
            os.path.realpath(os.path.dirname(os.path.abspath(a))) ==
            os.path.realpath(os.path.dirname(os.path.abspath(b))))


def _check_output(path, inputs, earlier):
    """score()'s checks of an output (not an input, writable), and not one of earlier's
    (distorted, path) pairs: raises VmafError."""
    for dist, other in earlier:
        if other is not None and same_file(path, other):
            raise VmafError(f"output file {path} is also the output of {dist}: one file per "
                            "distorted input")
    _files.check_not_input(path, inputs, "{} input")
    _files.check_writable(path)


def _run(lib, reference, rungs, geometry, opts, devices, refuse_mismatch, segment=None):
    """Score rungs (a list of _Rung) against reference: each gets its scores (or part file,
    segment=(first, last)) or its error. Raises what fails every rung alike (the module doc)
    and, with refuse_mismatch, a distorted input not of the reference's geometry."""
    if not lib.has("ladder_init"):
        raise VmafError(f"{lib.path} has no ladder API (vmaf_ladder_init)")
    g = geometry_from(geometry)
    ref = VideoFile(reference, g)
    try:
        ref.check_first_frame()
        for r in rungs:
            _open_rung(ref, r, g, opts, refuse_mismatch, segment)
        live = [r for r in rungs if r.error is None]
        if len(live) > 1 and _heatmaps(opts):
            raise VmafError("several distorted: cambi's heatmaps_path is not supported (every "
                            "distorted input would write the same heatmap files); score those "
                            "inputs one by one", -errno.EINVAL)
        if live:
            _score(lib, ref, live, opts, devices, segment)
    finally:
        ref.close()
        for r in rungs:
            r.close()


def _heatmaps(opts):
    """Whether cambi writes heatmaps (a feature's or a model's heatmaps_path)."""
    return (any(n == "cambi" and any(k == "heatmaps_path" for k, _ in o)
                for n, o in opts.features) or
            any(f == "cambi" and k == "heatmaps_path"
                for m in opts.models for f, k, _ in m.overloads))


def _open_rung(ref, r, g, opts, refuse_mismatch, segment):
    try:
        r.dist = VideoFile(r.distorted, g)
    except VmafError as e:
        # as the vmaf CLI's ladder: an input that cannot be opened fails alone, one that is
        # not of the reference's format (not Y4M, a bad header, not a file) refuses the run
        if refuse_mismatch and e.errno in (None, -errno.EINVAL):
            raise
        r.fail(e)
        return
    a, b = ref.geometry, r.dist.geometry
    if a != b:
        e = VmafError(f"distorted input {r.distorted} does not match the reference "
                      f"{ref.path}: videos are incompatible: reference {a}, distorted {b}",
                      -errno.EINVAL)
        if refuse_mismatch:
            raise e
        r.fail(e)
        return
    try:
        r.dist.check_first_frame()
        r.frames, r.shorter = plan_frames(ref, r.dist, opts)
        if segment and not 0 <= segment[0] < segment[1] <= r.frames:
            raise VmafError(f"segment {segment[0]}:{segment[1]} is not within the title's "
                            f"{r.frames} frames")
    except VmafError as e:
        r.fail(e)


def _setup(r, ctx, opts, segment):
    """Rung r's context and frame range: the whole title, or a segment with the frames
    its extractors need around it (score_segment()'s)."""
    r.ctx = ctx
    if segment is None:
        r.start, r.end = 0, r.frames
        return
    first, last = segment
    before, after = ctx.segment_context()
    ctx.segment_set(first, last)
    if opts.no_prediction:
        ctx.segment_set_prediction(False)
    r.start, r.end = first - min(before, first), min(last + after, r.frames)


def _score(lib, ref, live, opts, devices, segment):
    g = ref.geometry
    pool = None
    ladder = ctypes.c_void_p()
    try:
        for r in live:
            # the same options for every rung: a failure here is every rung's (raised)
            _setup(r, make_context(lib, g, opts, devices), opts, segment)
        if len({r.start for r in live}) != 1:
            raise VmafError("the rungs' segment contexts differ")  # equal options: never
        # the reference pictures, shared by the rungs: from a pool of their own, which no
        # rung's failure can leave short (a failed rung is closed at once)
        if opts.pictures == "pool" or live[0].ctx.cuda:
            pool = make_context(lib, g, opts, devices, pool_only=True)
        n = len(live)
        ctxs = (ctypes.c_void_p * n)(*[r.ctx.ptr.value for r in live])
        err = lib.ladder_init(ctypes.byref(ladder), ctxs, n)
        if err:
            ladder = ctypes.c_void_p()
            raise VmafError(f"problem making the ladder: {strerror(err)}", err)
        _feed(lib, ladder, ref, live, opts, pool, segment)
        lib.ladder_close(ladder)
        ladder = ctypes.c_void_p()
        for r in live:
            if r.error is None:
                _finish(lib, ref, r, opts, segment)
    finally:
        if ladder.value:
            lib.ladder_close(ladder)
        for r in live:
            r.release()
        if pool is not None:
            pool.close()


def _ref_picture(lib, pool, g):
    if pool is not None:
        return pool.picture(g)
    pic = _lib.VmafPicture()
    err = lib.picture_alloc(ctypes.byref(pic), _lib.PIX_FMTS[g.pixel_format], g.bitdepth,
                            g.width, g.height)
    if err:
        raise VmafError(f"could not allocate a picture: {strerror(err)}", err)
    return pic


def _feed(lib, ladder, ref, live, opts, pool, segment):
    """Frames start..end-1: the reference read once, each rung's distorted frame with it; a
    rung whose range ended gets no picture (the ladder flushes it), then every rung still in
    is flushed. A rung that fails is closed at once."""
    g = ref.geometry
    n = len(live)
    status = (ctypes.c_int * n)()
    start, end = live[0].start, max(r.end for r in live)
    for index in range(start, end):
        if not lib.ladder_rungs_left(ladder):
            break
        refpic = _ref_picture(lib, pool, g)
        try:
            ref.read_into(opts.frame_skip_ref + index, refpic)
        except BaseException as e:
            lib.picture_unref(ctypes.byref(refpic))
            if not isinstance(e, VmafError):
                raise
            for r in live:  # where the single runs still reading would fail too
                if index < r.end:
                    r.fail(e)
            return
        dists = (_lib.VmafPicture * n)()  # zeroed: no picture (the rung ended or is out)
        given = [False] * n
        try:
            for k, r in enumerate(live):
                if r.error is not None or index >= r.end:
                    continue
                try:
                    pic = r.ctx.picture(g)
                except VmafError as e:
                    r.fail(e)
                    continue
                try:
                    r.dist.read_into(opts.frame_skip_dist + index, pic)
                except VmafError as e:
                    r.ctx.unref(pic)
                    r.fail(e)
                    continue
                except BaseException:
                    r.ctx.unref(pic)
                    raise
                dists[k] = pic
                given[k] = True
        except BaseException:  # not a rung's failure (an interrupt): nothing left held
            for p in [refpic] + list(dists):
                if p.ref:
                    lib.picture_unref(ctypes.byref(p))
            raise
        # the ladder takes every picture, on success and on failure
        lib.ladder_read_pictures(ladder, ctypes.byref(refpic), dists, status, index)
        for k, r in enumerate(live):
            _rung_status(r, status[k], index, given[k])
        if segment:
            _test_hook(index, start, end)
    lib.ladder_read_pictures(ladder, None, None, status, 0)
    for k, r in enumerate(live):
        _rung_status(r, status[k], 0, False)


def _rung_status(r, st, index, given):
    if st and st != -errno.ENOENT and r.error is None:
        what = f"problem scoring frame {index}" if given else "problem flushing context"
        r.fail(VmafError(f"{what}: {strerror(st)}", st))


def _finish(lib, ref, r, opts, segment):
    """A flushed rung: its segment part, or its pooled scores and output file."""
    try:
        if r.shorter:
            print(r.shorter, file=sys.stderr)
        if segment:
            r.ctx.segment_set_title_frames(r.frames, True)
            _set_fingerprint(lib, r.ctx, title_fingerprint(
                ref.path, r.distorted, opts.frame_skip_ref, opts.frame_skip_dist))
            r.ctx.segment_write(r.part)
            return
        r.scores = {} if opts.no_prediction else _score_models(r.ctx, r.frames)
        if r.output is not None:
            r.ctx.write_output(r.output, r.fmt)
    except VmafError as e:
        r.fail(e)


def _options(options, kw):
    return Options.from_any(options) if not kw else Options(**{**(options or {}), **kw})


def _library(lib):
    return lib if isinstance(lib, _lib.Library) else _lib.load(lib)


def score_ladder(reference, distorted, outputs=None, geometry=None, options=None, lib=None,
                 **kw):
    """Score reference against each of distorted (a list of paths) in one pass: the
    reference read once, one context per distorted input, as `vmaf -r REF -d D1 -d D2 ...`.

    outputs: None, a list (one path or None per distorted input), or one template with {n}
    (1-based position) and/or {name} (the distorted file's name without extension). Each
    file is the one score(reference, d, output, geometry, options) writes. geometry, options
    and keywords: as score()'s, the same for every distorted input. Returns a list of
    Result, one per distorted input in order (module doc: what raises, what fails alone).
    """
    opts = _options(options, kw)
    lib = _library(lib)
    reference = os.fspath(reference)
    distorted = [os.fspath(d) for d in distorted]
    if not distorted:
        raise VmafError("no distorted input")
    outs = expand_outputs(outputs, distorted)
    inputs = [("reference", reference)] + [("distorted", d) for d in distorted]
    for k, o in enumerate(outs):
        if o is not None:
            _check_output(o, inputs, list(zip(distorted[:k], outs[:k])))
    rungs = [_Rung(d, o, opts.output_format) for d, o in zip(distorted, outs)]
    with Devices(lib) as devices:
        _run(lib, reference, rungs, geometry, opts, devices, refuse_mismatch=True)
    return [r.result() for r in rungs]


def score_segment_ladder(reference, distorted, first, last, parts, geometry=None, options=None,
                         lib=None, devices=None, **kw):
    """score_segment() for each of distorted in one pass: title frames first..last-1 with the
    context the extractors need, written as segment result parts[k] (a path per distorted
    input) that twinvmaf.merge() turns into that title's file. Returns a list of Result
    (frames: the title's frames). What raises and what fails alone: score_ladder()'s."""
    opts = _options(options, kw)
    lib = _library(lib)
    reference = os.fspath(reference)
    distorted = [os.fspath(d) for d in distorted]
    parts = [os.fspath(p) for p in parts]
    if not distorted or len(parts) != len(distorted):
        raise VmafError(f"{len(parts)} segment files for {len(distorted)} distorted inputs")
    inputs = [("reference", reference)] + [("distorted", d) for d in distorted]
    for k, p in enumerate(parts):
        _check_output(p, inputs, list(zip(distorted[:k], parts[:k])))
    rungs = [_Rung(d, part=p) for d, p in zip(distorted, parts)]
    own = devices is None
    devices = Devices(lib) if own else devices
    try:
        _run(lib, reference, rungs, geometry, opts, devices, refuse_mismatch=True,
             segment=(first, last))
    finally:
        if own:
            devices.close()
    return [r.result() for r in rungs]


def _job(j):
    if isinstance(j, Job):
        return j
    if isinstance(j, dict):
        return Job(**j)
    return Job(*j)


def _job_error(e):
    return e if isinstance(e, VmafError) else VmafError(f"bad job: {type(e).__name__}: {e}")


def ladder_key(reference, geometry, opts):
    """Jobs with equal keys score in one ladder: the same reference file, geometry and
    options (but the output format, which is each output's own)."""
    d = opts.to_dict()
    d.pop("output_format")
    g = geometry_from(geometry)
    return (os.path.realpath(os.fspath(reference)), g.as_tuple() if g else None,
            repr(sorted(d.items())))


def score_batch(jobs, geometry=None, options=None, lib=None):
    """Score every job (Job, or a dict or tuple of its fields) in this process: jobs with the
    same reference file, geometry and options (the output format aside) as one ladder each,
    the library loaded once and each device state (backend cuda, opencl, auto) made once for
    the whole batch. geometry, options: the default of jobs that give none.

    Returns one Result per job, in order. A bad job fails alone, its exception in its Result:
    a bad option or geometry, an input that cannot be opened, is truncated or does not match
    its reference, an output that is an input of any job, another job's output or not
    writable; a reference that cannot be read fails every job that uses it. Output files are
    written whole or not at all (the library writes them atomically).
    """
    lib = _library(lib)
    results = [None] * len(jobs)
    parsed = []  # (index, Job, Options)
    for i, j in enumerate(jobs):
        dist = None
        try:
            job = _job(j)
            dist = os.fspath(job.distorted)
            job = dataclasses.replace(
                job, reference=os.fspath(job.reference), distorted=dist,
                output=None if job.output is None else os.fspath(job.output),
                options=job.options if job.options is not None else options,
                geometry=job.geometry if job.geometry is not None else geometry)
            opts = Options.from_any(job.options)
            geometry_from(job.geometry)
            parsed.append((i, job, opts))
        except (VmafError, TypeError, ValueError, KeyError, AttributeError) as e:
            results[i] = Result(dist, error=_job_error(e))
    # outputs: checked as score() checks them, against every job's inputs and earlier outputs
    inputs = []
    for _, job, _ in parsed:
        inputs += [("reference", job.reference), ("distorted", job.distorted)]
    groups, written = {}, []
    for i, job, opts in parsed:
        try:
            if job.output is not None:
                _check_output(job.output, inputs, written)
                written.append((job.distorted, job.output))
            key = ladder_key(job.reference, job.geometry, opts)
        except VmafError as e:
            results[i] = Result(job.distorted, job.output, error=e)
            continue
        groups.setdefault(key, []).append((i, job, opts))
    with Devices(lib) as devices:
        for members in groups.values():
            _, first, opts = members[0]
            rungs = [_Rung(job.distorted, job.output, o.output_format) for _, job, o in members]
            try:
                _run(lib, first.reference, rungs, first.geometry, opts, devices,
                     refuse_mismatch=False)
            except VmafError as e:  # what every job of this ladder fails on
                for r in rungs:
                    r.fail(e)
            for (i, _, _), r in zip(members, rungs):
                results[i] = r.result()
    return results
