"""report(): the HTML report of JSON output files, by the library's own writer
(vmaf_report_from_json, what `vmaf --report-from` calls): one self-contained page with
per-frame curves, pooled scores and worst frames; several sources make a ladder report."""
import ctypes
import fractions
import json
import os
import tempfile

from . import _lib
from ._lib import VmafError


def _frame_rate(fps):
    """(num, den) of fps: None, a number (24, 29.97), "30000/1001" or (num, den)."""
    if fps is None:
        return 0, 0
    if isinstance(fps, (tuple, list)) and len(fps) == 2:
        num, den = (int(x) for x in fps)
    else:
        try:
            f = fractions.Fraction(str(fps)).limit_denominator(1000000)
        except (ValueError, ZeroDivisionError):
            raise VmafError(f"fps {fps!r}: a frame rate (24, 29.97, '30000/1001' or (num, den))")
        num, den = f.numerator, f.denominator
    if not (0 < num < 1 << 32 and 0 < den < 1 << 32):
        raise VmafError(f"fps {fps!r}: a positive frame rate")
    return num, den


def report(sources, output, fps=None, lib=None):
    """Write the HTML report of sources to output (atomically; never over a source).

    sources: one source or a list of them (several: a ladder, one curve per source and
    metric), each the path of a JSON output file (ours or reference libvmaf's), a Result of
    score_ladder()/score_batch() whose output is such a file, or a dict holding a JSON output
    file's content. fps: the frame rate for time codes (None: no time codes)."""
    if isinstance(sources, (str, bytes, os.PathLike, dict)) or hasattr(sources, "output"):
        sources = [sources]
    sources = list(sources)
    if not sources:
        raise VmafError("report() needs at least one JSON output file")
    num, den = _frame_rate(fps)
    lib = lib if isinstance(lib, _lib.Library) else _lib.load(lib)
    if not lib.has("report_from_json"):
        raise VmafError(f"{lib.path} has no report writer (vmaf_report_from_json)")
    with tempfile.TemporaryDirectory(prefix="twinvmaf-report-") as tmp:
        paths = []
        for k, s in enumerate(sources):
            if isinstance(s, dict):
                p = os.path.join(tmp, f"source{k + 1}.json")
                with open(p, "w") as f:
                    json.dump(s, f)
                paths.append(p)
            elif hasattr(s, "output"):
                if s.output is None:
                    raise VmafError(f"{getattr(s, 'distorted', s)!r}: no output file to report")
                paths.append(os.fspath(s.output))
            else:
                paths.append(os.fspath(s))
        enc = [os.fsencode(p) for p in paths]
        arr = (ctypes.c_char_p * len(enc))(*enc)
        err = lib.report_from_json(arr, len(enc), os.fsencode(os.fspath(output)), num, den)
    if err:
        raise VmafError(f"problem writing the report {os.fspath(output)} of {len(paths)} JSON "
                        f"file{'s' if len(paths) > 1 else ''}: {_lib.strerror(err)} (the "
                        f"library's message above says why)", err)
    return os.fspath(output)
