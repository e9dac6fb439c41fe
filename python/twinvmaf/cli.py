"""`twinvmaf-score`: the `vmaf` CLI's common flags through the Python binding.

    twinvmaf-score -r REF -d DIS [-w W -h H -p 420|422|444|400 -b BITS] [-m SPEC ...]
                   [--feature SPEC ...] [-n] [--threads N] [--subsample N] [--frame_cnt N]
                   [--frame_skip_ref N] [--frame_skip_dist N] [--backend cpu|cuda|auto]
                   [--xml|--json|--csv|--sub] [--segment A:B] -o OUT
    twinvmaf-score --merge PART... -o OUT [--xml|--json|--csv|--sub] [--precision max|N]
"""
import argparse
import sys

from ._lib import VmafError
from .score import merge, score, score_segment


def main(argv=None):
    p = argparse.ArgumentParser(prog="twinvmaf-score", add_help=False,
                                description="score as the vmaf CLI does, through libvmaf.so.3")
    p.add_argument("--help", action="help")
    p.add_argument("-r", "--reference")
    p.add_argument("-d", "--distorted")
    p.add_argument("-w", "--width", type=int)
    p.add_argument("-h", "--height", type=int)
    p.add_argument("-p", "--pixel_format")
    p.add_argument("-b", "--bitdepth", type=int)
    p.add_argument("-m", "--model", action="append", default=None)
    p.add_argument("--feature", action="append", default=[])
    p.add_argument("-n", "--no_prediction", action="store_true")
    for k in ("threads", "subsample", "frame_cnt", "frame_skip_ref", "frame_skip_dist"):
        p.add_argument(f"--{k}", type=int, default=0)
    p.add_argument("--backend", default="auto", choices=("cpu", "cuda", "auto"))
    p.add_argument("--pictures", default="pool", choices=("pool", "alloc"))
    for f in ("xml", "json", "csv", "sub"):
        p.add_argument(f"--{f}", dest="fmt", action="store_const", const=f)
    p.add_argument("--precision", help="max or 1..17 (with --merge only: single runs write "
                   "the reference's format, the library exports no other)")
    p.add_argument("--segment")
    p.add_argument("--merge", nargs="+")
    p.add_argument("-o", "--output")
    a = p.parse_args(argv)
    fmt = a.fmt or "xml"
    try:
        if a.merge:
            if not a.output:
                p.error("--merge needs -o")
            prec = None if a.precision is None else 17 if a.precision == "max" else a.precision
            merge(a.merge, a.output, fmt, precision=prec)
            return 0
        if a.precision is not None:
            p.error("--precision: only with --merge (vmaf_write_output_with_precision is not "
                    "exported)")
        if not a.reference or not a.distorted:
            p.error("-r and -d are required")
        raw = (a.width, a.height, a.pixel_format, a.bitdepth)
        if any(v is not None for v in raw) and not all(v is not None for v in raw):
            p.error("raw input needs all of -w, -h, -p, -b")
        geometry = raw if a.width is not None else None
        opts = dict(models=a.model, features=a.feature, no_prediction=a.no_prediction,
                    threads=a.threads, subsample=a.subsample, frame_cnt=a.frame_cnt,
                    frame_skip_ref=a.frame_skip_ref, frame_skip_dist=a.frame_skip_dist,
                    backend=a.backend, output_format=fmt, pictures=a.pictures)
        if a.segment:
            first, _, last = a.segment.partition(":")
            if not first.isdigit() or not last.isdigit() or not a.output:
                p.error("--segment A:B (frames A..B-1) needs -o")
            score_segment(a.reference, a.distorted, int(first), int(last), a.output, geometry,
                          opts)
            return 0
        pooled = score(a.reference, a.distorted, a.output, geometry, opts)
        if not a.output:
            for name, s in pooled.items():
                print(f"{name}: {s:f}", file=sys.stderr)
        return 0
    except VmafError as e:
        print(f"twinvmaf-score: {e}", file=sys.stderr)
        return 255


if __name__ == "__main__":
    sys.exit(main())
