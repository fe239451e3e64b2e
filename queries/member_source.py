"""A library member's declaration in its source: reading a class's ``.java``
file from a ``*-sources.jar`` or a sources folder (bounded, never through a
link out of the folder) and cutting the method or constructor out of it with
tree-sitter (overloads told apart by the erased parameter types of the method
id). The types :class:`MemberSource` and :class:`SourceMiss` are what
:func:`queries.describe.find_member_source` answers.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MemberSource", "SourceMiss", "member_declaration"]

MAX_ENTRY_BYTES = 8 * 1024 * 1024  # a source or class file larger than this is not read
MAX_CODE_CHARS = 12_000  # the member's code given to the model (longer: cut, and said so)


@dataclass(frozen=True, slots=True)
class MemberSource:
    """The declaration of one library member.

    ``origin`` is ``"sources"`` or ``"decompiled"``; ``container`` the sources
    jar/folder or library jar it came from; ``code`` the declaration's text
    (body included), at most :data:`MAX_CODE_CHARS` characters, ``truncated``
    when cut."""

    origin: str
    container: str
    code: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class SourceMiss:
    """Why no source was found (kept in the manifest's ``description_errors``)."""

    reason: str


# ---------------------------------------------------------------- locating the class

def _splits(fqn: str) -> list[tuple[str, list[str]]]:
    """(top-level path without suffix, nested simple names) for every way the
    dotted source name can split into package and types, longest package first:
    ``a.b.C.D`` → ``("a/b/C/D", [])``, ``("a/b/C", ["D"])``, ``("a/b", ["C", "D"])``."""
    parts = fqn.split(".")
    out = []
    for k in range(len(parts), 0, -1):
        out.append(("/".join(parts[:k]), parts[k:]))
    return out


def _read_entry(zf: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_ENTRY_BYTES:
        return None
    with zf.open(info) as fh:
        data = fh.read(MAX_ENTRY_BYTES + 1)
    return data if len(data) <= MAX_ENTRY_BYTES else None


def _read_source_file(container: str, rel: str) -> bytes | None:
    """``rel`` (``a/b/C.java``) from a sources jar or folder, bounded; a
    folder's file must be a regular file inside the folder (no symlink out)."""
    p = Path(container)
    if p.is_dir():
        f = p / rel
        try:
            if f.is_symlink() or not f.is_file() or not f.resolve().is_relative_to(p.resolve()):
                return None
            if f.stat().st_size > MAX_ENTRY_BYTES:
                return None
            return f.read_bytes()
        except OSError:
            return None
    try:
        with zipfile.ZipFile(container) as zf:
            return _read_entry(zf, rel)
    except (OSError, zipfile.BadZipFile):
        return None


# ---------------------------------------------------------------- the member in a source file


def _parser():
    import tree_sitter
    import tree_sitter_java_orchard

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_java_orchard.language()))


_TYPE_DECLS = ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
               "annotation_type_declaration")


def _simple_type(text: str) -> str:
    """A parameter type's erased simple name: annotations and generics
    dropped, varargs as ``[]``, package and outer types dropped."""
    t = re.sub(r"@[\w.]+(\([^)]*\))?", " ", text)
    depth, out = 0, []
    for ch in t:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    t = "".join(out).replace("...", "[]")
    t = re.sub(r"\s+", "", t)
    dims = t.count("[]")
    base = t.replace("[]", "").rsplit(".", 1)[-1]
    return base + "[]" * dims


def _param_type(p) -> str:
    if p.type == "spread_parameter":  # T... name: the text before the dots
        return _simple_type(p.text.decode("utf-8", "replace").split("...", 1)[0]) + "[]"
    t = p.child_by_field_name("type")
    dims = p.child_by_field_name("dimensions")  # the C-style "String args[]"
    return _simple_type(t.text.decode("utf-8", "replace")) + ("[]" * dims.text.decode().count("[") if dims else "")


def _signature_params(signature: str | None) -> list[str] | None:
    if not signature or "(" not in signature:
        return None
    inner = signature[signature.index("(") + 1: signature.rindex(")")]
    if inner == "*":
        return None
    return [_simple_type(p) for p in inner.split(",")] if inner else []


def member_declaration(src: bytes, nested: list[str], name: str, signature: str | None) -> str | None:
    """The text of the method/constructor ``name`` (``<init>`` for constructors)
    of the type reached by ``nested`` simple names from a top-level type of
    ``src`` (``nested[0]`` is the top-level type's name).

    Overloads are told apart by parameter count, then by the erased simple
    names of the parameter types of ``signature``; a type variable (erased to
    its bound in a method id) matches any name. ``None`` when not found."""
    tree = _parser().parse(src)
    scopes = [tree.root_node]
    for simple in nested:
        found = []
        for scope in scopes:
            body = scope if scope.type == "program" else scope.child_by_field_name("body")
            if body is None:
                continue
            for ch in body.named_children:
                n = ch.child_by_field_name("name")
                if ch.type in _TYPE_DECLS and n is not None and n.text.decode() == simple:
                    found.append(ch)
        if not found:
            return None
        scopes = found
    want = _signature_params(signature)
    kinds = ("constructor_declaration", "compact_constructor_declaration") if name == "<init>" else ("method_declaration",)
    simple_owner = nested[-1] if nested else ""
    best, best_score = None, -1
    for scope in scopes:
        body = scope.child_by_field_name("body")
        if body is None:
            continue
        members = list(body.named_children)
        for ch in body.named_children:  # enum bodies hold their members one level down
            if ch.type == "enum_body_declarations":
                members.extend(ch.named_children)
        for ch in members:
            if ch.type not in kinds:
                continue
            n = ch.child_by_field_name("name")
            mname = n.text.decode() if n is not None else ""
            if name != "<init>" and mname != name or name == "<init>" and mname not in (simple_owner, ""):
                continue
            params_node = ch.child_by_field_name("parameters")
            params = [_param_type(p) for p in (params_node.named_children if params_node is not None else [])
                      if p.type in ("formal_parameter", "spread_parameter")]
            if want is None:
                score = 0
            elif len(params) != len(want):
                continue
            else:
                score = sum(1 for a, b in zip(params, want) if a == b or len(a) == 1 or a == "Object" or b == "Object")
            if score > best_score:
                best, best_score = ch, score
    if best is None:
        return None
    return src[best.start_byte:best.end_byte].decode("utf-8", "replace")


def _cut(code: str) -> tuple[str, bool]:
    return (code, False) if len(code) <= MAX_CODE_CHARS else (code[:MAX_CODE_CHARS] + "\n// ... (cut)", True)


def _method_name(api: str) -> str:
    return api.rsplit(".", 1)[-1]
