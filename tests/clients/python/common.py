"""Helpers of the Python tests: the shared clips, the CLI, exact comparison of output files."""
import json
import os
import subprocess
import sys

CLIPS = []  # (name, width, height, pixel_format, bitdepth, frames)


def load_clips(data_dir):
    with open(os.path.join(data_dir, "clips", "MANIFEST.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    CLIPS[:] = [(r[0], int(r[1]), int(r[2]), r[3], int(r[4]), int(r[5])) for r in rows if r]
    return CLIPS


def clip_paths(clips_dir, name):
    return (os.path.join(clips_dir, name + "_ref.yuv"), os.path.join(clips_dir, name + "_dis.yuv"))


def raw_flags(clip):
    _, w, h, fmt, bits, _ = clip
    return ["-w", str(w), "-h", str(h), "-p", fmt, "-b", str(bits)]


def run_cli(cli, args, check=True):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    if check and p.returncode:
        raise AssertionError(f"vmaf {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    return p


def read_json(path):
    """Objects as lists of (key, value): every key, in order."""
    with open(path) as f:
        return json.load(f, object_pairs_hook=list)


def json_diff(a, b, where="", top=True):
    """None when a and b hold the same document (tests/golden/json_compare.c's rule: same keys in
    the same order, numbers equal as doubles, null with null; the top-level fps skipped)."""
    if type(a) is not type(b):
        return f"{where}: {a!r} vs {b!r}"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            if isinstance(x, tuple):  # an object's (key, value)
                if x[0] != y[0]:
                    return f"{where}: item {i} is {x[0]} vs {y[0]}"
                if top and x[0] == "fps":
                    continue
                d = json_diff(x[1], y[1], f"{where}.{x[0]}", False)
            else:
                d = json_diff(x, y, f"{where}[{i}]", False)
            if d:
                return d
        return None
    if a != b:
        return f"{where}: {a!r} vs {b!r}"
    return None


def text_diff(a_path, b_path, fmt):
    """XML/CSV/SUB: byte-identical except XML's <fyi fps="..."/> line."""
    with open(a_path) as f:
        a = f.read().splitlines()
    with open(b_path) as f:
        b = f.read().splitlines()
    if fmt == "xml":
        a = [x for x in a if "<fyi fps=" not in x]
        b = [x for x in b if "<fyi fps=" not in x]
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: {x!r} vs {y!r}"
    return f"{len(a)} vs {len(b)} lines"


def same_output(a_path, b_path, fmt):
    if fmt == "json":
        return json_diff(read_json(a_path), read_json(b_path))
    return text_diff(a_path, b_path, fmt)


def write_y4m(raw, out, clip, frame_params=False, mono=False):
    """A Y4M copy of a raw clip (mono: the luma only); frame_params adds a FRAME parameter,
    so that frames are found by scanning, not at computed offsets."""
    _, w, h, fmt, bits, _ = clip
    cs = {"420": "420", "422": "422", "444": "444"}[fmt]
    if mono:
        cs = "mono"
    if bits > 8:
        cs += f"p{bits}" if cs != "mono" else f"{bits}"
    if cs == "420":
        cs = "420jpeg"
    bps = 1 if bits == 8 else 2
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h)}[fmt]
    luma, frame = w * h * bps, (w * h + 2 * cw * ch) * bps
    with open(raw, "rb") as f, open(out, "wb") as o:
        o.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C{cs}\n".encode())
        while True:
            data = f.read(frame)
            if len(data) < frame:
                break
            o.write(b"FRAME Ixyz\n" if frame_params else b"FRAME\n")
            o.write(data[:luma] if mono else data)


class Failures:
    def __init__(self):
        self.failed, self.passed = [], 0

    def check(self, ok_or_msg, label):
        if ok_or_msg is None or ok_or_msg is True:
            self.passed += 1
            print(f"ok   {label}", flush=True)
        else:
            self.failed.append(label)
            print(f"FAIL {label}: {ok_or_msg}", flush=True)

    def finish(self):
        print(f"{self.passed} passed, {len(self.failed)} failed")
        sys.exit(1 if self.failed else 0)


def make_renditions(raw, clip, out_dir, frames=None):
    """Two distorted files derived from an 8-bit raw clip (deterministic, pure Python):
    "blur" (each sample the mean of it and the next one in the file) and "noise" (the low
    three bits of every sample flipped at random, seed 1). Returns their paths."""
    import random
    _, w, h, fmt, bits, n = clip
    if bits != 8:
        raise ValueError("make_renditions: 8-bit clips only")
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h)}[fmt]
    size = (w * h + 2 * cw * ch) * (frames or n)
    with open(raw, "rb") as f:
        data = f.read(size)
    half = bytes(v >> 1 for v in range(256))
    low3 = bytes(v & 7 for v in range(256))
    a = data.translate(half)  # every byte below 128: two of them add without a carry
    blur = (int.from_bytes(a, "little") + int.from_bytes(a[1:] + a[-1:], "little")) \
        .to_bytes(len(a), "little")
    rnd = random.Random(1)
    noise = (int.from_bytes(data, "little") ^
             int.from_bytes(rnd.randbytes(len(data)).translate(low3), "little")) \
        .to_bytes(len(data), "little")
    base = os.path.splitext(os.path.basename(raw))[0]
    out = []
    for name, payload in (("blur", blur), ("noise", noise)):
        out.append(os.path.join(out_dir, f"{base}_{name}.yuv"))
        with open(out[-1], "wb") as f:
            f.write(payload)
    return out
