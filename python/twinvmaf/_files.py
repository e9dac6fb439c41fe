"""Output files as the library and the vmaf CLI write them (src/output.c, tools/vmaf.c): a
regular (or new) file is written as a temporary file beside it, synced and renamed into
place, so that no reader ever sees half a file and a failure (or Ctrl-C) leaves the old one;
a device or a pipe is written directly, never replaced. An output that is one of the inputs
is refused before any work."""
import errno
import os
import stat
import tempfile

from ._lib import VmafError


def _stat(path):
    try:
        return os.stat(path)
    except OSError:
        return None


def is_direct(path):
    """Whether path exists and is not a regular file (written in place)."""
    st = _stat(path)
    return st is not None and not stat.S_ISREG(st.st_mode)


def check_not_input(path, inputs, what):
    """Refuse a regular output that is one of inputs (same device and inode: through symlinks
    and hard links). inputs: (label, path) pairs; what: 'the {label} input' wording."""
    out = _stat(path)
    if out is None or not stat.S_ISREG(out.st_mode):
        return
    for label, p in inputs:
        st = _stat(p)
        if st is not None and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            raise VmafError(f"output file {path} is the {what.format(label)} {p}: refusing "
                            "to overwrite it")


def check_writable(path):
    """The output can be written: a temporary file can be made beside a regular (or new)
    one, a device or pipe is writable. Tried now, before hours of scoring."""
    path = os.fspath(path)
    st = _stat(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise VmafError(f"cannot write output file {path}: it is a directory", -errno.EISDIR)
        if not os.access(path, os.W_OK):
            raise VmafError(f"cannot write output file {path}: {os.strerror(errno.EACCES)}",
                            -errno.EACCES)
        return
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=d)
    except OSError as e:
        raise VmafError(f"cannot write output file {path}: cannot create a file beside it "
                        f"({e.strerror})", -(e.errno or errno.EIO)) from None
    os.close(fd)
    os.unlink(tmp)


def write_atomic(path, data):
    """data (bytes) into path by the rule above."""
    path = os.fspath(path)
    if is_direct(path):
        with open(path, "wb") as f:
            f.write(data)
        return
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # as the library's files: mkstemp's 0600 hides it
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
