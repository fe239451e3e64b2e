"""Eclipse JDT as an oracle: parse a project's sources with compiler bindings.

JDT (``org.eclipse.jdt:org.eclipse.jdt.core`` from Maven Central, fetched with
``mvn`` into qare's Maven repository) runs inside this process through JPype;
a small visitor (``jdt_visitor/QareJdt.java``, compiled once with the local
``javac`` into qare's cache) walks the ASTs on the Java side and writes one
record per method declaration and per call site, which this module reads
into frozen dataclasses. See docs/crosscheck.md.

The JVM starts once per process (JPype cannot restart it), in a child process
(``_jdt_worker``) so that this one stays safe to fork; later runs reuse it.
"""

from __future__ import annotations

import enum
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ._discover import decode_source, discover_sources
from ._errors import CallGraphError, NoInputError

#: The newest org.eclipse.jdt.core on Maven Central when this was written (Nov 2026);
#: its bundles are Java 17 class files (Bundle-RequiredExecutionEnvironment JavaSE-17),
#: so it runs on the default JDK here. Later versions may need Java 21+.
JDT_VERSION = "3.47.0"
#: Source/compliance level given to JDT: the newest language level 3.47 parses.
JAVA_LEVEL = "25"
_MIN_JVM = 17


class JdtUnavailableError(CallGraphError):
    """JDT cannot run here: no jpype, no ``mvn``/Maven Central, no ``javac``, no Java 17+."""


class Judgement(enum.Enum):
    """Whether JDT's answer for a call site can serve as truth."""

    OK = "ok"
    NO_BINDING = "nobinding"  # JDT found no method (missing types, a compile error)
    RECOVERED = "recovered"  # a binding JDT invented around a missing type
    PROBLEM = "problem"  # a compile error overlaps the call expression
    LOCAL = "local"  # the callee is a method of a local or anonymous class

    @property
    def judgeable(self) -> bool:
        return self is Judgement.OK or self is Judgement.LOCAL


@dataclass(frozen=True, slots=True)
class JdtMethod:
    """A method declaration JDT bound (also implicit members and ``<clinit>()``).

    ``id`` is in qare's method-id format; ``file`` is relative to the project
    root; lines are 1-based, the doc comment excluded; ``doc`` is the raw doc
    comment (None when there is none); ``flags`` among ``body``, ``nobody``,
    ``implicit``, ``static``, ``abstract``, ``private``; ``loc``: physical
    lines (implicit members: the summed spans of the initializers they run, 0
    when none).
    """

    id: str
    file: str
    start_line: int
    end_line: int
    doc: str | None
    flags: frozenset
    loc: int


@dataclass(frozen=True, slots=True)
class JdtCall:
    """One call site as JDT bound it.

    Attributes
    ----------
    file : str
        Relative to the project root.
    line, column : int
        1-based; the line of the method name for invocations, the first line of
        the expression otherwise, the constructor's first line for an implicit
        ``super()`` (qare's rules, docs/callgraph.md).
    enclosing : tuple[str, ...]
        Method ids the call is attributed to (qare's rules: lambdas, anonymous
        and local classes → the enclosing method; static initializers →
        ``<clinit>()``; instance initializers → every constructor).
    kind : str
        ``call``, ``super-call``, ``new``, ``this-call``, ``super-ctor``,
        ``implicit-super``, ``enum-constant``, ``ref``.
    categories : frozenset[str]
        Call-site categories computed from JDT's AST (docs/crosscheck.md).
    callee_type, callee_name, params : str, str, tuple[str, ...]
        The binding's declaring type (source FQN), name (``<init>``) and erased
        parameter types; without a binding the type and parameters are empty
        and the name is the one written.
    static : bool
    judgement : Judgement
    from_source : bool
        The callee's type is one of the project's sources.
    """

    file: str
    line: int
    column: int
    enclosing: tuple
    kind: str
    categories: frozenset
    callee_type: str
    callee_name: str
    params: tuple
    static: bool
    judgement: Judgement
    from_source: bool

    @property
    def api(self) -> str:
        """API name: ``pkg.Type.name`` (DESIGN.md "Identifiers")."""
        return f"{self.callee_type}.{self.callee_name}"

    @property
    def signature(self) -> str:
        """Method id of the callee."""
        return f"{self.api}({','.join(self.params)})"


@dataclass(frozen=True, slots=True)
class JdtResult:
    """What one JDT run found.

    ``failed``: (file, reason) for files JDT could not process; ``problems``:
    file → number of compile errors JDT reported in it; ``seconds``: wall time
    of the JDT run (JVM start and visitor compilation excluded, see
    ``setup_seconds``); ``source_sets``: (file, ``main``/``test``) pairs;
    ``lines``: physical lines of the files; ``peak_rss_mb``: peak resident
    memory of the JVM's host process so far.
    """

    root: str
    files: tuple
    methods: tuple
    calls: tuple
    failed: tuple
    problems: dict
    skipped: tuple
    seconds: float
    setup_seconds: float
    jdt_version: str
    source_sets: tuple = ()
    lines: int = 0
    peak_rss_mb: float = 0.0


# --------------------------------------------------------------------------- setup

_PRIVATE_TMP: Path | None = None


def _cache_root() -> Path:
    """The qare cache folder, or with caching off a fresh private temporary
    folder of this process (removed at exit). Never a shared, predictable
    name such as ``/tmp/qare-nocache``: anyone could create that first and
    plant the jars and the class qare runs (docs/security.md "Caches")."""
    global _PRIVATE_TMP
    from .classpath import _cache_dir

    c = _cache_dir()
    if c is None:  # caching turned off: still need a place for JDT's jars
        if _PRIVATE_TMP is None:
            import atexit

            _PRIVATE_TMP = Path(tempfile.mkdtemp(prefix="qare-nocache-"))  # mode 700, random name
            atexit.register(shutil.rmtree, _PRIVATE_TMP, True)
        c = _PRIVATE_TMP
    return c


def _private(below: Path) -> None:
    """Refuse (JdtUnavailableError) a cache folder from the root down to
    ``below`` that another user owns or a group/others may write."""
    from .safefs import FolderNotPrivate, check_private

    try:
        check_private(_cache_root(), below)
    except FolderNotPrivate as e:
        raise JdtUnavailableError(f"refusing the cache folder {e.filename}: {e.strerror} "
                                  "(it holds code qare runs; make it private to you)") from None


def maven_repository() -> Path:
    """qare's local Maven repository: ``$QARE_MAVEN_REPO_LOCAL`` when set, else
    ``<cache>/m2/repository`` (shared conventions: ``_mvn_resolve.default_repo_local``)."""
    if os.environ.get("QARE_MAVEN_REPO_LOCAL"):
        from ._mvn_resolve import default_repo_local

        return default_repo_local()
    return _cache_root() / "m2" / "repository"


def _private_repository() -> None:
    """:func:`_private` for the Maven repository whose JDT jars are run; one named
    by ``QARE_MAVEN_REPO_LOCAL`` outside the cache is checked from its own folder down."""
    repo = maven_repository()
    from .safefs import FolderNotPrivate, check_private, is_inside

    if is_inside(os.path.realpath(repo), os.path.realpath(_cache_root())):
        _private(repo)
        return
    try:
        check_private(repo)
    except FolderNotPrivate as e:
        raise JdtUnavailableError(f"refusing the Maven repository {e.filename}: {e.strerror} "
                                  "(it holds code qare runs; make it private to you)") from None


_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>qare.tool</groupId><artifactId>jdt-classpath</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.eclipse.jdt</groupId><artifactId>org.eclipse.jdt.core</artifactId>
      <version>{version}</version></dependency>
  </dependencies>
</project>
"""


def fetch_jdt(version: str = JDT_VERSION, *, timeout: float = 900) -> tuple[Path, ...]:
    """The jars of ``org.eclipse.jdt.core:version`` and its dependencies, fetched
    from Maven Central by ``mvn`` into :func:`maven_repository`.

    One small function on purpose: it is the place to switch to qare's general
    Maven resolver. Maven runs on a pom this module writes (never a project's),
    with checksums enforced; the resolved list is kept in
    ``<cache>/jdt/<version>/classpath.txt`` and reused while every jar exists.

    Raises
    ------
    JdtUnavailableError
        No ``mvn``, Maven Central unreachable, or Maven failed (its last lines).
    """
    work = _cache_root() / "jdt" / version
    listing = work / "classpath.txt"
    _private(work)
    _private_repository()
    try:
        from .safefs import read_regular

        jars = tuple(Path(p) for p in read_regular(listing, 1 << 20).decode("utf-8").split(os.pathsep) if p)
        if jars and all(_in_repository(j) for j in jars):
            return jars
    except (OSError, UnicodeDecodeError):
        pass
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JdtUnavailableError("mvn not found on PATH (needed to fetch Eclipse JDT from Maven Central)")
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(_POM.format(version=version), "utf-8")
        out = Path(tmp) / "cp.txt"
        cmd = [mvn, "-B", "--no-transfer-progress", "-q", "-C", f"-Dmaven.repo.local={maven_repository()}",
               "-f", str(pom), "dependency:build-classpath", f"-Dmdep.outputFile={out}"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise JdtUnavailableError(f"mvn did not finish within {timeout:.0f} s fetching JDT {version}") from None
        if proc.returncode != 0 or not out.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-5:])
            raise JdtUnavailableError(f"mvn could not fetch org.eclipse.jdt.core:{version} "
                                      f"(Maven Central unreachable?): {tail}")
        text = out.read_text("utf-8").strip()
        jars = tuple(Path(p) for p in text.split(os.pathsep) if p)
        if not jars or not all(_in_repository(j) for j in jars):
            raise JdtUnavailableError(f"mvn listed no usable jars for org.eclipse.jdt.core:{version}")
        tmp_listing = listing.with_suffix(".tmp")
        tmp_listing.write_text(text, "utf-8")
        os.replace(tmp_listing, listing)
    return jars


def _in_repository(jar: Path) -> bool:
    """Whether ``jar`` is a regular ``.jar`` file inside qare's own Maven
    repository (the list in ``classpath.txt`` is only trusted that far)."""
    import stat as _stat

    from .safefs import is_inside

    real = os.path.realpath(jar)
    try:
        st = os.stat(real)
    except OSError:
        return False
    return real.endswith(".jar") and _stat.S_ISREG(st.st_mode) \
        and is_inside(real, os.path.realpath(maven_repository()))


def _visitor_source() -> bytes:
    from importlib.resources import files

    return (files("callgraph") / "jdt_visitor" / "QareJdt.java").read_bytes()


def _java_home_version(home: Path) -> int | None:
    """Feature version of a JDK home from its ``release`` file (``JAVA_VERSION="17.0.15"``)."""
    try:
        for line in (home / "release").read_text("utf-8", "replace").splitlines():
            if line.startswith("JAVA_VERSION="):
                v = line.split("=", 1)[1].strip().strip('"')
                head = v.split(".")[0]
                return int(v.split(".")[1]) if head == "1" else int(head)
    except (OSError, ValueError, IndexError):
        return None
    return None


def _runtime_home(jdk_home: Path | None) -> Path:
    """The JDK JDT runs on: the analysed project's JDK when it is Java 17+, else
    ``$JAVA_HOME``/the ``java`` on PATH when that is."""
    from .classpath import find_jdk

    for home in (jdk_home, find_jdk("auto")):
        if home is not None and (_java_home_version(home) or 0) >= _MIN_JVM \
                and (home / "lib" / "server" / "libjvm.so").is_file():
            return home
    raise JdtUnavailableError(f"no Java {_MIN_JVM}+ JDK with lib/server/libjvm.so found (JAVA_HOME, java on PATH)")


def compile_visitor(jdt_jars, java_home: Path) -> Path:
    """The class folder of the visitor, compiled once per (source, JDT jars) into
    ``<cache>/jdt/<version>/visitor-<hash>``."""
    src = _visitor_source()
    tag = hashlib.sha256(src + "\0".join(map(str, jdt_jars)).encode()).hexdigest()[:16]
    base = _cache_root() / "jdt" / JDT_VERSION
    out = base / f"visitor-{tag}"
    _private(out / "qare" / "jdt")  # a planted class in someone else's folder is never run
    if (out / "qare" / "jdt" / "QareJdt.class").is_file():
        return out
    javac = java_home / "bin" / "javac"
    if not javac.is_file():
        found = shutil.which("javac")
        if found is None:
            raise JdtUnavailableError("javac not found (needed once to compile qare's JDT visitor)")
        javac = Path(found)
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        java = Path(tmp) / "QareJdt.java"
        java.write_bytes(src)
        classes = Path(tmp) / "classes"
        proc = subprocess.run([str(javac), "--release", str(_MIN_JVM), "-nowarn", "-encoding", "UTF-8",
                               "-cp", os.pathsep.join(map(str, jdt_jars)), "-d", str(classes), str(java)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise JdtUnavailableError(f"javac could not compile the JDT visitor: {proc.stderr.strip()[-500:]}")
        try:
            os.replace(classes, out)
        except OSError:  # another process won the race
            if not (out / "qare" / "jdt" / "QareJdt.class").is_file():
                raise
    return out


class _Worker:
    """The JVM's host process (``callgraph._jdt_worker``), started once per process."""

    def __init__(self, libjvm: Path, classpath: list[str]):
        import atexit

        from ._subpython import module_argv

        self.log = tempfile.TemporaryFile()
        # this process's module search path, never the current folder's (the temporary folder, where
        # anyone may plant a module: callgraph._subpython)
        self.proc = subprocess.Popen(module_argv("callgraph._jdt_worker", str(libjvm), *classpath),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, encoding="utf-8", cwd=tempfile.gettempdir())
        atexit.register(self.close)
        ready = self._read()
        if not ready.get("ok"):
            self.close()
            raise JdtUnavailableError(f"the JVM did not start: {ready.get('error')}")

    def _read(self) -> dict:
        import json

        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        self.log.seek(0)
        tail = self.log.read().decode("utf-8", "replace").strip().splitlines()[-5:]
        return {"ok": False, "error": f"JDT worker exited ({self.proc.wait()}): " + " | ".join(tail)}

    def request(self, req: dict) -> dict:
        import json

        if self.proc.poll() is not None:
            return {"ok": False, "error": f"JDT worker exited ({self.proc.returncode})"}
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except OSError as e:
            return {"ok": False, "error": f"JDT worker gone: {e}"}
        return self._read()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


_WORKER: dict = {}


def _worker(jdk_home: Path | None) -> _Worker:
    """Start the JVM's host process once (JDT + visitor on its classpath) and return it.

    The JVM runs in a child process, never in this one: a JVM here would make
    every later ``fork`` (qare's process pools) unsafe (see ``_jdt_worker``)."""
    w = _WORKER.get("w")
    if w is not None and w.alive():
        return w
    import importlib.util

    if importlib.util.find_spec("jpype") is None:
        raise JdtUnavailableError("jpype1 is not installed (pip install 'qare[jdt]')")
    jars = fetch_jdt()
    home = _runtime_home(jdk_home)
    classes = compile_visitor(jars, home)
    w = _Worker(home / "lib" / "server" / "libjvm.so", [str(classes), *map(str, jars)])
    _WORKER["w"] = w
    return w


def jdt_available() -> str | None:
    """None when JDT can run here, else the reason (for tests and ``qare crosscheck``)."""
    try:
        from .classpath import find_jdk

        _worker(find_jdk("auto"))
    except JdtUnavailableError as e:
        return str(e)
    return None


# --------------------------------------------------------------------------- run

def run_jdt(root, classpath=(), *, jdk="auto", java_level: str = JAVA_LEVEL,
            max_file_bytes: int = 2_000_000) -> JdtResult:
    """Parse the project's sources (qare's discovery) with JDT bindings.

    Parameters
    ----------
    root : str or Path
        Project folder, as for :func:`callgraph.build_project_graph`.
    classpath : iterable of str or Path
        The same jars/class folders qare is given.
    jdk : str, Path or None
        The JDK whose system modules JDT binds against (``"auto"``: as qare;
        its ``lib/jrt-fs.jar`` goes on JDT's classpath).
    java_level : str
        JDT's source and compliance level.

    Returns
    -------
    JdtResult

    Raises
    ------
    JdtUnavailableError
        JDT cannot run here (see :func:`jdt_available`).
    NoInputError
        No ``.java`` files.
    """
    from .classpath import find_jdk

    t0 = time.perf_counter()
    root = Path(root)
    files, skipped = discover_sources(root, max_file_bytes=max_file_bytes)
    if not files:
        raise NoInputError(f"no .java files under {root}")
    home = find_jdk(jdk) if jdk is not None else None
    worker = _worker(home)
    encodings = []
    n_lines = 0
    for sf in files:
        try:
            with open(sf.path, "rb") as fh:
                text, enc = decode_source(fh.read(max_file_bytes + 1))
        except OSError:
            text, enc = "", None  # JDT reports the unreadable file
        encodings.append(enc)
        n_lines += text.count("\n") + 1  # as qare counts a file's lines
    entries = [os.path.abspath(p) for p in classpath]
    running_vm = True
    if home is not None and (home / "lib" / "jrt-fs.jar").is_file():
        entries.insert(0, str(home / "lib" / "jrt-fs.jar"))
        running_vm = False
    elif home is not None and (home / "jre" / "lib" / "rt.jar").is_file():  # a Java 8 JDK
        entries.insert(0, str(home / "jre" / "lib" / "rt.jar"))
        running_vm = False
    t1 = time.perf_counter()
    # the JVM's host process runs elsewhere: hand it absolute paths
    paths = [os.path.abspath(sf.path) for sf in files]
    by_path = {p: sf.rel for p, sf in zip(paths, files)}
    with tempfile.TemporaryDirectory(prefix="qare-jdt-") as tmp:
        out = Path(tmp) / "records.tsv"
        answer = worker.request({"files": paths, "encodings": encodings,
                                 "classpath": entries, "level": java_level, "running_vm": running_vm,
                                 "out": str(out)})
        if not answer.get("ok"):  # a JDT crash on the whole batch: nothing to judge with
            raise JdtUnavailableError(f"JDT failed on {root}: {answer.get('error')}")
        seconds = time.perf_counter() - t1
        methods, calls, failed, problems = _read_records(out, by_path)
    seen = {f for f in problems} | {f for f, _ in failed}
    failed = list(failed) + [(sf.rel, "JDT returned no AST for it") for sf in files if sf.rel not in seen]
    return JdtResult(root=str(root), files=tuple(sf.rel for sf in files), methods=tuple(methods),
                     calls=tuple(calls), failed=tuple(failed), problems=problems, skipped=tuple(skipped),
                     seconds=seconds, setup_seconds=t1 - t0, jdt_version=JDT_VERSION,
                     source_sets=tuple((sf.rel, sf.source_set) for sf in files), lines=n_lines,
                     peak_rss_mb=float(answer.get("rss_mb") or 0.0))


_JUDGE = {j.value: j for j in Judgement}


def _read_records(path: Path, by_path: dict):
    methods, calls, failed, problems = [], [], [], {}
    docs: dict = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            f = raw.rstrip("\n").split("\t")
            tag = f[0]
            rel = by_path.get(f[1], f[1]) if len(f) > 1 else ""
            if tag == "C" and len(f) >= 14:
                calls.append(JdtCall(
                    file=rel, line=int(f[2]), column=int(f[3]),
                    enclosing=tuple(x for x in f[4].split(";") if x), kind=f[5],
                    categories=frozenset(x for x in f[6].split(",") if x), callee_type=f[7],
                    callee_name=f[8], params=tuple(x for x in f[9].split(",") if x), static=f[10] == "static",
                    judgement=_JUDGE.get(f[11], Judgement.NO_BINDING), from_source=f[12] == "source"))
            elif tag == "D" and len(f) >= 9:
                doc = None
                ds, de = int(f[5]), int(f[6])
                if ds >= 0:
                    text = docs.get(f[1])
                    if text is None:
                        try:
                            with open(f[1], "rb") as src:
                                text = decode_source(src.read())[0]
                        except OSError:
                            text = ""
                        docs = {f[1]: text}  # records come file by file: keep one
                    doc = text[ds:de] or None
                start, end, loc = int(f[3]), int(f[4]), int(f[8])
                methods.append(JdtMethod(id=f[2], file=rel, start_line=start, end_line=end, doc=doc,
                                         flags=frozenset(f[7].split(",")),
                                         loc=end - start + 1 if loc < 0 else loc))
            elif tag == "F" and len(f) >= 3:
                problems[rel] = int(f[2])
            elif tag == "X" and len(f) >= 3:
                failed.append((rel, f"JDT visitor failed: {f[2]}"))
    return methods, calls, failed, problems
