"""Documentation jars (``-javadoc.jar``, ``-sources.jar``) of libraries, fetched by Maven.

:func:`fetch_doc_jars` asks for the classified artifact of each library in one
``mvn`` run on a generated pom (every transitive dependency excluded), so
Maven's resolver downloads them in parallel (``aether.connector.basic.threads``),
verifies each against the repository's checksum (``-C``: a mismatch or a
truncated file fails and is not stored) and keeps them in the shared local
repository. What is already there is not asked for again: a warm run starts no
``mvn`` at all. A library without the jar (Maven's 404, remembered in its
``*.lastUpdated`` file) is reported ``not-found`` and not retried within a day.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from records.safefs import read_regular

from ._coords import coordinate_problem
from ._mvn import DEPENDENCY_PLUGIN, Failure, MavenClient, Reason, parse_failures
from ._mvn_resolve import _generated_pom, _make_repo, _repo_path, _write, cache_refusal, default_repo_local

__all__ = ["DocFetch", "DocJar", "fetch_doc_jars"]

_GAV = re.compile(r"^[\w.\-]+:[\w.\-]+:[\w.\-+]+$")
_MISS_TTL = 24 * 3600     # Maven's default update interval ("daily")
_MAX_ROUNDS = 4


@dataclass(frozen=True)
class DocJar:
    """A documentation jar: the library (``group:artifact:version``), ``kind``
    (``"javadoc"`` or ``"sources"``) and its file in the local repository."""

    coords: str
    kind: str
    path: Path


@dataclass(frozen=True)
class DocFetch:
    """What :func:`fetch_doc_jars` got: ``jars`` (present, downloaded or cached),
    ``failures`` (one per library without the jar, with the reason), the number and
    bytes of files downloaded, and the wall time."""

    jars: tuple[DocJar, ...] = ()
    failures: tuple[Failure, ...] = ()
    downloads: int = 0
    bytes_downloaded: int = 0
    seconds: float = 0.0

    def paths(self) -> list[str]:
        return [str(j.path) for j in self.jars]

    def to_dict(self) -> dict:
        return {"jars": [f"{j.coords}:{j.kind}" for j in self.jars], "failures": [f.to_dict() for f in self.failures],
                "downloads": self.downloads, "bytes_downloaded": self.bytes_downloaded, "seconds": round(self.seconds, 3)}


def _usable(p: Path) -> bool:
    try:
        return p.is_file() and zipfile.is_zipfile(p)
    except OSError:
        return False


def fetch_doc_jars(libraries: Iterable[str], kind: str = "javadoc", *, repo_local: str | os.PathLike | None = None,
                   offline: bool = False, repositories: Iterable[str] = (), mvn: str | None = None,
                   timeout: float = 900.0, settings: str | os.PathLike | None = None,
                   progress: bool = False) -> DocFetch:
    """The ``-javadoc.jar`` (or ``-sources.jar``) of each library.

    Parameters
    ----------
    libraries : iterable of str
        ``group:artifact:version`` coordinates (others are ignored).
    kind : {"javadoc", "sources"}
        The classifier.
    repo_local : str or Path, optional
        The local repository (default ``<cache>/m2/repository``).
    offline : bool
        Only what is cached; the rest is reported ``not-cached-offline`` (no ``mvn`` run).
    repositories : iterable of str
        Extra https repositories (the project's), besides Maven Central.
    mvn, timeout, settings
        As for :class:`~callgraph._mvn.MavenClient`.
    progress : bool
        A tqdm bar of downloads on stderr.

    Returns
    -------
    DocFetch
        Never raises for a library's failure.
    """
    if kind not in ("javadoc", "sources"):
        raise ValueError(f"kind must be 'javadoc' or 'sources', not {kind!r}")
    t0 = time.perf_counter()
    client = MavenClient(Path(repo_local).expanduser() if repo_local else default_repo_local(), offline=offline,
                         timeout=timeout, mvn=mvn, settings=Path(settings) if settings else None)
    # a coordinate becomes a path in the local repository: Maven's rules, no ``..`` (coordinate_problem)
    wanted = [c for c in dict.fromkeys(libraries)
              if c and _GAV.match(c) and coordinate_problem(*c.split(":"), classifier=kind, type="jar") is None]
    refusal = cache_refusal(client.repo_local)
    if refusal is not None:  # a repository others may write: neither read nor handed to Maven
        return DocFetch((), tuple(Failure(c, refusal.reason, refusal.detail, refusal.file) for c in wanted), 0, 0,
                        time.perf_counter() - t0)
    have: list[DocJar] = []
    failures: list[Failure] = []
    todo: list[tuple[str, str, str]] = []
    now = time.time()
    for c in wanted:
        g, a, v = c.split(":")
        p = _repo_path(client.repo_local, g, a, v, "jar", kind)
        if _usable(p):
            have.append(DocJar(c, kind, p))
            continue
        miss = p.with_name(p.name + ".lastUpdated")
        try:
            # Maven's record of a miss; a transfer error is retried (it may be the network's mood)
            recent = (miss.is_file() and now - miss.stat().st_mtime < _MISS_TTL and not p.exists()
                      and "transfer" not in read_regular(miss, 8000, truncate=True).decode("utf-8", "replace").lower())
        except OSError:
            recent = False
        if recent:
            failures.append(Failure(c, Reason.NOT_FOUND, f"no {kind} jar (Maven's cached miss, retried after a day)"))
        elif offline:
            failures.append(Failure(c, Reason.NOT_CACHED, f"{kind} jar not in the local repository"))
        else:
            todo.append((g, a, v))
    downloads = []
    if todo:
        if client.executable() is None:
            failures += [Failure(":".join(t), Reason.MVN_MISSING, "mvn not found on PATH") for t in todo]
            todo = []
        else:
            _make_repo(client.repo_local)
    bar = None
    if todo and progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc=f"{kind} jars", unit="jar", leave=False, disable=None)
    work = Path(tempfile.mkdtemp(prefix="qare-docs-"))
    try:
        left = list(todo)
        for _ in range(_MAX_ROUNDS):
            if not left:
                break
            deps = [{"groupId": g, "artifactId": a, "version": v, "classifier": kind, "exclude_all": True}
                    for g, a, v in left]
            _write(_generated_pom("qare.docs", deps, [], list(repositories)), work / "pom.xml")
            run = client.run(["-f", "pom.xml", f"{DEPENDENCY_PLUGIN}:list"], work,
                             (lambda t: bar.update(1) if t.url.endswith(".jar") else None) if bar is not None else None)
            downloads += run.downloads
            got = [t for t in left if _usable(_repo_path(client.repo_local, *t, "jar", kind))]
            have += [DocJar(":".join(t), kind, _repo_path(client.repo_local, *t, "jar", kind)) for t in got]
            left = [t for t in left if t not in got]
            if not left or run.returncode == 0:
                break
            if run.timed_out:
                failures += [Failure(":".join(t), Reason.TIMEOUT, f"mvn timed out after {timeout:g} s") for t in left]
                left = []
                break
            found = {}
            for f in parse_failures(run.lines):
                parts = f.coords.split(":")
                if len(parts) >= 3:
                    found[(parts[0], parts[1], parts[-1])] = f
            failed = [t for t in left if t in found]
            failures += [Failure(":".join(t), found[t].reason, found[t].detail) for t in failed]
            if not failed:
                failures += [Failure(":".join(t), Reason.OTHER, run.tail(1)[:400]) for t in left]
                left = []
                break
            left = [t for t in left if t not in failed]
        failures += [Failure(":".join(t), Reason.OTHER, "not resolved after several rounds") for t in left]
    finally:
        if bar is not None:
            bar.close()
        shutil.rmtree(work, ignore_errors=True)
    return DocFetch(tuple(have), tuple(failures), len(downloads), sum(t.bytes for t in downloads),
                    time.perf_counter() - t0)
