"""Project lists: reading them, fetching the projects, and selection (Q-ARE §3.1).

A list is a text file (one project a line: a folder, a git repository, or a
git URL with an optional ``@commit``, optionally followed by ``KEY=VALUE``
words for the columns below, e.g. ``javadoc=libs/a.jar;libs/b-sources.jar``;
a line starting with ``#``, or the rest of a line after `` #``, is a
comment), a CSV file
(header row; columns below) or a JSONL file (one JSON object a line), chosen
by the file's extension (``.csv``, ``.jsonl``/``.ndjson``; anything else is
text). Columns: ``url`` or ``path`` (or ``source``), ``commit``, ``name``,
``stars``, ``created_at``, ``classpath`` and ``javadoc``. ``classpath`` and
``javadoc`` hold paths separated by ``;`` or whitespace in a text list (so a
path there cannot hold a space), by ``;`` only in a CSV cell or a JSON string
(spaces are part of the path), one path per item of a JSON list; relative
paths resolve against the list file's folder, and every path is normalised
(``/a/../a`` is ``/a``, symlinks resolved).
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import itertools
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from records.sourcesets import source_set

__all__ = [
    "ProjectSpec",
    "ProjectListError",
    "FetchError",
    "read_project_list",
    "fetch_project",
    "check_revision",
    "check_url",
    "Selection",
    "select_metadata",
    "select_checkout",
]


class ProjectListError(ValueError):
    """The project list cannot be read (missing, not UTF-8, bad CSV/JSON, no source column)."""


class FetchError(RuntimeError):
    """A project could not be cloned or checked out."""


@dataclass(frozen=True, slots=True)
class ProjectSpec:
    """One line of a project list.

    ``source`` is the location as written (URL, or a path resolved to an
    absolute path); ``commit`` the requested revision or ``None``; ``name``
    the project name used in samples (``owner/repo`` for a URL, the folder
    name for a path, unless the list gives one); ``stars`` and ``created_at``
    (``datetime.date``) are metadata or ``None``; ``classpath`` and
    ``javadoc`` absolute paths; ``line`` the 1-based line of the list.
    """

    source: str
    commit: str | None = None
    name: str = ""
    stars: int | None = None
    created_at: _dt.date | None = None
    classpath: tuple[str, ...] = ()
    javadoc: tuple[str, ...] = ()
    line: int = 0
    is_url: bool = False

    @property
    def key(self) -> str:
        """A file-name-safe key unique to (source, commit): ``<slug>-<hash10>``."""
        h = hashlib.sha1(f"{self.source}\0{self.commit or ''}".encode()).hexdigest()[:10]
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", self.name or "project").strip("_")[:60] or "project"
        return f"{slug}-{h}"

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "commit": self.commit,
            "name": self.name,
            "stars": self.stars,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "classpath": list(self.classpath),
            "javadoc": list(self.javadoc),
            "line": self.line,
        }


_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@[^:]+:)", re.I)


def _is_url(s: str) -> bool:
    return bool(_URL.match(s))


def _split_commit(source: str, base: Path | None = None) -> tuple[str, str | None]:
    """``url@commit`` → (url, commit). Only an ``@`` in the last path
    segment counts (``git@host:`` and ``user@host`` parts are kept); a local
    path that exists as written (relative to ``base``) is never split."""
    if not _is_url(source) and (base or Path.cwd()).joinpath(os.path.expanduser(source)).exists():
        return source, None
    head, sep, last = source.rpartition("/")
    if "@" in last and not last.startswith("@"):
        name, _, rev = last.rpartition("@")
        if name and rev:
            return f"{head}{sep}{name}", rev
    return source, None


_GENERIC_LAST = frozenset({"repo", "repo.git", ".git"})


def _name_from(source: str, is_url: bool) -> str:
    """The project name for a list entry without ``name``.

    A trailing ``/``, a trailing ``.git`` suffix and a generic last segment
    (``repo``, ``repo.git``, ``.git`` — mirrors and bare clones kept as
    ``<project>/repo`` or ``<project>/.git``) are dropped first, when a
    segment is left before it. Then a network URL (``https://``,
    ``ssh://``, ``git@host:``) gives ``owner/repo`` from its last two path
    segments; a ``file://`` URL or a local path gives its last segment.

    >>> _name_from("https://github.com/apache/commons-text.git", True)
    'apache/commons-text'
    >>> _name_from("file:///work/.mirror/google+jimfs/repo", True)
    'google+jimfs'
    >>> _name_from("/src/jimfs/.git", False)
    'jimfs'
    """
    s = source.rstrip("/")
    local = not is_url or s.lower().startswith("file:")
    if local:
        s = re.sub(r"^file:(//[^/]*)?", "", s, flags=re.I)
    else:
        s = _URL.sub("", s)  # scheme://  or  user@host:
        if "://" in source:
            s = s.split("/", 1)[1] if "/" in s else ""  # the host
    parts = [p for p in s.split("/") if p]
    if len(parts) >= 2 and parts[-1].lower() in _GENERIC_LAST:
        parts.pop()
    if parts and parts[-1].lower().endswith(".git") and len(parts[-1]) > 4:
        parts[-1] = parts[-1][:-4]
    if not parts:
        return source
    return parts[-1] if local else "/".join(parts[-2:])


def _paths(value, base: Path, words: bool) -> tuple[str, ...]:
    """Absolute, normalised paths of a ``classpath``/``javadoc`` value: a
    JSON list gives one path per item; a string is split at ``;``, and also
    at whitespace when ``words`` (text lists, whose words are separated by
    whitespace anyway); a CSV cell or JSON string keeps its spaces."""
    if value is None or value == "":
        return ()
    if isinstance(value, list):
        items = value
    else:
        items = re.split(r"[;\s]+" if words else r";", str(value))
    out = []
    for it in items:
        it = str(it).strip()
        if not it:
            continue
        out.append(_abs(it, base))
    return tuple(out)


def _abs(path: str, base: Path) -> str:
    # resolve() also for absolute paths: /a/../a and a symlinked alias name
    # the same project (one key, one analysis, no duplicate sample ids)
    # (os.path.realpath: unlike Path.resolve it never raises, e.g. on a link loop)
    return os.path.realpath(base / Path(os.path.expanduser(path)))


def _date(value, where: str) -> _dt.date | None:
    if value is None or value == "":
        return None
    s = str(value).strip()
    try:
        return _dt.date.fromisoformat(s[:10])
    except ValueError:
        raise ProjectListError(f"{where}: created_at {s!r} is not an ISO date (YYYY-MM-DD)") from None


def _int(value, where: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise ProjectListError(f"{where}: stars {value!r} is not an integer") from None


def _spec(row: dict, base: Path, line: int, where: str, words: bool = False) -> ProjectSpec:
    raw = next((row[k] for k in ("url", "path", "source", "repo") if row.get(k)), None)
    if not raw:
        raise ProjectListError(f"{where}: no url/path/source value")
    raw = str(raw).strip()
    commit = row.get("commit") or None
    source, at = _split_commit(raw, base)
    commit = (str(commit).strip() if commit else None) or at
    is_url = _is_url(source)
    if not is_url:
        source = _abs(source, base)
    name = str(row.get("name") or "").strip() or _name_from(source, is_url)
    return ProjectSpec(
        source=source,
        commit=commit,
        name=name,
        stars=_int(row.get("stars"), where),
        created_at=_date(row.get("created_at"), where),
        classpath=_paths(row.get("classpath"), base, words),
        javadoc=_paths(row.get("javadoc"), base, words),
        line=line,
        is_url=is_url,
    )


_TEXT_KEYS = {"commit", "name", "stars", "created_at", "classpath", "javadoc"}


def read_project_list(path: str | os.PathLike) -> list[ProjectSpec]:
    """Read a project list (text, CSV or JSONL; see the module docstring).

    Parameters
    ----------
    path : path-like
        The list file. Relative project paths resolve against its folder.

    Returns
    -------
    list of ProjectSpec
        In file order.

    Raises
    ------
    ProjectListError
        Missing or unreadable file, text that is not UTF-8, a malformed CSV
        or JSON line, a row without a source, a bad ``stars``/``created_at``
        value (the message names the file and line).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ProjectListError(f"{p}: cannot read project list ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ProjectListError(f"{p}: not UTF-8 text (byte {e.start})") from None
    base = p.resolve().parent
    suffix = p.suffix.lower()
    specs: list[ProjectSpec] = []
    if suffix == ".csv":
        # strict: an unterminated quote is an error, not a field running to
        # the end of the file; newline="": quoted newlines stay in their field
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        try:
            for row in reader:
                row = {(k or "").strip().lower(): (v or "").strip() if isinstance(v, str) else v for k, v in row.items()}
                if not any(v for v in row.values() if isinstance(v, str)):
                    continue
                specs.append(_spec(row, base, reader.line_num, f"{p}:{reader.line_num}"))
        except csv.Error as e:
            raise ProjectListError(f"{p}:{reader.line_num}: bad CSV ({e})") from None
    elif suffix in (".jsonl", ".ndjson"):
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ProjectListError(f"{p}:{i}: bad JSON ({e.msg})") from None
            except RecursionError:  # json recurses per nesting level
                raise ProjectListError(f"{p}:{i}: bad JSON (nested too deeply)") from None
            if not isinstance(row, dict):
                raise ProjectListError(f"{p}:{i}: expected a JSON object")
            specs.append(_spec({str(k).lower(): v for k, v in row.items()}, base, i, f"{p}:{i}"))
    else:
        for i, line in enumerate(text.splitlines(), 1):
            s = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            if not s:
                continue
            first, *rest = s.split()
            row = {"source": first}
            for tok in rest:
                k, eq, v = tok.partition("=")
                if not eq or k.lower() not in _TEXT_KEYS:
                    raise ProjectListError(
                        f"{p}:{i}: expected KEY=VALUE with KEY one of {', '.join(sorted(_TEXT_KEYS))}, got {tok!r}"
                    )
                row[k.lower()] = v
            specs.append(_spec(row, base, i, f"{p}:{i}", words=True))
    return specs


# ---------------------------------------------------------------- fetching


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
    return path.is_dir() and (path / "HEAD").is_file() and (path / "objects").is_dir() and not (path / ".git").exists()


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


# ---------------------------------------------------------------- selection


@dataclass(frozen=True, slots=True)
class Selection:
    """Selection criteria (Q-ARE §3.1). ``None``/empty disables a criterion.

    Stars and dates apply when the list gives the metadata; a project
    without it is kept (with a note) unless ``require_metadata``.
    """

    min_stars: int | None = None
    created_after: _dt.date | None = None
    created_before: _dt.date | None = None
    require_metadata: bool = False
    require_tests: bool = False
    require_libs: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "min_stars": self.min_stars,
            "created_after": self.created_after.isoformat() if self.created_after else None,
            "created_before": self.created_before.isoformat() if self.created_before else None,
            "require_metadata": self.require_metadata,
            "require_tests": self.require_tests,
            "require_libs": list(self.require_libs),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Selection":
        """The inverse of :meth:`to_dict`: keys that are not criteria are
        ignored; dates may be ``date`` objects or ISO strings."""
        kw = {f: data[f] for f in cls.__slots__ if f in data}
        for k in ("created_after", "created_before"):
            if isinstance(kw.get(k), str):
                kw[k] = _dt.date.fromisoformat(kw[k])
        if "require_libs" in kw:
            kw["require_libs"] = tuple(kw["require_libs"])
        return cls(**kw)


def select_metadata(spec: ProjectSpec, sel: Selection) -> tuple[bool, str]:
    """Verdict from the list's metadata alone: ``(keep, reason)``.

    ``created_after`` and ``created_before`` are inclusive bounds.
    """
    notes = []
    if sel.min_stars is not None:
        if spec.stars is None:
            if sel.require_metadata:
                return False, "no stars metadata (--require-metadata)"
            notes.append("stars unknown")
        elif spec.stars < sel.min_stars:
            return False, f"stars {spec.stars} < {sel.min_stars}"
    if sel.created_after is not None or sel.created_before is not None:
        if spec.created_at is None:
            if sel.require_metadata:
                return False, "no created_at metadata (--require-metadata)"
            notes.append("created_at unknown")
        else:
            if sel.created_after and spec.created_at < sel.created_after:
                return False, f"created {spec.created_at} before {sel.created_after}"
            if sel.created_before and spec.created_at > sel.created_before:
                return False, f"created {spec.created_at} after {sel.created_before}"
    return True, "; ".join(notes)


_IMPORT = re.compile(rb"^\s*import\s+(?:static\s+)?([\w.]+)", re.M)


def _is_test_path(rel: Path) -> bool:
    # the call graph's own rule (records.sourcesets), so "has tests" means "has a test source set"
    return source_set(rel.parts) == "test"


def _java_files(root: Path):
    """``(real path, rel Path)`` of the ``.java`` files below *root*, hidden
    folders skipped, never leaving *root* (links out are not followed;
    callgraph.safefs)."""
    from callgraph.safefs import walk_tree

    for real, rel, _size in walk_tree(root, lambda n: n.endswith(".java"), lambda d: d.startswith(".")).files:
        yield real, Path(rel)


def _imported_prefix(source: bytes, prefixes: tuple[str, ...]) -> str | None:
    """The first of *prefixes* that an ``import`` in *source* names a type under."""
    for m in _IMPORT.finditer(source):
        name = m.group(1).decode("ascii", "replace")
        hit = next((p for p in prefixes if name == p or name.startswith(p + ".")), None)
        if hit:
            return hit
    return None


def select_checkout(root: Path, sel: Selection, max_files: int = 200_000) -> tuple[bool, str]:
    """Verdict from the checkout: test sources (``--require-tests``) and
    imported library prefixes (``--require-libs``): ``(keep, reason)``.

    A test source is a ``.java`` file of the ``test`` source set
    (:func:`records.sourcesets.source_set`: under ``src/<set>/java`` with
    ``test`` in the set's name, or in a plain layout under a ``test``/``tests``
    folder) — the same rule the call graph uses. A library
    is used when an ``import`` (or ``import static``) names a type under one
    of the prefixes (``org.springframework`` matches
    ``org.springframework.web.bind.annotation.GetMapping``).
    """
    if not sel.require_tests and not sel.require_libs:
        return True, ""
    has_tests = False
    found_lib = None
    prefixes = tuple(p.rstrip(".") for p in sel.require_libs)
    from callgraph.safefs import read_regular

    for path, rel in itertools.islice(_java_files(root), max_files):
        if not has_tests and _is_test_path(rel):
            has_tests = True
        if prefixes and found_lib is None:
            try:
                head = read_regular(path, 200_000, root=root, truncate=True)
            except OSError:  # FileRefused too: a FIFO, device or link out is not read
                continue
            found_lib = _imported_prefix(head, prefixes)
        if (has_tests or not sel.require_tests) and (found_lib or not prefixes):
            break
    if sel.require_tests and not has_tests:
        return False, "no test sources (--require-tests)"
    if prefixes and not found_lib:
        return False, f"imports none of {', '.join(prefixes)} (--require-libs)"
    return True, ""
