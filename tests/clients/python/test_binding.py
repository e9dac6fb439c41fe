"""twinvmaf.score() against the vmaf CLI on the shared clips: the same output files.

test_binding.py CLI DATA_DIR CLIPS_DIR SCRATCH
"""
import os
import shutil
import sys

import twinvmaf
from common import Failures, clip_paths, load_clips, raw_flags, run_cli, same_output, write_y4m

cli, data_dir, clips_dir, scratch = sys.argv[1:5]
# a directory of its own: the Ray tests (test_ray.py) use siblings under the same scratch
# root, and ctest may run them at the same time as this one
scratch = os.path.join(scratch, "binding")
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
clips = load_clips(data_dir)
t = Failures()
print(f"library {twinvmaf.load().path} ({twinvmaf.load().version})")


def compare(label, ref, dis, geometry, cli_in, opts, cli_args, fmt="json"):
    """score() with opts vs `vmaf cli_in cli_args --FMT`; both files must be the same."""
    a, b = os.path.join(scratch, label + ".py." + fmt), os.path.join(scratch, label + ".cli." + fmt)
    try:
        twinvmaf.score(ref, dis, a, geometry, dict(opts, output_format=fmt, backend="cpu"))
    except twinvmaf.VmafError as e:
        t.check(f"score() raised: {e}", label)
        return
    run_cli(cli, cli_in + cli_args + ["--backend", "cpu", f"--{fmt}", "-o", b])
    t.check(same_output(a, b, fmt), label)


# every clip: the default model plus psnr, in both threading modes' orders
for clip in clips:
    name, w, h, fmt, bits, frames = clip
    ref, dis = clip_paths(clips_dir, name)
    g = (w, h, fmt, bits)
    raw = ["-r", ref, "-d", dis] + raw_flags(clip)
    compare(f"{name}_default", ref, dis, g, raw, {}, [])
    if name.startswith("tiny"):
        continue
    compare(f"{name}_psnr_motion_t2", ref, dis, g, raw,
            {"features": ["psnr", "motion=motion_force_zero=false"], "threads": 2},
            ["--feature", "psnr", "--feature", "motion=motion_force_zero=false", "--threads", "2"])

boats = next(c for c in clips if c[0].startswith("boats"))
ref, dis = clip_paths(clips_dir, boats[0])
g = boats[1:5]
raw = ["-r", ref, "-d", dis] + raw_flags(boats)
# models: a collection (bootstrap), two named models with options and an overload
compare("boats_bootstrap", ref, dis, g, raw, {"models": ["version=vmaf_b_v0.6.3"]},
        ["-m", "version=vmaf_b_v0.6.3"])
two = ["version=vmaf_v0.6.1:name=a:disable_clip",
       "version=vmaf_v0.6.1neg:name=b:vif.vif_enhn_gain_limit=1.0:enable_transform"]
compare("boats_two_models", ref, dis, g, raw, {"models": two},
        ["-m", two[0], "-m", two[1]])
compare("boats_models_as_dicts", ref, dis, g, raw,
        {"models": [{"version": "vmaf_v0.6.1", "name": "a", "disable_clip": True},
                    {"version": "vmaf_v0.6.1neg", "name": "b", "enable_transform": True,
                     "overloads": [("vif", "vif_enhn_gain_limit", "1.0")]}]},
        ["-m", two[0], "-m", two[1]])
model_file = os.path.join(data_dir, "..", "models", "vmaf_v0.6.1.json")
if os.path.exists(model_file):
    compare("boats_model_path", ref, dis, g, raw, {"models": [f"path={model_file}"]},
            ["-m", f"path={model_file}"])
# features only, options, frame range, subsample, pictures from vmaf_picture_alloc
compare("boats_features_only", ref, dis, g, raw,
        {"no_prediction": True, "features": [("psnr", {"enable_chroma": False}), "float_ssim",
                                             "psnr_hvs", "ciede"]},
        ["-n", "--feature", "psnr=enable_chroma=false", "--feature", "float_ssim",
         "--feature", "psnr_hvs", "--feature", "ciede"])
compare("boats_range", ref, dis, g, raw,
        {"frame_skip_ref": 2, "frame_skip_dist": 1, "frame_cnt": 9, "subsample": 2},
        ["--frame_skip_ref", "2", "--frame_skip_dist", "1", "--frame_cnt", "9",
         "--subsample", "2"])
compare("boats_alloc_pictures", ref, dis, g, raw, {"pictures": "alloc", "threads": 1},
        ["--threads", "1"])
for fmt in ("xml", "csv", "sub"):
    compare(f"boats_{fmt}", ref, dis, g, raw, {"features": ["psnr"]}, ["--feature", "psnr"], fmt)

# Y4M inputs (computed offsets and scanned FRAME lines), and 4:0:0 raw vs mono Y4M
for clip in clips:
    name = clip[0]
    if not name.startswith(("forest", "leaf", "cups", "deep", "kite")):
        continue
    cref, cdis = clip_paths(clips_dir, name)
    yr, yd = (os.path.join(scratch, f"{name}_{k}.y4m") for k in ("ref", "dis"))
    write_y4m(cref, yr, clip)
    write_y4m(cdis, yd, clip, frame_params=True)
    compare(f"{name}_y4m", yr, yd, None, ["-r", yr, "-d", yd], {"features": ["psnr"]},
            ["--feature", "psnr"])
    mr, md = (os.path.join(scratch, f"{name}_{k}_mono.y4m") for k in ("ref", "dis"))
    write_y4m(cref, mr, clip, mono=True)
    write_y4m(cdis, md, clip, mono=True)
    lr, ld = (os.path.join(scratch, f"{name}_{k}.gray") for k in ("ref", "dis"))
    for y4m, out in ((mr, lr), (md, ld)):
        with open(y4m, "rb") as f, open(out, "wb") as o:
            f.readline()
            n = clip[1] * clip[2] * (1 if clip[4] == 8 else 2)
            while f.readline():
                o.write(f.read(n))
    compare(f"{name}_400_raw", lr, ld, (clip[1], clip[2], "400", clip[4]),
            ["-r", mr, "-d", md], {"features": ["psnr"]}, ["--feature", "psnr"])


# segments: score_segment() parts merged == the single CLI run (and the CLI's own parts merge
# into the same file through twinvmaf.merge)
def segmented(label, clip, opts, cli_args, cuts, fmt="json"):
    name = clip[0]
    sref, sdis = clip_paths(clips_dir, name)
    sg = clip[1:5]
    whole = os.path.join(scratch, f"{label}.cli.{fmt}")
    run_cli(cli, ["-r", sref, "-d", sdis] + raw_flags(clip) + cli_args +
            ["--backend", "cpu", f"--{fmt}", "-o", whole])
    parts, cli_parts = [], []
    o = dict(opts, output_format=fmt, backend="cpu")
    try:
        for a, b in zip(cuts, cuts[1:]):
            parts.append(os.path.join(scratch, f"{label}.{a}_{b}.part"))
            twinvmaf.score_segment(sref, sdis, a, b, parts[-1], sg, o)
            cli_parts.append(parts[-1] + ".cli")
            run_cli(cli, ["-r", sref, "-d", sdis] + raw_flags(clip) + cli_args +
                    ["--backend", "cpu", "--segment", f"{a}:{b}", "-o", cli_parts[-1]])
        merged = os.path.join(scratch, f"{label}.merged.{fmt}")
        twinvmaf.merge(list(reversed(parts)), merged, fmt)
        t.check(same_output(merged, whole, fmt), f"{label}: {len(parts)} segments merged")
        merged_cli = os.path.join(scratch, f"{label}.merged_cli_parts.{fmt}")
        twinvmaf.merge(cli_parts, merged_cli, fmt)
        t.check(same_output(merged_cli, whole, fmt), f"{label}: the CLI's parts merged")
        # the Python and CLI parts record the same title fingerprint: they merge together
        merged_mixed = os.path.join(scratch, f"{label}.merged_mixed_parts.{fmt}")
        twinvmaf.merge([parts[0]] + cli_parts[1:], merged_mixed, fmt)
        t.check(same_output(merged_mixed, whole, fmt), f"{label}: Python and CLI parts merged")
    except twinvmaf.VmafError as e:
        t.check(f"raised: {e}", label)


for clip in clips:
    n = clip[5]
    cuts = sorted({0, 1, n // 3, n // 2, n - 1, n})
    segmented(f"seg_{clip[0]}", clip, {"features": ["psnr"]}, ["--feature", "psnr"], cuts)
segmented("seg_boats_t2_bootstrap_xml", boats,
          {"models": ["version=vmaf_b_v0.6.3"], "threads": 2,
           "features": ["motion=motion_five_frame_window=true", "float_motion"]},
          ["-m", "version=vmaf_b_v0.6.3", "--threads", "2", "--feature",
           "motion=motion_five_frame_window=true", "--feature", "float_motion"],
          [0, 5, 6, 13, 24], "xml")
segmented("seg_boats_features_only", boats, {"no_prediction": True, "features": ["psnr"]},
          ["-n", "--feature", "psnr"], [0, 12, 24], "csv")
# the twinvmaf-score entry point: --segment and --merge as the CLI's
import subprocess
tool = os.path.join(os.path.dirname(sys.executable), "twinvmaf-score")
kite = next(c for c in clips if c[0].startswith("kite"))
kr, kd = clip_paths(clips_dir, kite[0])
kparts = [os.path.join(scratch, f"tool_{a}.part") for a in (0, 5)]
p = [subprocess.run([tool, "-r", kr, "-d", kd] + raw_flags(kite) + ["--backend", "cpu",
                     "--segment", s, "-o", o], capture_output=True, text=True)
     for s, o in (("0:5", kparts[0]), ("5:12", kparts[1]))]
kout, kcli = (os.path.join(scratch, f"tool_merged.{k}.json") for k in ("py", "cli"))
p.append(subprocess.run([tool, "--merge"] + kparts + ["--json", "--precision", "max", "-o", kout],
                        capture_output=True, text=True))
run_cli(cli, ["-r", kr, "-d", kd] + raw_flags(kite) + ["--json", "--precision", "max", "-o", kcli])
bad = [x.stderr for x in p if x.returncode]
t.check(bad[0] if bad else same_output(kout, kcli, "json"),
        "twinvmaf-score --segment + --merge --precision max == vmaf --precision max")


# backend="opencl" (PoCL where the tests run) writes the CPU's files exactly: twins with
# OpenCL kernels run on the device, the others on the CPU, the same bits either way
def opencl_section():
    devices = twinvmaf.opencl_devices()
    if not devices:
        print("SKIP opencl: no OpenCL device (no ICD loader or no platform; "
              "tests/opencl/setup.sh installs PoCL)")
        return
    dev = devices[0]
    print(f"opencl: device {dev['index']}: {dev['name']} ({dev['type']}, {dev['platform']})")
    lib = twinvmaf.load()

    def attached(opts, geometry):
        with twinvmaf.Title(ref, dis, geometry, opts) as title:
            ctx = title.context(lib)
            try:
                return ctx.opencl
            finally:
                ctx.close()

    o = twinvmaf.Options(backend="opencl", opencl_device=dev["index"])
    t.check(None if attached(o, g) else "no OpenCL state attached",
            "opencl: backend='opencl' attaches a state")
    gpus = [d for d in devices if d["type"] == "gpu"]
    if not gpus:
        t.check(None if not attached(twinvmaf.Options(backend="auto"), g) else
                "an OpenCL state attached", "opencl: backend='auto' with no OpenCL GPU: the CPU")

    def same_as_cpu(label, clip, opts, fmt="json"):
        cref, cdis = clip_paths(clips_dir, clip[0])
        cg = clip[1:5]
        a = os.path.join(scratch, f"{label}.opencl.{fmt}")
        b = os.path.join(scratch, f"{label}.cpu.{fmt}")
        try:
            twinvmaf.score(cref, cdis, a, cg, dict(opts, output_format=fmt, backend="opencl",
                                                   opencl_device=dev["index"]))
            twinvmaf.score(cref, cdis, b, cg, dict(opts, output_format=fmt, backend="cpu"))
        except twinvmaf.VmafError as e:
            return t.check(f"raised: {e}", label)
        t.check(same_output(a, b, fmt), label)

    extra = ["psnr", "float_ssim", "ciede", "psnr_hvs", "motion=motion_force_zero=false"]
    for clip in clips:
        same_as_cpu(f"opencl_{clip[0]}_default", clip, {})
    same_as_cpu("opencl_boats_features_t2", boats, {"features": extra, "threads": 2})
    same_as_cpu("opencl_boats_bootstrap_xml", boats, {"models": ["version=vmaf_b_v0.6.3"]}, "xml")
    same_as_cpu("opencl_boats_alloc_pictures", boats, {"pictures": "alloc", "features": extra})
    # a segment on the device merges with the CPU's parts into the whole title's file
    whole = os.path.join(scratch, "opencl_seg.cli.json")
    run_cli(cli, raw + ["--backend", "cpu", "--feature", "psnr", "--json", "-o", whole])
    parts = [os.path.join(scratch, f"opencl_seg.{k}.part") for k in ("0_9", "9_24")]
    try:
        twinvmaf.score_segment(ref, dis, 0, 9, parts[0], g, {"features": ["psnr"],
                                                              "backend": "opencl"})
        twinvmaf.score_segment(ref, dis, 9, 24, parts[1], g, {"features": ["psnr"],
                                                               "backend": "cpu"})
        merged = os.path.join(scratch, "opencl_seg.merged.json")
        twinvmaf.merge(parts, merged, "json")
        t.check(same_output(merged, whole, "json"), "opencl: an OpenCL and a CPU part merged")
    except twinvmaf.VmafError as e:
        t.check(f"raised: {e}", "opencl: an OpenCL and a CPU part merged")
    # the entry point, and the vmaf CLI on the same device
    ko, kc = (os.path.join(scratch, f"opencl_tool.{k}.json") for k in ("py", "cli"))
    p = subprocess.run([tool] + raw + ["--backend", "opencl", "--opencl_device",
                                       str(dev["index"]), "--json", "-o", ko],
                       capture_output=True, text=True)
    run_cli(cli, raw + ["--backend", "opencl", "--opencl_device", str(dev["index"]), "--json",
                        "-o", kc])
    t.check(p.stderr if p.returncode else same_output(ko, kc, "json"),
            "opencl: twinvmaf-score --backend opencl == vmaf --backend opencl")
    # refused before any frame: a device that is not there
    bad = os.path.join(scratch, "opencl_no_device.json")
    try:
        twinvmaf.score(ref, dis, bad, g, backend="opencl", opencl_device=99)
        t.check("no error", "opencl: device 99 refused")
    except twinvmaf.VmafError as e:
        t.check(None if "no usable OpenCL device 99" in str(e) and not os.path.exists(bad)
                else f"{e}", "opencl: device 99 refused")
    try:
        twinvmaf.Options(backend="cpu", opencl_device=0)
        t.check("accepted", "opencl: opencl_device with backend='cpu' refused")
    except twinvmaf.VmafError as e:
        t.check(None if "opencl_device" in str(e) else str(e),
                "opencl: opencl_device with backend='cpu' refused")


opencl_section()

missing = os.path.join(scratch, "gap_0_8.part")
try:
    twinvmaf.score_segment(ref, dis, 0, 8, missing, g)
    twinvmaf.merge([missing], os.path.join(scratch, "missing_parts.json"), "json")
    t.check("merge of a part that does not tile the title was accepted", "merge refuses a gap")
except twinvmaf.VmafError as e:
    t.check(None if not os.path.exists(os.path.join(scratch, "missing_parts.json")) else
            "file written", f"merge refuses a gap ({e})")


# bad inputs: clear errors, nothing written
def refused(label, fn, words):
    out = os.path.join(scratch, label + ".json")
    try:
        fn(out)
    except twinvmaf.VmafError as e:
        msg = str(e)
        ok = all(w in msg for w in words) and not os.path.exists(out)
        t.check(None if ok else f"message {msg!r} lacks {words} or {out} exists", label)
        return
    t.check("no error", label)


refused("missing_input", lambda o: twinvmaf.score(ref + ".nope", dis, o, g), ["cannot open"])
truncated = os.path.join(scratch, "truncated.yuv")
with open(dis, "rb") as f, open(truncated, "wb") as o:
    o.write(f.read(576 * 324 * 3 // 2 * 5 + 100))
refused("truncated_input", lambda o: twinvmaf.score(ref, truncated, o, g), ["truncated frame 5"])
refused("wrong_bit_depth", lambda o: twinvmaf.score(ref, dis, o, (576, 324, "420", 10)),
        ["above the 10-bit maximum"])
refused("not_y4m", lambda o: twinvmaf.score(ref, dis, o, None), ["not a Y4M file"])
refused("bad_model", lambda o: twinvmaf.score(ref, dis, o, g, models=["version=nope"]),
        ["problem loading model: nope"])
refused("bad_feature", lambda o: twinvmaf.score(ref, dis, o, g, features=["nope"]),
        ["problem loading feature extractor: nope"])
refused("bad_format", lambda o: twinvmaf.score(ref, dis, o, g, output_format="yaml"),
        ["output format"])
refused("output_is_input", lambda o: twinvmaf.score(ref, dis, dis, g), ["refusing to overwrite"])
refused("incompatible", lambda o: twinvmaf.score(
    os.path.join(scratch, "forest_576x324_420p10_ref.y4m"),
    os.path.join(scratch, "cups_352x288_444p_dis.y4m"), o), ["videos are incompatible"])
t.finish()
