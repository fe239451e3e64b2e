"""Robustness: mutated class pages and arbitrary doc comments never crash
the readers (a page yields records or a warning; a comment yields text)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from javadoc import SiteLayout
from javadoc._site import parse_page
from javadoc._sources import parse_comment


class _Page(bytes):
    def __repr__(self) -> str:  # keep hypothesis reports short
        return f"<Widget.html, {len(self)} bytes>"


@pytest.fixture(scope="module")
def widget_page(generated_sites) -> bytes:
    return _Page((generated_sites["jdk17"] / "com/acme/docs/Widget.html").read_bytes())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=10**6), junk=st.binary(max_size=64),
       at=st.integers(min_value=0, max_value=10**6))
def test_mutated_pages(widget_page, cut, junk, at):
    data = widget_page[: cut % (len(widget_page) + 1)]
    pos = at % (len(data) + 1)
    data = data[:pos] + junk + data[pos:]
    cls, members, warnings = parse_page(data, "com.acme.docs.Widget", "com/acme/docs/Widget.html",
                                        SiteLayout.JDK17, "site!Widget.html")
    for m in members:
        assert m.id.startswith("com.acme.docs.Widget.")
    if cls is None:
        assert warnings and all(w == "site!Widget.html" for w, _ in warnings)


_PIECES = list("ab @{}<>/*\n\t#().&;") + ["<pre>", "</pre>", "{@code ", "{@link ", "@param ", "@return ",
                                             "@throws ", "\\u0041", "\\uD800", "@deprecated", "{@inheritDoc}"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(body=_TEXT)
def test_arbitrary_comments(body):
    doc = parse_comment("/**" + body.replace("*/", "* /") + "*/")
    assert doc.description is None or isinstance(doc.description, str)
    assert all(isinstance(n, str) and isinstance(t, str) for n, t in doc.params)
