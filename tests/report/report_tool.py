#!/usr/bin/env python3
"""The report tests' helper (standard library only).

  check REPORT.html JSON... [--fps N/D] [--model NAME]... [--default-precision]
      The page is well-formed (html.parser, every element closed in order) and holds what
      src/report.h says for these JSON output files (rung k = file k): one curve per rung and
      metric with exactly the points of the decimation rule, the pooled values and
      percentiles, the worst frames (with time codes when --fps is given), the pooled table;
      each chart a model score (shown at first) or a feature: "vmaf", "vmaf_..." and each
      --model NAME are model scores. Every number is compared as a double, exactly; with
      --default-precision the files were written at the default precision (src/output.c:
      %.6f, or %.16f for a value with more than 6 zeros after the point) and every value of
      the page, per frame (every curve whole), pooled or aggregate, formatted so, must give
      the file's text exactly; the rest of the checks then use the page's doubles.
  synth OUT.json FRAMES [RUNGS_SEED]
      A synthetic JSON output file of FRAMES frames (vmaf, a few features, a drop or two).
  renditions REF.yuv DIS.yuv W H FRAMES OUTDIR
      Three more 4:2:0 8-bit distorted inputs of the same clip (the distorted with noise, the
      reference quantized, the distorted with doubled rows in its middle third), as Y4M
      (F24:1) with the reference and the distorted.
  png SHOT.png
      The screenshot is a PNG with enough pixels unlike its background (zlib, no PIL).
  peak CMD ARG...
      Runs the command and prints its peak resident memory in KiB (getrusage); its status.
"""
import html.parser
import json
import math
import os
import random
import resource
import struct
import subprocess
import sys
import zlib

MAX_POINTS = 2000
BUCKETS = MAX_POINTS // 2
WORST = 20
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


class Page(html.parser.HTMLParser):
    """The elements of the page as (tag, attrs, text) with their nesting checked."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.elems = []
        self.problems = []

    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "a": dict(attrs), "text": "", "parent": self.stack[-1] if self.stack else None}
        self.elems.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        e = {"tag": tag, "a": dict(attrs), "text": "", "parent": self.stack[-1] if self.stack else None}
        self.elems.append(e)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1]["tag"] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1]['tag'] if self.stack else 'nothing'}>"
                                 f" at line {self.getpos()[0]}")
            return
        self.stack.pop()

    def handle_data(self, data):
        for e in self.stack:
            e["text"] += data

    def error(self, message):  # older Pythons
        self.problems.append(message)


def parse_page(path):
    with open(path, encoding="utf-8") as f:  # strict: the page is UTF-8
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    if p.stack:
        p.problems.append("unclosed: " + ", ".join(e["tag"] for e in p.stack))
    if not text.startswith("<!DOCTYPE html>"):
        p.problems.append("no doctype")
    for bad in ("http://", "https://", " src=", "<link"):
        if bad in text.replace("http://www.w3.org", ""):
            p.problems.append(f"refers outside the file: {bad!r}")
    if p.problems:
        fail("not well-formed: " + "; ".join(p.problems[:5]))
    return p, text


def inside(e, tag, cls=None):
    while e:
        if e["tag"] == tag and (cls is None or cls in e["a"].get("class", "").split()):
            return e
        e = e["parent"]
    return None


EXTRA_MODELS = set()


def is_model(name):
    return name == "vmaf" or name.startswith("vmaf_") or name in EXTRA_MODELS


class Num(float):
    """A JSON number that keeps its text."""

    def __new__(cls, text):
        n = float.__new__(cls, text)
        n.text = text
        return n


def fraction_leading_zeros(x):
    """src/output.c: how many times the fractional part is multiplied by 10 to reach >= 1."""
    frac = abs(x)
    frac -= math.trunc(frac)
    n = 0
    while frac < 1.0 and frac != 0:
        frac *= 10
        n += 1
    return n


def default_text(x):
    """src/output.c's JSON number at the default precision."""
    if not math.isfinite(x):
        return "null"
    return "%.6f" % x if fraction_leading_zeros(x) <= 6 else "%.16f" % x


def load_rung(path):
    with open(path) as f:
        d = json.load(f, parse_float=Num, parse_int=Num)
    frames = [fr["frameNum"] for fr in d["frames"]]
    names = []
    for fr in d["frames"]:
        for k in fr["metrics"]:
            if k not in names:
                names.append(k)
    values = {k: [fr["metrics"].get(k) for fr in d["frames"]] for k in names}
    frames = [int(f) for f in frames]
    return {"frames": frames, "names": names, "values": values,
            "pooled": d.get("pooled_metrics", {}), "agg": d.get("aggregate_metrics", {})}


def finite(v):
    return v is not None and math.isfinite(v)


def percentile(vals, p):
    s = sorted(v for v in vals if finite(v))
    if not s:
        return None
    rank = max(1, -(-p * len(s) // 100))
    return s[rank - 1]


def worst_positions(vals):
    pos = [i for i, v in enumerate(vals) if finite(v)]
    pos.sort(key=lambda i: (vals[i], i))
    return pos[:WORST]


def expected_points(frames, vals, worst):
    fin = [i for i, v in enumerate(vals) if finite(v)]
    n = len(fin)
    if n <= MAX_POINTS:
        return [(frames[i], vals[i]) for i in fin]
    ws = sorted(worst)
    out, w = [], 0
    for b in range(BUCKETS):
        idx = fin[b * n // BUCKETS:(b + 1) * n // BUCKETS]
        lo = min(idx, key=lambda i: (vals[i], i))
        hi = min(idx, key=lambda i: (-vals[i], i))
        pick = {lo, hi}
        while w < len(ws) and ws[w] <= idx[-1]:
            pick.add(ws[w])
            w += 1
        out += [(frames[i], vals[i]) for i in sorted(pick)]
    return out


def timecode(frame, num, den):
    t = frame * den
    s, ms = t // num, (t % num) * 1000 // num
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}.{ms:03d}"


def adopt_page_values(rungs, E, figures):
    """--default-precision: each value of the page, formatted as the JSON writer does, is the
    file's text; the rungs then hold the page's doubles. The count of values compared."""
    n = 0

    def same(what, page_v, json_v):
        want = json_v.text if isinstance(json_v, Num) else "null"
        if default_text(page_v) != want:
            fail(f"{what}: the page's {page_v!r} writes as {default_text(page_v)}, the file has {want}")

    for name, fig in figures.items():
        for p in (e for e in E if e["tag"] == "polyline" and inside(e, "figure") is fig):
            k = int(p["a"]["data-rung"])
            r = rungs[k]
            drawn = {}
            for pt in p["a"]["points"].split():
                x, y = pt.split(",")
                drawn[int(x)] = float(y)
            if len(drawn) != int(p["a"]["data-values"]):
                fail(f"{name} rung {k}: a decimated curve, its values cannot all be compared")
            vals = r["values"][name]
            for i, f in enumerate(r["frames"]):
                if f in drawn:
                    same(f"{name} rung {k} frame {f}", drawn[f], vals[i])
                    vals[i] = drawn[f]
                    n += 1
                elif vals[i] is not None:
                    fail(f"{name} rung {k} frame {f}: {vals[i].text} in the file, not drawn")
        for e in E:
            if e["tag"] == "td" and "data-s" in e["a"] and inside(e, "figure") is fig \
                    and e["a"]["data-s"] in ("min", "max", "mean", "harmonic_mean"):
                k = int(inside(e, "tr")["a"]["data-rung"])
                pooled = rungs[k]["pooled"].get(name, {})
                s = e["a"]["data-s"]
                if "data-v" not in e["a"]:
                    if pooled.get(s) is not None:
                        fail(f"{name} rung {k}: no {s} on the page, {pooled[s].text} in the file")
                    continue
                v = float(e["a"]["data-v"])
                same(f"{name} rung {k} pooled {s}", v, pooled.get(s))
                pooled[s] = v
                n += 1
    for e in E:
        if e["tag"] == "tr" and inside(e, "table", "aggregates"):
            k = int(e["a"]["data-r"])
            tds = [c for c in E if c["tag"] == "td" and c["parent"] is e]
            key = tds[1]["text"]
            v = float(tds[2]["a"]["data-v"])
            same(f"aggregate {key} of rung {k}", v, rungs[k]["agg"].get(key))
            rungs[k]["agg"][key] = v
            n += 1
    return n


def check(args):
    fps = None
    default_prec = "--default-precision" in args
    args = [a for a in args if a != "--default-precision"]
    while "--model" in args:
        i = args.index("--model")
        EXTRA_MODELS.add(args[i + 1])
        args = args[:i] + args[i + 2:]
    if "--fps" in args:
        i = args.index("--fps")
        num, den = (int(x) for x in args[i + 1].split("/"))
        fps = (num, den)
        args = args[:i] + args[i + 2:]
    report, jsons = args[0], args[1:]
    page, text = parse_page(report)
    rungs = [load_rung(j) for j in jsons]
    E = page.elems
    figures = {e["a"]["data-name"]: e for e in E if e["tag"] == "figure"}
    union = []
    for r in rungs:
        union += [n for n in r["names"] if n not in union]
    if sorted(figures) != sorted(union):
        fail(f"charts {sorted(figures)} != metrics {sorted(union)}")
    models = [n for n in union if is_model(n)]
    primary = models[0] if models else union[0]
    for name, fig in figures.items():
        kind = [e for e in E if e["tag"] == "span" and "kind" in e["a"].get("class", "").split()
                and inside(e, "figure") is fig]
        if len(kind) != 1 or kind[0]["text"].startswith("model score") != is_model(name):
            fail(f"{name}: shown as {kind[0]['text'] if kind else 'nothing'!r}, "
                 f"{'a model score' if is_model(name) else 'a feature'} expected")
        box = [e for e in E if e["tag"] == "input" and e["a"].get("data-chart") == fig["a"]["data-metric"]]
        if len(box) != 1 or ("checked" in box[0]["a"]) != (is_model(name) or not models):
            fail(f"{name}: its chart {'shown' if box and 'checked' in box[0]['a'] else 'hidden'} at first")
    compared = adopt_page_values(rungs, E, figures) if default_prec else 0
    by_index = {e["a"]["data-metric"]: e["a"]["data-name"] for e in figures.values()}
    curves = points = 0
    for name, fig in figures.items():
        polys = [e for e in E if e["tag"] == "polyline" and inside(e, "figure") is fig]
        lines = [e for e in E if e["tag"] == "line" and "pool" in e["a"].get("class", "")
                 and inside(e, "figure") is fig]
        have = [k for k, r in enumerate(rungs) if name in r["values"]]
        if sorted(int(p["a"]["data-rung"]) for p in polys) != have:
            fail(f"{name}: curves of rungs {[p['a']['data-rung'] for p in polys]}, expected {have}")
        legend = {}
        for e in E:
            if e["tag"] == "td" and "data-s" in e["a"] and inside(e, "figure") is fig:
                legend[(int(inside(e, "tr")["a"]["data-rung"]), e["a"]["data-s"])] = e["a"].get("data-v")
        for p in polys:
            k = int(p["a"]["data-rung"])
            r = rungs[k]
            vals = r["values"][name]
            worst = worst_positions(vals) if name == primary else []
            want = expected_points(r["frames"], vals, worst)
            got = []
            for pt in p["a"]["points"].split():
                x, y = pt.split(",")
                got.append((int(x), float(y)))
            if got != want:
                diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                fail(f"{name} rung {k}: {len(got)} points, expected {len(want)}; first difference "
                     f"at {diff}: {got[diff] if diff < len(got) else None} vs "
                     f"{want[diff] if diff < len(want) else None}")
            if int(p["a"]["data-values"]) != sum(1 for v in vals if finite(v)):
                fail(f"{name} rung {k}: data-values")
            curves += 1
            points += len(got)
            stats = {"p1": percentile(vals, 1), "p5": percentile(vals, 5)}
            for s in ("min", "max", "mean", "harmonic_mean"):
                pv = r["pooled"].get(name, {}).get(s)
                stats[s] = float(pv) if pv is not None else None
            for s, v in stats.items():
                got_v = legend.get((k, s))
                if (v is None or not math.isfinite(v)) != (got_v is None) or (
                        got_v is not None and float(got_v) != v):
                    fail(f"{name} rung {k}: {s} {got_v} != {v}")
                line = [e for e in lines if int(e["a"]["data-rung"]) == k and e["a"]["data-stat"] == s]
                if s != "max" and v is not None and math.isfinite(v):
                    if len(line) != 1 or float(line[0]["a"]["y1"]) != v or float(line[0]["a"]["y2"]) != v:
                        fail(f"{name} rung {k}: pooled line {s}")
    # worst frames: list and marks
    for k, r in enumerate(rungs):
        if primary not in r["values"]:
            continue
        vals = r["values"][primary]
        want = [(r["frames"][i], vals[i]) for i in worst_positions(vals)]
        rows = [e for e in E if e["tag"] == "tr" and inside(e, "div", "worstlist")
                and e["a"].get("data-rung") == str(k)]
        got = []
        for row in rows:
            cells = [e for e in E if e["tag"] == "td" and e["parent"] is row]
            got.append((int(row["a"]["data-frame"]), float(cells[-1]["a"]["data-v"])))
            link = [e for e in E if e["tag"] == "a" and inside(e, "tr") is row][0]
            target = [e for e in E if e["a"].get("id") == link["a"]["href"][1:]]
            if len(target) != 1 or target[0]["a"]["data-frame"] != row["a"]["data-frame"] \
                    or inside(target[0], "figure")["a"]["data-name"] != primary:
                fail(f"worst frame link {link['a']['href']} does not lead to its mark")
            if fps:
                if cells[2]["text"] != timecode(int(row["a"]["data-frame"]), *fps):
                    fail(f"time code {cells[2]['text']} of frame {row['a']['data-frame']}")
            elif len(cells) != 3:
                fail("a time column without a frame rate")
        if got != want:
            fail(f"worst frames of rung {k}: {got[:3]}... != {want[:3]}...")
    # the pooled table
    cells = 0
    for e in E:
        if e["tag"] == "td" and inside(e, "table") and inside(e, "table")["a"].get("id") == "pooled-table" \
                and "data-m" in e["a"]:
            k = int(inside(e, "tr")["a"]["data-r"])
            name, s = by_index[e["a"]["data-m"]], e["a"]["data-s"]
            vals = rungs[k]["values"].get(name)
            if vals is None:
                continue
            want = percentile(vals, int(s[1:])) if s in ("p1", "p5") else \
                rungs[k]["pooled"].get(name, {}).get(s)
            if want is not None and float(e["a"]["data-v"]) != float(want):
                fail(f"pooled table {name} {s} rung {k}: {e['a']['data-v']} != {want}")
            cells += 1
    if "id=\"pooled-table\"" not in text:
        fail("no pooled table")
    aggs = 0
    for e in E:
        if e["tag"] == "tr" and inside(e, "table", "aggregates"):
            k = int(e["a"]["data-r"])
            tds = [c for c in E if c["tag"] == "td" and c["parent"] is e]
            want = rungs[k]["agg"].get(tds[1]["text"])
            got = tds[2]["a"].get("data-v")
            if want is None or got is None or float(got) != float(want):
                fail(f"aggregate {tds[1]['text']} of rung {k}: {got} != {want}")
            aggs += 1
    if aggs != sum(len(r["agg"]) for r in rungs):
        fail(f"{aggs} aggregates in the page, {sum(len(r['agg']) for r in rungs)} in the files")
    print(f"ok: {len(rungs)} rung(s), {len(figures)} charts, {curves} curves, {points} points, "
          f"{cells} pooled cells, {aggs} aggregates, primary {primary}, {os.path.getsize(report)} bytes"
          + (f", {compared} values == the file's text at the default precision" if default_prec else ""))


def synth(args):
    out, n = args[0], int(args[1])
    seed = int(args[2]) if len(args) > 2 else 1
    rnd = random.Random(seed)
    names = ["integer_adm2", "integer_motion2", "integer_vif_scale0", "psnr_y", "vmaf"]
    series = {k: [] for k in names}
    for i in range(n):
        drop = 30.0 if i % 9973 in (17, 19) else 0.0  # two worst frames in one bucket
        v = 85 + 8 * math.sin(i / 500.0) + rnd.uniform(-3, 3) - drop
        series["vmaf"].append(round(max(0.0, min(100.0, v)), 6))
        series["integer_adm2"].append(round(0.9 + v / 2000.0, 6))
        series["integer_motion2"].append(round(abs(math.sin(i / 77.0)) * 12, 6))
        series["integer_vif_scale0"].append(round(0.5 + rnd.uniform(0, 0.3), 6))
        series["psnr_y"].append(round(30 + v / 10 + rnd.uniform(-1, 1), 6))
    with open(out, "w") as f:
        f.write('{\n  "version": "synthetic",\n  "fps": 1000.0,\n  "frames": [\n')
        for i in range(n):
            m = ",\n".join(f'        "{k}": {series[k][i]:.6f}' for k in names)
            f.write(f'    {{\n      "frameNum": {i},\n      "metrics": {{\n{m}\n      }}\n    }}'
                    f'{"," if i + 1 < n else ""}\n')
        f.write('  ],\n  "pooled_metrics": {\n')
        for j, k in enumerate(names):
            s = series[k]
            hm = len(s) / sum(1.0 / (x + 1) for x in s) - 1
            f.write(f'    "{k}": {{\n      "min": {min(s):.6f},\n      "max": {max(s):.6f},\n'
                    f'      "mean": {sum(s) / len(s):.6f},\n      "harmonic_mean": {hm:.6f}\n'
                    f'    }}{"," if j + 1 < len(names) else ""}\n')
        f.write('  },\n  "aggregate_metrics": {\n  }\n}\n')


def renditions(args):
    ref, dis, w, h, frames, outdir = args[0], args[1], int(args[2]), int(args[3]), int(args[4]), args[5]
    size = w * h * 3 // 2
    rnd = random.Random(7)
    with open(ref, "rb") as f:
        r = f.read(size * frames)
    with open(dis, "rb") as f:
        d = f.read(size * frames)
    out = {}
    # the distorted with a fixed noise pattern growing over the clip: the luma as 8
    # interleaved slices, each shifted by its own amount (bytes.translate: fast)
    buf = bytearray(d)
    for i in range(frames):
        amp = 4 + 28 * i // max(1, frames - 1)
        base = i * size
        for s in range(8):
            delta = rnd.randint(-amp, amp)
            table = bytes(max(0, min(255, b + delta)) for b in range(256))
            buf[base + s:base + w * h:8] = bytes(buf[base + s:base + w * h:8]).translate(table)
    out["noisy"] = bytes(buf)
    # the reference quantized (a mild, even loss)
    out["quant"] = r.translate(bytes(b & 0xf8 for b in range(256)))
    # the distorted with its odd rows repeating the even ones in the middle third of the clip
    buf = bytearray(d)
    for i in range(frames // 3, 2 * frames // 3):
        base = i * size
        for y in range(0, h - 1, 2):
            buf[base + (y + 1) * w:base + (y + 2) * w] = buf[base + y * w:base + (y + 1) * w]
    out["lines"] = bytes(buf)
    os.makedirs(outdir, exist_ok=True)
    header = f"YUV4MPEG2 W{w} H{h} F24:1 Ip A1:1 C420jpeg\n".encode()

    def y4m(path, data):
        with open(path, "wb") as f:
            f.write(header)
            for i in range(frames):
                f.write(b"FRAME\n")
                f.write(data[i * size:(i + 1) * size])

    y4m(os.path.join(outdir, "ref.y4m"), r)
    y4m(os.path.join(outdir, "crf23.y4m"), d)
    for name, data in out.items():
        y4m(os.path.join(outdir, name + ".y4m"), data)


def png(args):
    with open(args[0], "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if w is None or depth != 8 or ctype not in (2, 6) or interlace:
        fail("an unexpected PNG layout")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    counts = {}
    p = 0
    for _ in range(h):
        ft = raw[p]
        line = bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        for x in range(0, stride, bpp * 4):  # every 4th pixel
            px = bytes(line[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
        prev = line
    total = sum(counts.values())
    bg, bg_n = max(counts.items(), key=lambda kv: kv[1])
    other = total - bg_n
    colors = len(counts)
    print(f"png: {w}x{h}, background #{bg.hex()} on {100 * bg_n / total:.1f}% of the sampled pixels, "
          f"{colors} colours")
    if other < total * 0.02 or colors < 16:
        fail("the page looks blank")


def peak(args):
    rc = subprocess.call(args)
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    sys.exit(rc)


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    {"check": check, "synth": synth, "renditions": renditions, "png": png, "peak": peak}[cmd](rest)
