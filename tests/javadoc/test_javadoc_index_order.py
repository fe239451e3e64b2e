"""DocIndex: which record wins when inputs document the same id or type, and
the order of by_name/members/classes — for records read from archives and
for records from the doc-index cache alike; the maps are made on first use."""

from __future__ import annotations

from collections import defaultdict

import pytest

from javadoc import ApiDoc, ClassDoc, DocIndex, DocSet, SiteLayout
from javadoc import _store


def _m(mid: str, tag: str, api: str | None = None) -> ApiDoc:
    return ApiDoc(id=mid, api=api or mid.split("(")[0], class_="p.C", kind="method", signature_text="void m()",
                  description=tag, first_sentence=None, params=(), returns=None, throws=(), deprecated=None,
                  doc_source="sources", layout=SiteLayout.SOURCES, location="p/C.java", anchor="")


def _c(fqn: str, tag: str) -> ClassDoc:
    return ClassDoc(fqn=fqn, kind="class", signature_text="class C", description=tag, first_sentence=None,
                    deprecated=None, doc_source="sources", layout=SiteLayout.SOURCES, location="p/C.java")


def _sets() -> list[DocSet]:
    return [
        DocSet(source="a-sources.jar", layout=SiteLayout.SOURCES,
               classes=(_c("p.A", "src1"), _c("p.B", "src1"), _c("p.A", "src1-dup")),
               members=(_m("p.C.x()", "src1"), _m("p.C.y(int)", "src1"), _m("p.C.y(long)", "src1"),
                        _m("p.C.x()", "src1-dup"), _m("p.C.v(int[])", "src1"))),
        DocSet(source="b-javadoc.jar", layout=SiteLayout.JDK17,
               classes=(_c("p.B", "site1"), _c("p.D", "site1")),
               members=(_m("p.C.y(long)", "site1"), _m("p.C.z()", "site1"), _m("p.C.y(long)", "site1-dup"),
                        _m("p.C.y(char)", "site1"))),
        DocSet(source="c-javadoc.jar", layout=SiteLayout.JDK17,
               classes=(_c("p.D", "site2"), _c("p.E", "site2")),
               members=(_m("p.C.z()", "site2"), _m("p.C.w()", "site2"), _m("p.C.y(int)", "site2"))),
        DocSet(source="d-sources.jar", layout=SiteLayout.SOURCES, classes=(_c("p.E", "src2"),),
               members=(_m("p.C.w()", "src2"), _m("p.C.q()", "src2"), _m("p.C.x()", "src2"))),
    ]


def _oracle(docsets):
    """The rule as docs/javadoc.md states it, the plain way: sites before
    sources, then the order given; the first record of an id (FQN) wins."""
    ordered = sorted(docsets, key=lambda d: d.layout is SiteLayout.SOURCES)
    members, classes, names = {}, {}, defaultdict(list)
    for ds in ordered:
        for c in ds.classes:
            classes.setdefault(c.fqn, c)
        for m in ds.members:
            if m.id not in members:
                members[m.id] = m
                names[m.api].append(m)
    return members, classes, names


def _stored(ds: DocSet) -> DocSet:
    key = "k" * 64
    return _store._decode(_store._encode(ds, key, ds.source), key, ds.source)


@pytest.mark.parametrize("how", ["read", "stored", "mixed"])
def test_the_first_site_then_the_first_sources_record_wins(how):
    sets = _sets()
    if how == "stored":
        sets = [_stored(d) for d in sets]
    elif how == "mixed":
        sets = [_stored(d) if i % 2 else d for i, d in enumerate(sets)]
    members, classes, names = _oracle(_sets())
    index = DocIndex(sets)
    assert index.members() == list(members.values())
    assert index.classes() == list(classes.values())
    assert len(index) == len(members)
    for mid, m in members.items():
        assert index.get(mid) == m and mid in index
    for fqn, c in classes.items():
        assert index.get_class(fqn) == c
    for api, ms in names.items():
        assert index.by_name(api) == ms
    assert index.get("p.C.y(long)").description == "site1"  # a site over sources, the first of a site's two
    assert index.get("p.C.x()").description == "src1"  # the first sources jar, its first record
    assert index.get("p.C.v(int...)").description == "src1"  # varargs written either way
    assert index.get("p.C.nope()") is None and index.get_class("p.Nope") is None and index.by_name("p.C.nope") == []


def test_the_maps_are_made_on_first_use_and_stored_records_when_looked_up():
    sets = [_stored(d) for d in _sets()]
    index = DocIndex(sets)
    assert all(d.members._positions is None and d.members._named is None and d.classes._positions is None
               for d in sets)
    assert all(r is None for d in sets for r in d.members._made)
    assert index.get("p.C.z()").description == "site1"
    # the sites are asked first and the first has it: no other input's map is made
    made = [d.members._positions is not None for d in sets]
    assert made == [False, True, False, False]
    assert all(d.members._named is None and d.classes._positions is None for d in sets)
    assert sum(r is not None for d in sets for r in d.members._made) == 1
    # a second index over the same stored inputs shares their maps and records
    again = DocIndex(sets[1:])
    assert again.get("p.C.z()") is index.get("p.C.z()")
    assert [d.members._positions is not None for d in sets] == made
