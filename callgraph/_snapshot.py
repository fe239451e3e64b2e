"""Snapshots of the built project index (docs/callgraph.md "Index snapshot"):
a warm run whose declarations are unchanged loads the index in one step
instead of decoding every file's facts and building it again.

A snapshot is a pickle, so it is read only after it is **authenticated**:
HMAC-SHA256 under a per-user secret key (32 random bytes at
:func:`default_key_path`, outside the cache folder, mode 0600), the MAC
covering the slot name, the snapshot folder's identity (device, inode,
owner) and the payload; ``hmac.compare_digest`` decides
before ``pickle.loads`` sees a byte. A file anyone else wrote (a shared or
planted folder, another user's snapshot, one written under another key) has
no valid MAC and is a miss, never unpickled (docs/security.md "Caches").

Layout: ``<warm cache file>.index/`` (mode 700, ``safefs.check_private``)
holding ``<slot>.snap`` files: ``MAGIC`` (16 bytes), the MAC
(32 bytes), then the payload: the shard pickles of an index split by
``callgraph._lazyindex`` (none when it is not split), the pickled
``(header, state or core, shard offsets or None)`` and that pickle's
length (8 bytes, little-endian) last. At most :data:`KEEP` snapshots,
the least recently used (a load counts as a use) deleted when one is
written; a file over :data:`MAX_BYTES` is neither written nor read.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import stat
import struct
from pathlib import Path

from ._lazyindex import split

__all__ = ["IndexSnapshots", "KeyRefused", "MAGIC", "MAX_BYTES", "KEEP", "default_key_path"]

MAGIC = b"qare-index-snap2"  # 16 bytes; bump the digit with any change of the payload's shape
MAX_BYTES = 1 << 30  # spring-framework's index: 62 MB
KEEP = 3
_KEY_BYTES = 32
_MAC_BYTES = 32


class KeyRefused(OSError):
    """The secret key file is unsafe (a link, not a regular file, not the
    user's, readable or writable by others, the wrong size)."""

    def __init__(self, path, reason: str):
        super().__init__(0, reason, str(path))


def _read_key(path: Path) -> bytes:
    """The key, read through ``O_NOFOLLOW`` and checked on the opened file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyRefused(path, "is not a regular file")
        if st.st_uid != os.geteuid():
            raise KeyRefused(path, "is not owned by this user")
        if st.st_mode & 0o077:
            raise KeyRefused(path, "is readable or writable by group or others")
        if st.st_nlink != 1:
            raise KeyRefused(path, "has other hard links (a name elsewhere could be another's)")
        if st.st_size != _KEY_BYTES:
            raise KeyRefused(path, f"is not {_KEY_BYTES} bytes")
        key = os.pread(fd, _KEY_BYTES + 1, 0)
    finally:
        os.close(fd)
    if len(key) != _KEY_BYTES:
        raise KeyRefused(path, f"is not {_KEY_BYTES} bytes")
    return key


def load_or_create_key(path: Path) -> bytes:
    """The per-user secret key at ``path``, created (32 random bytes, mode
    0600, ``O_EXCL|O_NOFOLLOW``) when there is none.

    Raises
    ------
    KeyRefused
        A link (``O_NOFOLLOW`` refuses it: ``ELOOP``), not a regular file, not
        this user's, readable by others, or not 32 bytes.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise KeyRefused(path, "is a symlink")
    if st is None:
        # written whole under a temporary name, then linked to its name (which
        # fails if another process made it first): a crash never leaves an
        # empty or short key, which every later run would refuse
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            try:
                os.write(fd, os.urandom(_KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path, follow_symlinks=False)
            except FileExistsError:  # a concurrent creator: read theirs
                pass
        finally:
            os.unlink(tmp)
        return _read_key(path)  # the one on disk (checked as any reader checks it)
    try:
        return _read_key(path)
    except OSError as e:
        if isinstance(e, KeyRefused):
            raise
        raise KeyRefused(path, e.strerror or str(e)) from None


def default_key_path() -> Path:
    """Where the snapshots' secret key lives: ``$QARE_CONFIG_DIR/snapshot-key``,
    else ``$XDG_CONFIG_HOME/qare/snapshot-key``, else
    ``~/.config/qare/snapshot-key`` — **outside** the cache folder, so a cache
    copied in from elsewhere (a CI artifact, a colleague's tarball, a
    restored backup) does not bring the key its snapshots were sealed with
    (the tester's finding, session 7: with the key beside them, a planted
    cache carried its own trust and its pickle ran)."""
    env = os.environ.get("QARE_CONFIG_DIR")
    if env:
        return Path(os.path.abspath(os.path.expanduser(env))) / "snapshot-key"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".config"
    return base / "qare" / "snapshot-key"


def _key_folder(folder: Path) -> None:
    """Make the key's folder (mode 700) if missing; refuse one that is a link,
    not a folder, not this user's or writable by group or others (anyone who
    could write there could replace the key)."""
    try:
        os.makedirs(folder, mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise KeyRefused(folder, "is not a folder")
    if st.st_uid != os.geteuid():
        raise KeyRefused(folder, "is not owned by this user")
    if st.st_mode & 0o022:
        raise KeyRefused(folder, "is writable by group or others")


class _TooLarge(Exception):
    pass


class _MacSink:
    """A file-like ``write`` for the pickler: the bytes go to ``f`` and into
    the MAC; past ``limit`` bytes it raises (the snapshot is not written)."""

    __slots__ = ("f", "mac", "left", "written")

    def __init__(self, f, mac, limit: int):
        self.f, self.mac, self.left, self.written = f, mac, limit, 0

    def write(self, b) -> int:
        n = len(b) if not isinstance(b, memoryview) else b.nbytes
        self.left -= n
        self.written += n
        if self.left < 0:
            raise _TooLarge
        self.mac.update(b)
        return self.f.write(b)


class IndexSnapshots:
    """The snapshot folder of one warm cache.

    Parameters
    ----------
    folder : Path
        ``<warm cache file>.index``; created mode 700.
    trusted_root : Path, optional
        The cache root to check privacy from (``safefs.check_private``),
        default ``folder``'s parent.

    Raises
    ------
    OSError
        :class:`KeyRefused`, ``safefs.FolderNotPrivate``, or the folder
        cannot be made: the build then runs without snapshots.
    """

    def __init__(self, folder, trusted_root=None, key_path=None):
        from .safefs import check_private

        self.folder = Path(folder)
        top = Path(trusted_root) if trusted_root is not None else self.folder.parent
        check_private(top, self.folder.parent)
        try:
            os.mkdir(self.folder, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(self.folder)
        if not stat.S_ISDIR(st.st_mode):
            raise KeyRefused(self.folder, "is not a folder")
        check_private(top, self.folder)
        # the MAC also covers this folder's identity: a snapshot is good only
        # in the folder it was written in (a copy elsewhere, even with the key,
        # is a miss)
        self._where = f"{st.st_dev}:{st.st_ino}:{st.st_uid}".encode()
        key_path = Path(key_path) if key_path is not None else default_key_path()
        _key_folder(key_path.parent)
        self._key = load_or_create_key(key_path)

    def _path(self, slot: str) -> Path:
        if not slot or not all(c in "0123456789abcdef" for c in slot):
            raise ValueError("a slot is a lowercase hex digest")
        return self.folder / f"{slot}.snap"

    def _mac_start(self, slot: str):
        m = hmac.new(self._key, digestmod=hashlib.sha256)
        m.update(MAGIC + slot.encode() + b"\0" + self._where + b"\0")
        return m

    def _mac(self, slot: str, payload) -> bytes:
        m = self._mac_start(slot)
        m.update(payload)
        return m.digest()

    def load(self, slot: str, limit: int = MAX_BYTES):
        """``(header, state)`` stored under ``slot``, or None: no file, not a
        regular file of this user, over ``limit`` bytes (at most
        :data:`MAX_BYTES`; the caller's bound for its project: a file far
        larger than the project's index could be is not read and hashed),
        another magic, a MAC that does not verify (forged, truncated,
        written under another key or for another slot), or a payload that
        does not unpickle."""
        limit = min(limit, MAX_BYTES)
        path = self._path(slot)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() \
                    or st.st_size > limit or st.st_size < len(MAGIC) + _MAC_BYTES:
                return None
            with os.fdopen(os.dup(fd), "rb") as f:
                data = f.read(limit + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        head, mac = data[:len(MAGIC)], data[len(MAGIC):len(MAGIC) + _MAC_BYTES]
        payload = memoryview(data)[len(MAGIC) + _MAC_BYTES:]
        if len(data) > limit or head != MAGIC or not hmac.compare_digest(mac, self._mac(slot, payload)):
            return None
        try:
            # authenticated: written by this user's qare
            (n_head,) = struct.unpack_from("<Q", payload, len(payload) - 8)
            if n_head > len(payload) - 8:
                return None
            header, core, offsets = pickle.loads(payload[len(payload) - 8 - n_head:len(payload) - 8])
            if offsets is None:
                state = core
            else:  # split in shards (callgraph._lazyindex): unpickled as the index asks for them
                from ._lazyindex import open_state

                state = open_state(core, payload[:len(payload) - 8 - n_head], offsets)  # the shards' bytes
        except Exception:  # noqa: BLE001 — a snapshot of another code version's classes: a miss
            return None
        try:
            os.utime(path)  # a use: least recently used are deleted first
        except OSError:
            pass
        return header, state

    def save(self, slot: str, header, state, limit: int = MAX_BYTES) -> bool:
        """Write ``(header, state)`` under ``slot`` (atomically: a private
        temporary file renamed over it), then delete all but the :data:`KEEP`
        most recently used. False when it is larger than ``limit`` bytes (at
        most :data:`MAX_BYTES`; the bound :meth:`load` will read) or cannot
        be written (a missing snapshot costs the next run speed, never its
        result).

        The pickle streams into the file through the MAC (the MAC's place
        written last): the payload is never held whole in memory."""
        path = self._path(slot)
        tmp = self.folder / f".{slot}.{os.getpid()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + bytes(_MAC_BYTES))
                sink = _MacSink(f, self._mac_start(slot), min(limit, MAX_BYTES) - len(MAGIC) - _MAC_BYTES)
                parts = split(state)
                offsets = None
                if parts is not None:  # the per-file part as shards, each its own pickle (_lazyindex)
                    state, shards = parts
                    offsets = [0]
                    for sh in shards:
                        b = pickle.dumps(sh, protocol=5)
                        sink.write(b)
                        offsets.append(offsets[-1] + len(b))
                    del shards
                at = sink.written
                pickle.Pickler(sink, protocol=5).dump((header, state, offsets))
                sink.write(struct.pack("<Q", sink.written - at))
                f.seek(len(MAGIC))
                f.write(sink.mac.digest())
            os.replace(tmp, path)
        except Exception:  # noqa: BLE001 — too large, unpicklable, disk full: no snapshot
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return False
        self._prune()
        return True

    def _prune(self) -> None:
        snaps = []
        for e in os.scandir(self.folder):
            if e.name.endswith(".tmp") and e.name.startswith("."):
                # a save's temporary file (".<slot>.<pid>.tmp") left by a process that died while
                # writing it (killed, out of memory): up to MAX_BYTES each, never read; its writer's
                # pid is gone (a live one may be writing it now)
                _drop_orphan(e)
                continue
            if e.name.endswith(".snap") and e.is_file(follow_symlinks=False):
                try:
                    snaps.append((e.stat(follow_symlinks=False).st_mtime_ns, e.path))
                except OSError:
                    pass
        snaps.sort(reverse=True)
        for _t, p in snaps[KEEP:]:
            try:
                os.unlink(p)
            except OSError:
                pass


def _drop_orphan(e: os.DirEntry) -> None:
    """Delete temporary file ``e`` (``.<slot>.<pid>.tmp``) when its writer
    ``pid`` is no longer running (or the name has no pid); a link or a
    folder of that name is left alone."""
    parts = e.name.split(".")
    try:
        if not e.is_file(follow_symlinks=False):
            return
        pid = int(parts[-2]) if len(parts) == 4 else -1
    except (OSError, ValueError):
        pid = -1
    if pid > 0 and pid != os.getpid():  # this process's own: a dead writer's of the same id (PID 1 in a container)
        try:
            os.kill(pid, 0)
            return  # its writer runs
        except ProcessLookupError:
            pass
        except OSError:  # another user's process (EPERM): it exists
            return
    try:
        os.unlink(e.path)
    except OSError:
        pass
