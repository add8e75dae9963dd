"""Writing user files safely: a temporary file created exclusively beside the target,
then one atomic rename. A link or a planted file at any predictable temporary name
cannot redirect the write, and a crash never leaves half a file."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from probe.errors import BadInput
from probe.paths import check_followable


def check_target(path: Path, what: str = "file") -> None:
    """Refuse to replace a link or anything that is not a regular file."""
    check_followable(path.parent)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise BadInput(f"{path}: a part of this path is a file, not a folder.") from None
    if stat.S_ISLNK(st.st_mode):
        check_followable(path)
        raise BadInput(f"{path}: is a symbolic link; probe does not write through links.")
    if stat.S_ISDIR(st.st_mode):
        raise BadInput(f"{path}: is a folder, not a {what}.")
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path}: is not a regular file; probe will not write to it.")


def check_folder(folder: Path) -> None:
    """What ``ensure_folder`` would refuse, said before any work, creating nothing."""
    check_followable(folder)
    for above in [folder, *folder.parents]:
        if above.exists():
            if not above.is_dir():
                raise BadInput(f"{folder}: is a file, not a folder." if above == folder else
                               f"{folder}: a part of this path ({above}) is a file, not a "
                               "folder.")
            return


def ensure_folder(folder: Path) -> None:
    """Create ``folder`` (and parents) or say in one sentence why not."""
    check_followable(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise BadInput(f"{folder}: is a file, not a folder.") from None
    except NotADirectoryError:
        raise BadInput(f"{folder}: a part of this path is a file, not a folder.") from None
    except PermissionError:
        raise BadInput(f"{folder}: cannot be created (permission denied).") from None
    except OSError as exc:
        raise BadInput(f"{folder}: cannot be created ({exc.strerror}).") from None
    if not folder.is_dir():
        raise BadInput(f"{folder}: is not a folder.")


def write_atomic(path: str | Path, data: str | bytes, what: str = "file") -> Path:
    """Write ``data`` to ``path`` through an exclusively created temporary file in the
    same folder, then rename it over ``path``. Never follows a link at ``path``."""
    path = Path(path)
    ensure_folder(path.parent)
    check_target(path, what)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)   # keep a replaced file's permissions
    except OSError:
        mode = 0o644                                  # mkstemp's 0600 would hide new files
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except PermissionError:
        raise BadInput(f"{path.parent}: is not writable (permission denied).") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot be written ({exc.strerror}).") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise BadInput(f"{path}: cannot be written ({exc.strerror or exc}).") from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return path


def make_temp_dir(target: Path) -> Path:
    """An exclusively created folder beside ``target`` to fill and then rename into place
    (for outputs made of several files, such as a converted model)."""
    ensure_folder(target.parent)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                 dir=target.parent))


def _unlink_quietly(p: str | Path) -> None:
    try:
        os.unlink(p)
    except OSError:
        pass
