"""A member without a comment of its own whose supertype is documented in
another site (another jar): javadoc, run without the supertype's sources,
can only write "Specified by:"/"Overrides:" with a link to the other site;
``ApiDoc.overrides`` keeps the member ids those notes name and
``DocIndex.inherited`` copies the comment from there, as javadoc would have
(session 10: jackson-databind's ``JsonNode.isMissingNode()``, specified by
jackson-core's ``TreeNode``, was "undocumented" and its samples dropped).

The sites are made by the JDK's own javadoc tool from
``fixtures/javadoc/inherit``: ``base`` alone, then ``impl`` against
``base``'s compiled classes with ``-linkoffline`` to the first site, as a
library's javadoc jar is built against its dependencies' jars."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from javadoc import DocIndex, read_site
from queries._docs import doc_record
from records.dataset import TargetRecord

from .conftest import JAVADOC_TOOLS

SRC = Path(__file__).resolve().parents[2] / "fixtures" / "javadoc" / "inherit"
BOX, SHELF, SIZED = "com.acme.impl.Box", "com.acme.base.Shelf", "com.acme.base.Sized"


@pytest.fixture(scope="module", params=sorted(JAVADOC_TOOLS))
def sites(request, tmp_path_factory):
    tool = JAVADOC_TOOLS[request.param]
    if not os.path.exists(tool):
        pytest.skip(f"{tool} missing")
    javac = str(Path(tool).with_name("javac"))
    base = tmp_path_factory.mktemp(f"inherit-{request.param}")
    run = dict(check=True, capture_output=True, timeout=300)
    subprocess.run([javac, "-d", str(base / "classes"), *map(str, sorted((SRC / "base").rglob("*.java")))], **run)
    subprocess.run([tool, "-quiet", "-Xdoclint:none", "-d", str(base / "a"), "-sourcepath", str(SRC / "base"),
                    "-subpackages", "com.acme"], **run)
    subprocess.run([tool, "-quiet", "-Xdoclint:none", "-d", str(base / "b"), "-sourcepath", str(SRC / "impl"),
                    "-classpath", str(base / "classes"), "-linkoffline", "https://example.org/base/",
                    str(base / "a"), "-subpackages", "com.acme"], **run)
    return read_site(str(base / "a"), workers=1), read_site(str(base / "b"), workers=1)


def test_the_notes_name_the_overridden_members(sites):
    _a, b = sites
    got = {m.id: (m.description, m.overrides) for m in b.members}
    assert got == {
        f"{BOX}.<init>()": (None, ()),
        f"{BOX}.size()": (None, (f"{SIZED}.size()",)),  # "Specified by: size in interface Sized"
        f"{BOX}.put(java.lang.String)": (None, (f"{SHELF}.put(java.lang.String)",)),  # abstract in Shelf
        f"{BOX}.clear()": ("Empties the box.", ()),
    }


def test_an_undocumented_member_inherits_from_the_other_site(sites):
    a, b = sites
    index = DocIndex([b, a])
    size = index.inherited(index.get(f"{BOX}.size()"))
    assert (size.id, size.first_sentence, size.returns) == \
        (f"{SIZED}.size()", "Returns how many items are held.", "the count, never negative")
    put = index.inherited(index.get(f"{BOX}.put(java.lang.String)"))
    assert (put.id, put.description, put.params) == \
        (f"{SHELF}.put(java.lang.String)", "Puts an item on the shelf.", (("item", "what is put"),))
    assert index.inherited(index.get(f"{BOX}.clear()")) is None  # its own comment
    # without the other site nothing is inherited
    assert DocIndex([b]).inherited(DocIndex([b]).get(f"{BOX}.size()")) is None


def test_the_dataset_record_says_where_its_documentation_came_from(sites):
    a, b = sites
    rec = doc_record(DocIndex([b, a]), TargetRecord(api=f"{BOX}.size", signature=f"{BOX}.size()", class_=BOX,
                                                    depth=2, chain=("x", f"{BOX}.size()")))
    assert (rec.api, rec.signature, rec.first_sentence, rec.returns, rec.doc_from, rec.doc_source) == \
        (f"{BOX}.size", f"{BOX}.size()", "Returns how many items are held.", "the count, never negative",
         f"{SIZED}.size()", "javadoc")
    assert doc_record(DocIndex([b]), TargetRecord(api=f"{BOX}.size", signature=f"{BOX}.size()", class_=BOX,
                                                  depth=2, chain=("x", f"{BOX}.size()"))) is None


def test_javadoc_8_notes_with_external_links():
    # the HTML 4 form (jackson-databind 2.19.1's JsonNode.isMissingNode(), written
    # here by hand): the linked page carries a query, `?is-external=true`, which
    # also cost a Throws type its package (`JsonProcessingException`)
    from javadoc._site import _notes, parse_html

    ext = "https://example.org/core/com/fasterxml/jackson/core/"
    html = (f'<html><body><dl><dt><span class="overrideSpecifyLabel">Specified by:</span></dt>'
            f'<dd><code><a href="{ext}TreeNode.html?is-external=true#isMissingNode--" '
            f'title="class or interface in com.fasterxml.jackson.core">isMissingNode</a></code>&nbsp;in interface&nbsp;'
            f'<code><a href="{ext}TreeNode.html?is-external=true" '
            f'title="class or interface in com.fasterxml.jackson.core">TreeNode</a></code></dd>'
            f'<dt><span class="throwsLabel">Throws:</span></dt>'
            f'<dd><code><a href="{ext}JsonProcessingException.html?is-external=true" '
            f'title="class or interface in com.fasterxml.jackson.core">JsonProcessingException</a></code>'
            f' - when it is not JSON</dd></dl></body></html>').encode()
    dl = next(parse_html(html, "JsonNode.html", []).iter("dl"))
    params, returns, throws, overrides = _notes(dl, "com/fasterxml/jackson/databind/JsonNode.html")
    assert overrides == ["com.fasterxml.jackson.core.TreeNode.isMissingNode()"]
    assert throws == [("com.fasterxml.jackson.core.JsonProcessingException", "when it is not JSON")]


def _doc(mid: str, description=None, overrides=()):
    from javadoc import ApiDoc, SiteLayout

    return ApiDoc(id=mid, api=mid.split("(")[0], class_=mid.rsplit(".", 1)[0], kind="method", signature_text="",
                  description=description, first_sentence=description, params=(), returns=None, throws=(),
                  deprecated=None, doc_source="javadoc", layout=SiteLayout.JDK17, location="x.html",
                  overrides=overrides)


def test_a_stranger_site_cannot_make_inheritance_loop_or_run_on():
    from javadoc import DocSet

    # a page whose notes name each other (A -> B -> A), and a chain longer than the bound
    loop = [_doc("p.A.m()", overrides=("p.B.m()",)), _doc("p.B.m()", overrides=("p.A.m()",))]
    chain = [_doc(f"p.C{i}.m()", overrides=(f"p.C{i + 1}.m()",)) for i in range(20)] + [_doc("p.C20.m()", "Deep.")]
    index = DocIndex([DocSet(source="s", layout=None, classes=(), members=tuple(loop + chain), warnings=(), pages=0)])
    assert index.inherited(index.get("p.A.m()")) is None
    assert index.inherited(index.get("p.C0.m()")) is None  # 20 steps: past the bound of 8 members asked
    assert index.inherited(index.get("p.C13.m()")).id == "p.C20.m()"  # 7 steps


@pytest.mark.parametrize("dd", [
    '<dd><code>m</code> in class <code>T</code></dd>',  # no links
    '<dd><code><a href="T.html">m</a></code> in class <code><a href="T.html" title="class in p">T</a></code></dd>',
    '<dd><code><a href="T.html#m--">m</a></code></dd>',  # no type
    '<dd><code><a href="#m--">m</a></code> in class <code>T</code></dd>',  # a type without a link or package
])
def test_notes_that_name_no_member_add_none(dd):
    from javadoc._site import _notes, parse_html

    html = f"<html><body><dl><dt>Overrides:</dt>{dd}</dl></body></html>".encode()
    assert _notes(next(parse_html(html, "T.html", []).iter("dl")), "p/T.html")[3] == []
