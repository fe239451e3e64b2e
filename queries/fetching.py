"""Fetching a project of a list: its checkout folder and pinned commit.

Git URLs and bare repositories are cloned shallowly into a cache folder; the
revisions and URLs a list gives are checked first (:func:`check_revision`,
:func:`check_url`) and every git call runs with config that cannot run a
command from the repository or the remote (docs/security.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: projects imports this module
    from .projects import ProjectSpec

__all__ = ["FetchError", "check_revision", "check_url", "fetch_project", "local_tree_stamp"]


class FetchError(RuntimeError):
    """A project could not be cloned or checked out."""


# Only these transports may be used by a URL from a project list: ``ext::``
# runs a command, ``fd::`` talks to inherited descriptors (git's own
# GIT_ALLOW_PROTOCOL makes it refuse every other one, submodules included).
_ALLOWED_PROTOCOLS = "https:http:ssh:git:file"

# Each call also pins config that could run a command from a repository's own
# .git/config (fsmonitor, hooks) or a remote's answer (the upload-pack /
# receive-pack programs are never taken from the list: every positional
# argument follows ``--`` / ``--end-of-options``).
_SAFE_CONFIG = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "protocol.allow=never",
    *(x for proto in _ALLOWED_PROTOCOLS.split(":") for x in ("-c", f"protocol.{proto}.allow=always")),
)

_HEX_REV = re.compile(r"[0-9a-fA-F]{4,64}")


def check_revision(rev: str, where: str = "") -> str:
    """``rev`` if it is safe to hand to git as a revision, else raise.

    A revision from a project list is data: a hex object id (4–64 digits), or
    a ref name that ``git check-ref-format --allow-onelevel`` accepts, and
    never anything starting with ``-`` (which git would read as an option,
    e.g. ``--upload-pack=<command>``).

    Raises
    ------
    FetchError
        The revision is empty, starts with ``-``, or is not a valid ref name.
    """
    where = f"{where}: " if where else ""
    if not rev or rev.startswith("-") or any(c.isspace() or ord(c) < 32 for c in rev):
        raise FetchError(f"{where}revision {rev!r} is not a commit id or a ref name")
    if _HEX_REV.fullmatch(rev):
        return rev
    try:
        r = subprocess.run(["git", "check-ref-format", "--allow-onelevel", rev],
                           capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        raise FetchError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"{where}git check-ref-format timed out") from None
    if r.returncode != 0:
        raise FetchError(f"{where}revision {rev!r} is not a commit id or a ref name")
    return rev


def check_url(url: str, where: str = "") -> str:
    """``url`` if git may clone it: one of the transports in
    ``https``, ``http``, ``ssh``, ``git``, ``file`` (or scp-like
    ``git@host:path``) and not starting with ``-``.

    Raises
    ------
    FetchError
        Another transport (``ext::``, ``fd::``, …), a leading ``-`` or a
        control character.
    """
    where = f"{where}: " if where else ""
    if not url or url.startswith("-") or any(ord(c) < 32 for c in url):
        raise FetchError(f"{where}URL {url!r} is not a git URL")
    m = re.match(r"^([a-z][a-z0-9+.-]*)://", url, re.I)
    if m:
        if m.group(1).lower() not in _ALLOWED_PROTOCOLS.split(":"):
            raise FetchError(f"{where}URL {url!r}: transport {m.group(1)!r} is not allowed "
                             f"(only {', '.join(_ALLOWED_PROTOCOLS.split(':'))})")
        return url
    if "::" in url.split("/", 1)[0]:
        raise FetchError(f"{where}URL {url!r}: remote helper transports are not allowed")
    return url


def _git(args: list[str], cwd: str | os.PathLike | None = None, timeout: float = 600) -> str:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ALLOW_PROTOCOL=_ALLOWED_PROTOCOLS,
               GIT_PROTOCOL_FROM_USER="0")
    try:
        r = subprocess.run(["git", *_SAFE_CONFIG, *args], cwd=cwd, capture_output=True, text=True,
                           timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise FetchError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"git {args[0]} timed out after {timeout:.0f} s") from None
    if r.returncode != 0:
        msg = [ln.strip() for ln in (r.stderr or r.stdout).strip().splitlines() if ln.strip()]
        # git's last line alone is often only "and the repository exists."
        detail = " / ".join(m.removeprefix("fatal: ") for m in msg[-3:]) if msg else f"exit {r.returncode}"
        raise FetchError(f"git {args[0]} failed: {detail}")
    return r.stdout.strip()


def _head_commit(path: Path) -> str | None:
    try:
        return _git(["rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], cwd=path, timeout=60)
    except FetchError:
        return None


def _is_bare_repo(path: Path) -> bool:
    # os.path never raises (Path.is_dir does for a name too long: the list's path is anyone's)
    return (os.path.isdir(path) and os.path.isfile(path / "HEAD") and os.path.isdir(path / "objects")
            and not os.path.lexists(path / ".git"))


def fetch_project(spec: ProjectSpec, cache_dir: str | os.PathLike) -> tuple[Path, str | None]:
    """The checkout folder of a project and its pinned commit.

    Local folders are used in place (their ``HEAD`` commit recorded when they
    are inside a git work tree; a requested commit must equal it). Git URLs
    and bare repositories are cloned shallowly into
    ``cache_dir/<spec.key>`` (re-used when present at the right commit); a
    requested ``commit`` is fetched by id, then checked out.

    Returns
    -------
    (Path, str or None)
        The project root and the full commit id (``None`` for a folder that
        is not in a git work tree).

    Raises
    ------
    FetchError
        Missing folder, clone/fetch failure, a local checkout at another
        commit than requested.
    """
    if spec.commit is not None:
        check_revision(spec.commit, spec.source)
    src = Path(spec.source)
    if not spec.is_url and not _is_bare_repo(src):
        if not src.is_dir():
            raise FetchError(f"{spec.source}: no such folder")
        head = _head_commit(src)
        if spec.commit and head is None:
            raise FetchError(f"{spec.source}: not in a git work tree, cannot check commit {spec.commit}")
        if spec.commit and head and not head.startswith(spec.commit):
            raise FetchError(f"{spec.source}: checked out at {head[:12]}, list asks for {spec.commit}")
        return src, head
    url = check_url(spec.source, spec.source) if spec.is_url else f"file://{src.resolve()}"
    dest = Path(cache_dir) / spec.key
    from callgraph.safefs import FolderNotPrivate, check_private, make_private_dirs

    try:  # a checkout others could plant or change is neither reused nor cloned into (docs/security.md "Caches")
        make_private_dirs(cache_dir, dest.parent)
        check_private(cache_dir, dest)
    except FolderNotPrivate as e:
        raise FetchError(f"{spec.source}: refusing the clone folder {e.filename}: {e.strerror} "
                         "(make it private to you, chmod 700, or choose another --cache-dir)") from None
    if dest.is_dir() and (dest / ".git").exists():
        head = _head_commit(dest)
        if head and (spec.commit is None or head.startswith(spec.commit)):
            return dest, head
        shutil.rmtree(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        if spec.commit is None:
            _git(["clone", "--depth", "1", "--no-tags", "-q", "--", url, str(tmp)])
        else:
            tmp.mkdir()
            _git(["init", "-q", "--", "."], cwd=tmp)
            _git(["remote", "add", "--", "origin", url], cwd=tmp)
            try:
                _git(["fetch", "-q", "--depth", "1", "--no-tags", "--", "origin", spec.commit], cwd=tmp)
            except FetchError:
                # servers that refuse fetch-by-id (or an abbreviated id): full clone instead
                _git(["fetch", "-q", "--no-tags", "--", "origin"], cwd=tmp)
                # git checkout has no --end-of-options; check_revision has
                # already refused anything starting with "-"
                _git(["checkout", "-q", "--detach", spec.commit], cwd=tmp)
            else:
                _git(["checkout", "-q", "--detach", "FETCH_HEAD"], cwd=tmp)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest, _head_commit(dest)


def local_tree_stamp(spec: "ProjectSpec") -> str | None:
    """A stamp of what a project reads from local paths as they are now, or
    None when it reads none (a cloned project without ``classpath=`` or
    ``javadoc=`` paths: its commit pins every byte).

    A local folder is analysed in place, so its commit (if any) does not
    say what was read: uncommitted edits, added or deleted files change the
    dataset while ``HEAD`` stays; the list's ``classpath=`` and ``javadoc=``
    paths (jars, source folders) are read in place too. The stamp is a
    SHA-256 over each of them — the project folder unless it is cloned,
    then every classpath and javadoc path — and every entry below a folder
    (``.git`` at the project's top left out; links not followed): its path,
    kind, size, modification and status-change times in ns, and a link's
    target text. A resumed ``qare build`` redoes a project whose stamp
    differs from its part's (new users, session 8: an edited Javadoc of the
    project, then of a ``javadoc=`` folder, kept the old text). Only
    ``lstat`` calls: spring-framework's ~20,000 entries take ~0.1 s. A
    folder that cannot be listed gives a stamp of what could be (its error
    in it), never an exception."""
    src = Path(spec.source)
    roots = [] if spec.is_url or _is_bare_repo(src) else [("project", src)]
    roots += [("classpath", Path(p)) for p in spec.classpath] + [("javadoc", Path(p)) for p in spec.javadoc]
    if not roots:
        return None
    h = hashlib.sha256()
    for kind, root in roots:
        h.update(f"{kind}\0{root}\n".encode("utf-8", "surrogateescape"))
        _stamp_entry(h, root, ".")
        if os.path.isdir(root) and not os.path.islink(root):
            _stamp_tree(h, root, skip_git=kind == "project")
    return h.hexdigest()


def _stamp_entry(h, path, rel: str) -> None:
    try:
        st = os.lstat(path)
        link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
    except OSError as e:
        h.update(f"{rel}\0!{e.errno}\n".encode("utf-8", "surrogateescape"))
        return
    if stat.S_ISDIR(st.st_mode):  # a folder's own times change with every entry added or removed: its entries say it
        h.update(f"{rel}\0dir\n".encode("utf-8", "surrogateescape"))
        return
    h.update(f"{rel}\0{stat.S_IFMT(st.st_mode)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{link}\n"
             .encode("utf-8", "surrogateescape"))


def _stamp_tree(h, root: Path, skip_git: bool) -> None:
    """Every entry below ``root`` into ``h``, in sorted order, walked with a
    stack of folders (no recursion: a stranger's tree may be thousands of
    folders deep) and never through a link."""
    stack = [(str(root), ".")]
    while stack:
        top, rel_top = stack.pop()
        try:
            with os.scandir(top) as it:
                names = sorted(e.name for e in it)
        except OSError as e:  # a folder that could not be listed: its name and why
            h.update(f"!{rel_top}\0{e.errno}\n".encode("utf-8", "surrogateescape"))
            continue
        folders = []
        for name in names:
            if skip_git and rel_top == "." and name == ".git":
                continue
            path = os.path.join(top, name)
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            _stamp_entry(h, path, rel)
            if os.path.isdir(path) and not os.path.islink(path):
                folders.append((path, rel))
        stack.extend(reversed(folders))
