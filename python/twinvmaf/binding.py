"""Thin objects over the C API: a context, models, feature options, pictures."""
import ctypes
import os

from . import _lib
from ._lib import VmafError, strerror


def _check(err, what):
    if err:
        raise VmafError(f"{what}: {strerror(err)}", err)


def dictionary(lib, opts):
    """A VmafFeatureDictionary (c_void_p) holding opts (a dict or (key, value) pairs), or None."""
    d = ctypes.c_void_p()
    items = opts.items() if isinstance(opts, dict) else opts
    for key, val in items:
        if isinstance(val, bool):
            val = "true" if val else "false"
        err = lib.feature_dictionary_set(ctypes.byref(d), str(key).encode(), str(val).encode())
        if err:
            lib.feature_dictionary_free(ctypes.byref(d))
            raise VmafError(f"bad feature option {key}={val}: {strerror(err)}", err)
    return d if d.value else None


def parse_feature(spec):
    """'NAME[=K=V[:K=V...]]' (the CLI's --feature), or (name, opts), into (name, [(k, v)])."""
    if not isinstance(spec, str):
        name, opts = spec
        return name, list(opts.items() if isinstance(opts, dict) else opts)
    name, _, rest = spec.partition("=")
    if not name:  # the vmaf CLI's messages
        raise VmafError(f'Problem parsing feature "{spec}": empty name.')
    opts = []
    if rest:
        for kv in rest.split(":"):
            key, _, val = kv.partition("=")
            if not key or not val:
                raise VmafError(f'Problem parsing feature "{name}", bad option string "{key}".')
            opts.append((key, val))
    return name, opts


class ModelSpec:
    """A --model entry: version= or path=, name=, disable_clip, enable_transform, FEX.OPT=V."""

    def __init__(self, version=None, path=None, name="vmaf", disable_clip=False,
                 enable_transform=False, overloads=()):
        if not version and not path:
            raise VmafError("model: path= or version= is required")
        self.version, self.path, self.name = version, path, name
        self.disable_clip, self.enable_transform = disable_clip, enable_transform
        self.overloads = list(overloads)  # (feature, key, value), one overload call each

    @classmethod
    def parse(cls, spec):
        if isinstance(spec, ModelSpec):
            return spec
        if isinstance(spec, dict):
            return cls(**spec)
        kw = {"overloads": []}
        for kv in spec.split(":"):
            key, eq, val = kv.partition("=")
            if not eq:
                if key not in ("disable_clip", "enable_transform"):
                    raise VmafError(f"model: bad option string {key!r}")
                val = "true"
            if key in ("path", "version", "name"):
                kw[key] = val
            elif key in ("disable_clip", "enable_transform"):
                kw[key] = val == "true"
            else:
                fex, dot, opt = key.partition(".")
                if not dot or not fex or not opt:
                    raise VmafError(f"model: bad option string {key!r}")
                kw["overloads"].append((fex, opt, val))
        return cls(**kw)

    @property
    def label(self):
        return self.version or self.path

    def to_cli(self):
        parts = [f"version={self.version}" if self.version else f"path={self.path}"]
        if self.name != "vmaf":
            parts.append(f"name={self.name}")
        if self.disable_clip:
            parts.append("disable_clip")
        if self.enable_transform:
            parts.append("enable_transform")
        parts += [f"{f}.{k}={v}" for f, k, v in self.overloads]
        return ":".join(parts)


class Model:
    """A loaded model or model collection (the CLI's rule: a single model first)."""

    def __init__(self, lib, spec):
        self.lib, self.spec = lib, ModelSpec.parse(spec)
        self.model, self.collection = ctypes.c_void_p(), ctypes.c_void_p()
        s = self.spec
        flags = ((_lib.MODEL_FLAG_DISABLE_CLIP if s.disable_clip else 0) |
                 (_lib.MODEL_FLAG_ENABLE_TRANSFORM if s.enable_transform else 0))
        self._name = s.name.encode()
        cfg = _lib.VmafModelConfig(self._name, flags)
        what = (s.version or os.fspath(s.path)).encode()
        load = lib.model_load if s.version else lib.model_load_from_path
        err = load(ctypes.byref(self.model), ctypes.byref(cfg), what)
        exists = s.version or os.access(s.path, os.R_OK)
        if err == -22 and exists:  # -EINVAL: maybe a collection (e.g. vmaf_b_v0.6.3)
            load = lib.model_collection_load if s.version else lib.model_collection_load_from_path
            err = load(ctypes.byref(self.model), ctypes.byref(self.collection),
                       ctypes.byref(cfg), what)
        if err:
            raise VmafError(f"problem loading model: {s.label}", err)
        try:
            for fex, key, val in s.overloads:
                d = dictionary(lib, [(key, val)])
                if self.collection.value:
                    err = lib.model_collection_feature_overload(
                        self.model, ctypes.byref(self.collection), fex.encode(), d)
                else:
                    err = lib.model_feature_overload(self.model, fex.encode(), d)
                _check(err, f"problem overloading feature extractors from model: {s.label}")
        except BaseException:
            self.close()
            raise

    def close(self):
        # as the CLI: the model and its collection are freed separately
        if self.model.value:
            self.lib.model_destroy(self.model)
        if self.collection.value:
            self.lib.model_collection_destroy(self.collection)
        self.model, self.collection = ctypes.c_void_p(), ctypes.c_void_p()


def opencl_devices(lib=None):
    """The OpenCL devices as the library numbers them (vmaf_opencl_device_info): a list of
    dicts (index, platform, name, vendor, driver_version, device_version, opencl_c_version,
    type: 'gpu'|'cpu'|'accelerator'|'other', fp64, ...); [] without OpenCL (no ICD loader, no
    platform, a library without the OpenCL API)."""
    lib = lib if isinstance(lib, _lib.Library) else _lib.load(lib)
    if not lib.has("opencl_device_count"):
        return []
    n = ctypes.c_int(0)
    if lib.opencl_device_count(ctypes.byref(n)):
        return []
    out = []
    for i in range(n.value):
        info = _lib.VmafOpenCLDeviceInfo()
        if lib.opencl_device_info(i, ctypes.byref(info)):
            continue
        d = {"index": i}
        for name, _ in info._fields_:
            v = getattr(info, name)
            d[name] = v.decode(errors="replace") if isinstance(v, bytes) else v
        d["type"] = _lib.OPENCL_DEVICE_TYPES.get(info.type, "other")
        out.append(d)
    return out


def _cuda_state(lib):
    """(a new CUDA state or None, 0 or its negative errno)."""
    state = ctypes.c_void_p()
    err = lib.cuda_state_init(ctypes.byref(state), _lib.VmafCudaConfiguration(None))
    return (None if err else state), err


def _opencl_state(lib, index):
    """(a new OpenCL state of device index or None, 0 or its negative errno)."""
    state = ctypes.c_void_p()
    err = lib.opencl_state_init(ctypes.byref(state), _lib.VmafOpenCLConfiguration(index))
    return (None if err else state), err


class Devices:
    """Device states made once and imported into many contexts (a ladder's rungs, a batch's
    jobs), as the vmaf CLI's ladder shares one: the CUDA state, and an OpenCL state per device
    index, each made at its first use (a failure is remembered too: it is not retried). Every
    context holds its own reference; close() drops these (after or before the contexts)."""

    def __init__(self, lib):
        self.lib = lib
        self._states = {}  # key: (state or None, err)

    def cuda(self):
        if "cuda" not in self._states:
            self._states["cuda"] = _cuda_state(self.lib)
        return self._states["cuda"]

    def opencl(self, index):
        key = ("opencl", index)
        if key not in self._states:
            self._states[key] = _opencl_state(self.lib, index)
        return self._states[key]

    def close(self):
        for key, (state, _) in self._states.items():
            if state is not None:
                free = self.lib.cuda_state_free if key == "cuda" else self.lib.opencl_state_free
                free(state)
        self._states = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Context:
    """A VmafContext. Closing it (or leaving a `with`) frees it and what it owns."""

    def __init__(self, lib, threads=0, subsample=0, log_level=_lib.LOG_INFO, cpumask=0,
                 gpumask=0):
        self.lib = lib
        self.ptr = ctypes.c_void_p()
        cfg = _lib.VmafConfiguration(log_level, threads, subsample, cpumask, gpumask)
        _check(lib.init(ctypes.byref(self.ptr), cfg), "problem initializing VMAF context")
        self.models = []
        self.cuda = False
        self.opencl = False
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.ptr.value:
            self.lib.close(self.ptr)
            self.ptr = ctypes.c_void_p()
        for m in self.models:
            m.close()
        self.models = []

    def use_cuda(self, required, devices=None):
        """Attach a CUDA state (made here, or devices' shared one); required=False (auto)
        falls back to the CPU silently."""
        lib = self.lib
        if not lib.has("cuda_state_init"):
            if required:
                raise VmafError("backend cuda: this libvmaf has no CUDA API")
            return False
        state, err = devices.cuda() if devices is not None else _cuda_state(lib)
        if err:
            if required:
                raise VmafError(f"--backend cuda: no usable CUDA device ({strerror(err)})", err)
            return False
        err = lib.cuda_import_state(self.ptr, state)
        if devices is None:
            lib.cuda_state_free(state)  # the context holds its own reference
        _check(err, "problem attaching the CUDA state")
        self.cuda = True
        return True

    def use_opencl(self, device, required, devices=None):
        """Attach an OpenCL state (made here, or devices' shared one for that device), as the
        vmaf CLI's --backend opencl|auto: device None means
        device 0 when required, else (auto) the first OpenCL GPU; required=False with no
        device named falls back to the CPU silently (also where the device cannot be
        opened). A state attached by $VMAF_BACKEND at vmaf_init gives way to this one."""
        lib = self.lib
        if not lib.has("opencl_state_init"):
            if required or device is not None:
                raise VmafError("--backend opencl: this libvmaf has no OpenCL API")
            return False
        index = device
        if index is None:
            if required:
                index = 0
            else:
                gpus = [d["index"] for d in opencl_devices(lib) if d["type"] == "gpu"]
                if not gpus:
                    return False
                index = gpus[0]
        state, err = devices.opencl(index) if devices is not None else _opencl_state(lib, index)
        if err:
            if not required and device is None:
                return False
            raise VmafError(f"--backend opencl: no usable OpenCL device {index} "
                            f"({strerror(err)})", err)
        err = lib.opencl_import_state(self.ptr, state)
        if devices is None:
            lib.opencl_state_free(state)  # the context holds its own reference
        _check(err, "problem attaching the OpenCL state")
        self.opencl = True
        return True

    def preallocate(self, geometry, count):
        fmt = _lib.PIX_FMTS[geometry.pixel_format]
        params = _lib._PicParams(geometry.width, geometry.height, geometry.bitdepth, fmt)
        if self.cuda:
            cfg = _lib.VmafCudaPictureConfiguration(params, _lib.CUDA_PREALLOC_HOST_PINNED)
            err = self.lib.cuda_preallocate_pictures(self.ptr, cfg)
        else:
            err = self.lib.preallocate_pictures(self.ptr, _lib.VmafPictureConfiguration(params, count))
        _check(err, "problem preallocating pictures")
        self._pool = geometry

    def picture(self, geometry):
        """A picture: from the pool when there is one, else vmaf_picture_alloc()."""
        pic = _lib.VmafPicture()
        if self._pool is not None:
            fetch = self.lib.cuda_fetch_preallocated_picture if self.cuda else \
                self.lib.fetch_preallocated_picture
            _check(fetch(self.ptr, ctypes.byref(pic)), "could not get a picture from the pool")
        else:
            fmt = _lib.PIX_FMTS[geometry.pixel_format]
            _check(self.lib.picture_alloc(ctypes.byref(pic), fmt, geometry.bitdepth,
                                          geometry.width, geometry.height),
                   "could not allocate a picture")
        return pic

    def unref(self, pic):
        self.lib.picture_unref(ctypes.byref(pic))

    def add_model(self, spec):
        m = Model(self.lib, spec)
        self.models.append(m)  # closed with the context
        if m.collection.value:
            err = self.lib.use_features_from_model_collection(self.ptr, m.collection)
            _check(err, f"problem loading feature extractors from model collection: {m.spec.label}")
        else:
            err = self.lib.use_features_from_model(self.ptr, m.model)
            _check(err, f"problem loading feature extractors from model: {m.spec.label}")
        return m

    def use_feature(self, spec):
        name, opts = parse_feature(spec)
        d = dictionary(self.lib, opts)
        # the context owns d now (unless the name is unknown: then it leaks a few bytes)
        _check(self.lib.use_feature(self.ptr, name.encode(), d),
               f"problem loading feature extractor: {name}")

    def read_pictures(self, ref, dist, index):
        """Hands both pictures to the library. On some errors it leaves them with the caller,
        as reference libvmaf does (their ref is still set): they are released here."""
        err = self.lib.read_pictures(self.ptr, ctypes.byref(ref), ctypes.byref(dist), index)
        if err:
            for pic in (ref, dist):
                if pic.ref:
                    self.unref(pic)
        _check(err, f"problem scoring frame {index}")

    def flush(self):
        _check(self.lib.read_pictures(self.ptr, None, None, 0), "problem flushing context")

    def score_pooled(self, model, method=_lib.POOL_MEAN, lo=0, hi=0):
        s = ctypes.c_double()
        _check(self.lib.score_pooled(self.ptr, model.model, method, ctypes.byref(s), lo, hi),
               "problem generating pooled VMAF score")
        return s.value

    def score_pooled_collection(self, model, method=_lib.POOL_MEAN, lo=0, hi=0):
        s = _lib.VmafModelCollectionScore()
        _check(self.lib.score_pooled_model_collection(self.ptr, model.collection, method,
                                                      ctypes.byref(s), lo, hi),
               "problem generating pooled VMAF score")
        return {"bagging_score": s.bagging_score, "stddev": s.stddev,
                "ci_p95_lo": s.p95_lo, "ci_p95_hi": s.p95_hi}

    def feature_score_pooled(self, name, method=_lib.POOL_MEAN, lo=0, hi=0):
        s = ctypes.c_double()
        _check(self.lib.feature_score_pooled(self.ptr, name.encode(), method, ctypes.byref(s),
                                             lo, hi), f"no pooled score for {name}")
        return s.value

    def feature_score_at_index(self, name, index):
        s = ctypes.c_double()
        _check(self.lib.feature_score_at_index(self.ptr, name.encode(), ctypes.byref(s), index),
               f"no score for {name} at frame {index}")
        return s.value

    def write_output(self, path, fmt):
        _check(self.lib.write_output(self.ptr, os.fspath(path).encode(), output_format(fmt)),
               f"problem writing output file {path}")

    # segments: present when the library has them
    def segment_context(self):
        self._need("segment_context")
        before, after = ctypes.c_uint(), ctypes.c_uint()
        _check(self.lib.segment_context(self.ptr, ctypes.byref(before), ctypes.byref(after)),
               "problem asking the extractors' segment context")
        return before.value, after.value

    def segment_set(self, first, last):
        self._need("segment_set")
        _check(self.lib.segment_set(self.ptr, first, last), f"bad segment {first}:{last}")

    def segment_set_prediction(self, predict):
        self._need("segment_set_prediction")
        _check(self.lib.segment_set_prediction(self.ptr, 1 if predict else 0),
               "problem setting the segment's prediction")

    def segment_set_title_frames(self, frames, exact=True):
        self._need("segment_set_title_frames")
        _check(self.lib.segment_set_title_frames(self.ptr, frames, 1 if exact else 0),
               "problem recording the title's length")

    def segment_write(self, path):
        self._need("segment_write")
        _check(self.lib.segment_write(self.ptr, os.fspath(path).encode()),
               f"problem writing segment file {path}")

    def _need(self, name):
        if not self.lib.has(name):
            raise VmafError(f"{self.lib.path} has no segment API (vmaf_{name})")


def output_format(fmt):
    if isinstance(fmt, int):
        return fmt
    try:
        return _lib.OUTPUT_FORMATS[fmt]
    except KeyError:
        raise VmafError(f"output format {fmt!r} is not one of xml, json, csv, sub") from None
