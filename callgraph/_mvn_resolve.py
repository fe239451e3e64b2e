"""A project's libraries through Maven's own resolver, from a sanitised model.

:func:`resolve_classpath` is the classpath discovery used by ``qare graph``,
``qare chain``, ``qare build`` and ``build_project_graph``:

1. **Maven projects.** Each ``pom.xml`` of the project is copied into a
   temporary folder outside the project, keeping only coordinates, parent,
   properties, dependencies, dependency management, https repositories,
   modules and the profiles active by default or by the JDK version (their dependencies,
   properties and repositories). No ``<build>`` (plugins, extensions), no
   ``.mvn/`` folder, no reporting, no other profiles. Parents that are not in
   the project are fetched as plain poms and sanitised the same way, so no
   pom in the chain brings a plugin or extension. Maven then computes every
   module's compile + test classpath (``test-compile`` on poms without
   sources — see docs/classpath.md for why that phase — and
   ``dependency:list``), the project's own modules coming from the reactor.
2. **Gradle projects.** The coordinates declared in ``build.gradle(.kts)``,
   ``libs.versions.toml`` and ``gradle.properties`` (never running Gradle)
   go into a generated pom, with the Spring Boot / dependency-management
   plugins' BOM imported, and Maven computes the closure.
3. **Fallback.** When ``mvn`` is missing or Maven resolves nothing, the
   hand-written pom model of ``_maven.py`` (local repositories only).

What failed is recorded per artifact with a :class:`~callgraph._mvn.Reason`;
a failing dependency is removed (or excluded where it is transitive) and the
resolution repeated, so the rest of the classpath is kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Iterable

from lxml import etree

from . import _gradle, _gradle_platform, _maven
from ._coords import coordinate_problem, inside as _inside
from .safefs import is_inside, make_private_dirs, write_private
from ._mvn import DEPENDENCY_PLUGIN, Failure, MavenClient, MvnRun, Reason, Transfer, ga_of, parse_failures

__all__ = ["Artifact", "Method", "ResolvedClasspath", "default_repo_local", "resolve_classpath"]

_MAX_MODULES = 300
_MAX_ROUNDS = 5
_MAX_PARENT_DEPTH = 12
_MAX_TEXT = 4096
_POM_NS = "http://maven.apache.org/POM/4.0.0"
_OUT_FILE = "qare-deps.txt"
_CACHE_FORMAT = 1


class Method(str, Enum):
    """How a project's dependencies were resolved."""

    MAVEN = "maven"                      # Maven's resolver on the sanitised poms
    GRADLE = "gradle-declared"           # Maven's resolver on Gradle's declared coordinates
    FALLBACK = "fallback"                # qare's offline pom model over local repositories
    NONE = "none"                        # no build file


@dataclass(frozen=True)
class Artifact:
    """A resolved library: Maven coordinates, scope and the file in the local repository."""

    group: str
    artifact: str
    version: str
    scope: str
    path: str
    type: str = "jar"
    classifier: str | None = None

    @property
    def coords(self) -> str:
        """``group:artifact:version`` (``…:type:classifier:version`` when classified)."""
        if self.classifier:
            return f"{self.group}:{self.artifact}:{self.type}:{self.classifier}:{self.version}"
        return f"{self.group}:{self.artifact}:{self.version}"

    def to_dict(self) -> dict:
        return {"coords": self.coords, "scope": self.scope, "path": self.path}


@dataclass(frozen=True)
class ResolvedClasspath:
    """The outcome of :func:`resolve_classpath`.

    Attributes
    ----------
    method : Method
    jars : tuple[Path, ...]
        Library jars, in Maven's order (module by module, first occurrence wins).
    artifacts : tuple[Artifact, ...]
        The resolved artifacts behind ``jars`` (the project's own modules excluded).
    unresolved : tuple[Failure, ...]
        What could not be resolved, with the reason.
    warnings : tuple[tuple[str, str], ...]
        ``(file, reason)``: refused pom content, unreadable build files.
    downloads : int
        Files downloaded (0 on a warm cache).
    bytes_downloaded : int
    seconds : float
        Wall time of the resolution.
    repo_local : str
        The local repository used.
    build_files : tuple[Path, ...]
    from_cache : bool
        The result of an earlier identical resolution was reused (no ``mvn`` run).
    repositories : tuple[str, ...]
        The https repositories the project declares (besides Maven Central),
        passed on to documentation fetching.
    """

    method: Method
    jars: tuple[Path, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    unresolved: tuple[Failure, ...] = ()
    warnings: tuple[tuple[str, str], ...] = ()
    downloads: int = 0
    bytes_downloaded: int = 0
    seconds: float = 0.0
    repo_local: str = ""
    build_files: tuple[Path, ...] = ()
    from_cache: bool = False
    repositories: tuple[str, ...] = ()

    @property
    def missing(self) -> list[str]:
        """Coordinates not resolved (the offline model's ``missing`` vocabulary)."""
        return [f.coords for f in self.unresolved]

    def to_dict(self) -> dict:
        """The record kept in ``projects.jsonl`` (paths of jars left out)."""
        return {
            "method": self.method.value,
            "artifacts": [a.coords for a in self.artifacts],
            "unresolved": [f.to_dict() for f in self.unresolved],
            "warnings": [list(w) for w in self.warnings[:50]],
            "downloads": self.downloads,
            "bytes_downloaded": self.bytes_downloaded,
            "seconds": round(self.seconds, 3),
            "from_cache": self.from_cache,
            "repo_local": self.repo_local,
        }


REPO_LOCAL_ENV = "QARE_MAVEN_REPO_LOCAL"


def default_repo_local() -> Path:
    """The local Maven repository used when no ``--maven-repo-local`` / ``--user-m2``
    is given: ``$QARE_MAVEN_REPO_LOCAL`` when set (``~`` expanded, a relative path
    taken from the current folder), else qare's ``<cache>/m2/repository``
    (``$QARE_CACHE_DIR``, else ``$XDG_CACHE_HOME/qare``, else ``~/.cache/qare``; a
    disabled cache falls back to ``~/.cache/qare``, because downloaded jars must live
    somewhere).

    ``QARE_MAVEN_REPO_LOCAL`` is the environment's form of ``--maven-repo-local``:
    the user's own choice of folder: :func:`cache_refusal` checks the whole path
    from the cache root when it lies under qare's cache folder, else the folder
    itself (owned by the user, not writable by others). It lets a private cache share an existing
    repository's jars (the test suite runs on a fresh cache with the user's), which
    a symlink cannot: the privacy check refuses a cache folder that leads outside
    itself (docs/classpath.md "Another repository for every command")."""
    env = os.environ.get(REPO_LOCAL_ENV)
    if env:
        return Path(os.path.abspath(os.path.expanduser(env)))
    return _cache_base() / "m2" / "repository"


def _cache_base() -> Path:
    from .classpath import _cache_dir

    return _cache_dir() or Path(os.path.expanduser("~")) / ".cache" / "qare"


def cache_refusal(repo_local: Path) -> Failure | None:
    """Why the local repository ``repo_local`` must not be used, or None.

    Maven runs the plugins it finds in its local repository, and a planted
    ``resolved/*.json`` beside it would decide the classpath (docs/security.md
    "Caches"), so:

    - a repository named inside qare's cache folder (by its path as given, or
      by its real path) must pass :func:`safefs.check_private` from the cache
      root down to it and to the resolution cache beside it (``m2/resolved``);
      a symlink there leading outside the cache is refused (tester, session
      6: ``<cache>/m2/repository`` linked to a mode-777 folder skipped the
      check and a planted plugin ran);
    - a repository elsewhere (``--user-m2``, ``--maven-repo-local``,
      ``$QARE_MAVEN_REPO_LOCAL``) is the user's choice of folder, but the
      folder itself and its ``resolved/`` sibling must still be owned by the
      user (or root) and not writable by others — the check JDT's and
      Vineflower's jars get."""
    from .safefs import FolderNotPrivate, check_private

    top = _cache_base()
    inside = (is_inside(os.path.abspath(repo_local), os.path.abspath(top))
              or is_inside(os.path.realpath(repo_local), os.path.realpath(top)))
    try:
        if inside:
            check_private(top, repo_local)
            check_private(top, repo_local.parent / "resolved")
        else:
            check_private(repo_local)
            check_private(repo_local.parent / "resolved")
    except FolderNotPrivate as e:
        if inside:
            what, fix = "the cache folder", ("Make it private to you (chmod 700, owned by you) or set "
                                             "QARE_CACHE_DIR to a private folder")
        else:
            what, fix = "the repository's folder", "Make it yours and writable only by you, or name another"
        return Failure("*", Reason.CACHE_NOT_PRIVATE,
                       f"refusing the local Maven repository: {what} {e.filename} is {e.strerror}; "
                       f"Maven would run plugins others may have planted there. {fix}", e.filename)
    try:
        st = os.stat(repo_local)
    except OSError:
        return None  # not made yet: made (private under the cache) before Maven runs
    if not stat.S_ISDIR(st.st_mode):  # a FIFO, a device, a file named as the repository: a failure, not a traceback
        return Failure("*", Reason.REFUSED, f"the local Maven repository {repo_local} is not a folder", str(repo_local))
    return None
    try:
        check_private(top, repo_local)
        check_private(top, repo_local.parent / "resolved")
    except FolderNotPrivate as e:
        return Failure("*", Reason.CACHE_NOT_PRIVATE,
                       f"refusing the local Maven repository: the cache folder {e.filename} is {e.strerror}; "
                       "Maven would run plugins others may have planted there. Make it private to you "
                       f"(chmod 700, owned by you) or set QARE_CACHE_DIR to a private folder", e.filename)
    return None


# --------------------------------------------------------------------------- the sanitised model

# Element → the children kept (anything not listed is dropped); elements not in this
# table are leaves whose text is kept. <properties> keeps any leaf child.
_SCHEMA: dict[str, tuple[str, ...]] = {
    "project": ("modelVersion", "groupId", "artifactId", "version", "packaging", "parent", "properties",
                "dependencyManagement", "dependencies", "repositories", "modules", "profiles"),
    "parent": ("groupId", "artifactId", "version", "relativePath"),
    "dependencyManagement": ("dependencies",),
    "dependencies": ("dependency",),
    "dependency": ("groupId", "artifactId", "version", "type", "classifier", "scope", "systemPath", "optional",
                   "exclusions"),
    "exclusions": ("exclusion",),
    "exclusion": ("groupId", "artifactId"),
    "repositories": ("repository",),
    "repository": ("id", "url", "layout", "releases", "snapshots"),
    "releases": ("enabled", "updatePolicy"),
    "snapshots": ("enabled", "updatePolicy"),
    "modules": ("module",),
    "profiles": ("profile",),
    "profile": ("id", "activation", "properties", "dependencyManagement", "dependencies", "repositories"),
    "activation": ("activeByDefault", "jdk"),
}
# <activation><jdk>: a version or range of the JDK running Maven (data: Maven compares it)
_JDK_RANGE = re.compile(r"^!?[\[(]?[0-9][0-9.]*(?:\s*,\s*[0-9.]*)?[\])]?$|^!?[\[(]\s*,\s*[0-9][0-9.]*[\])]$")
_XML_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")


def _local(tag) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _copy(el, name: str):
    new = etree.Element(name)
    if name == "properties":
        for c in el:
            ln = _local(c.tag)
            if ln and _XML_NAME.match(ln):
                p = etree.SubElement(new, ln)
                p.text = (c.text or "").strip()[:_MAX_TEXT]
        return new
    kids = _SCHEMA.get(name)
    if kids is None:
        new.text = (el.text or "").strip()[:_MAX_TEXT]
        return new
    for c in el:
        ln = _local(c.tag)
        if ln in kids:
            new.append(_copy(c, ln))
    return new


def _child(el, name):
    for c in el:
        if c.tag == name or _local(c.tag) == name:
            return c
    return None


def _text(el, name, default=None):
    c = _child(el, name) if el is not None else None
    return c.text.strip() if c is not None and c.text and c.text.strip() else default


@dataclass
class _Pom:
    """One sanitised pom and where it came from."""

    source: Path | None           # the project's pom (None: a remote parent or generated)
    rel: str                      # where it goes under the work folder
    tree: object                  # the sanitised <project> element
    ga: tuple[str, str]
    version: str | None


def _kept_profile(p, orig) -> bool:
    """Whether Maven, run here on the project, would activate the profile by
    itself: active by default, or activated by nothing but the running JDK's
    version (``<jdk>[11,22)</jdk>``: commons-text picks its Mockito that way). A
    profile that also needs an OS, a property or a file is left out (all of an
    activation's conditions must hold; those depend on the machine or the
    command line); its ``activeByDefault`` then still decides, as before."""
    act = _child(p, "activation")
    if act is None:
        return False
    if _text(act, "activeByDefault") == "true":
        return True
    oact = _child(orig, "activation")
    conditions = {_local(c.tag) for c in oact if _local(c.tag)} - {"activeByDefault"} if oact is not None else set()
    jdk = _text(act, "jdk", "")
    if conditions == {"jdk"} and _JDK_RANGE.match(jdk.replace(" ", "")):
        return True
    jdk_el = _child(act, "jdk")
    if jdk_el is not None:
        act.remove(jdk_el)
    return False


def sanitise(root, where: str, warnings: list, inherited: dict[str, str] | None = None):
    """The sanitised copy of a parsed ``<project>`` element (see the module docstring).

    Refused parts are left out with a ``(where, reason)`` warning: repositories that
    are not https (plain http too) or whose URL uses ``${…}``; values referring to
    ``${env.…}``, ``${settings.…}`` or a Java system property of the machine
    (``${user.home}``, ``${user.name}``, ``${java.home}``, ``${os.name}``, … not defined
    by the pom's own properties), directly or through a property; properties whose expansion is refused
    by :func:`callgraph._maven._interpolate` (cycles, depth, length), profiles not
    active by default or by the running JDK's version alone (:func:`_kept_profile`)."""
    out = _copy(root, "project")
    if _child(out, "modelVersion") is None:
        mv = etree.Element("modelVersion")
        mv.text = "4.0.0"
        out.insert(0, mv)
    pk = _child(out, "packaging")
    if pk is not None and pk.text != "pom":
        pk.text = "jar"   # war, bundle, ...: the same dependencies; no lifecycle of a plugin's packaging
    profiles = _child(out, "profiles")
    if profiles is not None:
        src = _child(root, "profiles")
        originals = [p for p in src if _local(p.tag) == "profile"] if src is not None else []
        for p, orig in zip(list(profiles), originals):
            if not _kept_profile(p, orig):
                profiles.remove(p)
        if not len(profiles):
            out.remove(profiles)
    for repos in out.iter("repositories"):
        for r in list(repos):
            url = _text(r, "url", "")
            if not _REPO_URL.match(url):
                why = ("plain http: Maven 3.8.1+ blocks it, and anyone on the way could swap the jars"
                       if url.lower().startswith("http:") else "only https URLs without ${…}")
                warnings.append((where, f"repository {_text(r, 'id', '?')} refused: URL {url[:100]!r} ({why})"))
                repos.remove(r)
    # ${env.X} / ${settings.X}: Maven fills them in from its environment and settings, and
    # a pom can send them to a server in a URL (classifier, type, version, ...): never kept
    refused: set[str] = set()  # properties removed: a value still naming one would reach Maven as "${x}"
    for el in list(out.iter()):
        if len(el) == 0 and _ENV_REF.search(el.text or "") and el.getparent() is not None:
            warnings.append((where, f"{_path_of(el)} refused: {(el.text or '')[:100]!r} refers to Maven's "
                                    "environment or settings (${env.…}, ${settings.…})"))
            if _local(el.getparent().tag) == "properties":
                refused.add(el.tag)
            el.getparent().remove(el)
    # properties: refuse values whose expansion is unbounded (issue 15 item 5)
    props = dict(inherited or {})
    for pe in out.iter("properties"):
        for c in pe:
            props[c.tag] = c.text or ""
    for pe in out.iter("properties"):
        for c in list(pe):
            if "${" in (c.text or ""):
                try:
                    _maven._interpolate(c.text, props)
                except _maven.PropertyExpansionError as e:
                    warnings.append((where, f"property {c.tag} refused: {e}"))
                    pe.remove(c)
                    props.pop(c.tag, None)
                    refused.add(c.tag)
    # the same through a property of the chain: what a value expands to must not refer to them either
    for el in list(out.iter()):
        if len(el) == 0 and "${" in (el.text or "") and el.getparent() is not None:
            try:
                expanded = _maven._interpolate(el.text, props)
            except _maven.PropertyExpansionError:
                continue
            gone = next((m.group(1) for m in _maven._PROP.finditer(expanded) if m.group(1) in refused), None)
            if gone is not None:
                # left in, Maven would use the literal text "${x}" (a type, classifier or version
                # that exists nowhere) and fail the whole module
                warnings.append((where, f"{_path_of(el)} dropped: {el.text[:100]!r} refers to the refused "
                                        f"property {gone}"))
                el.getparent().remove(el)
            elif _ENV_REF.search(expanded):
                warnings.append((where, f"{_path_of(el)} refused: {el.text[:100]!r} expands to a reference to "
                                        "Maven's environment or settings"))
                el.getparent().remove(el)
            elif (m := _SYSPROP_REF.search(expanded)) is not None:
                # ${user.home}, ${user.name}, ${java.home}, ...: Maven fills in the JVM's system
                # properties when the model does not define the name — the machine's paths and
                # user name, which a pom can send to a server in a request URL
                warnings.append((where, f"{_path_of(el)} refused: {el.text[:100]!r} refers to the Java system "
                                        f"property {m.group(1)!r} (the machine's, not the project's)"))
                el.getparent().remove(el)
    return out, props


_ENV_REF = re.compile(r"\$\{\s*(?:env|settings)\.", re.I)
#: Java system properties that describe the machine (JDK's System.getProperties() keys and
#: those the mvn launcher sets); referred to in a pom and not defined by it, Maven fills them in
_SYSPROP_REF = re.compile(r"\$\{\s*((?:user|java|os|sun|jdk|file|path|line|native|stdout|stderr|awt|library|"
                          r"classworlds)\.[\w.-]*|maven\.(?:home|conf|repo\.local|multiModuleProjectDirectory|"
                          r"version|build\.version))\s*\}")
#: a repository URL kept in a sanitised pom: https only, no ${…}, no blank
_REPO_URL = re.compile(r"^https://[^\s${}]+$", re.I)


def _path_of(el) -> str:
    """``property NAME`` for a property, else the element's path below <project> (for warnings)."""
    parent = el.getparent()
    if parent is not None and parent.tag == "properties":
        return f"property {el.tag}"
    names = []
    while el is not None and el.tag != "project":
        names.append(el.tag)
        el = el.getparent()
    return "/".join(reversed(names))


def _deps(tree, managed: bool = False):
    """The <dependency> elements of a sanitised tree (its profiles' too)."""
    out = []
    for holder in [tree] + [p for ps in tree.findall("profiles") for p in ps]:
        if managed:
            dm = _child(holder, "dependencyManagement")
            holder = dm if dm is not None else None
            if holder is None:
                continue
        ds = _child(holder, "dependencies")
        if ds is not None:
            out += [d for d in ds if d.tag == "dependency"]
    return out


def _gav(tree) -> tuple[str, str, str]:
    """A sanitised pom's coordinates as Maven reads them for parent matching: its own
    groupId/version, else its parent's; as written, not interpolated."""
    par = _child(tree, "parent")
    return (_text(tree, "groupId") or _text(par, "groupId") or "", _text(tree, "artifactId") or "",
            _text(tree, "version") or _text(par, "version") or "")


_CI_VERSION = re.compile(r"^(?:[\w.\-+]|\$\{(?:revision|sha1|changelist)\})+$")


def _plain_version(v: str) -> bool:
    """A literal version (no range, no property)."""
    return bool(v) and re.fullmatch(r"[\w.\-+]+", v) is not None


def _linkable_version(v: str) -> bool:
    """A parent version Maven matches as written: literal, or with the CI-friendly
    ``${revision}``/``${sha1}``/``${changelist}`` (the same text on both sides)."""
    return bool(v) and _CI_VERSION.fullmatch(v) is not None


def _write(tree, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(etree.tostring(tree, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def _repo_path(repo: Path, g: str, a: str, v: str, ext: str = "pom", classifier: str | None = None) -> Path:
    """The file of ``g:a:v`` in the local repository ``repo``.

    Raises ``ValueError`` for coordinates that break Maven's rules
    (:func:`callgraph._coords.coordinate_problem`: ``..``, ``/``, an absolute
    artifactId would lead out of ``repo``) or a path that ends outside ``repo``."""
    why = coordinate_problem(g, a, v, classifier, ext)
    if why is not None:
        raise ValueError(why)
    p = repo.joinpath(*g.split("."), a, v, f"{a}-{v}" + (f"-{classifier}" if classifier else "") + f".{ext}")
    if not _inside(p, repo):
        raise ValueError(f"{g}:{a}:{v} leads outside the local repository")
    return p


# --------------------------------------------------------------------------- the work folder


class _Work:
    """The temporary folder Maven runs in: ``tree/`` mirrors the project's pom
    layout, ``parents/g/a/v/pom.xml`` holds sanitised remote parents, ``pom.xml`` is the aggregator."""

    def __init__(self, root: Path, client: MavenClient, progress: Callable | None):
        self.root = root
        self.client = client
        self.progress = progress
        self.dir = Path(tempfile.mkdtemp(prefix="qare-mvn-"))
        self.poms: list[_Pom] = []
        self.parents: dict[tuple[str, str, str], _Pom | None] = {}
        self.warnings: list[tuple[str, str]] = []
        self.failures: list[Failure] = []
        self.runs: list[MvnRun] = []
        self.system_jars: list[Path] = []
        self.repositories: list[str] = []

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(self, args: list[str]) -> MvnRun:
        r = self.client.run(args, self.dir, self.progress)
        self.runs.append(r)
        return r

    # ---------------------------------------------------------------- project poms

    def add_project_poms(self, pom_files: list[Path]) -> None:
        parsed: dict[Path, object] = {}
        real_root = _maven.real_path(self.root)
        for p in pom_files[:_MAX_MODULES]:
            try:
                rp = _maven.real_path(p)
                rp.relative_to(real_root)
            except (OSError, ValueError):
                self.warnings.append((str(p), "pom outside the project (symlink); skipped"))
                continue
            if not rp.is_file() or rp.stat().st_size > _maven._MAX_POM_BYTES:
                self.warnings.append((str(p), "not a regular file or larger than 4 MiB; skipped"))
                continue
            try:
                el = etree.parse(str(rp), _maven._PARSER).getroot()
            except (OSError, etree.XMLSyntaxError) as e:
                self.warnings.append((str(p), f"unreadable pom: {e}"))
                continue
            if _local(el.tag) != "project":
                self.warnings.append((str(p), "not a Maven pom (root is not <project>)"))
                continue
            parsed[rp] = el
        if len(pom_files) > _MAX_MODULES:
            self.warnings.append((str(self.root), f"more than {_MAX_MODULES} poms; the rest not resolved"))
        seen_ga: dict[tuple[str, str], Path] = {}
        for rp, el in parsed.items():
            rel = rp.parent.relative_to(real_root).as_posix()
            where = str(rp)
            tree, props = sanitise(el, where, self.warnings)
            par = _child(tree, "parent")
            g = _text(tree, "groupId") or _text(par, "groupId") or ""
            a = _text(tree, "artifactId") or ""
            v = _text(tree, "version") or _text(par, "version")
            if (g, a) in seen_ga:
                self.warnings.append((where, f"{g}:{a} is also {seen_ga[(g, a)]}; skipped (a reactor holds one)"))
                continue
            seen_ga[(g, a)] = rp
            # modules: only those that are poms of this project (the mirror has the same layout)
            mods = _child(tree, "modules")
            if mods is not None:
                for m in list(mods):
                    target = _maven.real_path(rp.parent / (m.text or ""))
                    if os.path.isdir(target):
                        target = target / "pom.xml"
                    if target not in parsed or target.name != "pom.xml":
                        mods.remove(m)
            self._system_deps(tree, rp, where, props)
            self.poms.append(_Pom(rp, f"tree/{rel}" if rel != "." else "tree", tree, (g, a), v))
        for repos in (r for pm in self.poms for r in pm.tree.iter("repositories")):
            for r in repos:
                url = _text(r, "url")
                if url and url not in self.repositories:
                    self.repositories.append(url)

    def _system_deps(self, tree, pom_path: Path | None, where: str, props: dict[str, str]) -> None:
        """``system`` scope: the jar is used when it lies inside the project; the dependency
        leaves the sanitised pom (its path would point into our temporary folder).

        Scope and systemPath are judged after property expansion (``<scope>${s}</scope>``
        with ``s=system`` is system scope too); a scope still holding ``${…}`` (a property
        the pom does not define) is refused, as is system scope in dependencyManagement
        or in a remote parent (``pom_path`` ``None``): Maven would read any file of the
        machine. A systemPath on another scope is removed (Maven ignores it)."""
        def expand(s: str) -> str:
            if pom_path is not None:
                s = s.replace("${project.basedir}", str(pom_path.parent)).replace("${basedir}", str(pom_path.parent))
            try:
                return _maven._interpolate(s, props)
            except _maven.PropertyExpansionError:
                return s if "${" in s else "${"
        managed = _deps(tree, managed=True)
        for d in _deps(tree) + managed:
            scope = expand(_text(d, "scope", "") or "")
            spe = _child(d, "systemPath")
            if scope != "system" and "${" not in scope:
                if spe is not None:
                    d.remove(spe)
                continue
            sp = expand(_text(d, "systemPath", "") or "")
            d.getparent().remove(d)
            coords = f"{_text(d, 'groupId')}:{_text(d, 'artifactId')}:{_text(d, 'version', '?')}"
            if "${" in scope or d in managed or pom_path is None:
                why = ("scope uses a property the pom does not define" if "${" in scope else
                       "system scope in dependencyManagement" if d in managed else "system scope in a remote parent")
                self.failures.append(Failure(coords, Reason.REFUSED, why + "; dependency left out", where))
                continue
            try:
                real = _maven.real_path(Path(sp))
                real.relative_to(_maven.real_path(self.root))
                ok = "${" not in sp and Path(sp).is_absolute() and real.is_file()
            except (OSError, ValueError):
                ok = False
            if ok:
                self.system_jars.append(real)
            else:
                self.failures.append(Failure(coords, Reason.REFUSED,
                                             f"system scope: {sp!r} is not a file inside the project", where))

    def own_gas(self) -> set[tuple[str, str]]:
        return {pm.ga for pm in self.poms}

    # ---------------------------------------------------------------- parents

    def link_parents(self) -> None:
        """Point every pom's <parent> at a sanitised copy: the project's own pom
        (same relative path in the mirror) or a remote parent under ``parents/``."""
        by_src = {pm.source: pm for pm in self.poms if pm.source is not None}
        remote: list[tuple[_Pom, tuple[str, str, str]]] = []
        for pm in self.poms:
            par = _child(pm.tree, "parent")
            if par is None:
                continue
            gav = (_text(par, "groupId", ""), _text(par, "artifactId", ""), _text(par, "version", ""))
            relc = _child(par, "relativePath")
            rel = "../pom.xml" if relc is None else (relc.text or "").strip()
            local = None
            if rel and pm.source is not None:
                cand = _maven.real_path(pm.source.parent / rel)
                if os.path.isdir(cand):
                    cand = cand / "pom.xml"
                local = by_src.get(cand)
            # Maven takes the pom at relativePath only when its groupId:artifactId:version equal the
            # <parent>'s as written (a version range aside); otherwise it reads the parent from the
            # repository, where the original, unsanitised pom is. So a local copy is linked only on
            # the same full coordinates (then Maven accepts it); anything else is fetched and
            # sanitised by qare, or dropped.
            if local is not None and _gav(local.tree) == gav and _linkable_version(gav[2]):
                if relc is None:
                    relc = etree.SubElement(par, "relativePath")
                relc.text = os.path.relpath(self.dir / local.rel / "pom.xml", self.dir / pm.rel)
                continue
            bad = coordinate_problem(*gav) if all(gav) else None
            if not all(gav) or not _plain_version(gav[2]) or "${" in "".join(gav) or bad:
                why = ("parent version differs from the project's pom at its relativePath and uses properties"
                       if local is not None and local.ga == gav[:2] and not bad else
                       f"parent coordinates refused ({bad})" if bad else
                       "parent coordinates incomplete, a version range, or use properties")
                self.failures.append(Failure(":".join(gav), Reason.PARENT, why + "; resolved without the parent",
                                             str(pm.source)))
                self._drop_parent(pm, par)
                continue
            remote.append((pm, gav))
        if remote:
            self._fetch_parents({gav for _, gav in remote})
        for pm, gav in remote:
            cp = self._remote_parent(gav, 0)
            par = _child(pm.tree, "parent")
            if cp is None:
                self._drop_parent(pm, par)
                continue
            relc = _child(par, "relativePath")
            if relc is None:
                relc = etree.SubElement(par, "relativePath")
            relc.text = os.path.relpath(self.dir / cp.rel / "pom.xml", self.dir / pm.rel)

    def _drop_parent(self, pm: _Pom, par) -> None:
        """Resolve without the parent: its groupId/version are written into the pom."""
        for k in ("groupId", "version"):
            if _child(pm.tree, k) is None and _text(par, k):
                e = etree.Element(k)
                e.text = _text(par, k)
                pm.tree.insert(1, e)
        pm.tree.remove(par)

    def _fetch_parents(self, gavs: set[tuple[str, str, str]]) -> None:
        """Bring remote parent poms (and, through Maven's model builder, their own
        parents) into the local repository with one run on a generated pom that
        depends on each as ``type=pom`` with everything excluded."""
        missing = sorted(g for g in gavs if not _repo_path(self.client.repo_local, *g).is_file())
        if not missing:
            return
        tree = _generated_pom("qare.parents", [{"groupId": g, "artifactId": a, "version": v, "type": "pom",
                                                "exclude_all": True} for g, a, v in missing], [], self.repositories,
                               warnings=self.warnings)
        _write(tree, self.dir / "fetch-parents" / "pom.xml")
        r = self.run(["-f", "fetch-parents/pom.xml", f"{DEPENDENCY_PLUGIN}:list"])
        if r.returncode != 0:
            for f in parse_failures(r.lines):
                self.failures.append(Failure(f.coords, Reason.PARENT if f.reason == Reason.OTHER else f.reason,
                                             "parent pom: " + f.detail))

    def _remote_parent(self, gav: tuple[str, str, str], depth: int) -> _Pom | None:
        if gav in self.parents:
            return self.parents[gav]
        self.parents[gav] = None
        path = _repo_path(self.client.repo_local, *gav)
        if not path.is_file():
            if not any(f.coords.startswith(":".join(gav[:2])) for f in self.failures):
                self.failures.append(Failure(":".join(gav), Reason.NOT_CACHED if self.client.offline else Reason.PARENT,
                                             "parent pom not in the local repository"))
            return None
        try:
            el = etree.parse(str(path), _maven._PARSER).getroot()
        except (OSError, etree.XMLSyntaxError) as e:
            self.failures.append(Failure(":".join(gav), Reason.PARENT, f"unreadable parent pom: {e}"))
            return None
        tree, props = sanitise(el, str(path), self.warnings)
        self._system_deps(tree, None, str(path), props)
        if _gav(tree) != gav:
            # Maven would refuse this copy at relativePath and read g:a:v from the local
            # repository instead: the unsanitised file
            self.failures.append(Failure(":".join(gav), Reason.PARENT, "the repository's pom for the parent says "
                                         f"it is {':'.join(x or '?' for x in _gav(tree))}; resolved without the parent"))
            return None
        mods = _child(tree, "modules")
        if mods is not None:
            tree.remove(mods)
        pm = _Pom(None, "parents/" + "/".join(gav), tree, gav[:2], gav[2])
        self.parents[gav] = pm
        par = _child(tree, "parent")
        if par is not None:
            pgav = (_text(par, "groupId", ""), _text(par, "artifactId", ""), _text(par, "version", ""))
            cp = None
            if all(pgav) and coordinate_problem(*pgav) is None and depth < _MAX_PARENT_DEPTH:
                if not _repo_path(self.client.repo_local, *pgav).is_file():
                    self._fetch_parents({pgav})
                cp = self._remote_parent(pgav, depth + 1)
            if cp is None:
                self._drop_parent(pm, par)
            else:
                relc = _child(par, "relativePath")
                if relc is None:
                    relc = etree.SubElement(par, "relativePath")
                relc.text = os.path.relpath(self.dir / cp.rel / "pom.xml", self.dir / pm.rel)
        return pm

    # ---------------------------------------------------------------- writing and running

    def check_parent_links(self) -> None:
        """The last guard before Maven runs: every <parent> left points (explicit relativePath)
        at a sanitised copy with the same groupId:artifactId:version as written, so Maven
        never falls back to reading a parent from a repository; any other parent is dropped."""
        everyone = self.poms + [p for p in self.parents.values() if p is not None]
        by_rel = {os.path.normpath(pm.rel): pm for pm in everyone}
        for pm in everyone:
            par = _child(pm.tree, "parent")
            if par is None:
                continue
            gav = (_text(par, "groupId", ""), _text(par, "artifactId", ""), _text(par, "version", ""))
            relc = _child(par, "relativePath")
            target = None
            if relc is not None and (relc.text or "").endswith("pom.xml"):
                target = by_rel.get(os.path.normpath(os.path.join(pm.rel, os.path.dirname(relc.text))))
            if target is None or _gav(target.tree) != gav or not _linkable_version(gav[2]):
                self.failures.append(Failure(":".join(gav), Reason.PARENT, "no sanitised copy of the parent with "
                                             "these coordinates; resolved without the parent",
                                             str(pm.source) if pm.source else None))
                self._drop_parent(pm, par)

    def write_all(self) -> None:
        self.check_parent_links()
        for pm in self.poms + [p for p in self.parents.values() if p is not None]:
            out = self.dir / pm.rel / "pom.xml"
            if not _inside(out, self.dir):  # coordinates are checked before; this is the last guard
                raise ValueError(f"{pm.rel!r} leads outside the work folder")
            _write(pm.tree, out)
        agg = etree.Element("project")
        for k, v in (("modelVersion", "4.0.0"), ("groupId", "qare.reactor"), ("artifactId", "aggregator"),
                     ("version", "0"), ("packaging", "pom")):
            etree.SubElement(agg, k).text = v
        mods = etree.SubElement(agg, "modules")
        included = set()
        for pm in self.poms:
            mods_el = _child(pm.tree, "modules")
            for m in (mods_el if mods_el is not None else ()):
                t = os.path.normpath((Path(pm.rel) / (m.text or "")).as_posix())
                included.add(t[:-len("/pom.xml")] if t.endswith("/pom.xml") else t)
        for pm in self.poms:
            if os.path.normpath(pm.rel) not in included:
                etree.SubElement(mods, "module").text = pm.rel
        _write(agg, self.dir / "pom.xml")

    def exclude(self, gas: set[tuple[str, str]]) -> None:
        """Remove dependencies on ``gas`` and exclude them below every other dependency."""
        for pm in self.poms + [p for p in self.parents.values() if p is not None]:
            for d in _deps(pm.tree):
                ga = (_text(d, "groupId", ""), _text(d, "artifactId", ""))
                if ga in gas:
                    d.getparent().remove(d)
                    continue
                ex = _child(d, "exclusions")
                if ex is None:
                    ex = etree.SubElement(d, "exclusions")
                have = {(_text(x, "groupId"), _text(x, "artifactId")) for x in ex}
                for g, a in sorted(gas - have):
                    x = etree.SubElement(ex, "exclusion")
                    etree.SubElement(x, "groupId").text = g
                    etree.SubElement(x, "artifactId").text = a or "*"

    def resolve(self) -> list[Artifact]:
        """Rounds of ``test-compile dependency:list`` until every module resolves or
        no failure is left to remove (at most ``_MAX_ROUNDS``)."""
        excluded: set[tuple[str, str]] = set()
        outputs: dict[str, list[Artifact]] = {}
        last: list[Failure] = []
        for _ in range(_MAX_ROUNDS):
            self.write_all()
            for pm in self.poms:
                (self.dir / pm.rel / _OUT_FILE).unlink(missing_ok=True)
            # test-compile on folders without sources runs no compiler and no project plugin
            # (the poms have no <build>); it is there so the reactor hands out the project's
            # own modules (MNG: a reactor artifact is found only once its phase has run).
            r = self.run(["-fae", "-f", "pom.xml", "-Dmaven.main.skip=true", "-Dmaven.test.skip=true",
                          "-Dmaven.resources.skip=true", "-Dmaven.source.skip=true", "test-compile",
                          f"{DEPENDENCY_PLUGIN}:list", f"-DoutputFile={_OUT_FILE}",
                          "-DoutputAbsoluteArtifactFilename=true", "-DappendOutput=false"])
            outputs = {}
            for pm in self.poms:
                f = self.dir / pm.rel / _OUT_FILE
                if f.is_file():
                    outputs[pm.rel] = _parse_list(f.read_text("utf-8", "replace"))
            if r.timed_out:
                last = [Failure("*", Reason.TIMEOUT, f"mvn timed out after {self.client.timeout:g} s")]
                break
            if r.returncode == 0:
                last = []
                break
            last = parse_failures(r.lines)
            if any(f.detail.startswith("Maven's own plugin") for f in last):
                self.failures += last   # no dependency to remove: nothing resolves without the plugin
                break
            own = self.own_gas()
            new = {ga_of(f.coords) for f in last} - excluded - own
            self.failures += [f for f in last if ga_of(f.coords) not in excluded | own]
            if not new:
                break
            excluded |= new
            self.exclude(new)
        failed_modules = [pm for pm in self.poms if pm.rel not in outputs]
        if failed_modules and r.returncode != 0:
            errors = [ln for ln in r.lines if ln.startswith("[ERROR]") and len(ln) > 12]
            tail = next((ln for ln in errors if "Failed to execute" in ln or "has " in ln), errors[0] if errors
                        else r.tail(1))
            why = Reason.TIMEOUT if r.timed_out else (last[0].reason if last else Reason.OTHER)
            for pm in failed_modules:
                self.failures.append(Failure(":".join(pm.ga), why,
                                             "module not resolved: " + tail[:400], str(pm.source)))
        own_dirs = str(self.dir)
        arts: dict[tuple, Artifact] = {}
        for pm in self.poms:
            for a in outputs.get(pm.rel, ()):
                if a.path.startswith(own_dirs) or (a.group, a.artifact) in self.own_gas():
                    continue   # a module of the project: sources, not a library
                arts.setdefault((a.group, a.artifact, a.classifier, a.type), a)
        return list(arts.values())


_LIST_LINE = re.compile(r"^\s+(?P<id>[^\s:]+:[^\s:]+:[^\s:]+(?::[^\s:]+){2,3}?):(?P<path>/.*?)(?: -- module .*)?\s*$")
_SCOPES = ("compile", "provided", "runtime", "test", "system")


def _parse_list(text: str) -> list[Artifact]:
    """``dependency:list`` output (``-DoutputAbsoluteArtifactFilename``): lines
    ``   g:a:type[:classifier]:version:scope:/path[ -- module name]``."""
    out = []
    for line in text.splitlines():
        m = _LIST_LINE.match(line)
        if not m:
            continue
        parts = m["id"].split(":")
        if parts[-1] not in _SCOPES:
            continue
        if len(parts) == 5:
            g, a, t, v, s = parts
            c = None
        elif len(parts) == 6:
            g, a, t, c, v, s = parts
        else:
            continue
        out.append(Artifact(g, a, v, s, m["path"].strip(), t, c))
    return out


def _generated_pom(group: str, deps: list[dict], boms: list[tuple[str, str, str]], repositories: list[str],
                   artifact: str = "project", warnings: list | None = None, managed: list[dict] = ()):
    """A pom of our own: ``deps`` (dicts with groupId, artifactId, version, scope, type,
    classifier, ``exclude_all``), ``managed`` versions (groupId, artifactId, version) and
    ``boms`` imported in dependencyManagement (Maven: a managed entry wins over a BOM's).

    A dependency or BOM whose coordinates break Maven's rules or use ``${…}`` in any
    field (:func:`callgraph._coords.coordinate_problem`; Maven would fill
    ``${env.HOME}`` in a classifier and send it to the repository) is left out,
    with a ``(coordinates, reason)`` warning appended to ``warnings``."""
    def refused(coords: str, why: str | None) -> bool:
        if why is not None and warnings is not None:
            warnings.append((coords[:200], f"refused: {why}"))
        return why is not None

    managed = [m for m in managed if not refused(
        ":".join(str(m.get(k) or "") for k in ("groupId", "artifactId", "version")),
        coordinate_problem(*(None if m.get(k) is None else str(m[k]) for k in ("groupId", "artifactId", "version"))))]
    boms = [b for b in boms if not refused(":".join(b), coordinate_problem(*b, type="pom", scope="import"))]
    deps = [d for d in deps if not refused(
        ":".join(str(d.get(k) or "") for k in ("groupId", "artifactId", "version", "classifier")),
        coordinate_problem(*(None if d.get(k) is None else str(d[k])
                             for k in ("groupId", "artifactId", "version", "classifier", "type", "scope"))))]
    p = etree.Element("project")
    for k, v in (("modelVersion", "4.0.0"), ("groupId", group), ("artifactId", artifact), ("version", "0")):
        etree.SubElement(p, k).text = v
    if repositories:
        rs = etree.SubElement(p, "repositories")
        for i, url in enumerate(repositories):
            r = etree.SubElement(rs, "repository")
            etree.SubElement(r, "id").text = f"project-{i}"
            etree.SubElement(r, "url").text = url
    if boms or managed:
        dm = etree.SubElement(etree.SubElement(p, "dependencyManagement"), "dependencies")
        for m in managed:
            d = etree.SubElement(dm, "dependency")
            for k in ("groupId", "artifactId", "version"):
                etree.SubElement(d, k).text = str(m[k])[:_MAX_TEXT]
        for g, a, v in boms:
            d = etree.SubElement(dm, "dependency")
            for k, val in (("groupId", g), ("artifactId", a), ("version", v), ("type", "pom"), ("scope", "import")):
                etree.SubElement(d, k).text = val
    ds = etree.SubElement(p, "dependencies")
    for dep in deps:
        d = etree.SubElement(ds, "dependency")
        for k in ("groupId", "artifactId", "version", "type", "classifier", "scope"):
            if dep.get(k):
                etree.SubElement(d, k).text = str(dep[k])[:_MAX_TEXT]
        if dep.get("exclude_all"):
            x = etree.SubElement(etree.SubElement(d, "exclusions"), "exclusion")
            etree.SubElement(x, "groupId").text = "*"
            etree.SubElement(x, "artifactId").text = "*"
    return p


# --------------------------------------------------------------------------- Gradle

_GRADLE_SCOPE = {"implementation": "compile", "api": "compile", "compile": "compile", "compileOnlyApi": "compile",
                 "compileOnly": "provided", "provided": "provided", "annotationProcessor": "provided",
                 "kapt": "provided", "developmentOnly": "runtime", "runtimeOnly": "runtime", "runtime": "runtime",
                 "testImplementation": "test", "testCompileOnly": "test", "testRuntimeOnly": "test",
                 "testCompile": "test", "testAndDevelopmentOnly": "test", "testAnnotationProcessor": "test"}
_SCOPE_RANK = {"compile": 0, "provided": 1, "runtime": 2, "test": 3}
_BOOT_PLUGIN = re.compile(r"""id\s*\(?\s*["']org\.springframework\.boot["']\s*\)?\s*version\s*\(?\s*["'](?P<v>[^"']+)["']""")
_BOOT_CLASSPATH = re.compile(r"""spring-boot-gradle-plugin:(?P<v>[^"'\s)]+)""")
_MAVEN_BOM = re.compile(r"""mavenBom\s*\(?\s*["'](?P<gav>[^"']+)["']""")
_CATALOG_PLUGIN = re.compile(r"""alias\s*\(\s*libs\.plugins\.(?P<alias>[\w.]+)\s*\)""")


_BOM_COORDINATES = re.compile(
    r"""\b(?:platform|enforcedPlatform|mavenBom)\s*\(?\s*(?:org\.springframework\.boot\.gradle\.plugin\.)?"""
    r"""SpringBootPlugin\s*\.\s*(?:Companion\s*\.\s*)?BOM_COORDINATES""")
_BOOT_BOM = ("org.springframework.boot", "spring-boot-dependencies")


@dataclass(frozen=True)
class GradleModel:
    """What a Gradle build declares, as the generated pom takes it.

    deps : list of dict
        Dependencies (groupId, artifactId, version or None, scope, classifier), one per
        coordinate, the widest scope winning.
    boms : list of (group, artifact, version)
        BOMs imported in ``dependencyManagement``.
    managed : list of dict
        ``constraints { }`` versions (groupId, artifactId, version) of the build's
        ordinary projects and of the platform projects used through
        ``platform(project(…))``; the first declaration of a coordinate wins."""

    deps: list
    boms: list
    managed: list


def gradle_model(gradle_files: list[Path], warnings: list,
                 root: Path | None = None) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """``(deps, boms)`` of :func:`gradle_build` (without the constraints' versions)."""
    m = gradle_build(gradle_files, warnings, root)
    return m.deps, m.boms


def gradle_build(gradle_files: list[Path], warnings: list, root: Path | None = None) -> GradleModel:
    """Declared dependencies (deduplicated; the widest scope wins), BOMs and managed versions of a Gradle build.

    BOMs: ``platform(…)``/``enforcedPlatform(…)`` dependencies, ``mavenBom "…"`` of the
    io.spring.dependency-management plugin, and ``org.springframework.boot:spring-boot-dependencies``
    at the Spring Boot plugin's version (``id 'org.springframework.boot' version 'X'``,
    a version-catalog plugin alias, or ``spring-boot-gradle-plugin:X`` on the buildscript
    classpath; ``platform(SpringBootPlugin.BOM_COORDINATES)`` takes the version of the
    same file, else of the build's other files or ``settings.gradle(.kts)``).

    A ``java-platform`` project's constraints and BOMs count only when some build file
    uses it through ``platform(project(':path'))`` (also through another used platform);
    the path is found through the root's ``settings.gradle(.kts)``
    (``callgraph._gradle_platform``), never outside ``root``."""
    report = _maven.ClasspathReport()
    deps: dict[tuple, dict] = {}
    boms: list[tuple[str, str, str]] = []
    files = list(gradle_files)
    per_file: dict[Path, tuple[list[dict], list[tuple[str, str, str]], list[dict], list[str], bool]] = {}
    boot_versions: dict[Path, str] = {}

    def read(gf: Path) -> None:
        entries = _maven._gradle_deps(gf, report, root)
        text, props = _gradle_text(gf, root)
        own_boms: list[tuple[str, str, str]] = []
        for d in entries:
            g, a, v = d.get("groupId"), d.get("artifactId"), d.get("version")
            if d.get("scope") == "import" and not d.get("constraint") and g and a and v and "$" not in g + a + v:
                own_boms.append((g, a, v))
        if _BOM_COORDINATES.search(text):
            own_boms.append(("<boot>", "", ""))   # filled in below, once every file's Boot version is known
        v = _boot_version(gf, text, props, root)
        if v:
            boot_versions[gf] = v
            own_boms.append(("<boot-plugin>", "", ""))
        for m in _MAVEN_BOM.finditer(text):
            parts = _gradle_sub(m["gav"], props).split(":")
            if len(parts) == 3 and "$" not in "".join(parts):
                own_boms.append(tuple(parts))
        constraints = [d for d in entries if d.get("constraint")]
        per_file[gf] = (entries, own_boms, constraints, _gradle_platform.project_refs(text),
                        _gradle_platform.is_java_platform(text))

    for gf in files:
        read(gf)
    # platform(project(':x')): the used platform projects, followed from the build's files
    projects = _gradle_platform.settings_projects(root, warnings) if root is not None else {}
    used: set[Path] = set()
    todo = [gf for gf in files if not per_file[gf][4]]
    by_real = {Path(os.path.realpath(gf)): gf for gf in files}
    for _ in range(len(files) + 64):
        if not todo:
            break
        gf = todo.pop(0)
        for ref in per_file[gf][3]:
            bf = _gradle_platform.project_build_file(ref, projects, root) if root is not None else None
            if bf is None:
                warnings.append((str(gf), f"platform(project('{ref}')): no such project in the build"))
                continue
            bf = by_real.get(Path(os.path.realpath(bf)), bf)
            if bf not in per_file:
                files.append(bf)
                by_real[Path(os.path.realpath(bf))] = bf
                read(bf)
            if bf not in used:
                used.add(bf)
                todo.append(bf)
    build_boot = next(iter(boot_versions.values()), None) or (_settings_boot_version(root) if root else None)
    managed: dict[tuple, dict] = {}
    for gf in files:
        entries, own_boms, constraints, _refs, platform = per_file[gf]
        applies = not platform or gf in used
        for d in entries:
            g, a, v = d.get("groupId"), d.get("artifactId"), d.get("version")
            if not g or not a or "$" in g + a or d.get("scope") == "import" or d.get("constraint"):
                continue
            scope = _GRADLE_SCOPE.get(d.get("scope") or "", "compile")
            key = (g, a, d.get("classifier"))
            cur = deps.get(key)
            dd = {"groupId": g, "artifactId": a, "version": v if v and "$" not in v else None, "scope": scope,
                  "classifier": d.get("classifier")}
            if cur is None or _SCOPE_RANK[scope] < _SCOPE_RANK[cur["scope"]]:
                if cur is not None and not dd["version"]:
                    dd["version"] = cur["version"]
                deps[key] = dd
            elif not cur["version"] and dd["version"]:
                cur["version"] = dd["version"]   # the same coordinate, versioned in another file
        for b in own_boms:
            if b[0] == "<boot-plugin>":
                # the Boot plugin's BOM (the dependency-management plugin's reaction to it), as declared
                boms.append((*_BOOT_BOM, boot_versions[gf]))
            elif not applies:
                continue
            elif b[0] != "<boot>":
                boms.append(b)
            elif boot_versions.get(gf) or build_boot:
                boms.append((*_BOOT_BOM, boot_versions.get(gf) or build_boot))
            else:
                warnings.append((str(gf), "SpringBootPlugin.BOM_COORDINATES without a Spring Boot plugin version"))
        if applies:
            for d in constraints:
                g, a, v = d.get("groupId"), d.get("artifactId"), d.get("version")
                if g and a and v and "$" not in g + a + v:
                    managed.setdefault((g, a), {"groupId": g, "artifactId": a, "version": v})
    warnings += report.warnings
    return GradleModel(list(deps.values()), list(dict.fromkeys(boms)), list(managed.values()))


def _boot_version(gf: Path, text: str, props: dict[str, str], root: Path | None) -> str | None:
    """The Spring Boot plugin version one build file declares (plugin id, buildscript
    classpath or catalog plugin alias), or None."""
    for rx in (_BOOT_PLUGIN, _BOOT_CLASSPATH):
        for m in rx.finditer(text):
            v = _gradle_sub(m["v"], props)
            if "$" not in v:
                return v
    aliases = [m["alias"] for m in _CATALOG_PLUGIN.finditer(text)]
    catalog = _maven._find_up(gf.parent, "gradle/libs.versions.toml", root) if aliases else None
    if catalog is not None:
        return _catalog_plugin_version(catalog, "org.springframework.boot", aliases)
    return None


def _settings_boot_version(root: Path) -> str | None:
    """``pluginManagement { plugins { id 'org.springframework.boot' version 'X' } }`` of the root's settings file."""
    for name in _gradle_platform.SETTINGS_NAMES:
        sf = root / name
        if sf.is_file():
            try:
                text, props = _gradle.build_text(sf, root)
            except OSError:
                continue
            for m in _BOOT_PLUGIN.finditer(text):
                v = _gradle_sub(m["v"], props)
                if "$" not in v:
                    return v
    return None


def _gradle_text(path: Path, root: Path | None) -> tuple[str, dict[str, str]]:
    try:
        return _gradle.build_text(path, root)
    except OSError:   # refused or unreadable: _maven._gradle_deps reported it with its path
        return "", {}


def _gradle_sub(s: str, props: dict[str, str]) -> str:
    return _gradle.substitute(s, props)


def _catalog_plugin_version(catalog: Path, plugin_id: str, aliases: list[str]) -> str | None:
    try:
        import tomllib

        data = tomllib.loads(_maven._read_build_text(catalog, "strict"))
    except Exception:  # unreadable catalog: the offline model reports it
        return None
    versions = data.get("versions", {})
    for name, spec in (data.get("plugins") or {}).items():
        if name.replace("-", ".").replace("_", ".") not in aliases:
            continue
        if isinstance(spec, str):
            pid, _, v = spec.partition(":")
        else:
            pid, v = spec.get("id"), spec.get("version")
            if isinstance(v, dict):
                v = versions.get(v.get("ref")) if "ref" in v else v.get("strictly") or v.get("require")
            elif v is None and "version.ref" in spec:
                v = versions.get(spec["version.ref"])
        if pid == plugin_id and isinstance(v, str):
            return v
    return None


# --------------------------------------------------------------------------- the entry point


def _cache_key(work: _Work, client: MavenClient, extra: str) -> str:
    h = hashlib.sha256()
    h.update(f"{_CACHE_FORMAT}\0{DEPENDENCY_PLUGIN}\0{client.repo_local}\0{client.offline}\0{extra}\0".encode())
    for pm in work.poms:
        h.update(pm.rel.encode() + b"\0" + etree.tostring(pm.tree) + b"\0")
    return h.hexdigest()[:32]


def _cache_file(client: MavenClient, key: str) -> Path:
    return client.repo_local.parent / "resolved" / f"{key}.json"


def _load_cached(path: Path, t0: float, build_files, warnings, trusted: tuple[Path, ...] = ()) -> ResolvedClasspath | None:
    """An earlier resolution from the cache, or None (a miss). With ``trusted``
    folders (the local Maven repository, the project), a listed jar outside all of
    them makes the whole entry a miss: a planted result file must not put a jar of
    the machine around on the classpath."""
    try:
        from .safefs import read_regular  # regular files only, bounded: a FIFO or /dev/zero link is a miss
        data = json.loads(read_regular(path, 16 << 20).decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # json recurses per nesting level: a deep file is a miss
        return None
    try:
        arts = tuple(Artifact(**a) for a in data["artifacts"])
        jars = tuple(Path(j) for j in data["jars"])
        if not all(j.is_file() for j in jars):
            return None   # the repository was cleaned: resolve again
        tops = [os.path.realpath(t) for t in trusted]
        if tops and not all(any(is_inside(os.path.realpath(j), t) for t in tops) for j in jars):
            return None   # not a result qare wrote: resolve again
        return ResolvedClasspath(
            Method(data["method"]), jars, arts,
            tuple(Failure(f["coords"], Reason(f["reason"]), f["detail"], f.get("file")) for f in data["unresolved"]),
            tuple(tuple(w) for w in warnings), 0, 0, time.perf_counter() - t0, data["repo_local"],
            tuple(build_files), True, tuple(data.get("repositories", ())))
    except (KeyError, TypeError, ValueError):
        return None


def _store_cached(path: Path, r: ResolvedClasspath) -> None:
    # a result that depends on the network's mood (timeouts, transfer errors) is not kept
    if any(f.reason in (Reason.TIMEOUT, Reason.TRANSFER, Reason.CHECKSUM, Reason.TRUNCATED, Reason.NOT_CACHED,
                        Reason.OTHER)
           for f in r.unresolved):
        return
    data = {"method": r.method.value, "jars": [str(j) for j in r.jars],
            "artifacts": [a.__dict__ for a in r.artifacts], "unresolved": [f.to_dict() for f in r.unresolved],
            "repo_local": r.repo_local, "repositories": list(r.repositories)}
    try:  # folders 0700, file 0600, atomic and never through a planted link
        make_private_dirs(path.parent.parent, path.parent)
        write_private(path, json.dumps(data).encode("utf-8"))
    except OSError:
        pass


def resolve_classpath(project_root: str | os.PathLike, *, offline: bool = False,
                      repo_local: str | os.PathLike | None = None, mvn: str | None = None,
                      timeout: float = 900.0, settings: str | os.PathLike | None = None,
                      fallback: bool = True, use_cache: bool = True, progress: bool = False) -> ResolvedClasspath:
    """The libraries of a Maven or Gradle project, resolved by Maven from a sanitised model.

    Parameters
    ----------
    project_root : str or Path
        The project folder (every ``pom.xml`` / ``build.gradle(.kts)`` below it is read, not run).
    offline : bool
        Maven's ``-o``: only the local repository; what is missing is reported as
        ``not-cached-offline``.
    repo_local : str or Path, optional
        The local repository; default :func:`default_repo_local` (pass ``~/.m2/repository``
        to share the user's).
    mvn : str, optional
        The ``mvn`` executable (default: the one on ``PATH``).
    timeout : float
        Seconds per ``mvn`` run.
    settings : str or Path, optional
        A ``settings.xml`` for Maven (default: Maven's own).
    fallback : bool
        Use the offline pom model (``_maven.discover_classpath_report``) when ``mvn`` is
        missing or Maven resolves nothing.
    use_cache : bool
        Reuse the result of an identical earlier resolution (same sanitised poms,
        repository and mode) when all its jars are still there.
    progress : bool
        A tqdm bar of downloads on stderr.

    Returns
    -------
    ResolvedClasspath
        Never raises for the project's own faults: they are in ``unresolved`` and ``warnings``.
    """
    t0 = time.perf_counter()
    root = Path(project_root)
    if not root.is_dir():
        return ResolvedClasspath(Method.NONE, warnings=((str(root), "project root is not a folder"),))
    poms, gradles = _maven._project_files(root)
    build_files = tuple(poms + gradles)
    if not build_files:
        return ResolvedClasspath(Method.NONE, seconds=time.perf_counter() - t0)
    client = MavenClient(Path(repo_local).expanduser() if repo_local else default_repo_local(), offline=offline,
                         timeout=timeout, mvn=mvn, settings=Path(settings) if settings else None)
    refusal = cache_refusal(client.repo_local)
    if refusal is not None:  # neither Maven, nor the resolution cache, nor the offline model reads it
        return ResolvedClasspath(Method.NONE, unresolved=(refusal,), seconds=time.perf_counter() - t0,
                                 repo_local=str(client.repo_local), build_files=build_files)
    method = Method.MAVEN if poms else Method.GRADLE
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(desc="maven downloads", unit="file", leave=False, disable=None)
    on_download = (lambda t: bar.update(1)) if bar is not None else None
    work = _Work(root, client, on_download)
    try:
        if method is Method.MAVEN:
            work.add_project_poms(poms)
        else:
            gm = gradle_build(gradles, work.warnings, root)
            tree = _generated_pom("qare.gradle", gm.deps, gm.boms, [], managed=gm.managed, warnings=work.warnings)
            work.poms.append(_Pom(None, "tree", tree, ("qare.gradle", "project"), "0"))
        # the key is the sanitised model, not the folder: copies of a project share it
        # (unless a system-scoped jar of the project is part of the result)
        key = _cache_key(work, client, str(root.resolve()) if work.system_jars else "")
        if use_cache and client.executable() is not None:
            hit = _load_cached(_cache_file(client, key), t0, build_files, work.warnings, (client.repo_local, root))
            if hit is not None:
                return hit
        if client.executable() is None:
            return _fallback(root, build_files, work, t0, client,
                             Failure("*", Reason.MVN_MISSING, "mvn not found on PATH; the offline pom model was used"),
                             fallback)
        _make_repo(client.repo_local)
        if method is Method.MAVEN:
            work.link_parents()
        arts = work.resolve() if work.poms else []
        downloads = [t for r in work.runs for t in r.downloads]
        jars = tuple(dict.fromkeys([Path(a.path) for a in arts if a.path.endswith(".jar")] + work.system_jars))
        failures = tuple(_dedupe(work.failures))
        if not jars and any(r.returncode != 0 for r in work.runs) and fallback:
            return _fallback(root, build_files, work, t0, client, None, True, downloads)
        result = ResolvedClasspath(method, jars, tuple(arts), failures, tuple(work.warnings), len(downloads),
                                   sum(t.bytes for t in downloads), time.perf_counter() - t0, str(client.repo_local),
                                   build_files, False, tuple(work.repositories))
        if use_cache:
            _store_cached(_cache_file(client, key), result)
        return result
    finally:
        if bar is not None:
            bar.close()
        work.close()


def _make_repo(repo: Path) -> None:
    """Create the local repository: under qare's cache folder each new folder 0700."""
    top = _cache_base()
    if is_inside(os.path.realpath(repo), os.path.realpath(top)):
        make_private_dirs(top, repo)
    else:
        repo.mkdir(parents=True, exist_ok=True)


def _dedupe(fs: Iterable[Failure]) -> list[Failure]:
    out: dict[str, Failure] = {}
    for f in fs:
        out.setdefault(f.coords, f)
    return list(out.values())


def _fallback(root: Path, build_files, work: _Work, t0: float, client: MavenClient, why: Failure | None,
              enabled: bool, downloads: list[Transfer] = ()) -> ResolvedClasspath:
    """The offline pom model over the local repositories (qare's own and the usual ones)."""
    failures = list(work.failures) + ([why] if why else [])
    jars: list[Path] = []
    warnings = list(work.warnings)
    if enabled:
        repos = [client.repo_local] + _maven.default_repositories()
        rep = _maven.discover_classpath_report(root, repositories=list(dict.fromkeys(repos)))
        jars = rep.jars
        warnings += rep.warnings
        failures += [Failure(m, Reason.NOT_FOUND, "not in a local repository (offline pom model)") for m in rep.missing]
    arts = tuple(a for a in (_artifact_from_path(j, client.repo_local) for j in jars) if a is not None)
    return ResolvedClasspath(Method.FALLBACK, tuple(jars), arts, tuple(_dedupe(failures)), tuple(warnings),
                             len(downloads), sum(t.bytes for t in downloads), time.perf_counter() - t0,
                             str(client.repo_local), tuple(build_files), False, tuple(work.repositories))


def _artifact_from_path(jar: Path, repo: Path) -> Artifact | None:
    from .classpath import _library_from_path

    lib = _library_from_path(jar)
    if not lib:
        return None
    g, a, v = lib.split(":")[:3]
    return Artifact(g, a, v, "compile", str(jar))
