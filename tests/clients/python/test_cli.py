"""twinvmaf-score's refusals against the vmaf CLI's, and the Python-side file writes.

test_cli.py CLI DATA_DIR CLIPS_DIR SCRATCH

Every bad argument or input ends with a short message, the CLI's exit status and no
traceback; an output that is an input (also through a symlink or a hard link) is refused
before any frame and left as it was; files are written whole or not at all.
"""
import os
import shutil
import subprocess
import sys
import threading

from common import Failures, clip_paths, load_clips

from twinvmaf import _files

cli, data_dir, clips_dir, scratch = sys.argv[1:5]
scratch = os.path.join(scratch, "cli")
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
load_clips(data_dir)
t = Failures()
tool = os.path.join(os.path.dirname(sys.executable), "twinvmaf-score")
ref, dis = clip_paths(clips_dir, "boats_576x324_420p")
RAW = ["-w", "576", "-h", "324", "-p", "420", "-b", "8", "--backend", "cpu"]


def run(prog, args, timeout=120, env=None):
    e = None if env is None else dict(os.environ, **env)
    try:
        return subprocess.run([prog] + args, capture_output=True, text=True, timeout=timeout,
                              env=e)
    except subprocess.TimeoutExpired:
        return None


def first_line(p, name):
    line = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
    return line.replace(name + ":", "PROG:").replace(os.path.basename(name) + ":", "PROG:")


def clean(label, p, want_rc, words=(), max_lines=30):
    """p exited want_rc, stderr has words, no traceback, a short message."""
    if p is None:
        return t.check("timed out (hung)", label)
    err = p.stderr
    problems = []
    if p.returncode != want_rc:
        problems.append(f"exit {p.returncode}, want {want_rc}")
    if "Traceback" in err:
        problems.append("a traceback")
    problems += [f"no {w!r}" for w in words if w not in err]
    if len(err.splitlines()) > max_lines:
        problems.append(f"{len(err.splitlines())} lines")
    t.check("; ".join(problems) + f"\n{err}" if problems else None, label)


# usage errors: the same first line and exit status as the vmaf CLI
usage_cases = [
    ("precision_abc", ["--precision", "abc"]),
    ("precision_0", ["--precision", "0"]),
    ("width_abc", ["-w", "abc"]),
    ("width_negative", ["-w", "-5"]),
    ("width_2_32", ["-w", "4294967296"]),
    ("threads_sign", ["--threads", "+1"]),
    ("bitdepth_9", ["-b", "9"]),
    ("pixel_format_411", ["-p", "411"]),
    ("segment_reversed", ["--segment", "5:2"]),
    ("segment_no_colon", ["--segment", "5"]),
    ("backend_gpu", ["--backend", "gpu"]),
    ("opencl_device_abc", ["--opencl_device", "abc"]),
    ("opencl_device_2_31", ["--opencl_device", "2147483648"]),
    ("opencl_device_with_cpu", ["-r", ref, "-d", dis, "--backend", "cpu", "--opencl_device", "0"]),
    ("opencl_device_with_cuda", ["-r", ref, "-d", dis, "--backend", "cuda",
                                 "--opencl_device", "1"]),
    ("merge_opencl_device", ["--merge", "a.part", "--opencl_device", "0", "-o", "x.json"]),
    ("output_empty", ["-o", ""]),
    ("cpumask_word", ["--cpumask", "all"]),
    ("stray_argument", ["-r", ref, "-d", dis, "stray"]),
    ("no_reference", ["-d", dis]),
    ("raw_incomplete", ["-r", ref, "-d", dis, "-w", "576"]),
    ("merge_no_parts", ["--merge", "-o", "x.json"]),
    ("merge_no_output", ["--merge", "a.part"]),
    ("merge_with_inputs", ["--merge", "a.part", "-r", ref, "-o", "x.json"]),
    ("unknown_short", ["-x", "-r", ref, "-d", dis]),
    ("feature_bad_option", ["-r", ref, "-d", dis, "--feature", "psnr=enable_chroma"]),
]
# $VMAF_BACKEND and $VMAF_OPENCL_DEVICE are the defaults of --backend and --opencl_device, and
# checked as they are
usage_cases += [
    ("env_backend_bogus", ["-r", ref, "-d", dis], {"VMAF_BACKEND": "bogus"}),
    ("env_backend_bogus_flag_given", ["--backend", "cpu", "-r", ref, "-d", dis],
     {"VMAF_BACKEND": "gpu"}),
    ("env_device_x", ["-r", ref, "-d", dis], {"VMAF_OPENCL_DEVICE": "x"}),
    ("env_device_negative", ["-r", ref, "-d", dis], {"VMAF_OPENCL_DEVICE": "-1"}),
    ("env_device_2_31", ["-r", ref, "-d", dis], {"VMAF_OPENCL_DEVICE": "2147483648"}),
    ("env_backend_cpu_device_flag", ["-r", ref, "-d", dis, "--opencl_device", "0"],
     {"VMAF_BACKEND": "cpu"}),
]
for label, args, *env in usage_cases:
    env = env[0] if env else None
    a, b = run(tool, args, env=env), run(cli, args, env=env)
    clean(f"usage {label}", a, 1)
    if a is not None and b is not None:
        same = (a.returncode == b.returncode and first_line(a, tool) == first_line(b, cli))
        t.check(None if same else f"twinvmaf-score: {a.returncode} {first_line(a, tool)!r}\n"
                f"vmaf:           {b.returncode} {first_line(b, cli)!r}",
                f"usage {label}: as the vmaf CLI")

# an OpenCL device that is not there: exit 255 before any frame, the vmaf CLI's messages (the
# same with no ICD loader or platform at all); --opencl_list is the vmaf CLI's own
out = os.path.join(scratch, "out.json")
for label, args, env in (
        ("--backend opencl --opencl_device 99", ["--backend", "opencl", "--opencl_device", "99"],
         None),
        ("VMAF_BACKEND=opencl VMAF_OPENCL_DEVICE=99", [],
         {"VMAF_BACKEND": "opencl", "VMAF_OPENCL_DEVICE": "99"}),
        ("--backend auto --opencl_device 99", ["--backend", "auto", "--opencl_device", "99"],
         {"VMAF_BACKEND": "opencl"})):
    args = ["-r", ref, "-d", dis, "-w", "576", "-h", "324", "-p", "420", "-b", "8", "--json",
            "-o", out] + args
    a, b = run(tool, args, env=env), run(cli, args, env=env)
    clean(f"no device: {label}", a, 255, ["no usable OpenCL device 99"], 2)
    if a is not None and b is not None:
        # every line the same, but for the tool's name before its own message
        la = [x.replace(f"{os.path.basename(tool)}: ", "", 1) for x in a.stderr.splitlines()]
        same = a.returncode == b.returncode and la == b.stderr.splitlines()
        t.check(None if same else f"twinvmaf-score: {a.returncode} {la!r}\n"
                f"vmaf:           {b.returncode} {b.stderr.splitlines()!r}",
                f"no device: {label}: as the vmaf CLI")
    t.check(None if not os.path.exists(out) else "output written", f"no device: {label}: no output")
p = run(tool, ["--opencl_list"])
clean("--opencl_list: refused", p, 1, ["--opencl_list is an option of the vmaf CLI"])

# an unknown long option is only warned about, as getopt_long does
p = run(tool, ["--no_such_option", "-r", ref + ".missing", "-d", dis] + RAW)
clean("unknown long option: warned, then the missing input", p, 255,
      ["unrecognized option '--no_such_option'", "cannot open"], 3)

# bad inputs: one line, exit 255, nothing written
out = os.path.join(scratch, "out.json")
for label, r, d, geometry in (
        ("missing_input", ref + ".missing", dis, RAW),
        ("directory_input", scratch, dis, RAW),
        ("not_y4m", ref, dis, ["--backend", "cpu"]),
        ("wrong_bitdepth", ref, dis, ["-w", "576", "-h", "324", "-p", "420", "-b", "10"])):
    p = run(tool, ["-r", r, "-d", d, "-o", out, "--json"] + geometry)
    clean(f"input {label}", p, 255, max_lines=2)
    t.check(None if not os.path.exists(out) else "output written", f"input {label}: no output")

# a FIFO (Y4M) input: refused at once, never waiting for a writer
fifo = os.path.join(scratch, "in.y4m")
os.mkfifo(fifo)
p = run(tool, ["-r", fifo, "-d", fifo, "-o", out], timeout=60)
clean("fifo input", p, 255, ["not a regular file"], 2)

# an output that is an input: refused before any frame, the input left as it was
work = os.path.join(scratch, "inputs")
os.makedirs(work)
dis_copy = os.path.join(work, "dis.yuv")
shutil.copyfile(dis, dis_copy)
with open(dis_copy, "rb") as f:
    dis_bytes = f.read()
os.symlink(dis_copy, os.path.join(work, "symlink.yuv"))
os.link(dis_copy, os.path.join(work, "hardlink.yuv"))
for label, target in (("same path", dis_copy), ("symlink", os.path.join(work, "symlink.yuv")),
                      ("hard link", os.path.join(work, "hardlink.yuv"))):
    p = run(tool, ["-r", ref, "-d", dis_copy, "-o", target, "--json"] + RAW)
    clean(f"output is the input ({label})", p, 255, ["refusing to overwrite"], 1)
    with open(dis_copy, "rb") as f:
        t.check(None if f.read() == dis_bytes else "the input changed",
                f"output is the input ({label}): input intact")

# --merge with an output that is one of the parts (the hostile report's case)
parts = [os.path.join(scratch, f"pa{i}.json") for i in range(3)]
ok = True
for i, (a, b) in enumerate(((0, 8), (8, 16), (16, 24))):
    p = run(tool, ["-r", ref, "-d", dis, "--segment", f"{a}:{b}", "-o", parts[i]] + RAW)
    ok &= p is not None and p.returncode == 0
t.check(None if ok else "scoring the parts failed", "three segment parts")
if ok:
    with open(parts[0], "rb") as f:
        part0 = f.read()
    os.symlink(parts[0], os.path.join(scratch, "pa0.link"))
    for label, target in (("a part", parts[0]), ("a symlink to a part",
                                                 os.path.join(scratch, "pa0.link"))):
        p = run(tool, ["--merge"] + parts + ["-o", target, "--json"])
        clean(f"merge into {label}", p, 255, ["is the segment result", "refusing to overwrite"], 1)
        with open(parts[0], "rb") as f:
            t.check(None if f.read() == part0 else "the part changed",
                    f"merge into {label}: part intact")
    merged = os.path.join(scratch, "merged.json")
    p = run(tool, ["--merge"] + parts + ["-o", merged, "--json"])
    clean("merge into a new file", p, 0, max_lines=0)
    t.check(None if os.path.exists(merged) else "no file", "merge into a new file: written")
    p = run(tool, ["--merge"] + parts + ["-o", merged, "--json", "--precision", "abc"])
    clean("merge --precision abc", p, 1, ['Invalid argument "abc" for option --precision'])


# the Python-side writer: regular files replaced whole, a FIFO written directly
def temps(d, name):
    return [x for x in os.listdir(d) if x.startswith(name + ".tmp")]


target = os.path.join(scratch, "written.json")
with open(target, "wb") as f:
    f.write(b"old")
_files.write_atomic(target, b"new contents")
with open(target, "rb") as f:
    t.check(None if f.read() == b"new contents" else "not replaced", "write_atomic: replaced")
t.check(None if os.stat(target).st_mode & 0o777 == 0o644 else oct(os.stat(target).st_mode),
        "write_atomic: mode 0644")
t.check(None if not temps(scratch, "written.json") else "temporary file left",
        "write_atomic: no temporary file")

real_fsync = os.fsync
for label, exc in (("an error", OSError(5, "Input/output error")),
                   ("Ctrl-C", KeyboardInterrupt())):
    def failing_fsync(fd, exc=exc):
        raise exc
    os.fsync = failing_fsync
    try:
        _files.write_atomic(target, b"half")
        t.check("no exception", f"write_atomic interrupted by {label}")
    except (OSError, KeyboardInterrupt):
        with open(target, "rb") as f:
            intact = f.read() == b"new contents"
        left = temps(scratch, "written.json")
        t.check(None if intact and not left else f"intact {intact}, left {left}",
                f"write_atomic interrupted by {label}: old file kept, temporary removed")
    finally:
        os.fsync = real_fsync

out_fifo = os.path.join(scratch, "out.fifo")
os.mkfifo(out_fifo)
got = []
reader = threading.Thread(target=lambda: got.append(open(out_fifo, "rb").read()))
reader.start()
_files.write_atomic(out_fifo, b"through the pipe")
reader.join(30)
t.check(None if got == [b"through the pipe"] and os.path.exists(out_fifo) and
        not temps(scratch, "out.fifo") else f"got {got}",
        "write_atomic: a FIFO written directly, not replaced")
t.finish()
