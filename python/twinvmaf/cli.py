"""`twinvmaf-score`: the `vmaf` CLI's common flags through the Python binding.

    twinvmaf-score -r REF -d DIS [-w W -h H -p 420|422|444 -b 8|10|12|16] [-m SPEC ...]
                   [--feature SPEC ...] [-n] [--threads N] [--subsample N] [--frame_cnt N]
                   [--frame_skip_ref N] [--frame_skip_dist N] [--cpumask N] [--gpumask N]
                   [--backend cpu|cuda|opencl|auto] [--opencl_device N]
                   [--xml|--json|--csv|--sub] [--segment A:B] -o OUT
    twinvmaf-score --merge PART... -o OUT [--xml|--json|--csv|--sub] [--precision max|N]

Refusals, messages and exit statuses are the vmaf CLI's (tools/cli_parse.c, tools/vmaf.c):
a usage error (a bad number, a missing value, an unknown short option, a stray argument)
exits 1 with its message and this text; an unknown long option is only warned about; an
input that cannot be scored, or an output that is an input, exits 255 before any frame.
$VMAF_BACKEND and $VMAF_OPENCL_DEVICE are the defaults of --backend and --opencl_device.
"""
import argparse
import os
import sys

from ._lib import VmafError

PROG = "twinvmaf-score"
BACKENDS = ("cpu", "cuda", "opencl", "auto")
U32 = "an integer (decimal, or hexadecimal with 0x) below 2^32"
U64 = "an integer (decimal, or hexadecimal with 0x) below 2^64"
# vmaf options this tool does not implement: refused, never silently ignored
# (whether they take a value)
NOT_HERE = {"--aom_ctc": True, "--nflx_ctc": True, "--split": True, "--cuda_devices": True,
            "--opencl_list": False, "--report": True, "--report-from": False,
            "--report-fps": True}  # reports: twinvmaf.report()


class UsageError(Exception):
    """A usage error: exit 1 with the message and the usage text (the vmaf CLI's usage())."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse's own refusals (a missing value, ...) are usage errors too, as getopt's
        raise UsageError(message)


def _unsigned(arg, option, limit=1 << 32, should_be=U32):
    """The vmaf CLI's parse_u64: decimal or 0x hexadecimal, no sign, no blank, no octal."""
    hexa = arg[:2] in ("0x", "0X")
    digits = arg[2:] if hexa else arg
    ok = digits and all(c in ("0123456789abcdefABCDEF" if hexa else "0123456789") for c in digits)
    if ok:
        v = int(digits, 16 if hexa else 10)
        if v < limit:
            return v
    raise UsageError(f'Invalid argument "{arg}" for option {option}; should be {should_be}')


def _bad(arg, option, should_be):
    return UsageError(f'Invalid argument "{arg}" for option {option}; should be {should_be}')


def _parser():
    p = _Parser(prog=PROG, add_help=False)
    p.add_argument("--help", action="store_true")
    for short, long_ in (("-r", "--reference"), ("-d", "--distorted"), ("-w", "--width"),
                         ("-h", "--height"), ("-p", "--pixel_format"), ("-b", "--bitdepth"),
                         ("-o", "--output")):
        p.add_argument(short, long_)
    p.add_argument("-m", "--model", action="append", default=None)
    p.add_argument("--feature", action="append", default=[])
    p.add_argument("-n", "--no_prediction", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-v", "--version", action="store_true")
    for k in ("threads", "subsample", "frame_cnt", "frame_skip_ref", "frame_skip_dist",
              "cpumask", "gpumask", "backend", "opencl_device", "pictures", "precision",
              "segment"):
        p.add_argument(f"--{k}")
    for f in ("xml", "json", "csv", "sub"):
        p.add_argument(f"--{f}", dest="fmt", action="store_const", const=f)
    p.add_argument("--merge", action="store_true")
    for k, takes in NOT_HERE.items():
        p.add_argument(k, dest="not_here_" + k[2:], action="append" if takes else "count")
    return p


def _split_extras(extras):
    """getopt's rule for what argparse did not know: an unknown long option is warned about
    (and skipped), an unknown short option is a usage error; the rest are arguments."""
    args = []
    for x in extras:
        if x.startswith("--") and len(x) > 2:
            print(f"{PROG}: unrecognized option '{x}'", file=sys.stderr)
        elif x.startswith("-") and len(x) > 1:
            raise UsageError(f"{PROG}: invalid option -- '{x[1]}'")
        else:
            args.append(x)
    return args


# The vmaf CLI's options by long name: their short letter (or None) and whether they take a
# value; MERGE_TAKES are those --merge honours (tools/cli_parse.c's merge_takes()).
_OPTIONS = {"reference": ("r", 1), "distorted": ("d", 1), "width": ("w", 1), "height": ("h", 1),
            "pixel_format": ("p", 1), "bitdepth": ("b", 1), "model": ("m", 1),
            "output": ("o", 1), "xml": (None, 0), "json": (None, 0), "csv": (None, 0),
            "sub": (None, 0), "threads": (None, 1), "feature": (None, 1),
            "subsample": (None, 1), "cpumask": (None, 1), "gpumask": (None, 1),
            "aom_ctc": (None, 1), "nflx_ctc": (None, 1), "frame_cnt": (None, 1),
            "frame_skip_ref": (None, 1), "frame_skip_dist": (None, 1), "precision": (None, 1),
            "backend": (None, 1), "segment": (None, 1), "merge": (None, 0), "split": (None, 1),
            "cuda_devices": (None, 1), "no_prediction": ("n", 0), "version": ("v", 0),
            "quiet": ("q", 0), "pictures": (None, 1), "help": (None, 0),
            "opencl_list": (None, 0), "opencl_device": (None, 1), "report": (None, 1),
            "report-from": (None, 0), "report-fps": (None, 1)}
_MERGE_TAKES = {"output", "quiet", "xml", "json", "csv", "sub", "precision", "merge", "version",
                "help"}


def _first_not_for_merge(argv):
    """As the vmaf CLI names it: the first option --merge cannot honour (as -x/--name or
    --name), else the first unknown long option as written, else None."""
    by_short = {v[0]: k for k, v in _OPTIONS.items() if v[0]}
    refused = unknown = None
    i = 0
    while i < len(argv):
        x = argv[i]
        i += 1
        if x == "--":
            break
        if x.startswith("--") and len(x) > 2:
            name = x[2:].partition("=")[0]
            if name not in _OPTIONS:
                unknown = unknown or x
                continue
            if _OPTIONS[name][1] and "=" not in x:
                i += 1
        elif x.startswith("-") and len(x) > 1:
            name = by_short.get(x[1])
            if name is None:
                continue
            if _OPTIONS[name][1] and len(x) == 2:
                i += 1
        else:
            continue
        if name not in _MERGE_TAKES and refused is None:
            short = _OPTIONS[name][0]
            refused = f"-{short}/--{name}" if short else f"--{name}"
    return refused or unknown


def parse(argv):
    """The settings, as the vmaf CLI's cli_parse() checks them; raises UsageError.
    $VMAF_BACKEND and $VMAF_OPENCL_DEVICE are read (and checked) first, as there."""
    env_backend = os.environ.get("VMAF_BACKEND") or None
    env_device = os.environ.get("VMAF_OPENCL_DEVICE") or None
    if env_backend is not None and env_backend not in BACKENDS:
        raise UsageError(f"VMAF_BACKEND={env_backend}: expected cpu, cuda, opencl or auto")
    opencl_device = None
    if env_device is not None:
        try:
            opencl_device = _unsigned(env_device, "", 1 << 31)
        except UsageError:
            raise UsageError(f"VMAF_OPENCL_DEVICE={env_device}: expected a device index "
                             "(0, 1, ...)") from None
    p = _parser()
    a, extras = p.parse_known_args(argv)
    a.args = _split_extras(extras)
    if a.help:
        raise UsageError(None)
    for k in NOT_HERE:
        if getattr(a, "not_here_" + k[2:]):
            raise UsageError(f"{k} is an option of the vmaf CLI that {PROG} does not have")
    s = argparse.Namespace(version=a.version, output=a.output, merge=a.merge,
                           fmt=a.fmt or "xml", reference=a.reference, distorted=a.distorted)
    if a.output == "":
        raise _bad("", "-o/--output", "a path")
    for short, k in (("w", "width"), ("h", "height")):
        v = getattr(a, k)
        setattr(s, k, None if v is None else _unsigned(v, f"-{short}/--{k}"))
    if a.pixel_format is not None and a.pixel_format not in ("420", "422", "444"):
        raise _bad(a.pixel_format, "-p/--pixel_format", "a valid pixel format (420/422/444)")
    s.pixel_format = a.pixel_format
    s.bitdepth = None
    if a.bitdepth is not None:
        s.bitdepth = _unsigned(a.bitdepth, "-b/--bitdepth")
        if s.bitdepth not in (8, 10, 12, 16):
            raise _bad(a.bitdepth, "-b/--bitdepth", "a valid bitdepth (8/10/12/16)")
    for k in ("threads", "subsample", "frame_cnt", "frame_skip_ref", "frame_skip_dist"):
        v = getattr(a, k)
        setattr(s, k, 0 if v is None else _unsigned(v, f"--{k}"))
    for k in ("cpumask", "gpumask"):
        v = getattr(a, k)
        setattr(s, k, 0 if v is None else _unsigned(v, f"--{k}", 1 << 64, U64))
    s.backend = a.backend or env_backend or "auto"
    if s.backend not in BACKENDS:
        raise _bad(a.backend, "--backend", "cpu, cuda, opencl or auto")
    s.opencl_device = opencl_device
    if a.opencl_device is not None:
        s.opencl_device = _unsigned(a.opencl_device, "--opencl_device")
        if s.opencl_device >= 1 << 31:
            raise _bad(a.opencl_device, "--opencl_device", "below 2^31")
    s.pictures = a.pictures or "pool"
    if s.pictures not in ("pool", "alloc"):
        raise _bad(a.pictures, "--pictures", "pool or alloc")
    s.precision = None
    if a.precision is not None:
        if a.precision == "max":
            s.precision = 17
        elif a.precision.isdigit() and 1 <= int(a.precision) <= 17:
            s.precision = int(a.precision)
        else:
            raise _bad(a.precision, "--precision", "max or an integer 1..17")
    s.segment = None
    if a.segment is not None:
        first, colon, last = a.segment.partition(":")
        if not colon or not first or not last or ":" in last:
            raise _bad(a.segment, "--segment", "A:B, the frames A..B-1 (A < B)")
        s.segment = (_unsigned(first, "--segment"), _unsigned(last, "--segment"))
        if s.segment[0] >= s.segment[1]:
            raise _bad(a.segment, "--segment", "A:B with A < B (the frames A..B-1)")
    if a.merge:
        if not a.args:
            raise UsageError("--merge needs the segment results to merge")
        if not a.output:
            raise UsageError("--merge needs an output file (-o/--output)")
        refused = _first_not_for_merge(argv)
        if refused:
            raise UsageError(f"--merge does not take {refused}: the parts recorded everything "
                             "else (--merge takes the segment results, -o/--output, "
                             "--xml/--json/--csv/--sub, --precision and -q/--quiet)")
        s.parts = a.args
        return s
    if a.args:
        raise UsageError(f'Unexpected argument "{a.args[0]}"')
    if s.segment and not a.output:
        raise UsageError("--segment needs an output file (-o/--output) for its segment result")
    if a.version:
        return s
    if a.opencl_device is not None and s.backend not in ("opencl", "auto"):
        raise UsageError("--opencl_device picks the device of --backend opencl (or auto)")
    if s.precision is not None:
        raise UsageError("--precision: only with --merge here (the library exports no "
                         "single-run writer with a precision)")
    if not a.reference:
        raise UsageError("Reference .y4m or .yuv (-r/--reference) is required")
    if not a.distorted:
        raise UsageError("Distorted .y4m or .yuv (-d/--distorted) is required")
    raw = (s.width, s.height, s.pixel_format, s.bitdepth)
    if any(v is not None for v in raw) and not all(raw):
        raise UsageError("The following options are required for .yuv input:\n"
                         "  --width/-w\n  --height/-h\n  --pixel_format/-p\n  --bitdepth/-b\n")
    s.geometry = raw if s.width is not None else None
    from .score import Options
    try:
        s.options = Options(models=a.model, features=a.feature, no_prediction=a.no_prediction,
                            threads=s.threads, subsample=s.subsample, frame_cnt=s.frame_cnt,
                            frame_skip_ref=s.frame_skip_ref, frame_skip_dist=s.frame_skip_dist,
                            cpumask=s.cpumask, gpumask=s.gpumask, backend=s.backend,
                            opencl_device=s.opencl_device if s.backend in ("opencl", "auto")
                            else None,
                            output_format=s.fmt, pictures=s.pictures)
    except VmafError as e:  # a bad --model or --feature string, two models of one name
        raise UsageError(str(e)) from None
    return s


def _run(s):
    from . import _lib
    from .score import merge, score, score_segment
    if s.version:
        print(_lib.load().version, file=sys.stderr)
        return 0
    if s.merge:
        merge(s.parts, s.output, s.fmt, precision=s.precision)
        return 0
    if s.segment:
        score_segment(s.reference, s.distorted, s.segment[0], s.segment[1], s.output,
                      s.geometry, s.options)
        return 0
    pooled = score(s.reference, s.distorted, s.output, s.geometry, s.options)
    if not s.output:
        for name, v in pooled.items():
            print(f"{name}: {v:f}", file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        s = parse(argv)
        # as the vmaf CLI: the backend is attached here (parse() read $VMAF_BACKEND), so the
        # library must not attach one again at vmaf_init
        os.environ.pop("VMAF_BACKEND", None)
    except UsageError as e:
        if e.args[0]:
            print(f"{e.args[0]}\n", file=sys.stderr)
        print(f"Usage: {PROG} [options]\n{__doc__.split(chr(10) + chr(10))[1]}", file=sys.stderr)
        return 1
    try:
        return _run(s)
    except VmafError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 255
    except OSError as e:  # anything the checks before did not foresee: one line, no traceback
        where = f"{e.filename}: " if e.filename else ""
        print(f"{PROG}: {where}{e.strerror or e}", file=sys.stderr)
        return 255
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
