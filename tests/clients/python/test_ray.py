"""The Ray driver on a local cluster (a head and two worker nodes): titles cut into many
segments, scored as Ray tasks, merged; each title's file must equal a single CLI run's.

test_ray.py MODE CLI DATA_DIR CLIPS_DIR SCRATCH
  segments   every shared clip, in segments of 2..5 frames, several option sets
  kill       a worker process killed (SIGKILL, from outside) in the middle of a segment:
             Ray reruns the task, the files are still identical
  bad_input  bad titles (missing, truncated and mismatched inputs, an unknown extractor,
             an unwritable output) fail alone with clear messages; the good ones are scored
  ladder     renditions of one reference (the clip's distorted and two derived) scored as a
             ladder per segment, one rendition failing in one segment alone, beside a title
             of its own
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from common import (Failures, clip_paths, load_clips, make_renditions, raw_flags, run_cli,
                    same_output)
from ray_cluster import Cluster

mode, cli, data_dir, clips_dir, scratch = sys.argv[1:6]
scratch = os.path.join(scratch, mode)
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
clips = {c[0]: c for c in load_clips(data_dir)}
t = Failures()

OPTION_SETS = [  # (options for the driver, the same as vmaf flags)
    ({"output_format": "json"}, ["--json"]),
    ({"output_format": "json", "threads": 2, "features": ["psnr", "motion=motion_five_frame_window=true"]},
     ["--json", "--threads", "2", "--feature", "psnr", "--feature",
      "motion=motion_five_frame_window=true"]),
    ({"output_format": "xml", "models": ["version=vmaf_b_v0.6.3"], "features": ["float_ssim"]},
     ["--xml", "-m", "version=vmaf_b_v0.6.3", "--feature", "float_ssim"]),
]


def title(name, opts_index, out_name=None, **over):
    c = clips[name]
    ref, dis = clip_paths(clips_dir, name)
    opts, _ = OPTION_SETS[opts_index]
    fmt = opts["output_format"]
    d = {"reference": ref, "distorted": dis, "geometry": list(c[1:5]),
         "output": os.path.join(scratch, f"{out_name or name}.{opts_index}.{fmt}"),
         "options": dict(opts, backend="cpu")}
    d.update(over)
    return d


def expected(d, opts_index):
    c = clips[os.path.basename(d["reference"])[:-len("_ref.yuv")]]
    out = d["output"] + ".cli"
    run_cli(cli, ["-r", d["reference"], "-d", d["distorted"]] + raw_flags(c) +
            OPTION_SETS[opts_index][1] + ["--backend", "cpu", "-o", out])
    return out


def drive(titles, cluster, extra=(), env=None, wait_for_pid=None):
    path = os.path.join(scratch, f"titles{time.monotonic_ns()}.json")
    with open(path, "w") as f:
        json.dump(titles, f, indent=1)
    # the console entry point pip installed beside the interpreter
    cmd = [os.path.join(os.path.dirname(sys.executable), "twinvmaf-ray"), "--address", cluster.address] + \
        list(extra) + [path]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, **(env or {})))
    killed = None
    if wait_for_pid:
        killed = wait_for_pid(p)
    out, _ = p.communicate(timeout=900)
    print(out.rstrip())
    print(f"driver exited {p.returncode} after {time.monotonic() - t0:.1f} s", flush=True)
    return p.returncode, out, killed


def check_files(pairs):
    for d, oi, exp in pairs:
        fmt = d["options"]["output_format"]
        label = f"{os.path.basename(d['output'])} == single CLI run"
        if not os.path.exists(d["output"]):
            t.check("no output file", label)
            continue
        t.check(same_output(d["output"], exp, fmt), label)


def mode_segments(cluster):
    titles, pairs = [], []
    # every clip with the default model; the other option sets on a few (CI has 2 cores)
    more = {1: ("boats", "forest", "leaf", "kite"), 2: ("boats", "cups", "deep")}
    for name in clips:
        for oi in range(len(OPTION_SETS)):
            if oi and not name.startswith(more[oi]):
                continue
            d = title(name, oi)
            titles.append(d)
            pairs.append((d, oi, expected(d, oi)))
    rc, out, _ = drive(titles, cluster, ["--segment-frames", "3"])
    t.check(None if rc == 0 else f"exit status {rc}", f"driver: {len(titles)} titles, exit 0")
    check_files(pairs)


def mode_kill(cluster):
    pause = os.path.join(scratch, "pause")
    os.makedirs(pause)
    titles = [title("boats_576x324_420p", 1), title("forest_576x324_420p10", 0)]
    pairs = [(d, oi, expected(d, oi)) for d, oi in zip(titles, (1, 0))]

    def kill_worker(p):
        pidfile = os.path.join(pause, "pid")
        t0 = time.monotonic()
        while not os.path.exists(pidfile) and p.poll() is None and time.monotonic() - t0 < 300:
            time.sleep(0.2)
        if not os.path.exists(pidfile):
            return None
        pid = int(open(pidfile).read())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        os.kill(pid, signal.SIGKILL)
        print(f"killed worker {pid} ({cmd.strip()[:60]}) in segment "
              f"{open(os.path.join(pause, 'claimed')).read().strip()}", flush=True)
        return pid, cmd

    rc, out, killed = drive(titles, cluster, ["--segments", "6"],
                            env={"TWINVMAF_TEST_PAUSE": pause}, wait_for_pid=kill_worker)
    t.check(None if killed else "no task paused for the kill", "a worker was killed mid-task")
    t.check(None if killed and "ray::" in killed[1] else f"pid was not a Ray worker: {killed}",
            "the killed process was a Ray worker")
    t.check(None if rc == 0 else f"exit status {rc}", "driver: exit 0 after the retry")
    check_files(pairs)


def mode_bad_input(cluster):
    good = title("boats_576x324_420p", 0)
    truncated = os.path.join(scratch, "truncated_dis.yuv")
    with open(clip_paths(clips_dir, "boats_576x324_420p")[1], "rb") as f, \
            open(truncated, "wb") as o:
        o.write(f.read(576 * 324 * 3 // 2 * 7 + 11))
    bad = [
        (title("boats_576x324_420p", 0, "missing", distorted="/nonexistent/dis.yuv"),
         "cannot open"),
        (title("boats_576x324_420p", 0, "truncated", distorted=truncated), "truncated frame 7"),
        (title("boats_576x324_420p", 0, "geometry", geometry=[576, 324, "420", 10]),
         "above the 10-bit maximum"),  # 8-bit files read as 10-bit
        (title("cups_352x288_444p", 0, "extractor",
               options={"output_format": "json", "features": ["no_such_extractor"]}),
         "no_such_extractor"),
        (title("cups_352x288_444p", 0, "outdir",
               output="/nonexistent/dir/out.json"), "cannot write output file"),
        (title("cups_352x288_444p", 0, "option", options={"threads": -1}), "threads"),
    ]
    titles = [good] + [d for d, _ in bad] + [title("kite_257x145_420p", 0)]
    exp = [(titles[0], 0, expected(titles[0], 0)), (titles[-1], 0, expected(titles[-1], 0))]
    rc, out, _ = drive(titles, cluster, ["--segments", "4"])
    t.check(None if rc == len(bad) else f"exit status {rc}", f"exit status {len(bad)} (failed titles)")
    lines = out.splitlines()
    for i, (d, words) in enumerate(bad, start=1):
        mine = [ln for ln in lines if ln.startswith(f"FAILED: title {i} ")]
        ok = len(mine) == 1 and words in mine[0] and not os.path.exists(d["output"])
        t.check(None if ok else f"lines {mine}", f"title {i} fails alone ({words or 'any'})")
    check_files(exp)


def mode_ladder(cluster):
    boats = clips["boats_576x324_420p"]
    renditions = [clip_paths(clips_dir, boats[0])[1]] + make_renditions(
        clip_paths(clips_dir, boats[0])[1], boats, scratch)
    # forest (10 bits) and a copy with a sample above the depth in frame 9: that rendition
    # fails in the segments that read frame 9, its ladder partner is scored
    fdis = clip_paths(clips_dir, "forest_576x324_420p10")[1]
    hot = os.path.join(scratch, "forest_hot.yuv")
    with open(fdis, "rb") as f, open(hot, "wb") as o:
        data = bytearray(f.read())
        at = 9 * 576 * 324 * 3 + 2 * 5000
        data[at:at + 2] = b"\xff\xff"
        o.write(data)
    good = [title("boats_576x324_420p", 1, f"boats_{k}", distorted=d)
            for k, d in enumerate(renditions)]
    good[2]["options"] = dict(good[2]["options"], output_format="xml")  # formats may differ
    good[2]["output"] = good[2]["output"][:-len("json")] + "xml"
    alone = title("kite_257x145_420p", 0)
    forest = title("forest_576x324_420p10", 0, "forest_good")
    bad = title("forest_576x324_420p10", 0, "forest_hot", distorted=hot)
    titles = [good[0], alone, good[1], bad, forest, good[2]]
    exp = [(d, 1, expected(d, 1)) for d in good[:2]]
    exp += [(alone, 0, expected(alone, 0)), (forest, 0, expected(forest, 0))]
    rc, out, _ = drive(titles, cluster, ["--segment-frames", "5"])
    t.check(None if rc == 1 else f"exit status {rc}", "exit status 1 (one title failed)")
    lines = out.splitlines()
    for i in (0, 2, 5):
        mine = [ln for ln in lines if ln.startswith(f"ok: title {i} ")]
        t.check(None if len(mine) == 1 and "a ladder of 3" in mine[0] else f"lines {mine}",
                f"title {i}: scored in a ladder of 3")
    mine = [ln for ln in lines if ln.startswith("FAILED: title 3 ")]
    t.check(None if len(mine) == 1 and "problem scoring frame 9" in mine[0] and
            not os.path.exists(bad["output"]) else f"lines {mine}",
            "title 3 fails alone in its ladder (frame 9)")
    mine = [ln for ln in lines if ln.startswith("ok: title 4 ")]
    t.check(None if len(mine) == 1 and "a ladder of 2" in mine[0] else f"lines {mine}",
            "title 4: scored in a ladder of 2 beside the failing one")
    check_files(exp)
    # the XML rendition against the CLI's XML
    out_cli = good[2]["output"] + ".cli"
    run_cli(cli, ["-r", good[2]["reference"], "-d", good[2]["distorted"]] + raw_flags(boats) +
            OPTION_SETS[1][1][1:] + ["--xml", "--backend", "cpu", "-o", out_cli])
    t.check(same_output(good[2]["output"], out_cli, "xml") if os.path.exists(good[2]["output"])
            else "no output file", f"{os.path.basename(good[2]['output'])} == single CLI run")


with Cluster(workers=2, cpus=1) as cluster:
    {"segments": mode_segments, "kill": mode_kill, "bad_input": mode_bad_input,
     "ladder": mode_ladder}[mode](cluster)
t.finish()
