"""twinvmaf.score_ladder(), score_segment_ladder() and score_batch(): one reference against
several distorted inputs in one process, each output the file score() writes for that input
alone and the vmaf CLI's ladder run writes (byte for byte but the fps); failures alone.

test_ladder.py CLI DATA_DIR CLIPS_DIR SCRATCH
"""
import os
import shutil
import sys
import time

import twinvmaf
import twinvmaf.ladder
from common import (Failures, clip_paths, load_clips, make_renditions, raw_flags, run_cli,
                    write_y4m)

cli, data_dir, clips_dir, scratch = sys.argv[1:5]
# a directory of its own: test_ray.py uses siblings named by its mode (one is "ladder")
scratch = os.path.join(scratch, "python_ladder")
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
clips = {c[0]: c for c in load_clips(data_dir)}
t = Failures()
t0 = time.monotonic()
print(f"library {twinvmaf.load().path} ({twinvmaf.load().version})")

boats = clips["boats_576x324_420p"]
ref, dis = clip_paths(clips_dir, boats[0])
g = boats[1:5]
blur, noise = make_renditions(dis, boats, scratch)
DISTORTED = [dis, blur, noise]


def path(name):
    return os.path.join(scratch, name)


def without_fps(p, fmt):
    with open(p, "rb") as f:
        lines = f.read().split(b"\n")
    key = {"json": b'  "fps": ', "xml": b"  <fyi fps="}.get(fmt)
    return [ln for ln in lines if not key or not ln.startswith(key)]


def same_bytes(a, b, fmt):
    """None when files a and b are byte-identical but the fps line."""
    for p in (a, b):
        if not os.path.exists(p):
            return f"{p} was not written"
    x, y = without_fps(a, fmt), without_fps(b, fmt)
    if x == y:
        return None
    for i, (u, v) in enumerate(zip(x, y)):
        if u != v:
            return (f"{os.path.basename(a)} vs {os.path.basename(b)} line {i + 1}: "
                    f"{u[:80]!r} vs {v[:80]!r}")
    return f"{len(x)} vs {len(y)} lines"


def single(label, reference, distorted, geometry, opts, fmt):
    """score()'s file for one pair (made once per label)."""
    out = path(f"{label}.single.{fmt}")
    if not os.path.exists(out):
        twinvmaf.score(reference, distorted, out, geometry, dict(opts, output_format=fmt))
    return out


def name_of(p):
    return os.path.splitext(os.path.basename(p))[0]


def check_raises(label, fn, words, unwritten=()):
    try:
        fn()
    except twinvmaf.VmafError as e:
        msg = str(e)
        written = [p for p in unwritten if os.path.exists(p)]
        ok = all(w in msg for w in words) and not written
        t.check(None if ok else f"message {msg!r} (want {words}), written {written}", label)
        return
    t.check("no error", label)


# 1. three distorted (the clip's and two derived), against score() and the CLI's ladder
CASES = [  # (label, options, the same as vmaf flags, format)
    ("json_t2", {"features": ["psnr", "float_ssim"], "threads": 2},
     ["--feature", "psnr", "--feature", "float_ssim", "--threads", "2"], "json"),
    ("xml_t0_bootstrap", {"models": ["version=vmaf_b_v0.6.3"], "features": ["psnr"]},
     ["-m", "version=vmaf_b_v0.6.3", "--feature", "psnr"], "xml"),
    ("csv_range", {"no_prediction": True, "features": ["psnr", "motion"], "frame_skip_ref": 1,
                   "frame_skip_dist": 2, "frame_cnt": 15, "subsample": 2, "threads": 1},
     ["-n", "--feature", "psnr", "--feature", "motion", "--frame_skip_ref", "1",
      "--frame_skip_dist", "2", "--frame_cnt", "15", "--subsample", "2", "--threads", "1"], "csv"),
]
for label, opts, flags, fmt in CASES:
    opts = dict(opts, backend="cpu", output_format=fmt)
    outs = [path(f"{label}.{k}.{fmt}") for k in range(3)]
    try:
        res = twinvmaf.score_ladder(ref, DISTORTED, outs, g, opts)
    except twinvmaf.VmafError as e:
        t.check(f"raised: {e}", f"{label}: score_ladder")
        continue
    cli_tpl = path(f"{label}.cli.{{name}}.{fmt}")
    run_cli(cli, ["-r", ref] + sum((["-d", d] for d in DISTORTED), []) + raw_flags(boats) +
            flags + ["--backend", "cpu", f"--{fmt}", "-o", cli_tpl])
    for k, d in enumerate(DISTORTED):
        r = res[k]
        s = single(f"{label}.{k}", ref, d, g, opts, fmt)
        want = twinvmaf.score(ref, d, None, g, opts)
        t.check(None if r.ok and r.scores == want and r.output == outs[k] else f"result {r}, "
                f"score() gives {want}", f"{label}: {name_of(d)}: result == score()'s")
        t.check(same_bytes(outs[k], s, fmt), f"{label}: {name_of(d)}: file == score()'s")
        t.check(same_bytes(outs[k], cli_tpl.replace("{name}", name_of(d)), fmt),
                f"{label}: {name_of(d)}: file == the CLI ladder's")

# outputs as one template ({n} and {name}), and no output at all
res = twinvmaf.score_ladder(ref, DISTORTED, path("tpl_{n}_{name}.json"), g, backend="cpu",
                            output_format="json")
for k, d in enumerate(DISTORTED):
    p = path(f"tpl_{k + 1}_{name_of(d)}.json")
    t.check(same_bytes(p, single(f"default.{k}", ref, d, g, {"backend": "cpu"}, "json"), "json"),
            f"template {{n}}_{{name}}: {os.path.basename(p)} == score()'s")
res = twinvmaf.score_ladder(ref, DISTORTED, None, g, backend="cpu")
t.check(None if [r.scores for r in res] == [twinvmaf.score(ref, d, None, g, backend="cpu")
                                             for d in DISTORTED] else f"{res}",
        "no outputs: the scores are score()'s")

# 2. a distorted input that fails or ends early, among good ones (Y4M and raw)
F = 576 * 324 * 3 // 2
y4m = {}
for d, n in ((ref, "ref"), (dis, "dis"), (blur, "blur"), (noise, "noise")):
    y4m[n] = path(f"{n}.y4m")
    write_y4m(d, y4m[n], boats)
cut_y4m = path("cut.y4m")  # cut in the middle of frame 11
with open(y4m["noise"], "rb") as f, open(cut_y4m, "wb") as o:
    o.write(f.read(len(f"YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n") + 11 * (F + 6) + F // 2))
half_raw, part_raw = path("half.yuv"), path("part.yuv")
with open(noise, "rb") as f:
    data = f.read()
with open(half_raw, "wb") as o:
    o.write(data[:F * 10])  # 10 whole frames: ends early
with open(part_raw, "wb") as o:
    o.write(data[:F * 10 + 1000])  # 10 frames and part of one: a truncated frame 10


def fails_alone(label, reference, distorted, geometry, bad, words, fmt="json"):
    opts = {"backend": "cpu", "features": ["psnr"], "threads": 2, "output_format": fmt}
    outs = [path(f"{label}.{k}.{fmt}") for k in range(len(distorted))]
    try:
        res = twinvmaf.score_ladder(reference, distorted, outs, geometry, opts)
    except twinvmaf.VmafError as e:
        return t.check(f"raised: {e}", label)
    try:
        twinvmaf.score(reference, distorted[bad], None, geometry, opts)
        alone = "score() does not fail"
    except twinvmaf.VmafError as e:
        alone = str(e)
    r = res[bad]
    t.check(None if not r.ok and str(r.error) == alone and all(w in alone for w in words) and
            not os.path.exists(outs[bad]) and r.scores is None else
            f"result {r}; score() alone: {alone}", f"{label}: fails alone as score() ({alone})")
    for k, d in enumerate(distorted):
        if k != bad:
            t.check(same_bytes(outs[k], single(f"{label}.{k}", reference, d, geometry, opts, fmt),
                               fmt), f"{label}: {name_of(d)} == score()'s")


fails_alone("y4m_cut_mid_frame", y4m["ref"], [y4m["dis"], cut_y4m, y4m["blur"]], None, 1,
            ["truncated frame 11"])
fails_alone("raw_partial_frame", ref, [dis, blur, part_raw], g, 2, ["truncated frame 10"])
fails_alone("missing_distorted", ref, [dis, path("nope.yuv"), blur], g, 1, ["cannot open"])
# a sample above the bit depth in frame 5: the library refuses that frame of that rung alone
forest = clips["forest_576x324_420p10"]
fref, fdis = clip_paths(clips_dir, forest[0])
hot = path("forest_hot.yuv")
with open(fdis, "rb") as f, open(hot, "wb") as o:
    fdata = bytearray(f.read())
    at = 5 * 576 * 324 * 3 + 2 * 1000  # frame 5 (10-bit 4:2:0: 3 bytes a pixel), sample 1000
    fdata[at:at + 2] = b"\xff\xff"
    o.write(fdata)
fails_alone("sample_above_depth_frame_5", fref, [hot, fdis], forest[1:5], 0,
            ["problem scoring frame 5"])
# shorter, whole frames: scored as its single run (which says it ended before the reference)
opts = {"backend": "cpu", "features": ["psnr"], "output_format": "json"}
outs = [path(f"short.{k}.json") for k in range(3)]
res = twinvmaf.score_ladder(ref, [dis, half_raw, blur], outs, g, opts)
t.check(None if all(r.ok for r in res) and res[1].frames == 10 and res[0].frames == 24 else
        f"{res}", "shorter raw distorted: every rung scored, it over 10 frames")
for k, d in enumerate([dis, half_raw, blur]):
    t.check(same_bytes(outs[k], single(f"short.{k}", ref, d, g, opts, "json"), "json"),
            f"shorter raw distorted: {name_of(d)} == score()'s")
# the reference shorter than one distorted input: that rung ends with it
res = twinvmaf.score_ladder(half_raw, [noise, dis], [path("refshort.0.json"),
                                                     path("refshort.1.json")], g, opts)
for k, d in enumerate([noise, dis]):
    t.check(same_bytes(path(f"refshort.{k}.json"),
                       single(f"refshort.{k}", half_raw, d, g, opts, "json"), "json"),
            f"shorter reference: {name_of(d)} == score()'s")

# 3. refused before any frame, nothing written
small = path("small.y4m")
with open(small, "wb") as o:
    o.write(b"YUV4MPEG2 W288 H162 F25:1 Ip A1:1 C420jpeg\n")
    for _ in range(3):
        o.write(b"FRAME\n" + data[:288 * 162 * 3 // 2])
outs = [path(f"refused.{k}.json") for k in range(3)]
check_raises("another geometry (Y4M): refused, naming it",
             lambda: twinvmaf.score_ladder(y4m["ref"], [y4m["dis"], small, y4m["blur"]], outs,
                                           None, backend="cpu"), ["small.y4m", "incompatible"],
             outs)
check_raises("a raw distorted among Y4M: refused, naming it",
             lambda: twinvmaf.score_ladder(y4m["ref"], [y4m["dis"], blur], outs[:2], None,
                                           backend="cpu"), [blur, "not a Y4M file"], outs)
check_raises("output is an input", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, [outs[0], blur, outs[2]], g, backend="cpu"),
    ["refusing to overwrite", blur], outs)
check_raises("one output twice", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, [outs[0], outs[1], os.path.join(scratch, ".", "refused.0.json")], g,
    backend="cpu"), ["also the output of"], outs)
heat = path("heat")
os.makedirs(heat, exist_ok=True)
check_raises("cambi heatmaps for several distorted", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, outs, g, backend="cpu", features=[f"cambi=heatmaps_path={heat}"]),
    ["heatmaps_path"], outs + [os.path.join(heat, "cambi_heatmap_scale_0_576x324_16b.gray")])
t.check(None if not os.listdir(heat) else f"written: {os.listdir(heat)}",
        "cambi heatmaps for several distorted: no heatmap written")
check_raises("a template without {n} or {name}", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, outs[0], g, backend="cpu"), ["{n}"], outs)
check_raises("{name} of two inputs of one base name", lambda: twinvmaf.score_ladder(
    ref, [dis, dis], path("{name}.json"), g, backend="cpu"), ["also the output of"],
    [path(name_of(dis) + ".json")])
check_raises("two outputs for three inputs", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, outs[:2], g, backend="cpu"), ["2 outputs for 3"], outs)
check_raises("an output in no directory", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, [outs[0], outs[1], "/nonexistent/dir/x.json"], g, backend="cpu"),
    ["cannot write output file"], outs)
check_raises("an unknown extractor", lambda: twinvmaf.score_ladder(
    ref, DISTORTED, outs, g, backend="cpu", features=["nope"]),
    ["problem loading feature extractor: nope"], outs)

# 4. segments: score_segment_ladder() parts merged == score()'s file, per distorted input
cuts = [0, 7, 16, 24]
parts = [[path(f"seg.{k}.{a}_{b}.part") for a, b in zip(cuts, cuts[1:])] for k in range(3)]
seg_opts = {"backend": "cpu", "features": ["psnr", "motion=motion_five_frame_window=true"],
            "threads": 2, "output_format": "json"}
try:
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        res = twinvmaf.score_segment_ladder(ref, DISTORTED, a, b, [p[i] for p in parts], g,
                                            seg_opts)
        bad = [r for r in res if not r.ok]
        if bad:
            raise bad[0].error
    for k, d in enumerate(DISTORTED):
        merged = path(f"seg.{k}.merged.json")
        twinvmaf.merge(parts[k], merged, "json")
        t.check(same_bytes(merged, single(f"seg.{k}", ref, d, g, seg_opts, "json"), "json"),
                f"segment ladder: {name_of(d)}: 3 parts merged == score()'s")
except twinvmaf.VmafError as e:
    t.check(f"raised: {e}", "segment ladder")

# 5. a batch: good jobs (two ladders of the same reference, another clip, other formats)
# and bad ones (missing file, wrong geometry, bad options, an output twice), each alone
kite = clips["kite_257x145_420p"]
kref, kdis = clip_paths(clips_dir, kite[0])
runs = []
real_run = twinvmaf.ladder._run


def counting_run(lib, reference, rungs, *a, **kw):
    runs.append((os.path.basename(reference), len(rungs)))
    return real_run(lib, reference, rungs, *a, **kw)


twinvmaf.ladder._run = counting_run
B = {"backend": "cpu", "features": ["psnr"]}
jobs = [  # (job, None for good or words of its error)
    (twinvmaf.Job(ref, dis, path("batch.dis.json"), dict(B, output_format="json"), g), None),
    ((ref, blur, path("batch.blur.xml"), dict(B, output_format="xml"), g), None),
    ({"reference": ref, "distorted": path("missing.yuv"), "output": path("batch.missing.json"),
      "options": dict(B, output_format="json"), "geometry": g}, "cannot open"),
    (twinvmaf.Job(kref, kdis, path("batch.kite.json"), {"backend": "cpu"}, kite[1:5]), None),
    (twinvmaf.Job(ref, noise, path("batch.noise.csv"), dict(B, output_format="csv"), g), None),
    (twinvmaf.Job(ref, dis, path("batch.bad_opt.json"), dict(B, threads=-1), g), "threads"),
    (twinvmaf.Job(ref, dis, path("batch.bad_feature.json"), {"features": ["nope"]}, g),
     "problem loading feature extractor: nope"),
    (twinvmaf.Job(ref, dis, path("batch.bad_geometry.json"), B, (576, 324, "420", 10)),
     "above the 10-bit maximum"),
    (twinvmaf.Job(y4m["ref"], small, path("batch.small.json"), B), "incompatible"),
    (twinvmaf.Job(y4m["ref"], y4m["blur"], path("batch.y4m_blur.json"), B), None),
    (twinvmaf.Job(ref, half_raw, path("batch.half.json"), dict(B, output_format="json"), g),
     None),
    (twinvmaf.Job(ref, blur, path("batch.dis.json"), B, g), "also the output of"),
    (twinvmaf.Job(ref, dis, dis, B, g), "refusing to overwrite"),
    (twinvmaf.Job(ref, blur, path("batch.blur_t2.json"), dict(B, threads=2), g), None),
]
try:
    results = twinvmaf.score_batch([j for j, _ in jobs])
except Exception as e:  # noqa: BLE001 -- any exception is a failure of the batch's promise
    results = None
    t.check(f"raised: {type(e).__name__}: {e}", "score_batch")
twinvmaf.ladder._run = real_run
if results is not None:
    t.check(None if len(results) == len(jobs) else f"{len(results)} results",
            "batch: a result per job")
    for (j, words), r in zip(jobs, results):
        j = twinvmaf.ladder._job(j)
        label = f"batch: {os.path.basename(j.output)}"
        if words is None:
            o = twinvmaf.Options.from_any(j.options)
            s = single("batch." + os.path.basename(j.output), j.reference, j.distorted,
                       j.geometry, o.to_dict(), o.output_format)
            t.check(r.error and f"failed: {r.error}" or same_bytes(j.output, s, o.output_format),
                    f"{label}: good job == score()'s")
        else:
            written = os.path.exists(j.output) and j.output != dis and \
                not j.output.endswith("batch.dis.json")
            t.check(None if r.error is not None and words in str(r.error) and not written
                    else f"result {r}", f"{label}: fails alone ({words})")
    # boats raw with B: dis, blur, missing, noise, half (json, xml, csv): one ladder of 5
    t.check(None if ("boats_576x324_420p_ref.yuv", 5) in runs else f"ladders {runs}",
            "batch: jobs of one reference and options (formats aside) in one ladder")
    t.check(None if len(runs) == 6 else f"ladders {runs}", "batch: 6 ladders for 14 jobs")

# 6. OpenCL (PoCL where the tests run): one device state for every rung, the CPU's files
devices = twinvmaf.opencl_devices()
if devices:
    o = {"backend": "opencl", "opencl_device": devices[0]["index"], "output_format": "json"}
    outs = [path(f"opencl.{k}.json") for k in range(3)]
    try:
        res = twinvmaf.score_ladder(ref, DISTORTED, outs, g, o)
        for k, d in enumerate(DISTORTED):
            t.check(same_bytes(outs[k], single(f"default.{k}", ref, d, g, {"backend": "cpu"},
                                               "json"), "json"),
                    f"opencl ladder: {name_of(d)} == score()'s on the CPU")
    except twinvmaf.VmafError as e:
        t.check(f"raised: {e}", "opencl ladder")
else:
    print("SKIP opencl: no OpenCL device")

# the Ray driver's GPU reservation: backends cuda and opencl where the cluster has GPUs
from twinvmaf.ray_driver import wants_gpu  # noqa: E402 (ray itself is not needed here)
got = {(b, n): wants_gpu(twinvmaf.Options(backend=b), n)
       for b in ("cpu", "cuda", "opencl", "auto") for n in (0, 2)}
want = {k: k[1] > 0 and k[0] in ("cuda", "opencl") for k in got}
t.check(None if got == want else f"{got}", "ray driver: a GPU per task for cuda and opencl")

print(f"test_ladder: {time.monotonic() - t0:.1f} s")
t.finish()
