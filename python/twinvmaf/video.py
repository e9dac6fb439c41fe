"""Raw YUV and Y4M inputs, read by Python at computed offsets into library pictures.

Raw files hold planar frames with ceil-sized chroma (as FFmpeg writes odd sizes); pictures are
floor-sized, so the extra chroma column/row is skipped (the CLI's rule, DEVELOPERS.md).
Samples above 8 bits are 16-bit little-endian. Y4M: the header's W, H and C tags (420*, 422,
444, mono, 420pN/422pN/444pN/monoN with N = 9..16); frames are found by their FRAME lines.
"""
import ctypes
import os
import stat

from ._lib import VmafError

Y4M_COLORSPACES = {"420jpeg": ("420", 8), "420mpeg2": ("420", 8), "420paldv": ("420", 8),
                   "420": ("420", 8), "422": ("422", 8), "444": ("444", 8), "mono": ("400", 8)}
MAX_DIM = 1 << 16


class Geometry:
    """Frame geometry: width, height, pixel format ('420', '422', '444', '400'), bits 8..16."""

    def __init__(self, width, height, pixel_format, bitdepth):
        pixel_format = str(pixel_format)
        if pixel_format not in ("420", "422", "444", "400"):
            raise VmafError(f"pixel format {pixel_format!r} is not one of 420, 422, 444, 400")
        try:
            width, height, bitdepth = int(width), int(height), int(bitdepth)
        except (TypeError, ValueError):
            raise VmafError(f"bad geometry {width}x{height} {bitdepth}-bit") from None
        if not (0 < width <= MAX_DIM and 0 < height <= MAX_DIM):
            raise VmafError(f"frame size {width}x{height} is out of range (1..{MAX_DIM} each)")
        if not 8 <= bitdepth <= 16:
            raise VmafError(f"bit depth {bitdepth} is out of range (8..16)")
        self.width, self.height = width, height
        self.pixel_format, self.bitdepth = pixel_format, bitdepth
        self.bytes_per_sample = 1 if bitdepth == 8 else 2
        cw = {"420": (width + 1) // 2, "422": (width + 1) // 2, "444": width, "400": 0}
        ch = {"420": (height + 1) // 2, "422": height, "444": height, "400": 0}
        f = pixel_format
        # plane sizes in the file (ceil-sized chroma), in samples
        self.file_planes = [(width, height)] + ([(cw[f], ch[f])] * 2 if f != "400" else [])
        self.frame_bytes = sum(w * h for w, h in self.file_planes) * self.bytes_per_sample

    def as_tuple(self):
        return (self.width, self.height, self.pixel_format, self.bitdepth)

    def __eq__(self, other):
        return isinstance(other, Geometry) and self.as_tuple() == other.as_tuple()

    def __repr__(self):
        return "{}x{} {} {}-bit".format(*self.as_tuple())


def geometry_from(spec):
    """A Geometry from None (Y4M), a Geometry, a dict or a (w, h, fmt, bits) sequence."""
    if spec is None or isinstance(spec, Geometry):
        return spec
    if isinstance(spec, dict):
        return Geometry(spec["width"], spec["height"], spec["pixel_format"], spec["bitdepth"])
    return Geometry(*spec)


class VideoFile:
    """One input file: its geometry and the byte offset of every frame's payload."""

    def __init__(self, path, geometry=None):
        self.path = os.fspath(path)
        try:
            # non-blocking: a FIFO without a writer would block the open
            self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as e:
            raise VmafError(f"{self.path}: cannot open: {e.strerror}", -e.errno) from None
        try:
            st = os.fstat(self.fd)
            if not stat.S_ISREG(st.st_mode):
                kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a pipe or a device"
                raise VmafError(f"{self.path}: not a regular file ({kind}): frames are read at "
                                "their offsets; give a file (the vmaf CLI also reads pipes)",
                                -22)
            os.set_blocking(self.fd, True)
            self.size = st.st_size
            if geometry is None:
                self._open_y4m()
            else:
                self.geometry = geometry
                self._open_raw()
        except BaseException:
            os.close(self.fd)
            raise

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _open_raw(self):
        n = self.geometry.frame_bytes
        self.frames = self.size // n
        self.truncated = self.size % n != 0  # frame `frames` is incomplete
        self._offsets = None
        self._first, self._stride = 0, n

    def _open_y4m(self):
        head = os.pread(self.fd, 4096, 0)
        if not head:
            raise VmafError(f"{self.path}: empty file (no Y4M header)")
        if not head.startswith(b"YUV4MPEG2") or (len(head) > 9 and head[9:10] not in b" \n"):
            raise VmafError(f"{self.path}: not a Y4M file (no YUV4MPEG2 signature); for raw "
                            "YUV give the geometry (width, height, pixel format, bit depth)")
        nl = head.find(b"\n")
        if nl < 0:
            raise VmafError(f"{self.path}: truncated or overlong Y4M header (no newline)")
        if head[nl - 1:nl] == b"\r":
            raise VmafError(f"{self.path}: Y4M header ends with CR LF; Y4M lines end with LF")
        w = h = None
        fmt, bits = "420", 8
        for tok in head[9:nl].decode("latin-1").split():
            tag, val = tok[0], tok[1:]
            if tag in "WH":
                if not val.isdigit() or not 0 < int(val) <= MAX_DIM:
                    raise VmafError(f"{self.path}: Y4M header: bad {tok!r}")
                if tag == "W":
                    w = int(val)
                else:
                    h = int(val)
            elif tag == "C":
                fmt, bits = self._colorspace(val)
        if w is None or h is None:
            raise VmafError(f"{self.path}: Y4M header: missing width or height (W, H tags)")
        self.geometry = Geometry(w, h, fmt, bits)
        self._scan_frames(nl + 1)

    def _colorspace(self, val):
        if val in Y4M_COLORSPACES:
            return Y4M_COLORSPACES[val]
        for prefix, fmt in (("420p", "420"), ("422p", "422"), ("444p", "444"), ("mono", "400")):
            rest = val[len(prefix):]
            if val.startswith(prefix) and rest.isdigit() and rest[0] != "0" and 9 <= int(rest) <= 16:
                return fmt, int(rest)
        raise VmafError(f"{self.path}: Y4M colorspace {val!r} is not supported (supported: "
                        "420jpeg, 420mpeg2, 420paldv, 420, 422, 444, mono, 420pN, 422pN, "
                        "444pN, monoN with N = 9..16)")

    def _scan_frames(self, start):
        n = self.geometry.frame_bytes
        data = self.size - start
        self.truncated = False
        self._offsets = None
        # every frame a bare "FRAME\n" + payload: offsets are computed (checked at both ends)
        if data > 0 and data % (6 + n) == 0:
            cnt = data // (6 + n)
            if (os.pread(self.fd, 6, start) == b"FRAME\n" and
                    os.pread(self.fd, 6, start + (cnt - 1) * (6 + n)) == b"FRAME\n"):
                self.frames, self._first, self._stride = cnt, start + 6, 6 + n
                return
        offsets, pos = [], start
        while pos < self.size:
            line = os.pread(self.fd, 1024, pos)
            nl = line.find(b"\n")
            if not line.startswith(b"FRAME") or nl < 5 or (nl > 5 and line[5:6] != b" "):
                raise VmafError(f"{self.path}: bad FRAME header at frame {len(offsets)} "
                                "(expected \"FRAME\" and a newline)")
            pos += nl + 1
            if pos + n > self.size:
                self.truncated = True
                break
            offsets.append(pos)
            pos += n
        self._offsets = offsets
        self.frames = len(offsets)

    def check_first_frame(self):
        """9..15 bits: frame 0's samples must fit the depth (a wrong bit depth given for a
        file otherwise fails later as the library's 'Invalid argument' for that frame)."""
        g = self.geometry
        if g.bitdepth in (8, 16) or not self.frames:
            return
        import array
        import sys
        a = array.array("H")
        a.frombytes(os.pread(self.fd, g.frame_bytes, self.offset(0)))
        if sys.byteorder == "big":
            a.byteswap()
        top = max(a) if len(a) else 0
        if top >> g.bitdepth:
            raise VmafError(f"{self.path}: frame 0 holds sample value {top}, above the "
                            f"{g.bitdepth}-bit maximum {(1 << g.bitdepth) - 1} (is the bit "
                            "depth right?)", -22)

    def offset(self, k):
        if self._offsets is not None:
            return self._offsets[k]
        return self._first + k * self._stride

    def read_into(self, k, pic):
        """Frame k's samples into the library picture pic (its w/h/stride/data)."""
        if k >= self.frames:
            raise VmafError(f"{self.path}: truncated frame {k}" if self.truncated
                            else f"{self.path}: no frame {k}", -5)
        g = self.geometry
        buf = os.pread(self.fd, g.frame_bytes, self.offset(k))
        if len(buf) != g.frame_bytes:
            raise VmafError(f"{self.path}: truncated frame {k}", -5)
        src = ctypes.c_char_p(buf)
        base = ctypes.cast(src, ctypes.c_void_p).value
        bps, pos = g.bytes_per_sample, 0
        for p, (fw, fh) in enumerate(g.file_planes):
            pw, ph, stride, dst = pic.w[p], pic.h[p], pic.stride[p], pic.data[p]
            row = pw * bps
            if fw * bps == stride and pw == fw:
                ctypes.memmove(dst, base + pos, row * ph)
            else:
                for y in range(ph):
                    ctypes.memmove(dst + y * stride, base + pos + y * fw * bps, row)
            pos += fw * fh * bps
        del src
