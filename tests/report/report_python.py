"""twinvmaf.report(): the library's writer (vmaf_report_from_json) from Python, on reference
libvmaf's JSON files: paths, a parsed dict and a Result as sources, frame rates, refusals.
Usage: report_python.py GOLDEN_DIR SCRATCH_DIR (twinvmaf importable, TWINVMAF_LIB set)."""
import json
import os
import shutil
import subprocess
import sys
import types

import twinvmaf

golden, scratch = sys.argv[1], sys.argv[2]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_tool.py")
b = os.path.join(golden, "boats_576x324_420p")
a_json, b_json = b + ".vmaf_v0.6.1.json", b + ".vmaf_b_v0.6.3.json"
passed = failed = 0


def case(name, fn):
    global passed, failed
    try:
        fn()
        print(f"ok   {name}")
        passed += 1
    except Exception as e:  # a failed case: say which and go on
        print(f"FAIL {name}: {type(e).__name__}: {e}")
        failed += 1


def check(html, *jsons, fps=None):
    args = [sys.executable, tool, "check", html] + (["--fps", fps] if fps else []) + list(jsons)
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        raise AssertionError(p.stdout + p.stderr)


def ladder():
    out = os.path.join(scratch, "ladder.html")
    assert twinvmaf.report([a_json, b_json], out, fps="30000/1001") == out
    check(out, a_json, b_json, fps="30000/1001")


def from_dict_and_result():
    with open(a_json) as f:
        d = json.load(f)
    out = os.path.join(scratch, "mixed.html")
    result = types.SimpleNamespace(distorted="b.yuv", output=b_json)  # a Result's fields
    twinvmaf.report([d, result], out, fps=25)
    check(out, a_json, b_json, fps="25/1")


def frame_rates():
    out = os.path.join(scratch, "fps.html")
    twinvmaf.report(a_json, out, fps=29.97)
    check(out, a_json, fps="2997/100")
    twinvmaf.report(a_json, out, fps=(24000, 1001))
    check(out, a_json, fps="24000/1001")
    twinvmaf.report(a_json, out)
    check(out, a_json)


def refusals():
    copy = os.path.join(scratch, "copy.json")
    shutil.copy(a_json, copy)
    before = open(copy, "rb").read()
    for sources, out, why in (([copy], copy, "over its input"),
                              ([os.path.join(scratch, "none.json")], os.path.join(scratch, "x.html"), "missing"),
                              ([__file__], os.path.join(scratch, "x.html"), "not JSON"),
                              ([], os.path.join(scratch, "x.html"), "no source")):
        try:
            twinvmaf.report(sources, out)
        except twinvmaf.VmafError:
            pass
        else:
            raise AssertionError(f"{why}: not refused")
    try:
        twinvmaf.report(a_json, os.path.join(scratch, "x.html"), fps="fast")
    except twinvmaf.VmafError:
        pass
    else:
        raise AssertionError("a bad fps: not refused")
    assert open(copy, "rb").read() == before, "the input was overwritten"
    assert not os.path.exists(os.path.join(scratch, "x.html")), "a refused report was written"


case("report() of two JSON files (a ladder)", ladder)
case("report() of a dict and a Result", from_dict_and_result)
case("report() frame rates", frame_rates)
case("report() refusals", refusals)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
