"""Classpath discovery: dependency jars of a Maven or Gradle project, from local repositories.

Two routes:

- :func:`discover_classpath_report` (and :func:`discover_classpath`) reads
  ``pom.xml`` files (with ``${property}`` interpolation, parent poms in the
  project or in a repository, ``dependencyManagement`` and imported BOMs,
  and the transitive compile/runtime dependencies declared in the
  dependencies' own poms) and ``build.gradle``/``build.gradle.kts``
  dependency lines, then looks the jars up in ``~/.m2/repository``,
  ``/usr/share/maven-repo`` (Debian) and Gradle's
  ``~/.gradle/caches/modules-2/files-2.1``. No network, no build tool.
- :func:`maven_build_classpath` runs the real ``mvn`` with
  maven-dependency-plugin's ``build-classpath`` goal (opt-in; offline by default).

Both are best-effort: what cannot be found is reported, never raised.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from . import _gradle, _gradle_platform
from ._coords import coordinate_problem
from .safefs import is_inside, walk as safefs_walk

__all__ = ["ClasspathReport", "discover_classpath", "discover_classpath_report", "maven_build_classpath",
           "default_repositories"]

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                          remove_comments=True, remove_pis=True)
_MAX_POM_BYTES = 4 * 1024 * 1024
_MAX_TRANSITIVE_DEPTH = 12
_MAX_PROJECT_POMS = 2000
_SKIP_DIRS = {".git", "node_modules", "target", "build", ".gradle", ".idea", "out", ".mvn"}
# a name holds no "$" or "{": a value of 80,000 unclosed "${" made every one of them scan to the value's end
# (40 s for a 160 KB pom: the attacker's review, session 10); Maven's names hold neither
_PROP = re.compile(r"\$\{([^${}]+)\}")
#: properties one pom may declare (a child pom copies its parent's: 300,000 of them took 7 MB per module)
MAX_POM_PROPERTIES = 10_000


@dataclass
class ClasspathReport:
    """What :func:`discover_classpath_report` found.

    Attributes
    ----------
    jars : list[Path]
        Dependency jars in Maven's classpath order (a pre-order walk of the
        resolved dependency tree: each dependency followed by its own), no duplicates.
    missing : list[str]
        ``group:artifact:version`` (version may be ``?``) not found in any repository.
    substitutions : list[tuple[str, str, Path]]
        ``(wanted coordinates, version used, jar)`` where another version was
        taken (Debian's ``debian`` version or the only version available).
    warnings : list[tuple[str, str]]
        ``(file, reason)``: unparsable pom/gradle files, unresolved properties.
    build_files : list[Path]
        The pom.xml / build.gradle(.kts) files read.
    """

    jars: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    substitutions: list[tuple[str, str, Path]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    build_files: list[Path] = field(default_factory=list)


def default_repositories() -> list[Path]:
    """Local repositories searched, in order: ``~/.m2/repository`` (or ``$M2_REPO``), Debian's, Gradle's cache."""
    home = Path(os.path.expanduser("~"))
    m2 = Path(os.environ["M2_REPO"]) if os.environ.get("M2_REPO") else home / ".m2" / "repository"
    gradle_home = Path(os.environ.get("GRADLE_USER_HOME") or home / ".gradle")
    return [m2, Path("/usr/share/maven-repo"), gradle_home / "caches" / "modules-2" / "files-2.1"]


# --------------------------------------------------------------------------- repositories

class _Repos:
    def __init__(self, roots: list[Path]):
        self.roots = [Path(r) for r in roots if Path(r).is_dir()]

    def _is_gradle(self, root: Path) -> bool:
        return root.name == "files-2.1"

    def versions(self, g: str, a: str) -> list[str]:
        out = []
        if coordinate_problem(g, a) is not None:  # '..' or '/' would lead out of the repository
            return out
        for root in self.roots:
            d = root / g / a if self._is_gradle(root) else root.joinpath(*g.split("."), a)
            if d.is_dir():
                out += sorted(p.name for p in d.iterdir() if p.is_dir())
        return out

    def find(self, g: str, a: str, v: str, ext: str = "jar", classifier: str | None = None) -> Path | None:
        if coordinate_problem(g, a, v, classifier, ext) is not None:  # never a path out of the repository
            return None
        fname = f"{a}-{v}" + (f"-{classifier}" if classifier else "") + f".{ext}"
        for root in self.roots:
            if self._is_gradle(root):
                d = root / g / a / v
                if d.is_dir():
                    for h in sorted(d.iterdir()):
                        if (h / fname).is_file():
                            return h / fname
            else:
                p = root.joinpath(*g.split("."), a, v, fname)
                if p.is_file():
                    return p
        return None


# --------------------------------------------------------------------------- pom model

@dataclass
class _Pom:
    path: Path
    gav: tuple[str, str, str]
    props: dict[str, str]
    managed: dict[tuple[str, str], dict]      # (g, a) → dep dict, after interpolation
    deps: list[dict]
    modules: list[str]
    packaging: str


def _local(tag) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _child(el, name):
    for c in el:
        if _local(c.tag) == name:
            return c
    return None


def _text(el, name, default=None):
    c = _child(el, name)
    return c.text.strip() if c is not None and c.text else default


def _items(el, name, item):
    """The ``<item>`` children of ``el``'s ``<name>`` child (``dependencies``/``dependency``); [] when absent."""
    c = _child(el, name)
    return [] if c is None else [x for x in c if _local(x.tag) == item]


def _dep_elements(el):
    return [{k: _text(d, k) for k in ("groupId", "artifactId", "version", "scope", "type",
                                      "classifier", "optional", "systemPath")}
            | {"exclusions": [(_text(x, "groupId"), _text(x, "artifactId"))
                              for x in _items(d, "exclusions", "exclusion")]}
            for d in _items(el, "dependencies", "dependency")]


class _PomLoader:
    def __init__(self, repos: _Repos, report: ClasspathReport, root: Path):
        self.repos = repos
        self.report = report
        # a <parent>'s relativePath is followed inside the project only: a pom of a stranger's repository
        # must not make qare read (and report the properties of) a file elsewhere on the machine — Maven
        # itself reads a repository pom's parent by its coordinates, never by a path
        self.root = real_path(root)
        self.cache: dict[Path, _Pom | None] = {}
        self.parsed: dict[Path, object] = {}
        self.project_poms: dict[tuple[str, str], Path] = {}

    def parse(self, path: Path):
        path = path.resolve()
        if path in self.parsed:
            return self.parsed[path]
        self.parsed[path] = root = self._parse(path)
        return root

    def _parse(self, path: Path):
        try:
            if path.stat().st_size > _MAX_POM_BYTES:
                self.report.warnings.append((str(path), f"pom larger than {_MAX_POM_BYTES} bytes; skipped"))
                return None
            return etree.parse(str(path), _PARSER).getroot()
        except (OSError, etree.XMLSyntaxError) as exc:
            self.report.warnings.append((str(path), f"unreadable pom: {exc}"))
            return None

    def load(self, path: Path, depth: int = 0) -> _Pom | None:
        path = path.resolve()
        if path in self.cache:
            return self.cache[path]
        self.cache[path] = None  # parent cycles end here
        root = self.parse(path)
        if root is None or _local(root.tag) != "project":
            if root is not None:
                self.report.warnings.append((str(path), "not a Maven pom (root is not <project>)"))
            return None
        parent_el = _child(root, "parent")
        parent = None
        if parent_el is not None and depth < 20:
            pg, pa, pv = (_text(parent_el, k) for k in ("groupId", "artifactId", "version"))
            rel = _text(parent_el, "relativePath", "../pom.xml")
            cand = (path.parent / rel) if rel else None
            if cand is not None:
                cand = real_path(cand / "pom.xml" if os.path.isdir(cand) else cand)
                if not cand.is_relative_to(self.root):
                    # the default of a top-level pom is no choice of its own; a repository pom's is not said
                    if rel != "../pom.xml" and path.is_relative_to(self.root):
                        self.report.warnings.append(
                            (str(path), f"parent relativePath {rel!r} leads outside the project; not read"))
                    cand = None
            if cand is not None and os.path.isfile(cand):
                p = self.load(cand, depth + 1)
                if p is not None and p.gav[:2] == (pg, pa):
                    parent = p
            if parent is None and pg and pa and pv:
                found = self.project_poms.get((pg, pa)) or self.repos.find(pg, pa, pv, "pom")
                if found is None:
                    found = self._substitute_pom(pg, pa, pv)
                if found is not None:
                    parent = self.load(found, depth + 1)
        g = _text(root, "groupId") or (parent.gav[0] if parent else None) or ""
        a = _text(root, "artifactId") or ""
        v = _text(root, "version") or (parent.gav[2] if parent else None) or ""
        props = dict(parent.props) if parent else {}
        pe = _child(root, "properties")
        if pe is not None:
            n = 0
            for c in pe:
                if _local(c.tag):
                    n += 1
                    if n > MAX_POM_PROPERTIES:
                        self.report.warnings.append((str(path), f"more than {MAX_POM_PROPERTIES} properties; "
                                                                 "the rest not read"))
                        break
                    props[_local(c.tag)] = (c.text or "").strip()
        for k, val in (("groupId", g), ("artifactId", a), ("version", v)):
            props[f"project.{k}"] = val
            props[f"pom.{k}"] = val
        if parent:
            props["project.parent.version"] = parent.gav[2]
            props["project.parent.groupId"] = parent.gav[0]
        pom = _Pom(path, (g, a, v), props, dict(parent.managed) if parent else {}, [],
                   [m.text.strip() for m in _items(root, "modules", "module") if m.text],
                   _text(root, "packaging", "jar"))
        dm = _child(root, "dependencyManagement")
        if dm is not None:
            for d in _dep_elements(dm):
                d = self.interp(d, pom)
                if d.get("scope") == "import" and d.get("type") == "pom":
                    self.import_bom(d, pom, depth)
                else:
                    pom.managed[(d["groupId"], d["artifactId"])] = d
        pom.deps = [self.interp(d, pom) for d in _dep_elements(root)]
        self.cache[path] = pom
        return pom

    def _substitute_pom(self, g, a, v) -> Path | None:
        for alt in self._alternatives(g, a, v):
            p = self.repos.find(g, a, alt, "pom")
            if p is not None:
                return p
        return None

    def _alternatives(self, g, a, v) -> list[str]:
        versions = [x for x in self.repos.versions(g, a) if x != v]
        alts = [x for x in versions if x == "debian"]
        uniq = sorted(set(x for x in versions if x != "debian" and not x.endswith(".x")))
        if len(uniq) == 1:
            alts.append(uniq[0])
        return alts

    def import_bom(self, d: dict, into: _Pom, depth: int) -> None:
        g, a, v = d.get("groupId"), d.get("artifactId"), d.get("version")
        if not (g and a and v) or depth > 10:
            return
        path = self.project_poms.get((g, a)) or self.repos.find(g, a, v, "pom") or self._substitute_pom(g, a, v)
        if path is None:
            self.report.warnings.append((str(into.path), f"BOM {g}:{a}:{v} not found; its versions are unknown"))
            return
        bom = self.load(path, depth + 1)
        if bom is not None:
            for key, md in bom.managed.items():
                into.managed.setdefault(key, md)

    def interp(self, d: dict, pom: _Pom) -> dict:
        """``d`` with its ``${...}`` values expanded; a value whose expansion is
        refused (cycle, depth, length) stays as written and is reported."""
        out = dict(d)
        for k, val in d.items():
            if isinstance(val, str) and "${" in val:
                try:
                    out[k] = _interpolate(val, pom.props)
                except PropertyExpansionError as exc:
                    self.report.warnings.append(
                        (str(pom.path), f"{d.get('groupId')}:{d.get('artifactId')} {k} {val[:80]!r}: {exc}"))
        return out


# Bounds of ``${property}`` expansion (issue 15 item 5): a pom is untrusted data, and
# properties that refer to others several times expand exponentially ("billion laughs").
MAX_PROPERTY_DEPTH = 32           # nested references followed
MAX_EXPANDED_CHARS = 16 * 1024    # characters one value may expand to


def real_path(p) -> Path:
    """``p``'s real path, never raising: ``Path.resolve`` raises RuntimeError on
    a symlink loop (a <module> or relativePath ``loop -> loop`` ended
    resolution in a traceback: the attacker's second review, session 10);
    ``os.path.realpath`` returns a looping path as it stands, which then
    names no pom of the project."""
    return Path(os.path.realpath(p))


class PropertyExpansionError(ValueError):
    """A ``${...}`` value that refers to itself, nests too deeply or expands too far."""


def _interpolate(val: str, props: dict[str, str]) -> str:
    """``val`` with every ``${name}`` that ``props`` defines expanded (recursively);
    undefined names are left as written.

    Raises
    ------
    PropertyExpansionError
        A cycle (``a`` → ``b`` → ``a``), more than :data:`MAX_PROPERTY_DEPTH`
        nested references, or a result longer than :data:`MAX_EXPANDED_CHARS`.
    """
    budget = [MAX_EXPANDED_CHARS]
    # each name is expanded once per call (its value does not depend on where it is used), and every
    # reference costs the budget a unit besides its characters: `a1 = ${a0}${a0}`, ... `a30 = ${a29}${a29}`
    # with an empty a0 made 2^30 expansions of nothing, which the characters alone never stopped (a 969-byte
    # pom hung the build: the attacker's review, session 10)
    done: dict[str, str] = {}

    def expand(s: str, stack: tuple[str, ...]) -> str:
        out: list[str] = []
        pos = 0
        for m in _PROP.finditer(s):
            out.append(s[pos:m.start()])
            budget[0] -= m.start() - pos + 1
            name = m.group(1)
            if name in stack:
                raise PropertyExpansionError("property cycle: " + " -> ".join((*stack, name)))
            if name not in props:
                out.append(m.group(0))
                budget[0] -= len(m.group(0))
            elif name in done:
                out.append(done[name])
                budget[0] -= len(done[name])
            elif len(stack) >= MAX_PROPERTY_DEPTH:
                raise PropertyExpansionError(f"property ${{{name}}} nested deeper than {MAX_PROPERTY_DEPTH} levels")
            else:
                done[name] = r = expand(props[name], (*stack, name))
                out.append(r)
            if budget[0] < 0:
                raise PropertyExpansionError(f"property expansion longer than {MAX_EXPANDED_CHARS} characters"
                                             f" (${{{name}}})")
            pos = m.end()
        out.append(s[pos:])
        budget[0] -= len(s) - pos
        if budget[0] < 0:
            raise PropertyExpansionError(f"property expansion longer than {MAX_EXPANDED_CHARS} characters")
        return "".join(out)

    return expand(val, ())


# --------------------------------------------------------------------------- discovery

_POM_NAMES = ("pom.xml",)
_GRADLE_NAMES = ("build.gradle", "build.gradle.kts")


def _regular_inside(path: Path, root_real: str) -> bool:
    # a build file that is a FIFO (the XML parser would block), a device or a
    # link out of the project is never parsed (docs/security.md)
    real = os.path.realpath(path)
    try:
        return is_inside(real, root_real) and stat.S_ISREG(os.lstat(real).st_mode)
    except OSError:
        return False


def _project_files(root: Path) -> tuple[list[Path], list[Path]]:
    """The project's ``pom.xml`` files and its Gradle build files, in one walk
    (each list stops growing once it passes ``_MAX_PROJECT_POMS``)."""
    poms: list[Path] = []
    gradles: list[Path] = []
    root_real = os.path.realpath(root)
    for dirpath, dirnames, filenames in safefs_walk(root):
        # A module's src/ holds sources and test resources (poms of integration
        # tests under src/it, src/test/resources), never the module's own build file.
        is_module = any(n in filenames for n in _POM_NAMES + _GRADLE_NAMES)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                             and not (is_module and d == "src"))
        for out, names in ((poms, _POM_NAMES), (gradles, _GRADLE_NAMES)):
            if len(out) <= _MAX_PROJECT_POMS:
                out += [p for p in (Path(dirpath) / n for n in names if n in filenames)
                        if _regular_inside(p, root_real)]
        if len(poms) > _MAX_PROJECT_POMS and len(gradles) > _MAX_PROJECT_POMS:
            break
    return poms, gradles


def discover_classpath(project_root: str | os.PathLike, *, repositories: list[Path] | None = None) -> list[Path]:
    """Dependency jars of a Maven/Gradle project found in local repositories.

    Parameters
    ----------
    project_root : str or Path
        The project folder (all ``pom.xml`` / ``build.gradle(.kts)`` below it are read).
    repositories : list of Path, optional
        Local repositories to search; default :func:`default_repositories`.

    Returns
    -------
    list[Path]
        Jar paths in Maven's classpath order (each dependency, then its own
        transitive ones, depth first). What was not
        found is in :func:`discover_classpath_report`'s ``missing``.
    """
    return discover_classpath_report(project_root, repositories=repositories).jars


def discover_classpath_report(project_root: str | os.PathLike, *,
                              repositories: list[Path] | None = None,
                              transitive: bool = True) -> ClasspathReport:
    """Like :func:`discover_classpath`, with the full report (missing, substitutions, warnings)."""
    root = Path(project_root)
    report = ClasspathReport()
    if not root.is_dir():
        report.warnings.append((str(root), "project root is not a folder"))
        return report
    repos = _Repos(list(repositories) if repositories is not None else default_repositories())
    loader = _PomLoader(repos, report, root)
    poms, gradles = _project_files(root)
    report.build_files = poms + gradles
    # Pass 1: the project's own modules, so inter-module dependencies are not looked up.
    own: set[tuple[str, str]] = set()
    for p in poms:
        el = loader.parse(p)
        if el is not None and _local(el.tag) == "project":
            parent = _child(el, "parent")
            g = _text(el, "groupId") or (_text(parent, "groupId") if parent is not None else None)
            a = _text(el, "artifactId")
            if g and a:
                own.add((g, a))
                loader.project_poms[(g, a)] = p
    wanted: list[tuple[dict, _Pom | None]] = []
    for p in poms:
        pom = loader.load(p)
        if pom is not None:
            wanted += [(d, pom) for d in pom.deps]
    gdeps = [dict(d, _file=str(gfile)) for gfile in gradles for d in _gradle_deps(gfile, report, root)]
    # constraints { } entries are versions for the build's versionless coordinates, not dependencies
    managed: dict[tuple, str] = {}
    for d in gdeps:
        if d.get("constraint") and d.get("version"):
            managed.setdefault((d.get("groupId"), d.get("artifactId")), d["version"])
    wanted += [(dict(d, version=d.get("version") or managed.get((d.get("groupId"), d.get("artifactId")))), None)
               for d in gdeps if not d.get("constraint")]
    _resolve(wanted, own, loader, repos, report, transitive, root)
    return report


def _resolve(wanted, own, loader: _PomLoader, repos: _Repos, report: ClasspathReport, transitive: bool,
             root: Path | None = None) -> None:
    """Breadth-first resolution (the nearest declaration wins, as in Maven), output in
    Maven's classpath order: a pre-order walk of the resolved dependency tree."""
    seen: set[tuple[str, str]] = set()
    # queue items: (dependency, declaring pom, depth, exclusions, root pom, parent node)
    queue: list[tuple] = [(d, p, 0, frozenset(), p, -1) for d, p in wanted]
    nodes: list[tuple[Path | None, int]] = []  # (jar or None, parent node)
    i = 0
    while i < len(queue):
        d, ctx, depth, excl, root_ctx, parent = queue[i]
        i += 1
        g, a = d.get("groupId"), d.get("artifactId")
        if not g or not a or (g, a) in own or (g, a) in excl:
            continue
        if d.get("type") not in (None, "jar", "bundle", "test-jar", "maven-plugin") or d.get("scope") == "import":
            continue
        if (g, a) in seen:
            continue
        seen.add((g, a))
        v = d.get("version")
        # The project's dependencyManagement also pins transitive versions (Maven's rule).
        if depth > 0 and root_ctx is not None and (g, a) in root_ctx.managed:
            v = root_ctx.managed[(g, a)].get("version") or v
        if (not v or "${" in v) and ctx is not None and (g, a) in ctx.managed:
            v = ctx.managed[(g, a)].get("version") or v
        node = len(nodes)
        if d.get("scope") == "system" and d.get("systemPath"):
            sp = Path(d["systemPath"])
            # only a jar of the project itself: a systemPath (through properties too) must not
            # put any file of the machine on the classpath
            ok = (root is not None and sp.is_absolute() and "${" not in str(sp)
                  and is_inside(os.path.realpath(sp), os.path.realpath(root)) and sp.is_file())
            nodes.append((sp if ok else None, parent))
            if not ok:
                report.missing.append(f"{g}:{a}:{v or '?'} (systemPath {sp} is not a file inside the project)")
            continue
        if v and "${" in v:
            report.warnings.append((str(ctx.path) if ctx else d.get("_file", "?"), f"unresolved property in {g}:{a}:{v}"))
        coords = f"{g}:{a}:{v or '?'}"
        cls = d.get("classifier") or ("tests" if d.get("type") == "test-jar" else None)
        jar = repos.find(g, a, v, "jar", cls) if v and "${" not in v and not v.startswith(("[", "(")) else None
        used = v
        if jar is None:
            for alt in loader._alternatives(g, a, v or ""):
                jar = repos.find(g, a, alt, "jar", cls)
                if jar is not None:
                    used = alt
                    report.substitutions.append((coords, alt, jar))
                    break
        if jar is None and not (v and repos.find(g, a, v, "pom")):
            # (a pom-only artifact, such as an aggregate starter, is not missing: it brings dependencies)
            report.missing.append(coords)
        nodes.append((jar, parent))
        if not transitive or depth >= _MAX_TRANSITIVE_DEPTH or not used:
            continue
        pom_path = repos.find(g, a, used, "pom")
        dep_pom = loader.load(pom_path) if pom_path is not None else None
        if dep_pom is None:
            continue
        excl2 = excl | frozenset((x, y) for x, y in d.get("exclusions", ()) if x and y)
        for td in dep_pom.deps:
            if td.get("scope") in ("test", "provided", "system", "import") or (td.get("optional") or "") == "true":
                continue
            queue.append((td, dep_pom, depth + 1, excl2, root_ctx, node))
    children: dict[int, list[int]] = {}
    for k, (_, parent) in enumerate(nodes):
        children.setdefault(parent, []).append(k)
    jars: dict[Path, None] = {}
    stack = list(reversed(children.get(-1, [])))
    while stack:
        k = stack.pop()
        if nodes[k][0] is not None:
            jars.setdefault(nodes[k][0], None)
        stack.extend(reversed(children.get(k, [])))
    report.jars = list(jars)


# --------------------------------------------------------------------------- Gradle

_GRADLE_CONFIGS = ("implementation", "api", "compileOnly", "runtimeOnly", "testImplementation",
                   "testCompileOnly", "testRuntimeOnly", "compile", "testCompile", "runtime", "provided",
                   "compileOnlyApi", "annotationProcessor", "kapt", "developmentOnly", "testAndDevelopmentOnly",
                   "testAnnotationProcessor")
_GRADLE_STR = re.compile(r"""\b(?P<conf>%s)\s*\(?\s*(?P<platform>platform\s*\(\s*|enforcedPlatform\s*\(\s*)?["'](?P<gav>[^"'\s]+)["']"""
                         % "|".join(_GRADLE_CONFIGS))
_GRADLE_MAP = re.compile(r"""\b(?P<conf>%s)\s*\(?\s*group\s*[:=]\s*["'](?P<g>[^"']+)["']\s*,\s*name\s*[:=]\s*["'](?P<a>[^"']+)["']"""
                         r"""(?:\s*,\s*version\s*[:=]\s*["'](?P<v>[^"']+)["'])?""" % "|".join(_GRADLE_CONFIGS))
# Kotlin DSL inside subprojects { } / configure(...) { }: add("configuration", "g:a:v")
_GRADLE_ADD = re.compile(r"""\badd\s*\(\s*["'](?P<conf>%s)["']\s*,\s*(?P<platform>platform\s*\(\s*|enforcedPlatform\s*\(\s*)?["'](?P<gav>[^"'\s]+)["']"""
                         % "|".join(_GRADLE_CONFIGS))
_GRADLE_CATALOG = re.compile(r"""\b(?P<conf>%s)\s*\(?\s*(?P<platform>platform\s*\(\s*|enforcedPlatform\s*\(\s*)?"""
                             r"""libs\.(?P<alias>[\w.]+)""" % "|".join(_GRADLE_CONFIGS))

_read_build_text = _gradle.read_build_text


def _gradle_deps(path: Path, report: ClasspathReport, root: Path | None = None) -> list[dict]:
    """The coordinates a Gradle build file declares, versions filled from the variables
    it sees (``callgraph._gradle.build_text``; ``root`` bounds where those are looked for).

    Entries of its ``constraints { }`` blocks come with ``"constraint": True`` (a
    version, never a dependency); ``platform(…)`` ones with ``scope="import"``; a
    catalog bundle (``libs.bundles.x``) gives one entry per library of the bundle."""
    try:
        text, props = _gradle.build_text(path, root, report.warnings)
    except OSError as exc:
        report.warnings.append((str(path), f"unreadable: {exc.strerror or exc}"))
        return []
    text, blocks = _gradle_platform.split_constraints(text)
    out = _gradle_entries(path, text, props, report, root)
    for block in blocks:
        out += [dict(d, constraint=True) for d in _gradle_entries(path, block, props, report, root)
                if d.get("scope") != "import"]
    return out


def _gradle_entries(path: Path, text: str, props: dict[str, str], report: ClasspathReport,
                    root: Path | None) -> list[dict]:
    def sub(s: str) -> str:
        return _gradle.substitute(s, props)

    out: list[tuple[int, dict]] = []   # (offset, entry): the file's order, as Gradle reads it
    for m in (*_GRADLE_STR.finditer(text), *_GRADLE_ADD.finditer(text)):
        parts = sub(m["gav"]).split(":")
        if len(parts) >= 2:
            d = {"groupId": parts[0], "artifactId": parts[1], "version": parts[2] if len(parts) > 2 else None,
                 "classifier": parts[3] if len(parts) > 3 else None, "scope": m["conf"]}
            if m["platform"]:  # a BOM: its versions, not a jar
                d.update(scope="import", type="pom", classifier=None)
            out.append((m.start(), d))
    for m in _GRADLE_MAP.finditer(text):
        out.append((m.start(), {"groupId": sub(m["g"]), "artifactId": sub(m["a"]),
                                "version": sub(m["v"]) if m["v"] else None, "scope": m["conf"]}))
    refs = [(m.start(), m["alias"], m["conf"], bool(m["platform"])) for m in _GRADLE_CATALOG.finditer(text)]
    if not refs:
        return [d for _, d in sorted(out, key=lambda t: t[0])]
    catalog = _find_up(path.parent, "gradle/libs.versions.toml", root)
    if catalog is None:
        report.warnings.append((str(path), f"{len(refs)} version-catalog dependencies (libs.*) without gradle/libs.versions.toml"))
        return [d for _, d in sorted(out, key=lambda t: t[0])]
    libs, bundles = _catalog(catalog, report)
    for pos, alias, conf, platform in refs:
        names = bundles.get(alias[len("bundles."):], []) if alias.startswith("bundles.") else [alias]
        for name in names:
            lib = libs.get(name)
            if lib is not None:
                d = dict(lib, scope=conf)
                if platform:
                    d.update(scope="import", type="pom")
                out.append((pos, d))
    return [d for _, d in sorted(out, key=lambda t: t[0])]


def _find_up(start: Path, rel: str, root: Path | None = None) -> Path | None:
    """``rel`` in ``start`` or the folders above it (``_gradle._ancestors``: the
    same walk as ``gradle.properties``), never above ``root`` (the project's tree:
    a stranger's repository must not make qare read a catalog from the machine
    around it); without ``root``, ``start`` is the only folder looked in. A
    symlink leading out of ``root`` is not followed."""
    start = start.resolve()
    top = root.resolve() if root is not None else start
    for d in _gradle._ancestors(start, top):
        cand = d / rel
        if is_inside(os.path.realpath(cand), str(top)) and cand.is_file():
            return cand
    return None


def _catalog(catalog: Path, report: ClasspathReport) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """``(libraries, bundles)`` of a version catalog: alias (``-``/``_`` as ``.``) →
    ``{groupId, artifactId, version}``, bundle name → library aliases."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        report.warnings.append((str(catalog), "tomllib unavailable (Python < 3.11); version catalog not read"))
        return {}, {}
    try:
        data = tomllib.loads(_read_build_text(catalog, "strict"))
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        report.warnings.append((str(catalog), f"unreadable version catalog: {why}"))
        return {}, {}

    def alias(k: str) -> str:
        return k.replace("-", ".").replace("_", ".")

    versions = data.get("versions", {})
    libs: dict[str, dict] = {}
    for key, lib in (data.get("libraries") or {}).items():
        if isinstance(lib, str):
            g, a, *rest = lib.split(":") + [None]
            libs[alias(key)] = {"groupId": g, "artifactId": a, "version": rest[0]}
            continue
        if not isinstance(lib, dict):
            continue
        if "module" in lib:
            g, _, a = str(lib["module"]).partition(":")
        else:
            g, a = lib.get("group"), lib.get("name")
        v = lib.get("version")
        if isinstance(v, dict):
            v = versions.get(v.get("ref")) if "ref" in v else v.get("strictly") or v.get("require") or v.get("prefer")
        elif v is None and "version.ref" in lib:
            v = versions.get(lib["version.ref"])
        if isinstance(v, dict):
            v = v.get("strictly") or v.get("require") or v.get("prefer")
        libs[alias(key)] = {"groupId": g, "artifactId": a, "version": v if isinstance(v, str) else None}
    bundles = {alias(k): [alias(x) for x in v if isinstance(x, str)]
               for k, v in (data.get("bundles") or {}).items() if isinstance(v, list)}
    return libs, bundles


# --------------------------------------------------------------------------- real Maven

def maven_build_classpath(project_root: str | os.PathLike, *, offline: bool = True,
                          repo_local: str | os.PathLike | None = None, timeout: float = 300.0,
                          mvn: str | None = None) -> list[Path]:
    """Run Maven's ``dependency:build-classpath`` and return the jars it resolves.

    Parameters
    ----------
    project_root : str or Path
        Folder holding the ``pom.xml``.
    offline : bool
        Pass ``-o`` (no downloads); default True.
    repo_local : str or Path, optional
        ``-Dmaven.repo.local`` (e.g. ``/usr/share/maven-repo``); default Maven's own (``~/.m2/repository``).
    timeout : float
        Seconds before Maven is killed.
    mvn : str, optional
        The ``mvn`` executable; default the one on ``PATH``.

    Returns
    -------
    list[Path]
        Jar paths in Maven's order (transitive ones included; multi-module
        builds: the union over modules, first occurrence wins).

    Raises
    ------
    RuntimeError
        ``mvn`` missing, timed out, or failed (the message ends with Maven's last output lines).

    Notes
    -----
    The plugin is named fully (``org.apache.maven.plugins:maven-dependency-plugin:3.5.0``)
    because offline Maven cannot resolve the ``dependency:`` prefix.
    """
    exe = mvn or shutil.which("mvn")
    if exe is None:
        raise RuntimeError("mvn not found on PATH")
    root = Path(project_root)
    if not (root / "pom.xml").is_file():
        raise RuntimeError(f"no pom.xml in {root}")
    with tempfile.TemporaryDirectory(prefix="qare-mvn-") as tmp:
        out = Path(tmp) / "cp.txt"
        cmd = [exe, "-B", "-q"] + (["-o"] if offline else [])
        if repo_local is not None:
            cmd.append(f"-Dmaven.repo.local={repo_local}")
        cmd += ["org.apache.maven.plugins:maven-dependency-plugin:3.5.0:build-classpath",
                f"-Dmdep.outputFile={out}", "-Dmdep.appendOutput=true"]
        try:
            proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"mvn timed out after {timeout:g} s") from None
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise RuntimeError(f"mvn failed (exit {proc.returncode}):\n{tail}")
        text = out.read_text("utf-8", "replace") if out.is_file() else ""
    jars: dict[Path, None] = {}
    for part in re.split(r"[:\n\r]+", text):
        part = part.strip()
        if part:
            jars.setdefault(Path(part), None)
    return list(jars)
