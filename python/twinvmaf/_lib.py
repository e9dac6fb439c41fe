"""Loading libvmaf.so.3 and declaring its C API for ctypes (include/libvmaf/*.h)."""
import ctypes
import ctypes.util
import errno
import os
import shutil
import subprocess
import threading

SONAME = "libvmaf.so.3"

# enum VmafLogLevel, VmafOutputFormat, VmafPoolingMethod, VmafPixelFormat
LOG_NONE, LOG_ERROR, LOG_WARNING, LOG_INFO, LOG_DEBUG = range(5)
OUTPUT_FORMATS = {"xml": 1, "json": 2, "csv": 3, "sub": 4}
POOL_MIN, POOL_MAX, POOL_MEAN, POOL_HARMONIC_MEAN = 1, 2, 3, 4
PIX_FMTS = {"420": 1, "422": 2, "444": 3, "400": 4}
MODEL_FLAG_DISABLE_CLIP, MODEL_FLAG_ENABLE_TRANSFORM = 1, 2
COLLECTION_SCORE_BOOTSTRAP = 1
CUDA_PREALLOC_HOST_PINNED = 3
# enum VmafOpenCLDeviceType
OPENCL_DEVICE_TYPES = {0: "other", 1: "gpu", 2: "cpu", 3: "accelerator"}
OPENCL_DEVICE_GPU = 1


class VmafError(RuntimeError):
    """A failed library call or an unusable input; the message says which and why."""

    def __init__(self, message, err=None):
        super().__init__(message)
        self.errno = err


class VmafConfiguration(ctypes.Structure):
    _fields_ = [("log_level", ctypes.c_int), ("n_threads", ctypes.c_uint),
                ("n_subsample", ctypes.c_uint), ("cpumask", ctypes.c_uint64),
                ("gpumask", ctypes.c_uint64)]


class VmafPicture(ctypes.Structure):
    _fields_ = [("pix_fmt", ctypes.c_int), ("bpc", ctypes.c_uint),
                ("w", ctypes.c_uint * 3), ("h", ctypes.c_uint * 3),
                ("stride", ctypes.c_ssize_t * 3), ("data", ctypes.c_void_p * 3),
                ("ref", ctypes.c_void_p), ("priv", ctypes.c_void_p)]


class _PicParams(ctypes.Structure):
    _fields_ = [("w", ctypes.c_uint), ("h", ctypes.c_uint), ("bpc", ctypes.c_uint),
                ("pix_fmt", ctypes.c_int)]


class VmafPictureConfiguration(ctypes.Structure):
    _fields_ = [("pic_params", _PicParams), ("pic_cnt", ctypes.c_uint)]


class VmafCudaPictureConfiguration(ctypes.Structure):
    _fields_ = [("pic_params", _PicParams), ("pic_prealloc_method", ctypes.c_int)]


class VmafCudaConfiguration(ctypes.Structure):
    _fields_ = [("cu_ctx", ctypes.c_void_p)]


class VmafOpenCLConfiguration(ctypes.Structure):
    _fields_ = [("device", ctypes.c_int)]


class VmafOpenCLDeviceInfo(ctypes.Structure):
    _fields_ = [("platform", ctypes.c_char * 128), ("name", ctypes.c_char * 128),
                ("vendor", ctypes.c_char * 128), ("driver_version", ctypes.c_char * 128),
                ("device_version", ctypes.c_char * 128),
                ("opencl_c_version", ctypes.c_char * 128), ("type", ctypes.c_int),
                ("fp64", ctypes.c_int), ("correctly_rounded_divide_sqrt", ctypes.c_int),
                ("fp32_denormals", ctypes.c_int), ("int64_atomics", ctypes.c_int),
                ("max_work_group_size", ctypes.c_size_t), ("local_mem_size", ctypes.c_uint64),
                ("global_mem_size", ctypes.c_uint64)]


class VmafModelConfig(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("flags", ctypes.c_uint64)]


class VmafModelCollectionScore(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("bagging_score", ctypes.c_double),
                ("stddev", ctypes.c_double), ("p95_lo", ctypes.c_double),
                ("p95_hi", ctypes.c_double)]


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_U = ctypes.c_uint
_I = ctypes.c_int
_S = ctypes.c_char_p
_D = ctypes.POINTER(ctypes.c_double)

# name: (restype, argtypes); all return int (0 or a negative errno) unless said otherwise
_API = {
    "vmaf_version": (_S, []),
    "vmaf_init": (_I, [_PP, VmafConfiguration]),
    "vmaf_close": (_I, [_P]),
    "vmaf_use_feature": (_I, [_P, _S, _P]),
    "vmaf_use_features_from_model": (_I, [_P, _P]),
    "vmaf_use_features_from_model_collection": (_I, [_P, _P]),
    "vmaf_read_pictures": (_I, [_P, ctypes.POINTER(VmafPicture), ctypes.POINTER(VmafPicture), _U]),
    "vmaf_feature_score_at_index": (_I, [_P, _S, _D, _U]),
    "vmaf_feature_score_pooled": (_I, [_P, _S, _I, _D, _U, _U]),
    "vmaf_score_at_index": (_I, [_P, _P, _D, _U]),
    "vmaf_score_pooled": (_I, [_P, _P, _I, _D, _U, _U]),
    "vmaf_score_pooled_model_collection": (
        _I, [_P, _P, _I, ctypes.POINTER(VmafModelCollectionScore), _U, _U]),
    "vmaf_preallocate_pictures": (_I, [_P, VmafPictureConfiguration]),
    "vmaf_fetch_preallocated_picture": (_I, [_P, ctypes.POINTER(VmafPicture)]),
    "vmaf_write_output": (_I, [_P, _S, _I]),
    "vmaf_picture_alloc": (_I, [ctypes.POINTER(VmafPicture), _I, _U, _U, _U]),
    "vmaf_picture_unref": (_I, [ctypes.POINTER(VmafPicture)]),
    "vmaf_model_load": (_I, [_PP, ctypes.POINTER(VmafModelConfig), _S]),
    "vmaf_model_load_from_path": (_I, [_PP, ctypes.POINTER(VmafModelConfig), _S]),
    "vmaf_model_feature_overload": (_I, [_P, _S, _P]),
    "vmaf_model_destroy": (None, [_P]),
    "vmaf_model_collection_load": (_I, [_PP, _PP, ctypes.POINTER(VmafModelConfig), _S]),
    "vmaf_model_collection_load_from_path": (_I, [_PP, _PP, ctypes.POINTER(VmafModelConfig), _S]),
    "vmaf_model_collection_feature_overload": (_I, [_P, _PP, _S, _P]),
    "vmaf_model_collection_destroy": (None, [_P]),
    "vmaf_feature_dictionary_set": (_I, [_PP, _S, _S]),
    "vmaf_feature_dictionary_free": (_I, [_PP]),
}
# present only in builds with them: CUDA (a stub without nvcc), OpenCL (a stub without the
# OpenCL headers), segments and ladders
_OPTIONAL = {
    "vmaf_cuda_state_init": (_I, [_PP, VmafCudaConfiguration]),
    "vmaf_cuda_import_state": (_I, [_P, _P]),
    "vmaf_cuda_state_free": (_I, [_P]),
    "vmaf_cuda_preallocate_pictures": (_I, [_P, VmafCudaPictureConfiguration]),
    "vmaf_cuda_fetch_preallocated_picture": (_I, [_P, ctypes.POINTER(VmafPicture)]),
    "vmaf_opencl_device_count": (_I, [ctypes.POINTER(_I)]),
    "vmaf_opencl_device_info": (_I, [_I, ctypes.POINTER(VmafOpenCLDeviceInfo)]),
    "vmaf_opencl_state_init": (_I, [_PP, VmafOpenCLConfiguration]),
    "vmaf_opencl_import_state": (_I, [_P, _P]),
    "vmaf_opencl_state_free": (_I, [_P]),
    "vmaf_segment_context": (_I, [_P, ctypes.POINTER(_U), ctypes.POINTER(_U)]),
    "vmaf_segment_set": (_I, [_P, _U, _U]),
    "vmaf_segment_set_prediction": (_I, [_P, _I]),
    "vmaf_segment_set_title_frames": (_I, [_P, _U, _I]),
    "vmaf_segment_write": (_I, [_P, _S]),
    "vmaf_segment_merge": (_I, [ctypes.POINTER(_S), _U, _S, _I]),
    "vmaf_segment_merge_with_precision": (_I, [ctypes.POINTER(_S), _U, _S, _I, _I]),
    # ladders: one reference against several distorted streams (libvmaf.h, "Ladders")
    "vmaf_ladder_init": (_I, [_PP, ctypes.POINTER(_P), _U]),
    "vmaf_ladder_read_pictures": (_I, [_P, ctypes.POINTER(VmafPicture),
                                       ctypes.POINTER(VmafPicture), ctypes.POINTER(_I), _U]),
    "vmaf_ladder_rungs_left": (_U, [_P]),
    "vmaf_ladder_close": (_I, [_P]),
    # reports (libvmaf.h, "Reports")
    "vmaf_report_from_json": (_I, [ctypes.POINTER(_S), _U, _S, _U, _U]),
}


def _pkg_config_candidates():
    if not shutil.which("pkg-config"):
        return []
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "libvmaf"], check=True,
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return []
    return [os.path.join(out, SONAME)] if out else []


def candidates():
    """Where the library is looked for, in order: $TWINVMAF_LIB, pkg-config, the loader."""
    env = os.environ.get("TWINVMAF_LIB")
    if env:
        return [env]  # an explicit choice: no fallback to another library
    found = [p for p in _pkg_config_candidates() if os.path.exists(p)]
    return found + [SONAME]


class Library:
    """One loaded libvmaf with its functions declared."""

    def __init__(self, path=None):
        tried = [path] if path else candidates()
        errors = []
        self.handle = None
        for cand in tried:
            try:
                self.handle = ctypes.CDLL(cand)
                self.path = cand
                break
            except OSError as e:
                errors.append(f"{cand}: {e}")
        if self.handle is None:
            raise VmafError("cannot load libvmaf (" + "; ".join(errors) + "); set TWINVMAF_LIB "
                            "to the path of libvmaf.so.3, or install it where pkg-config or "
                            "the dynamic loader finds it", -errno.ENOENT)
        for table, required in ((_API, True), (_OPTIONAL, False)):
            for name, (res, args) in table.items():
                try:
                    fn = getattr(self.handle, name)
                except AttributeError:
                    if required:
                        raise VmafError(f"{self.path} is not a usable libvmaf: {name} missing")
                    continue
                fn.restype = res
                fn.argtypes = args
                setattr(self, name[5:], fn)  # lib.init, lib.read_pictures, ...
        self.version = self.handle.vmaf_version().decode()

    def has(self, name):
        return hasattr(self, name)


_cache = {}
_cache_lock = threading.Lock()


def load(path=None):
    """The library at path (else as candidates() finds it), loaded once per process."""
    key = path or ("env", os.environ.get("TWINVMAF_LIB"))
    with _cache_lock:
        if key not in _cache:
            _cache[key] = Library(path)
        return _cache[key]


def strerror(err):
    return os.strerror(-err) if err < 0 else f"error {err}"
