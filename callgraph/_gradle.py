"""Values of a Gradle build's variables, read as data (the build script is never run).

A Gradle build script is a program; qare reads the coordinates it declares
(``callgraph._maven._gradle_deps``) and, for the versions written through a
variable, the values assigned to it literally. ``build_text`` returns a build
file's text (comments removed, property references normalised to ``${name}``)
and the variables it can see; ``substitute`` fills them into a coordinate.

Definitions read (values must be string literals; ``${…}``/``$x`` inside a
value are filled from the other definitions, bounded):

- ``gradle.properties`` of the build file's folder and of its ancestors inside
  the project (``key=value``);
- Kotlin DSL: ``val x = "…"``, ``var x = "…"``, ``val x by extra("…")``
  (``: String`` allowed), ``ext["x"] = "…"`` / ``extra["x"] = "…"`` (also
  through ``project.`` / ``rootProject.``), ``extra.set("x", "…")``;
- Groovy DSL: ``def x = '…'``, ``ext.x = '…'``, ``ext['x'] = '…'``,
  ``ext.set('x', '…')``, the assignments of an ``ext { … }`` block (and every
  other ``x = '…'`` at the start of a line);
- the definitions of the build files of the enclosing folders inside the
  project (the root project's extra properties are visible in its subprojects,
  as Gradle's property lookup walks up to the parent project).

References normalised to ``${x}`` inside ``${…}``: ``property("x")``,
``findProperty("x")``, ``project.property("x")``, ``rootProject.property("x")``,
``project.properties["x"]``, ``extra["x"]``, ``ext["x"]``, ``rootProject.extra["x"]``,
``project.ext.x``, ``rootProject.ext.x`` (with ``as String``, ``!!`` or
``.toString()``); then ``${x}``, ``${project.x}`` and ``$x`` are substituted.
Not seen: values computed in code (concatenation outside a string template,
function calls, conditionals), values from the command line or environment.

Bounds: a file is read up to 4 MiB (``callgraph.safefs.read_regular``: regular
files only, never following a symlink out of the project), at most 10,000
definitions per file, a substituted value grows to at most 1 KiB and references
are filled in at most 8 rounds (a cycle stays unsubstituted).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .safefs import read_regular

MAX_BUILD_FILE_BYTES = 4 * 1024 * 1024
MAX_DEFINITIONS = 10_000
MAX_VALUE_CHARS = 1024
MAX_ROUNDS = 8
#: folders above a build file searched for gradle.properties and enclosing build files
MAX_LEVELS = 6

_NAMES = ("build.gradle", "build.gradle.kts")
_Q = r"""["']"""
_KEY = r"(?P<k>[A-Za-z_][\w.-]*)"
_VAL = r"""["'](?P<v>[^"'\n]*)["']"""
_OWNER = r"(?:(?:project|rootProject)\s*\.\s*)?"
#: definitions: each pattern has groups k (name) and v (literal value)
_DEFS = [
    # Kotlin / Groovy: val x = "…", var x = "…", def x = '…' (an optional ': String' type)
    re.compile(r"\b(?:val|var|def)\s+" + _KEY + r"(?:\s*:\s*String\??)?\s*=\s*" + _VAL),
    # Kotlin: val x by extra("…"), val x: String by project.extra("…")
    re.compile(r"\bval\s+" + _KEY + r"(?:\s*:\s*String\??)?\s+by\s+" + _OWNER + r"extra\s*\(\s*" + _VAL + r"\s*\)"),
    # ext["x"] = "…", extra["x"] = "…", rootProject.extra["x"] = "…", ext['x'] = '…'
    re.compile(r"\b" + _OWNER + r"(?:ext|extra)\s*\[\s*" + _Q + _KEY + _Q + r"\s*\]\s*=\s*" + _VAL),
    # ext.set("x", "…"), extra.set("x", "…"), set("x", "…") inside an extra.apply { } block
    re.compile(r"\bset\s*\(\s*" + _Q + _KEY + _Q + r"\s*,\s*" + _VAL + r"\s*\)"),
    # Groovy: ext.x = '…', project.ext.x = '…'
    re.compile(r"\b" + _OWNER + r"ext\s*\.\s*" + _KEY + r"\s*=\s*" + _VAL),
    # Groovy ext { x = '…' } blocks, and any other line `x = "…"`
    re.compile(r"(?m)^\s*" + _KEY + r"\s*=\s*" + _VAL),
]
_CAST = r"""(?:\s*as\s+String\??|\s*!!|\s*\.toString\(\s*\))*"""
#: a reference inside ${…}: property("x") and friends → the name
_REF = re.compile(
    r"\$\{\s*\(?\s*" + _OWNER + r"(?:"
    r"(?:property|findProperty)\s*\(\s*" + _Q + r"(?P<a>[\w.-]+)" + _Q + r"\s*\)"
    r"|(?:properties|extra|ext)\s*\[\s*" + _Q + r"(?P<b>[\w.-]+)" + _Q + r"\s*\]"
    r"|(?:extra|ext)\s*\.\s*(?:get\s*\(\s*" + _Q + r"(?P<c>[\w.-]+)" + _Q + r"\s*\)|(?P<d>[A-Za-z_]\w*))"
    r")" + _CAST + r"\s*\)?" + _CAST + r"\s*\}")
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
_DOLLAR = re.compile(r"\$([A-Za-z_]\w*)")


def read_build_text(path: Path, errors: str = "replace", root: Path | None = None) -> str:
    """A Gradle build file, ``gradle.properties`` or version catalog: a regular file of at
    most 4 MiB (else :class:`~callgraph.safefs.FileRefused`, an ``OSError``), never read
    past that bound (a sparse 6 GB ``build.gradle`` costs nothing). With ``root``, a
    symlink leading out of ``root`` is refused (``FileRefused``) and not read."""
    return read_regular(path, MAX_BUILD_FILE_BYTES, root=root).decode("utf-8", errors)


def strip_comments(text: str) -> str:
    """``/* … */`` and ``// …`` removed (a ``//`` inside a URL string goes too: URLs are not read here)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(?<![:\"'])//.*$", "", text)


def normalise_refs(text: str) -> str:
    """Every recognised property reference inside ``${…}`` rewritten as ``${name}``."""
    return _REF.sub(lambda m: "${" + (m["a"] or m["b"] or m["c"] or m["d"]) + "}", text)


def definitions(text: str) -> dict[str, str]:
    """The literal values assigned to variables in a (comment-free) build file text.

    The first definition of a name wins; at most ``MAX_DEFINITIONS``."""
    out: dict[str, str] = {}
    for rx in _DEFS:
        for m in rx.finditer(text):
            if len(out) >= MAX_DEFINITIONS:
                return out
            out.setdefault(m["k"], m["v"])
    return out


def properties_file(text: str) -> dict[str, str]:
    """``key=value`` (or ``key: value``) lines of a ``gradle.properties`` file."""
    out: dict[str, str] = {}
    for line in text.splitlines()[:MAX_DEFINITIONS]:
        s = line.strip()
        if not s or s[0] in "#!":
            continue
        m = re.match(r"([^=:\s]+)\s*[=:]\s*(.*)$", s)
        if m:
            out.setdefault(m[1], m[2].strip())
    return out


def _bounded_sub(rx: re.Pattern, repl, s: str, limit: int) -> str | None:
    """``rx.sub(repl, s)``, or ``None`` as soon as the output passes ``limit`` characters
    (built piece by piece: a 3 MiB value referenced 100000 times is never assembled)."""
    parts: list[str] = []
    size = pos = 0
    for m in rx.finditer(s):
        for piece in (s[pos:m.start()], repl(m)):
            size += len(piece)
            if size > limit:
                return None
            parts.append(piece)
        pos = m.end()
    tail = s[pos:]
    if size + len(tail) > limit:
        return None
    parts.append(tail)
    return "".join(parts)


def substitute(s: str, props: dict[str, str], exclude: str | None = None) -> str:
    """``${x}``, ``${project.x}`` (the last dotted part as fallback) and ``$x`` filled from ``props``
    (``exclude``, a variable's own name, is never filled); unknown names stay as written.
    Bounded: ``MAX_ROUNDS`` rounds; a round whose output would pass ``MAX_VALUE_CHARS``
    characters stops while being built and the previous value is kept."""
    def get(name: str) -> str | None:
        return None if name == exclude else props.get(name)

    def one(m: re.Match) -> str:
        name = m.group(1).strip()
        v = get(name)
        if v is None:
            v = get(name.rpartition(".")[2])
        return m.group(0) if v is None else v

    def dollar(m: re.Match) -> str:
        v = get(m.group(1))
        return m.group(0) if v is None else v

    for _ in range(MAX_ROUNDS):
        if "$" not in s:
            break
        new = _bounded_sub(_PLACEHOLDER, one, s, MAX_VALUE_CHARS)
        new = None if new is None else _bounded_sub(_DOLLAR, dollar, new, MAX_VALUE_CHARS)
        if new is None or new == s:
            break
        s = new
    return s


def _inside(d: Path, root: Path | None) -> bool:
    if root is None:
        return True
    try:
        d.relative_to(root)
        return True
    except ValueError:
        return False


def _ancestors(start: Path, root: Path | None) -> list[Path]:
    """``start`` and its parents, nearest first: up to ``root`` (inclusive) when given, else ``MAX_LEVELS``."""
    out = []
    d = start
    for _ in range(MAX_LEVELS + 1):
        if not _inside(d, root):
            break
        out.append(d)
        if d.parent == d or (root is not None and d == root):
            break
        d = d.parent
    return out


def build_text(path: Path, root: Path | None = None, warnings: list | None = None) -> tuple[str, dict[str, str]]:
    """``(text, props)`` of a Gradle build file: its text without comments and with
    property references normalised (``normalise_refs``), and the variables it sees —
    its own definitions first, then ``gradle.properties`` from its folder upwards,
    then the definitions of the build files of the enclosing folders (all inside
    ``root`` when given). Values are substituted among themselves (bounded).

    Raises ``OSError`` when ``path`` itself cannot be read; unreadable
    ``gradle.properties`` or enclosing build files are appended to ``warnings``
    as ``(file, reason)``."""
    path = Path(path)
    root = Path(os.path.realpath(root)) if root is not None else None
    here = Path(os.path.realpath(path.parent))
    # Why: a gradle.properties or enclosing build file that is a symlink out of the
    # project (e.g. to ~/.gradle/gradle.properties) would put the machine's values in
    # the pom sent to Maven; without ``root`` each file's own folder bounds its read.
    text = normalise_refs(strip_comments(read_build_text(path, root=root)))
    props = definitions(text)
    dirs = _ancestors(here, root)
    for d in dirs:
        gp = d / "gradle.properties"
        if gp.is_file():
            try:
                for k, v in properties_file(read_build_text(gp, root=root if root is not None else d)).items():
                    props.setdefault(k, v)
            except OSError as exc:
                if warnings is not None:
                    warnings.append((str(gp), f"unreadable: {getattr(exc, 'strerror', None) or exc}"))
    for d in dirs[1:]:
        for name in _NAMES:
            bf = d / name
            if bf.is_file():
                try:
                    for k, v in definitions(normalise_refs(strip_comments(read_build_text(bf, root=root if root is not None else d)))).items():
                        props.setdefault(k, v)
                except OSError as exc:
                    if warnings is not None:
                        warnings.append((str(bf), f"unreadable: {getattr(exc, 'strerror', None) or exc}"))
    for k, v in list(props.items()):
        if "$" in v:
            props[k] = substitute(v, props, exclude=k)  # no copy per variable: linear in the definitions
    return text, props
