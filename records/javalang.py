"""The public top-level types of package ``java.lang`` (JDK 17 and JDK 25,
listed from jimage + javap into ``java_lang.txt``): the simple names that
Java source, doc comments and other datasets' API strings write without a
package. One list for every package (``javadoc`` resolves doc-comment and
signature names with it, ``metrics`` normalises ``String`` to
``java.lang.String`` in parameter lists)."""

from __future__ import annotations

from importlib import resources

__all__ = ["JAVA_LANG_TYPES", "is_java_lang"]


def _load() -> frozenset[str]:
    text = resources.files(__package__).joinpath("java_lang.txt").read_text("utf-8")
    return frozenset(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#"))


JAVA_LANG_TYPES: frozenset[str] = _load()
"""Simple names of the public top-level ``java.lang`` types."""


def is_java_lang(simple_name: str) -> bool:
    """Whether ``simple_name`` (``String``) is a public top-level ``java.lang`` type."""
    return simple_name in JAVA_LANG_TYPES
