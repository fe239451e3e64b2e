"""Gradle platforms read as data: ``constraints { }`` blocks, ``platform(project(':x'))``
references and the projects ``settings.gradle(.kts)`` includes (the build is never run).

A Gradle build often manages its versions in a *platform*: a subproject with
``plugins { id 'java-platform' }`` whose ``dependencies { constraints { api 'g:a:v' } }``
(and ``api platform(...)`` BOMs) are the versions of every project that declares
``implementation platform(project(':platform'))``. ``callgraph._mvn_resolve.gradle_build``
turns them into the ``dependencyManagement`` of the generated pom; this module finds
the pieces:

- :func:`split_constraints` cuts a build file's ``constraints { … }`` blocks out of its
  text (their entries are versions, never dependencies);
- :func:`project_refs` finds ``platform(project(':a:b'))`` / ``enforcedPlatform(project(path: ':x'))``;
- :func:`settings_projects` maps project paths to folders: ``include 'a', 'b:c'`` /
  ``include(":a")`` of the root's ``settings.gradle(.kts)`` (``:b:c`` → ``b/c``) and
  ``project(':x').projectDir = file('dir')`` / ``new File(rootDir, 'dir')``; a folder
  outside the project root (``..``, a symlink out) is refused;
- :func:`is_java_platform` says whether a build file applies ``java-platform``.

Bounds: a block is scanned for at most ``MAX_BLOCK_CHARS`` characters (an unclosed
brace ends the block there), at most ``MAX_BLOCKS`` blocks per file and
``MAX_PROJECTS`` included projects are read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import _gradle

MAX_BLOCK_CHARS = 256 * 1024
MAX_BLOCKS = 100
MAX_PROJECTS = 2_000
SETTINGS_NAMES = ("settings.gradle", "settings.gradle.kts")
BUILD_NAMES = ("build.gradle", "build.gradle.kts")

_CONSTRAINTS = re.compile(r"\bconstraints\s*\{")
_PROJECT_REF = re.compile(
    r"""\b(?:platform|enforcedPlatform)\s*\(\s*project\s*\(\s*(?:path\s*[:=]\s*)?["'](?P<path>[^"'$]*)["']""")
_JAVA_PLATFORM = re.compile(
    r"""(?:\bid\s*\(?\s*["']java-platform["']|`java-platform`|"""
    r"""\bapply\s*\(?\s*plugin\s*[:=]\s*["']java-platform["'])""")
_INCLUDE = re.compile(r"""\binclude\s*\(?\s*(?P<args>["'][^"'\n]*["'](?:\s*,\s*["'][^"'\n]*["'])*)""")
_QUOTED = re.compile(r"""["']([^"'\n]*)["']""")
_PROJECT_DIR = re.compile(
    r"""\bproject\s*\(\s*["'](?P<path>:?[^"'$]*)["']\s*\)\s*\.\s*projectDir\s*=\s*"""
    r"""(?:file\s*\(\s*["'](?P<file>[^"'$]+)["']\s*\)"""
    r"""|(?:new\s+)?File\s*\(\s*(?:rootDir|settingsDir|rootProject\.projectDir)\s*,\s*["'](?P<rel>[^"'$]+)["']\s*\))""")


def split_constraints(text: str) -> tuple[str, list[str]]:
    """``(text without its constraints blocks, [the blocks' inner texts])``.

    Braces inside string literals do not count; an unclosed block ends after
    ``MAX_BLOCK_CHARS`` characters (or at the end of the text)."""
    blocks: list[str] = []
    rest: list[str] = []
    pos = 0
    for _ in range(MAX_BLOCKS):
        m = _CONSTRAINTS.search(text, pos)
        if m is None:
            break
        end = _block_end(text, m.end())
        rest.append(text[pos:m.start()])
        blocks.append(text[m.end():end])
        pos = min(end + 1, len(text))
    rest.append(text[pos:])
    return "".join(rest), blocks


def _block_end(text: str, start: int) -> int:
    """Index of the ``}`` closing the block whose ``{`` is just before ``start``."""
    depth = 1
    quote = None
    stop = min(len(text), start + MAX_BLOCK_CHARS)
    i = start
    while i < stop:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return stop


def project_refs(text: str) -> list[str]:
    """Project paths of ``platform(project(…))`` / ``enforcedPlatform(project(…))``, as
    written (``':platform:application'``), in order, without repeats."""
    return list(dict.fromkeys(m["path"] for m in _PROJECT_REF.finditer(text)))


def is_java_platform(text: str) -> bool:
    """Whether the (comment-free) build file text applies the ``java-platform`` plugin."""
    return _JAVA_PLATFORM.search(text) is not None


def settings_projects(root: Path, warnings: list | None = None) -> dict[str, Path]:
    """Project path (``':a:b'``) → folder, from the ``settings.gradle(.kts)`` at ``root``.

    ``include`` names map to their conventional folders (``:a:b`` → ``root/a/b``),
    ``project(':x').projectDir = file('d')`` moves one. Folders that resolve outside
    ``root`` are left out (a ``(file, reason)`` warning says so). No settings file: ``{}``."""
    root = Path(os.path.realpath(root))
    out: dict[str, Path] = {}
    for name in SETTINGS_NAMES:
        sf = root / name
        if not sf.is_file():
            continue
        try:
            text = _gradle.strip_comments(_gradle.read_build_text(sf))
        except OSError as exc:
            if warnings is not None:
                warnings.append((str(sf), f"unreadable: {getattr(exc, 'strerror', None) or exc}"))
            continue
        for m in _INCLUDE.finditer(text):
            for p in _QUOTED.findall(m["args"]):
                path = _norm(p)
                if path != ":" and len(out) < MAX_PROJECTS:
                    out.setdefault(path, root.joinpath(*path.strip(":").split(":")))
        for m in _PROJECT_DIR.finditer(text):
            path = _norm(m["path"])
            out[path] = root / (m["file"] or m["rel"])
    kept = {}
    for path, d in out.items():
        real = Path(os.path.realpath(d))
        if real == root or root in real.parents:
            kept[path] = real
        elif warnings is not None:
            warnings.append((str(root), f"project {path}: folder {d} is outside the project; not read"))
    return kept


def _norm(path: str) -> str:
    return ":" + path.strip().strip(":")


def project_build_file(path: str, projects: dict[str, Path], root: Path) -> Path | None:
    """The build file of project ``path`` (``':a:b'``): through ``projects``
    (:func:`settings_projects`), else the conventional folder ``root/a/b`` (settings that
    compute their includes in code); ``None`` when neither holds a build file inside ``root``."""
    root = Path(os.path.realpath(root))
    p = _norm(path)
    d = projects.get(p) if p in projects else root.joinpath(*[s for s in p.strip(":").split(":") if s])
    for name in BUILD_NAMES:
        bf = d / name
        real = Path(os.path.realpath(bf))
        if (real.parent == root or root in real.parents) and real.is_file():
            return bf
    return None
