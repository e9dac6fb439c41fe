"""Twin VMAF from Python: a ctypes binding to libvmaf.so.3, exact segment scoring, a Ray driver.

    import twinvmaf
    twinvmaf.score("ref.yuv", "dis.yuv", "out.json", geometry=(1920, 1080, "420", 8),
                   output_format="json", features=["psnr"])

writes the file `vmaf -r ref.yuv -d dis.yuv -w 1920 -h 1080 -p 420 -b 8 --feature psnr --json
-o out.json` writes (the same values, names and order; `fps` is a timing). score_ladder()
scores one reference against several distorted inputs in one pass (the reference read once),
score_batch() runs many jobs in one process, grouped into such ladders; report() writes the
HTML report of JSON output files (`vmaf --report-from`'s). The library is
$TWINVMAF_LIB, else libvmaf.so.3 in pkg-config's libdir, else the dynamic loader's.
"""
from ._lib import VmafError, load
from .binding import Context, Devices, Model, ModelSpec, opencl_devices
from .ladder import Job, Result, score_batch, score_ladder, score_segment_ladder
from .report import report
from .score import Options, Title, frame_count, merge, score, score_segment
from .video import Geometry, VideoFile

__version__ = "0.1.0"
__all__ = ["VmafError", "load", "Context", "Devices", "Model", "ModelSpec", "opencl_devices",
           "Options", "Title", "frame_count", "merge", "score", "score_segment", "Geometry",
           "VideoFile", "Job", "Result", "score_batch", "score_ladder", "score_segment_ladder",
           "report"]
