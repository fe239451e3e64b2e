"""The ``mvn`` client: builds Maven command lines, runs them with a timeout in a
clean environment, and reads what they did (files downloaded, artifacts that
failed and why).

Every run is ``mvn -B -C -Dmaven.repo.local=<repo>`` (batch mode, strict
checksums: a file whose checksum does not match is refused and never stored),
``-o`` when offline. Transfer lines are kept (no ``--no-transfer-progress``):
in batch mode they are one line per file, and they are how downloads are
counted and progress is shown. Maven runs in a folder of ours, never in the
analysed project (docs/classpath.md, "Resolving never runs the project's code").
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Sequence

__all__ = ["DEPENDENCY_PLUGIN", "Failure", "MavenClient", "MvnRun", "Reason", "Transfer", "parse_failures"]

#: maven-dependency-plugin named fully: an offline Maven cannot resolve the ``dependency:`` prefix,
#: and a fixed version makes the output format (``dependency:list``) known.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

_MAX_LINES = 20_000      # output lines kept per run (the rest counted, not stored)
_MAX_LINE = 4_000        # characters kept per line
# Environment passed to Maven: a pom can interpolate ${env.X} into a repository URL
# and so send it to a server, so only what Maven and Java need is passed on.
#: the user name Maven is told it runs as (``-Duser.name``)
NEUTRAL_USER = "qare"
_ENV_KEEP = ("PATH", "HOME", "JAVA_HOME", "LANG", "LC_ALL", "TMPDIR", "http_proxy", "https_proxy", "no_proxy",
             "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "M2_HOME", "MAVEN_HOME")


class Reason(str, Enum):
    """Why an artifact (or a whole resolution) failed."""

    NOT_FOUND = "not-found"              # no repository has it (typo, private repository, no javadoc published)
    TRANSFER = "transfer-failed"         # network error, unreachable or blocked repository, HTTP error
    CHECKSUM = "checksum-mismatch"       # the file does not match the repository's checksum file
    TRUNCATED = "truncated"              # the transfer ended before the announced length
    NOT_CACHED = "not-cached-offline"    # --offline and not in the local repository
    TIMEOUT = "timeout"                  # mvn killed after its time limit
    MVN_MISSING = "mvn-missing"          # no mvn on PATH
    INVALID_MODEL = "invalid-model"      # Maven refused the pom (no version, bad id, ...)
    PARENT = "parent-unresolved"         # a parent pom could not be resolved
    REFUSED = "refused"                  # refused by qare's sanitiser (see the detail)
    CACHE_NOT_PRIVATE = "cache-not-private"  # the local repository's cache folder may be written by others
    OTHER = "other"


@dataclass(frozen=True)
class Failure:
    """One thing that could not be resolved.

    ``coords``: ``group:artifact:version`` (``group:artifact:ext:classifier:version``
    for a classified artifact, ``group:artifact`` when Maven names no version);
    ``file``: the build file it was declared in, when known."""

    coords: str
    reason: Reason
    detail: str
    file: str | None = None

    def to_dict(self) -> dict:
        return {"coords": self.coords, "reason": self.reason.value, "detail": self.detail, "file": self.file}


@dataclass(frozen=True)
class Transfer:
    """One file downloaded: its URL, where it was stored, its size in bytes."""

    url: str
    path: str | None
    bytes: int


@dataclass(frozen=True)
class MvnRun:
    """What one ``mvn`` run did. ``returncode`` is None when it was killed (``timed_out``) or could not start."""

    command: tuple[str, ...]
    returncode: int | None
    lines: tuple[str, ...]
    downloads: tuple[Transfer, ...]
    seconds: float
    timed_out: bool = False

    def tail(self, n: int = 15) -> str:
        return "\n".join(self.lines[-n:])


_DOWNLOADED = re.compile(r"^(?:\[INFO\] )?Downloaded from (?P<repo>[^:]+): (?P<url>\S+) \((?P<size>[^)]*?)(?: at [^)]*)?\)")
_SIZE = re.compile(r"([\d.]+)\s*(B|kB|KB|MB|GB)")
_UNITS = {"B": 1, "kB": 1000, "KB": 1024, "MB": 1000 ** 2, "GB": 1000 ** 3}


@dataclass(frozen=True)
class MavenClient:
    """How ``mvn`` is run.

    Attributes
    ----------
    repo_local : Path
        The local repository (``-Dmaven.repo.local``): qare's ``<cache>/m2/repository``
        by default, or the user's ``~/.m2/repository``.
    offline : bool
        ``-o``: only what the local repository holds.
    timeout : float
        Seconds before a run is killed (its whole process group).
    mvn : str or None
        The executable; default the ``mvn`` on ``PATH``.
    settings : Path or None
        ``-s settings.xml`` (mirrors; the fault-injection tests point a mirror at loopback).
    threads : int
        Parallel downloads inside one run (``aether.connector.basic.threads``).
    """

    repo_local: Path
    offline: bool = False
    timeout: float = 900.0
    mvn: str | None = None
    settings: Path | None = None
    threads: int = 4
    connect_timeout_ms: int = 15_000
    request_timeout_ms: int = 120_000

    def executable(self) -> str | None:
        return shutil.which(self.mvn) if self.mvn else shutil.which("mvn")

    def command(self, args: Sequence[str], home: Path | None = None) -> list[str]:
        """The ``mvn`` command line; with ``home`` (a private folder of ours), the neutral
        machine values Maven substitutes for ``${user.name}``/``${user.home}`` in poms qare
        cannot sanitise (imported BOMs, dependency poms from a repository)."""
        exe = self.executable() or "mvn"
        neutral = [f"-Duser.name={NEUTRAL_USER}", f"-Duser.home={home}"] if home is not None else []
        cmd = [exe, "-B", "-C", *neutral, f"-Dmaven.repo.local={self.repo_local}",
               f"-Daether.connector.basic.threads={self.threads}",
               f"-Daether.connector.connectTimeout={self.connect_timeout_ms}",
               f"-Daether.connector.requestTimeout={self.request_timeout_ms}",
               # no core extension from the command line's class path (defence in depth: the
               # environment that could set it is not passed on either)
               "-Dmaven.ext.class.path="]
        if self.offline:
            cmd.append("-o")
        if self.settings is not None:
            cmd += ["-s", str(self.settings)]
        return cmd + list(args)

    def run(self, args: Sequence[str], cwd: Path, on_download: Callable[[Transfer], None] | None = None) -> MvnRun:
        """Run ``mvn`` with ``args`` in ``cwd`` (a folder of ours holding an empty ``.mvn/``
        so Maven looks no further up for ``.mvn/extensions.xml`` or ``maven.config``).
        Never raises for Maven's own failures: they are in the returned lines."""
        (Path(cwd) / ".mvn").mkdir(exist_ok=True)
        # Why: a BOM or dependency pom from a repository reaches Maven unsanitised; what it
        # can have Maven fill in from the machine is reduced to neutral values (the user's
        # name and home folder are never the real ones). The user settings Maven reads are
        # decided before these -D values apply (~/.m2/settings.xml of the real user, or -s).
        home = Path(cwd) / ".home"
        home.mkdir(mode=0o700, exist_ok=True)
        cmd = self.command(args, home)
        env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP}
        env["HOME"] = str(home)
        env["MAVEN_OPTS"] = "-Xmx1g -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
        t0 = time.perf_counter()
        if self.executable() is None:
            return MvnRun(tuple(cmd), None, ("mvn not found on PATH",), (), 0.0)
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        except OSError as e:
            return MvnRun(tuple(cmd), None, (f"cannot start mvn: {e}",), (), 0.0)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass

        timer = threading.Timer(self.timeout, kill)
        timer.start()
        lines: list[str] = []
        downloads: list[Transfer] = []
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = _strip_ansi(raw.rstrip("\n"))[:_MAX_LINE]
                m = _DOWNLOADED.match(line)
                if m:
                    t = self._transfer(m["url"], m["size"])
                    downloads.append(t)
                    if on_download is not None:
                        on_download(t)
                    continue
                if line.startswith(("[INFO] Downloading from", "Downloading from")):
                    continue
                if len(lines) < _MAX_LINES:
                    lines.append(line)
            proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                kill()
                proc.wait()
        if killed.is_set():
            lines.append(f"mvn timed out after {self.timeout:g} s")
        return MvnRun(tuple(cmd), None if killed.is_set() else proc.returncode, tuple(lines), tuple(downloads),
                      time.perf_counter() - t0, timed_out=killed.is_set())

    def _transfer(self, url: str, size: str) -> Transfer:
        """The downloaded file's size on disk (the URL's path below the repository
        root matches the local layout), else the size Maven printed."""
        parts = url.split("?")[0].split("/")
        for k in range(min(len(parts) - 1, 12), 2, -1):
            p = self.repo_local.joinpath(*parts[-k:])
            try:
                if p.is_file():
                    return Transfer(url, str(p), p.stat().st_size)
            except (OSError, ValueError):
                break
        m = _SIZE.search(size)
        n = int(float(m.group(1)) * _UNITS[m.group(2)]) if m else 0
        return Transfer(url, None, n)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _strip_ansi(s: str) -> str:
    return _ANSI.sub("", s)


# --------------------------------------------------------------------------- reading failures

_COORD = r"[\w.\-]+:[\w.\-]+(?::[\w.\-\[\](),]+){1,4}"
_RESOLVE = re.compile(r"The following artifacts could not be resolved: (?P<list>.+?): (?P<cause>(?:Could not|Cannot|Failed|The repository|"
                      r"Checksum|Connect|Transfer|[\w.]+Exception|Blocked|.{0,40}offline).*)$")
_PREVIOUS = re.compile(r"(?P<c>" + _COORD + r") (?P<what>was not found in|failed to transfer from) (?P<url>\S+) during a previous attempt")
_RESOLVE_ONE = re.compile(r"Could not resolve dependencies for project \S+: (?P<c>" + _COORD + r")(?P<rest>[: ].*)$")
_COLLECT = re.compile(r"Failed to collect dependencies at (?P<chain>.+?): (?P<cause>.*)$")
_DESCRIPTOR = re.compile(r"Failed to read artifact descriptor for (?P<c>" + _COORD + r")")
_FIND = re.compile(r"Could not find artifact (?P<c>" + _COORD + r")")
_TRANSFER = re.compile(r"Could not transfer artifact (?P<c>" + _COORD + r")")
_OFFLINE = re.compile(r"Cannot access \S+ \([^)]*\) in offline mode and the artifact (?P<c>" + _COORD + r")")
_PARENT = re.compile(r"Non-resolvable parent POM for (?P<p>\S+?): (?P<cause>.*?)(?: @ |$)")
_IMPORT = re.compile(r"Non-resolvable import POM: (?P<cause>.*?)(?: @ |$)")
_MODEL = re.compile(r"'dependencies\.dependency\.(?P<what>[\w.()]+)' for (?P<c>[^ ]+) (?P<msg>.*?)(?: @ |$)")
_PLUGIN = re.compile(r"Plugin (?P<c>" + _COORD + r") or one of its dependencies could not be resolved: (?P<cause>.*)$")
_PROJECT_FILE = re.compile(r"The project (?P<p>\S+) \((?P<f>[^)]+)\) has \d+ errors?")


def _reason(cause: str) -> Reason:
    c = cause.lower()
    if "checksum" in c:
        return Reason.CHECKSUM
    if "premature end" in c or "content-length" in c or "truncated" in c:
        return Reason.TRUNCATED
    if "offline" in c:
        return Reason.NOT_CACHED
    if "could not find artifact" in c or "was not found in" in c or "not found in" in c:
        return Reason.NOT_FOUND
    if "premature end" in c or "content-length" in c or "truncated" in c or "connection closed" in c:
        return Reason.TRUNCATED
    if "could not transfer" in c or "connect" in c or "unknown host" in c or "timed out" in c or "blocked" in c \
            or "status code" in c or "transfer failed" in c:
        return Reason.TRANSFER
    return Reason.OTHER


def coords_of(maven_id: str) -> str:
    """Maven's ``g:a:ext[:classifier]:v`` → ``g:a:v`` for a plain jar (or pom), else as written."""
    parts = maven_id.split(":")
    if len(parts) == 4 and parts[2] in ("jar", "pom"):
        return f"{parts[0]}:{parts[1]}:{parts[3]}"
    return maven_id


def ga_of(maven_id: str) -> tuple[str, str]:
    parts = maven_id.split(":")
    return parts[0], parts[1] if len(parts) > 1 else ""


def parse_failures(lines: Sequence[str]) -> list[Failure]:
    """The artifacts a Maven run could not resolve, with a :class:`Reason` each,
    read from its ``[ERROR]``/``[WARNING]`` lines (Maven 3.8 wording). One
    failure per artifact; the first reason found wins."""
    out: dict[str, Failure] = {}
    file = None

    def add(c: str, reason: Reason, detail: str) -> None:
        key = coords_of(c.strip().rstrip(".,"))
        if key not in out:
            out[key] = Failure(key, reason, detail.strip()[:500], file)

    for line in lines:
        body = re.sub(r"^\[(ERROR|WARNING)\]\s*", "", line)
        m = _PROJECT_FILE.search(body)
        if m:
            file = m["f"]
            continue
        m = _RESOLVE.search(body)
        if m:
            cause = m["cause"]
            for c in m["list"].split(", "):
                # the cause names one artifact; the others of the list failed the same way as far as Maven says
                add(c, _reason(cause), cause)
            continue
        m = _PLUGIN.search(body)
        if m:
            add(m["c"], _reason(m["cause"]), "Maven's own plugin: " + m["cause"])
            continue
        m = _PREVIOUS.search(body)
        if m:
            add(m["c"], Reason.NOT_FOUND if m["what"].startswith("was not") else Reason.TRANSFER,
                f"{m['what']} {m['url']} (Maven's cached result of an earlier attempt; retried after its update interval)")
            continue
        m = _COLLECT.search(body)
        if m:
            d = _DESCRIPTOR.search(m["cause"])
            target = d["c"] if d else m["chain"].split(" -> ")[-1]
            add(target, _reason(m["cause"]), m["cause"])
            continue
        m = _PARENT.search(body)
        if m:
            f = _FIND.search(m["cause"]) or _TRANSFER.search(m["cause"]) or _OFFLINE.search(m["cause"])
            add(f["c"] if f else m["p"], Reason.NOT_CACHED if "offline" in m["cause"] else Reason.PARENT, m["cause"])
            continue
        m = _IMPORT.search(body)
        if m:
            f = _FIND.search(m["cause"]) or _TRANSFER.search(m["cause"]) or _OFFLINE.search(m["cause"])
            if f:
                add(f["c"], _reason(m["cause"]), "import POM: " + m["cause"])
            continue
        m = _MODEL.search(body)
        if m:
            add(":".join(m["c"].split(":")[:2]), Reason.INVALID_MODEL, f"{m['what']} {m['msg']}")
            continue
        m = _RESOLVE_ONE.search(body)
        if m and not _RESOLVE.search(body):
            add(m["c"], _reason(m["rest"]), m["rest"].lstrip(": "))
            continue
        m = _FIND.search(body) or _TRANSFER.search(body) or _OFFLINE.search(body)
        if m and ("[ERROR]" in line or "Failed to execute" in body):
            add(m["c"], _reason(body), body)
    return list(out.values())
