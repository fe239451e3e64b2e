"""Deeply nested HTML (a member description with hundreds of nested
<span>, as on commons-lang3's BitField page): libxml2 stops at its nesting
limit and silently drops the rest of the page. Every member must still be
read, and a parse that lost content must be a warning naming the page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lxml import etree

from javadoc import _site, read_site

P = "com.acme.docs"
N_MEMBERS = 53  # members of the generated fixture site (test_javadoc_sites)
N_WIDGET = 21  # <section class="detail"> on Widget.html


def _inject(page: Path, depth: int, close: bool = True) -> None:
    data = page.read_bytes()
    start = data.index(b'<section class="detail" id="DEFAULT_WIDTH">')
    block = data.index(b'<div class="block">', start) + len(b'<div class="block">')
    deep = b"<span>" * depth + b"deep text" + (b"</span>" * depth if close else b"")
    page.write_bytes(data[:block] + deep + data[block:])


def _copy(generated_sites, layout, tmp_path) -> Path:
    dest = tmp_path / layout
    shutil.copytree(generated_sites[layout], dest)
    return dest


@pytest.mark.parametrize("layout", ["jdk17", "jdk25"])
@pytest.mark.parametrize("depth,close", [(300, True), (3000, True), (3000, False)])
def test_deep_nesting_keeps_every_member(generated_sites, tmp_path, layout, depth, close):
    clean = read_site(str(generated_sites[layout]))
    site = _copy(generated_sites, layout, tmp_path)
    widget = site / "com/acme/docs/Widget.html"
    _inject(widget, depth, close)
    ds = read_site(str(site))
    assert len(ds.members) == len(clean.members) == N_MEMBERS
    assert [m.id for m in ds.members] == [m.id for m in clean.members]
    assert sum(m.class_ == f"{P}.Widget" for m in ds.members) == N_WIDGET
    field = next(m for m in ds.members if m.id == f"{P}.Widget.DEFAULT_WIDTH")
    assert field.description.startswith("deep text")
    last = next(m for m in ds.members if m.id == f"{P}.Widget.run(java.lang.Runnable)")
    assert last.description == next(m.description for m in clean.members if m.id == last.id)
    if depth == 300:
        assert ds.warnings == ()  # within huge_tree's limit: nothing repaired
    else:
        # tags kept down to depth 200; the block <div> is the 13th element
        # from the root in lxml's tree of the clean page
        clean_doc = etree.fromstring((generated_sites[layout] / "com/acme/docs/Widget.html").read_bytes(),
                                     etree.HTMLParser())
        div = clean_doc.xpath('//section[@id="DEFAULT_WIDTH"]//div[@class="block"]')[0]
        d_div = len(list(div.iterancestors())) + 1
        assert d_div == 13
        starts = depth - (200 - d_div)
        reason = (f"HTML nested deeper than 200 elements: {starts * 2 if close else starts} tags below "
                  "that depth dropped, their text kept")
        assert ds.warnings == ((str(widget), reason),)


def test_flatten_counts_and_keeps_text():
    data = b"<html><body><div>" + b"<b>" * 5 + b"x" + b"</b>" * 5 + b"<br><p>a<p>b</div></body></html>"
    out, dropped = _site._flatten_deep_nesting(data, limit=4)
    # html, body, div, first <b> kept (depth 4); 4 start + 4 end tags dropped;
    # void <br> and implicitly closed <p> do not deepen the stack
    assert (out, dropped) == (b"<html><body><div><b>x</b><br><p>a<p>b</div></body></html>", 8)
    assert _site._flatten_deep_nesting(data, limit=50) == (data, 0)
    script = b"<div><script>if (a<b) { x = '<span>'; }</script><span>t</span></div>"
    assert _site._flatten_deep_nesting(script, limit=1) == (b"<div><script>if (a<b) { x = '<span>'; }</script>t</div>", 2)


def test_lost_content_detector(generated_sites):
    page = (generated_sites["jdk17"] / "com/acme/docs/Widget.html").read_bytes()
    data = page.replace(b'<div class="block">', b'<div class="block">' + b"<span>" * 300, 1)
    default = etree.HTMLParser(no_network=True, remove_comments=True)  # libxml2's 256 limit
    doc = etree.fromstring(data, default)
    notes = _site._lost_elements(data, doc)
    clean = etree.fromstring(page, default)
    counts = [sum(1 for _ in clean.iter(t)) for t in ("section", "h3", "pre")]
    assert counts == [31, 22, 2]  # the tree of the unmodified page
    # the parse stopped inside the first <section> (the class description)
    assert notes == ["read 1 of 31 <section>", "read 0 of 22 <h3>", "read 0 of 2 <pre>"]
    assert _site._lost_elements(page, clean) == []


def test_silent_loss_is_a_warning(generated_sites, tmp_path, monkeypatch):
    # A libxml2 that drops content without the "Excessive depth" message
    # (other versions word it differently): the element count still warns.
    site = _copy(generated_sites, "jdk17", tmp_path)
    widget = site / "com/acme/docs/Widget.html"
    _inject(widget, 300)

    def parse_default(data, encoding):
        parser = etree.HTMLParser(encoding=encoding, no_network=True, remove_comments=True)
        return etree.fromstring(data, parser), []

    monkeypatch.setattr(_site, "_parse_bytes", parse_default)
    ds = read_site(str(site))
    lost = [(w, r) for w, r in ds.warnings if "lost content" in r]
    assert [w for w, _ in lost] == [str(widget)]
    assert lost[0][1].startswith("HTML parse lost content (read ") and "members may be missing" in lost[0][1]
    assert len(ds.members) < N_MEMBERS  # the loss is real, and now reported


def test_unparseable_page_is_a_warning(generated_sites, tmp_path):
    site = _copy(generated_sites, "jdk17", tmp_path)
    box = site / "com/acme/docs/Box.html"
    box.write_bytes(b"   \n")
    ds = read_site(str(site))
    (where, reason), = ds.warnings
    assert (where, reason) == (str(box), f"{box}: empty HTML page")
    assert not any(m.class_ == f"{P}.Box" for m in ds.members)
    assert len(ds.members) > 0


def test_a_folder_deeper_than_the_recursion_limit_loses_nothing(deep_tree_dir):
    # a javadoc= source folder holding one folder 1,100 levels deep: os.walk
    # recursed once per level and the RecursionError lost the whole folder
    # (the attacker's review, session 10)
    from javadoc._archive import ZipLimits, open_container

    src = deep_tree_dir / "src"
    (src / "com" / "acme").mkdir(parents=True)
    (src / "com" / "acme" / "Top.java").write_text(
        "package com.acme;\n/** The top. */\npublic class Top {\n    /** Runs it. */\n    public void run() {}\n}\n")
    d = src
    for _ in range(1100):  # one level at a time: os.makedirs recurses once per missing level
        d = d / "d"
        d.mkdir()
    (d / "Deep.java").write_text("class Deep {}\n")
    names = open_container(str(src), ZipLimits()).names()
    assert names[0] == "com/acme/Top.java" and names[-1] == "d/" * 1100 + "Deep.java" and len(names) == 2
    from javadoc import DocIndex

    index = DocIndex.open(str(src))
    assert index.warnings == [] and index.get("com.acme.Top.run()").description == "Runs it."
