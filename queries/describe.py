"""Descriptions for undocumented APIs (Q-ARE §3.3: "For APIs lacking
documentation, source code was obtained from sources.jar or by decompiling
JAR files, and concise functional descriptions were generated using LLMs").

1. :func:`find_member_source` finds the member's declaration: in a
   ``*-sources.jar`` (or sources folder) when one holds the declaring class,
   else in the class decompiled from the library jar by **Vineflower**
   (``org.vineflower:vineflower:1.12.0`` from Maven Central, fetched into the
   qare Maven repository by :func:`vineflower_jar`; run by :func:`decompile_class`
   in a subprocess with a wall-clock and memory limit, a bound on the bytes
   it may write, no network when ``bwrap`` is available, output to a temporary
   folder). The jar is only read: no code from it runs. Reading the sources
   and cutting the declaration out are in :mod:`queries.member_source`.
2. :class:`Describer` gives that code to the language model (packaged prompt
   ``describe.txt``) and makes the ``apis.jsonl`` record: ``description`` and
   ``first_sentence`` are the model's text, ``doc_source`` is ``"llm"`` and
   ``doc_model`` the model, so a reader can always filter generated text out.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Iterable

from .member_source import (  # MAX_CODE_CHARS, MemberSource, member_declaration: re-exported
    MAX_CODE_CHARS,
    MAX_ENTRY_BYTES,
    MemberSource,
    SourceMiss,
    _cut,
    _method_name,
    _read_entry,
    _read_source_file,
    _splits,
    member_declaration,
)

__all__ = [
    "MemberSource",
    "SourceMiss",
    "DecompileError",
    "VINEFLOWER",
    "find_member_source",
    "member_declaration",
    "vineflower_jar",
    "decompile_class",
    "decompile_classes",
    "prefetch_decompiled",
    "Describer",
]

VINEFLOWER = "org.vineflower:vineflower:1.12.0"
MAX_OUTPUT_BYTES = 32 * 1024 * 1024  # what the decompiler may write in all (RLIMIT_FSIZE per file)
DECOMPILE_TIMEOUT = 120.0  # seconds, wall clock
DECOMPILE_HEAP = "512m"


class DecompileError(RuntimeError):
    """Vineflower could not be fetched or run, or gave no source for the class."""


# ---------------------------------------------------------------- the member: sources, else decompiled

_BINARY_NAME = re.compile(r"^[A-Za-z_$][\w$]*(/[A-Za-z_$][\w$]*)*$")


def find_member_source(api: str, signature: str | None, class_: str, *, sources: Iterable[str] = (),
                       jars: Iterable[str] = (), decompile: bool = True) -> MemberSource | SourceMiss:
    """The declaration of ``api`` (API name) / ``signature`` (method id or
    ``None``) declared in ``class_`` (source FQN): from the first of
    ``sources`` (``*-sources.jar`` files or folders) holding the class's
    file, else decompiled from the first of ``jars`` holding its class file
    (``decompile``). Never raises: a :class:`SourceMiss` says why not."""
    name = _method_name(api)
    tried_sources = False
    for container in sources:
        for pkg_path, types in _splits(class_)[1:]:
            rel = (pkg_path + "/" if pkg_path else "") + types[0] + ".java"
            data = _read_source_file(container, rel)
            if data is None:
                continue
            tried_sources = True
            code = member_declaration(data, types, name, signature)
            if code is not None:
                code, cut = _cut(code)
                return MemberSource("sources", container, code, cut)
    jars = list(jars)
    if not decompile:
        return SourceMiss("no sources jar holds the member" + (" (decompiling off)" if jars else ""))
    for jar in jars:
        hit = _class_entry(jar, class_)
        if hit is None:
            continue
        top_binary, types = hit
        try:
            text = _decompiled(jar, top_binary)
        except DecompileError as e:
            return SourceMiss(f"decompiling {top_binary} from {jar} failed: {e}")
        code = member_declaration(text.encode("utf-8"), types, name, signature)
        if code is None:
            return SourceMiss(f"{name} not found in {top_binary} decompiled from {jar}")
        code, cut = _cut(code)
        return MemberSource("decompiled", jar, code, cut)
    where = "sources jar found the member" if tried_sources else "sources jar holds the class"
    return SourceMiss(f"no {where}, and no classpath jar holds {class_}")


@functools.lru_cache(maxsize=256)
def _jar_names(jar: str) -> frozenset[str]:
    try:
        with zipfile.ZipFile(jar) as zf:
            return frozenset(zf.namelist())
    except (OSError, zipfile.BadZipFile):
        return frozenset()


_DECOMPILED: dict[tuple[str, str], str] = {}  # (jar, binary name) -> source, filled by prefetch_decompiled
_DECOMPILED_MAX = 2048


def _decompiled(jar: str, top_binary: str) -> str:
    hit = _DECOMPILED.get((jar, top_binary))
    if hit is not None:
        return hit
    text = decompile_class(jar, top_binary)
    _remember(jar, {top_binary: text})
    return text


def _remember(jar: str, sources: dict[str, str]) -> None:
    if len(_DECOMPILED) + len(sources) > _DECOMPILED_MAX:
        _DECOMPILED.clear()  # a bound, not an LRU: a build touches each class once or twice
    for top, text in sources.items():
        _DECOMPILED[(jar, top)] = text


def prefetch_decompiled(targets: Iterable[dict], *, sources: Iterable[str] = (), jars: Iterable[str] = ()) -> dict[str, str]:
    """Decompile, one Vineflower run per jar, the classes of ``targets``
    (dicts with ``class``) that no sources container holds, so the
    :func:`find_member_source` calls after it find them ready. Returns
    ``{jar: error}`` for jars whose run failed (those classes are retried
    one by one later, and fail with their own reason)."""
    sources, jars = list(sources), list(jars)
    by_jar: dict[str, set[str]] = {}
    for t in targets:
        cls = t["class"]
        if any(_read_source_file(c, (p + "/" if p else "") + ty[0] + ".java") is not None
               for c in sources for p, ty in _splits(cls)[1:]):
            continue
        for jar in jars:
            hit = _class_entry(jar, cls)
            if hit is not None:
                if (jar, hit[0]) not in _DECOMPILED:
                    by_jar.setdefault(jar, set()).add(hit[0])
                break
    errors = {}
    for jar, tops in sorted(by_jar.items()):
        try:
            _remember(jar, decompile_classes(jar, tops, timeout=DECOMPILE_TIMEOUT * max(1, len(tops) // 20 + 1)))
        except DecompileError as e:
            errors[jar] = str(e)
    return errors


def _class_entry(jar: str, class_: str) -> tuple[str, list[str]] | None:
    """(top-level binary name ``a/b/C``, nested simple names ``["C", "D"]``)
    when ``jar`` holds the class file of ``class_`` (source FQN)."""
    names = _jar_names(jar)
    for pkg_path, types in _splits(class_)[1:]:
        binary = (pkg_path + "/" if pkg_path else "") + "$".join(types)
        if binary + ".class" in names:
            top = (pkg_path + "/" if pkg_path else "") + types[0]
            return top, types
    return None


# ---------------------------------------------------------------- Vineflower


def _qare_cache() -> Path:
    env = os.environ.get("QARE_CACHE_DIR")
    if env and env not in ("0", "off"):
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "qare"


def vineflower_jar(repository: str | os.PathLike | None = None, *, timeout: float = 300) -> Path:
    """The Vineflower jar (:data:`VINEFLOWER`) in the qare Maven repository
    (``<qare cache>/m2/repository`` unless ``repository``), fetched from Maven
    Central by the ``mvn`` client (checksums strict, run outside any project)
    when absent. Raises :class:`DecompileError` when it cannot be had."""
    group, artifact, version = VINEFLOWER.split(":")
    named = os.environ.get("QARE_MAVEN_REPO_LOCAL") if not repository else None
    if named:  # the user's repository for every command (docs/classpath.md)
        from callgraph._mvn_resolve import default_repo_local

        repo = default_repo_local()
    else:
        repo = Path(repository) if repository else _qare_cache() / "m2" / "repository"
    jar = repo.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.jar")
    if not repository:  # qare's own cache or the named one: the jar is run, so its folders must be private
        from callgraph.safefs import FolderNotPrivate, check_private

        try:
            check_private(repo if named else _qare_cache(), jar.parent)
        except FolderNotPrivate as e:
            raise DecompileError(f"refusing the cache folder {e.filename}: {e.strerror}") from None
    if jar.is_file():
        return jar
    mvn = shutil.which("mvn")
    if mvn is None:
        raise DecompileError("mvn (Apache Maven) is not installed; it fetches the decompiler")
    with tempfile.TemporaryDirectory(prefix="qare-mvn-") as cwd:  # no project pom around it
        try:
            r = subprocess.run([mvn, "-B", "-q", "--no-transfer-progress", "--strict-checksums",
                                f"-Dmaven.repo.local={repo}", "dependency:get", f"-Dartifact={VINEFLOWER}",
                                "-Dtransitive=false"], cwd=cwd, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise DecompileError(f"fetching {VINEFLOWER} failed: {e}") from None
    if r.returncode != 0 or not jar.is_file():
        tail = " ".join((r.stdout + r.stderr).split())[-300:]
        raise DecompileError(f"fetching {VINEFLOWER} from Maven Central failed: {tail or 'exit ' + str(r.returncode)}")
    return jar


_BWRAP_OK: bool | None = None


def _bwrap() -> str | None:
    """``bwrap`` when it works here (a quick probe, once per process)."""
    global _BWRAP_OK
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    if _BWRAP_OK is None:
        try:
            _BWRAP_OK = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "true"],
                                       capture_output=True, timeout=20).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _BWRAP_OK = False
    return exe if _BWRAP_OK else None


def _limit_output() -> None:  # runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES))


def decompile_class(jar: str, top_binary: str, *, decompiler: Path | None = None,
                    timeout: float = DECOMPILE_TIMEOUT, java: str | None = None) -> str:
    """Java source of the top-level class ``top_binary`` (``a/b/C``) of
    ``jar``, with its nested classes, decompiled by Vineflower (see
    :func:`decompile_classes`). Raises :class:`DecompileError`."""
    out = decompile_classes(jar, [top_binary], decompiler=decompiler, timeout=timeout, java=java)
    if top_binary not in out:
        raise DecompileError(f"Vineflower gave no source for {top_binary}")
    return out[top_binary]


def decompile_classes(jar: str, top_binaries: Iterable[str], *, decompiler: Path | None = None,
                      timeout: float = DECOMPILE_TIMEOUT, java: str | None = None) -> dict[str, str]:
    """Java sources of several top-level classes of one ``jar`` in one
    Vineflower run: ``{binary name: source}``; a class it gave nothing for
    is absent.

    Only ``C.class`` and ``C$*.class`` of the asked classes are copied out of
    the jar (bounded sizes) into a temporary folder; Vineflower (``java
    -Xmx512m``) reads them there and writes to another temporary folder; each
    file it writes is bounded by ``RLIMIT_FSIZE``; the run is killed after
    ``timeout`` seconds; with ``bwrap`` it has no network, its own PID
    namespace and a read-only file system outside its folder. Raises
    :class:`DecompileError` when nothing can be decompiled at all."""
    tops = sorted(set(top_binaries))
    bad = [t for t in tops if not _BINARY_NAME.match(t)]
    if bad:
        raise DecompileError(f"not a binary class name: {bad[0]!r}")
    decompiler = decompiler or vineflower_jar()
    java = java or shutil.which("java")
    if java is None:
        raise DecompileError("no java on PATH to run the decompiler")
    with tempfile.TemporaryDirectory(prefix="qare-decompile-") as tmp:
        src_dir, out_dir = Path(tmp, "in"), Path(tmp, "out")
        out_dir.mkdir()
        try:
            with zipfile.ZipFile(jar) as zf:
                names = zf.namelist()
                total = 0
                for top in tops:
                    wanted = [n for n in names
                              if n == top + ".class" or (n.startswith(top + "$") and n.endswith(".class"))]
                    for n in wanted[:500]:
                        if not _BINARY_NAME.match(n[:-len(".class")]):
                            continue
                        data = _read_entry(zf, n)
                        if data is None:
                            continue
                        total += len(data)
                        if total > MAX_ENTRY_BYTES * 4:
                            break
                        dest = src_dir / n
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        dest.write_bytes(data)
        except (OSError, zipfile.BadZipFile) as e:
            raise DecompileError(f"cannot read {jar}: {e}") from None
        present = [t for t in tops if (src_dir / (t + ".class")).is_file()]
        if not present:
            raise DecompileError(f"{jar} has no readable {tops[0] if len(tops) == 1 else 'asked'}.class"
                                 if len(tops) == 1 else f"{jar} has none of the asked classes")
        cmd = [java, f"-Xmx{DECOMPILE_HEAP}", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
               "-jar", str(decompiler),
               # (options before -s: Vineflower takes what follows -s as paths)
               # Java, not Kotlin, for Kotlin-compiled classes: method ids are the JVM view
               "--kt-enable=false",
               # a default constructor is an API too (new Foo())
               "--hide-default-constructor=false",
               "-s", "--folder", str(src_dir), str(out_dir)]
        bw = _bwrap()
        if bw:
            cmd = [bw, "--ro-bind", "/", "/", "--bind", tmp, tmp, "--dev", "/dev", "--proc", "/proc",
                   "--unshare-net", "--unshare-pid", "--die-with-parent", *cmd]
        err_path = Path(tmp, "stderr.txt")
        try:
            # stderr into a file (bounded by RLIMIT_FSIZE like every file the child writes), not a pipe
            with open(err_path, "wb") as err_fh:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_fh,
                                        start_new_session=True, preexec_fn=_limit_output)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                    raise DecompileError(f"timed out after {timeout:g} s") from None
        except OSError as e:
            raise DecompileError(f"cannot run the decompiler: {e}") from None
        out = {}
        for t in present:
            f = out_dir / (t + ".java")
            if f.is_file():
                out[t] = f.read_bytes()[:MAX_OUTPUT_BYTES].decode("utf-8", "replace")
        if not out:
            with open(err_path, "rb") as fh:
                fh.seek(max(0, err_path.stat().st_size - 4096))
                tail = " ".join(fh.read().decode("utf-8", "replace").split())[-300:]
            raise DecompileError(f"Vineflower exit {proc.returncode}: {tail or 'no output'}")
        return out


# ---------------------------------------------------------------- the model


class Describer:
    """Undocumented target APIs → ``apis.jsonl`` records written by the model.

    ``client`` is a :class:`queries.llm.LLMClient`. :meth:`describe` returns
    ``{node id: ApiRecord dict}`` for the APIs it could describe and keeps
    the reason for each it could not in ``errors`` (``node: reason``)."""

    def __init__(self, client, *, decompile: bool = True):
        from .llm import load_prompt

        self.client = client
        self.prompt = load_prompt("describe")
        self.decompile = decompile
        self.errors: dict[str, str] = {}
        self.origins: dict[str, int] = {}
        self._done: dict[str, dict | None] = {}

    @property
    def described(self) -> int:
        """APIs described so far (distinct node ids)."""
        return sum(1 for v in self._done.values() if v)

    def describe(self, targets: dict[str, dict], *, sources: list[str], jars: list[str]) -> dict[str, dict]:
        """``targets``: node id → a target dict (``api``, ``signature``,
        ``class``, ``library``)."""
        from records.dataset import ApiRecord

        todo, found = [], []
        if self.decompile:
            prefetch_decompiled([t for n, t in targets.items() if n not in self._done], sources=sources, jars=jars)
        for node, t in sorted(targets.items()):
            if node in self._done:
                continue
            src = find_member_source(t["api"], t["signature"], t["class"], sources=sources, jars=jars,
                                     decompile=self.decompile)
            if isinstance(src, SourceMiss):
                self.errors[node] = src.reason
                continue
            todo.append((node, t))
            found.append(src)
        replies = self.client.map(self.prompt, [
            {"api": t["signature"] or t["api"], "class": t["class"], "origin": s.origin + (", cut" if s.truncated else ""),
             "code": s.code} for (node, t), s in zip(todo, found)])
        for (node, t), s, r in zip(todo, found, replies):
            if not r.ok:
                self.errors[node] = f"{r.failure.value}: {r.detail}"
                continue
            text = " ".join(r.text.split())
            self._done[node] = ApiRecord(
                api=t["api"], signature=t["signature"], class_=t["class"], library=t.get("library"),
                description=text, first_sentence=_first_sentence(text), doc_source="llm",
                doc_model=self.client.config.model,
            ).to_dict()
            self.errors.pop(node, None)
            self.origins[s.origin] = self.origins.get(s.origin, 0) + 1
        return {node: self._done[node] for node in targets if self._done.get(node)}


def _first_sentence(text: str) -> str:
    """Up to the first period followed by white space (javadoc's rule, no locale)."""
    m = re.search(r"\.(\s|$)", text)
    return text[:m.start() + 1] if m else text
