"""Text rules (docs/javadoc.md "Text"): HTML and doc-comment inline tags →
plain text, first sentences."""

from __future__ import annotations

from lxml import etree

from javadoc._text import (
    comment_html,
    comment_parts,
    element_text,
    first_sentence_of,
    link_label,
)


def _div(html: str):
    return etree.fromstring(f"<html><body><div>{html}</div></body></html>", etree.HTMLParser()).find(".//div")


def test_html_blocks_lists_pre_entities():
    el = _div("Intro &amp; more\n  text.<p>Second &lt;para&gt;&nbsp;here.</p>"
              "<ul><li>one</li>\n<li>two <code>x</code></li></ul>"
              "<pre>\n    int a = 1;\n      if (a &gt; 0) {}\n</pre>tail&#8203;!")
    assert element_text(el) == ("Intro & more text.\n\nSecond <para> here.\n\n- one\n- two x\n"
                                "int a = 1;\n  if (a > 0) {}\ntail!")
    assert first_sentence_of([el]) == "Intro & more text."


def test_first_sentence_rules():
    assert first_sentence_of([_div("No period but a list:<ul><li>a</li><li>b.</li></ul>")]) == \
        "No period but a list: a b."
    assert first_sentence_of([_div("Stops at a paragraph<p>not here.</p>")]) == "Stops at a paragraph"
    assert first_sentence_of([_div("Ends at e.g. the first period. Not here.")]) == "Ends at e.g."
    assert first_sentence_of([_div("Version 1.5 is fine. Next.")]) == "Version 1.5 is fine."
    assert first_sentence_of([_div("")]) is None


def test_inline_tags():
    assert link_label("Foo#bar(int)") == "Foo.bar(int)"
    assert link_label("#bar(int, String)") == "bar(int, String)"
    assert link_label("java.util.List the list") == "the list"
    assert link_label("Foo#bar(int, int) label text") == "label text"
    assert comment_html("a {@code Map<K, {V}>} b") == "a <code>Map&lt;K, {V}&gt;</code> b"
    assert comment_html("{@literal <T>} {@inheritDoc}{@docRoot}") == "&lt;T&gt; "
    text, first = comment_parts("Uses {@link Foo#bar(int)} and {@linkplain #baz() baz}. More.")
    assert (text, first) == ("Uses Foo.bar(int) and baz. More.", "Uses Foo.bar(int) and baz.")
    assert comment_parts(None) == (None, None)
    # an unbalanced tag is left as written
    assert comment_parts("broken {@code x")[0] == "broken {@code x"
