"""Score many titles on a Ray cluster: each title cut into segments, one Ray task per segment,
the parts merged into the title's output file (equal to a single `vmaf` run's).

    twinvmaf-ray --address HEAD:PORT --segments 16 titles.json

titles.json is a list of {"reference", "distorted", "output", "geometry" (omit for Y4M; else
{"width", "height", "pixel_format", "bitdepth"} or [w, h, fmt, bits]), "options" (Options
fields: models, features, threads, output_format, ...)}. The inputs must be readable at the
same paths on every node (shared storage); outputs are written by the driver. Exit status:
the number of titles that failed (at most 255), each with its own one-line message.

Renditions: titles of one reference file, geometry and options (their output formats aside)
and of the same frame count are scored as a ladder (twinvmaf.score_segment_ladder): one
task per segment reads the reference segment once for all of them, each rendition's part
is its own (the ladder shares nothing between segment rungs), and a rendition that fails
there fails alone. Each file is still the one a single run writes.

GPUs: where the cluster has GPU resources, a title with backend "cuda" or "opencl" reserves
one GPU per task. Ray shows a task only the GPUs it reserved (CUDA_VISIBLE_DEVICES, which
NVIDIA's OpenCL honours too; a task that reserves none sees none), so an OpenCL task without
a reservation would find no GPU; in a task that reserved one, backend "opencl" without
opencl_device uses the first OpenCL GPU it sees (the reserved one; device 0 may be a CPU
device of another platform). Backend "auto" reserves none: it scores on the CPU there.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from ._files import write_atomic
from ._lib import VmafError
from .ladder import ladder_key
from .score import Options, check_output
from .video import geometry_from


class TitleSpec:
    def __init__(self, d, index):
        if not isinstance(d, dict):
            raise VmafError("not a JSON object")
        missing = [k for k in ("reference", "distorted", "output") if not d.get(k)]
        if missing:
            raise VmafError(f"missing {', '.join(missing)}")
        self.index = index
        self.reference, self.distorted = os.fspath(d["reference"]), os.fspath(d["distorted"])
        self.output = os.fspath(d["output"])
        self.geometry = d.get("geometry")
        self.options = dict(d.get("options") or {})

    @property
    def label(self):
        return label(self.index, self.distorted)


def label(index, distorted):
    return f"title {index} ({distorted})"


def cut(frames, segments=None, segment_frames=None):
    """[first, last) ranges tiling 0..frames-1: `segments` near-equal ones, or of
    `segment_frames` each (the last one shorter)."""
    if segment_frames:
        step = max(1, int(segment_frames))
        return [(a, min(a + step, frames)) for a in range(0, frames, step)]
    k = max(1, min(int(segments or 1), frames))
    bounds = [frames * i // k for i in range(k + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(k)]


def _error_text(e):
    """The original exception's message from a Ray task error, else the error itself."""
    cause = getattr(e, "cause", None)
    if cause is not None and not isinstance(cause, type(e)):
        return f"{type(cause).__name__}: {cause}" if not isinstance(cause, VmafError) \
            else str(cause)
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__


def wants_gpu(opts, gpus):
    """Whether a title's tasks reserve a GPU (module doc): backend cuda or opencl on a cluster
    with GPU resources."""
    return bool(gpus) and opts.backend in ("cuda", "opencl")


def task_options(options, use_gpu):
    """A title's options as a task uses them: on a reserved GPU, backend opencl without
    opencl_device takes the first OpenCL GPU the task sees (module doc)."""
    if use_gpu and options.get("backend") == "opencl" and options.get("opencl_device") is None:
        from .binding import opencl_devices
        gpus = [d["index"] for d in opencl_devices() if d["type"] == "gpu"]
        if gpus:
            return dict(options, opencl_device=gpus[0])
    return options


def _tasks(ray, max_retries, num_gpus):
    """The remote functions (defined once ray is imported)."""
    res = {"num_gpus": num_gpus} if num_gpus else {"num_cpus": 1}
    gpu = bool(num_gpus)

    @ray.remote(max_retries=max_retries, retry_exceptions=False, **res)
    def probe(reference, distorted, geometry, options):
        from .score import frame_count
        return frame_count(reference, distorted, geometry, options)

    @ray.remote(max_retries=max_retries, retry_exceptions=False, **res)
    def segment(reference, distorted, geometry, options, first, last):
        from .score import score_segment
        d = tempfile.mkdtemp(prefix="twinvmaf-seg-")
        try:
            part = os.path.join(d, f"part_{first}_{last}")
            score_segment(reference, distorted, first, last, part, geometry,
                          task_options(options, gpu))
            with open(part, "rb") as f:
                return f.read()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    @ray.remote(max_retries=max_retries, retry_exceptions=False, **res)
    def ladder_segment(reference, distorted, geometry, options, first, last):
        """One segment of several renditions (called with num_returns=len(distorted)): each
        one's part, or the message of its failure (a str) for its merge to raise."""
        from .ladder import score_segment_ladder
        d = tempfile.mkdtemp(prefix="twinvmaf-seg-")
        try:
            parts = [os.path.join(d, f"part{k}_{first}_{last}") for k in range(len(distorted))]
            results = score_segment_ladder(reference, distorted, first, last, parts, geometry,
                                           task_options(options, gpu))
            out = []
            for r, part in zip(results, parts):
                if r.ok:
                    with open(part, "rb") as f:
                        out.append(f.read())
                else:
                    out.append(str(r.error))
            return tuple(out)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    @ray.remote(max_retries=max_retries, retry_exceptions=False, num_cpus=1)
    def merge(fmt, *parts):
        from .score import merge as merge_parts
        for data in parts:
            if isinstance(data, str):  # a rendition that failed in its ladder's segment
                raise VmafError(data)
        d = tempfile.mkdtemp(prefix="twinvmaf-merge-")
        try:
            paths = []
            for i, data in enumerate(parts):
                paths.append(os.path.join(d, f"part{i}"))
                with open(paths[-1], "wb") as f:
                    f.write(data)
            out = os.path.join(d, "out")
            merge_parts(paths, out, fmt)
            with open(out, "rb") as f:
                return f.read()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    return probe, segment, merge, ladder_segment


def run(titles, address=None, segments=8, segment_frames=None, max_retries=3, log=None):
    """Score titles (dicts, see the module doc) on the cluster at address (None: RAY_ADDRESS
    or a new local instance). Returns one (ok, message) per title."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    try:
        import ray
    except ImportError:
        raise VmafError("the Ray driver needs ray: pip install './python[ray]'") from None
    env = {k: v for k, v in os.environ.items() if k.startswith("TWINVMAF_")}
    if not ray.is_initialized():
        ray.init(address=address, runtime_env={"env_vars": env} if env else None,
                 log_to_driver=True, configure_logging=False)
    gpus = ray.cluster_resources().get("GPU", 0)
    results = [None] * len(titles)
    specs = []
    for i, d in enumerate(titles):
        try:
            s = TitleSpec(d, i)
            opts = Options.from_any(s.options)  # a bad option fails here, before any task
            geometry_from(s.geometry)
            check_output(s.output, (s.reference, s.distorted))
            s.use_gpu = wants_gpu(opts, gpus)
            s.fmt = opts.output_format
            s.key = ladder_key(s.reference, s.geometry, opts)
            specs.append(s)
        except (VmafError, TypeError, KeyError, ValueError) as e:
            dist = d.get("distorted") if isinstance(d, dict) else None
            results[i] = (False, f"{label(i, dist)}: {e}")
    fns = {g: _tasks(ray, max_retries, 1 if g else 0) for g in {s.use_gpu for s in specs}}
    probes = {s.index: fns[s.use_gpu][0].remote(s.reference, s.distorted, s.geometry, s.options)
              for s in specs}
    merges = {}
    t0 = time.monotonic()
    # renditions: titles of one ladder key and frame count (module doc), in title order
    ladders = {}
    for s in specs:
        try:
            frames = ray.get(probes[s.index])
        except Exception as e:  # a task error is this title's failure, never the others'
            results[s.index] = (False, f"{s.label}: {_error_text(e)}")
            continue
        ladders.setdefault((s.key, frames, s.use_gpu), []).append(s)
    for (_, frames, use_gpu), group in ladders.items():
        probe, seg, merge, lad = fns[use_gpu]
        ranges = cut(frames, segments, segment_frames)
        first = group[0]
        if len(group) == 1:
            parts = {first.index: [seg.remote(first.reference, first.distorted, first.geometry,
                                              first.options, a, b) for a, b in ranges]}
        else:
            parts = {s.index: [] for s in group}
            for a, b in ranges:
                refs = lad.options(num_returns=len(group)).remote(
                    first.reference, [s.distorted for s in group], first.geometry,
                    first.options, a, b)
                for s, r in zip(group, refs):
                    parts[s.index].append(r)
        for s in group:
            merges[s.index] = (merge.remote(s.fmt, *parts[s.index]), len(ranges), frames,
                               len(group))
    for s in specs:
        if s.index not in merges:
            continue
        ref, nseg, frames, rungs = merges[s.index]
        try:
            write_atomic(s.output, ray.get(ref))
            ladder = f" (a ladder of {rungs})" if rungs > 1 else ""
            results[s.index] = (True, f"{s.label}: {frames} frames in {nseg} segments{ladder} "
                                      f"-> {s.output}")
        except Exception as e:
            results[s.index] = (False, f"{s.label}: {_error_text(e)}")
    for ok, msg in results:
        log(("ok: " if ok else "FAILED: ") + msg)
    log(f"{sum(ok for ok, _ in results)} of {len(results)} titles scored in "
        f"{time.monotonic() - t0:.1f} s")
    return results


def main(argv=None):
    p = argparse.ArgumentParser(prog="twinvmaf-ray", description=__doc__.split("\n\n")[0])
    p.add_argument("titles", help="JSON file: a list of titles (see the module doc); - = stdin")
    p.add_argument("--address", default=None,
                   help="Ray cluster (HOST:PORT or auto); default RAY_ADDRESS or a local one")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--segments", type=int, default=8, help="segments per title (default 8)")
    g.add_argument("--segment-frames", type=int, default=None, help="frames per segment")
    p.add_argument("--max-retries", type=int, default=3,
                   help="re-runs of a task whose worker died (default 3)")
    a = p.parse_args(argv)
    try:
        with (sys.stdin if a.titles == "-" else open(a.titles)) as f:
            titles = json.load(f)
        if not isinstance(titles, list):
            raise VmafError(f"{a.titles}: expected a JSON list of titles")
        results = run(titles, a.address, a.segments, a.segment_frames, a.max_retries)
    except (OSError, ValueError, VmafError) as e:
        print(f"twinvmaf-ray: {e}", file=sys.stderr)
        return 255
    return min(sum(not ok for ok, _ in results), 255)


if __name__ == "__main__":
    sys.exit(main())
