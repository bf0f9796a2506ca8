"""Writing a file back in place: whole, atomically, and only if it is still what was read.

A rewrite goes to a temporary file in the same folder, is flushed to disk and
renamed over the original (`os.replace`), so a crash or a full disk leaves
either the old file or the new one, never a mix. Its mode (and, where allowed,
owner) is kept; a symlink stays a symlink and its target is rewritten.

Before writing, the file must still be exactly the bytes that were read: a file
that grew past what was read (or was cut short by a size cap) or that someone
edited meanwhile is left alone.

Hard links: the rename gives the path a new file, so the file's other names
keep the old content. Writing through the link instead would give up
atomicity (a crash mid-write leaves a truncated file under every name). So a
file with more than one link is refused unless the caller allows breaking the
link, and then the broken link is reported.
"""

from __future__ import annotations

import os
import stat
import tempfile


class RewriteError(Exception):
    """Nothing was written; the message says why, for the user."""


def rewrite(path: str, original: bytes, new: bytes, *, break_hard_links: bool = False) -> list[str]:
    """Replace `path` (read as `original`) by `new`. Returns what the user should be told; raises RewriteError."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError as exc:
        raise RewriteError(f"cannot look at the file again ({exc.strerror or exc}); not written") from None
    if not stat.S_ISREG(st.st_mode):
        raise RewriteError("not a regular file; not written")
    if st.st_size != len(original) or _read_up_to(real, len(original) + 1) != original:
        raise RewriteError("the file changed after it was read, or was not read whole; not written")
    notes = []
    if st.st_nlink > 1:
        if not break_hard_links:
            raise RewriteError(
                f"the file has {st.st_nlink} hard links; an atomic rewrite would leave its other names with the old "
                "content, so it is not written (pass --break-hard-links to rewrite this name only)"
            )
        notes.append(f"hard link broken: the file's {st.st_nlink - 1} other name(s) keep the old content")
    try:
        write_atomic(real, new)
    except OSError as exc:
        folder = os.path.dirname(real) or "."
        if isinstance(exc, PermissionError) and not os.access(folder, os.W_OK):
            raise RewriteError(
                f"cannot create a file in {folder} (permission denied); a rewrite is a new file renamed over the old one, "
                "which needs write access to the folder; not written"
            ) from None
        raise RewriteError(f"cannot write ({exc.strerror or exc}); the file is unchanged") from None
    return notes


def _read_up_to(path: str, size: int) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return None


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data`: a temporary file in the same folder, fsync, rename; mode kept."""
    real = os.path.realpath(path)  # a symlink stays a symlink; its target is rewritten
    folder = os.path.dirname(real) or "."
    st = os.stat(real)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".dralint-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            pass  # another owner's file rewritten by us: it becomes ours, as with any editor
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (not possible everywhere: then the rename is as durable as the system makes it)."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
