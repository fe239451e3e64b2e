"""First sentences checked against javadoc's own: the summary tables of JDK
17+ pages show each member's first sentence as the javadoc tool computed it
(deprecated members show their deprecation instead and are left out)."""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import unquote

import pytest
from lxml import etree

from javadoc import read_site


def _summary_sentences(page: str) -> dict[str, str | None]:
    doc = etree.parse(page, etree.HTMLParser(no_network=True, encoding="utf-8"))
    found: list[tuple[str, str | None]] = []
    for a in doc.iter("a"):
        href = a.get("href") or ""
        if "member-name-link" not in (a.get("class") or "").split() or not href.startswith("#"):
            continue
        cell = a.getparent()
        while cell is not None and cell.tag != "div":
            cell = cell.getparent()
        nxt = cell.getnext() if cell is not None else None
        blocks = [] if nxt is None else [d for d in nxt.iter("div") if "block" in (d.get("class") or "").split()]
        text = re.sub(r"\s+", " ", "".join(blocks[0].itertext())).strip() if blocks else None
        found.append((unquote(href[1:]), text))
    return {k: v for k, v in found if not (v or "").startswith("Deprecated")}


def _check(root):
    """Members whose first sentence (or its absence) was compared."""
    ds = read_site(str(root))
    agree = 0
    for c in ds.classes:
        want = _summary_sentences(str(root / c.location))
        mine = [m for m in ds.members if m.class_ == c.fqn]
        # generic overloads can share an anchor (javadoc-layouts.md): ambiguous
        shared = Counter(m.anchor for m in mine)
        for m in mine:
            if m.anchor in want and shared[m.anchor] == 1:
                got = m.first_sentence
                assert (re.sub(r"\s+", " ", got) if got is not None else None) == want[m.anchor], m.id
                agree += 1
    return agree


@pytest.mark.parametrize("layout", ["jdk17", "jdk25"])
def test_generated_sites(generated_sites, layout):
    assert _check(generated_sites[layout]) == 50  # 53 members, 3 deprecated


@pytest.mark.parametrize("pkg,n", [("libcommons-lang3-java-doc", 2834), ("libjackson2-annotations-java-doc", 432)])
def test_debian_sites(debian, pkg, n):
    assert _check(debian(pkg)) == n
