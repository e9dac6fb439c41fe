"""twinvmaf.score() against the vmaf CLI on the shared clips: the same output files.

test_binding.py CLI DATA_DIR CLIPS_DIR SCRATCH
"""
import os
import shutil
import sys

import twinvmaf
from common import Failures, clip_paths, load_clips, raw_flags, run_cli, same_output, write_y4m

cli, data_dir, clips_dir, scratch = sys.argv[1:5]
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
