"""Comment cleaning, query extraction and language detection (queries.comments)."""

import pytest

from queries.comments import clean_comment, detect_lang, extract_query


JAVADOC = """/**
     * Processes a user comment: trims it and
     * rejects it when {@link #isCommentEmpty(String) empty}.
     * <p>
     * Uses {@code StringUtils} from <a href="https://x">commons-lang</a> &amp; more.
     *
     * @param text the raw comment
     * @return the cleaned comment, or {@code null}
     * @throws IllegalStateException never
     */"""


def test_javadoc_description_stops_at_block_tags_and_drops_markup():
    assert clean_comment(JAVADOC) == (
        "Processes a user comment: trims it and\n"
        "rejects it when empty.\n"
        "Uses StringUtils from commons-lang & more."
    )


def test_query_is_first_two_description_lines_joined():
    assert extract_query(JAVADOC) == "Processes a user comment: trims it and rejects it when empty."
    assert extract_query(JAVADOC, lines=1) == "Processes a user comment: trims it and"
    assert extract_query(JAVADOC, lines=5).endswith("Uses StringUtils from commons-lang & more.")
    with pytest.raises(ValueError):
        extract_query(JAVADOC, lines=0)


def test_inline_link_forms():
    raw = "/** See {@link java.util.List#add(Object)}, {@linkplain Foo label text}, {@link #bar} and {@inheritDoc}. */"
    assert clean_comment(raw) == "See java.util.List.add, label text, bar and ."


def test_code_body_is_literal_with_balanced_braces():
    # javadoc 17 shows both bodies verbatim (checked with the javadoc tool): no nested tag is resolved
    assert clean_comment("/** Returns {@code Map<String, {@literal List}>} items. */") == (
        "Returns Map<String, {@literal List}> items."
    )
    assert clean_comment("/** Gives {@code Map<String, {x}>} here. */") == "Gives Map<String, {x}> here."
    assert clean_comment("/** Body {@code if (a) { b(); }} end. */") == "Body if (a) { b(); } end."


def test_link_parameter_lists_with_spaces():
    raw = "/** Like {@link StringUtils#join(Object[], char)} and {@link #b(String, int)} here. */"
    assert extract_query(raw) == "Like StringUtils.join and b here."
    assert clean_comment("/** Uses {@link java.util.Map#put(Object, Object)}. */") == "Uses java.util.Map.put."
    assert clean_comment("/** Or {@linkplain Foo#m(List<String>, Map<K, V>[], int...)} too. */") == "Or Foo.m too."
    # the reference may break across comment lines inside its parameter list
    assert extract_query("/**\n * Calls {@link Foo#m(int,\n *     long)} once.\n */") == "Calls Foo.m once."


def test_link_label_wins_over_reference():
    assert clean_comment("/** See {@link Foo#bar(int, int) the bar method}. */") == "See the bar method."
    assert clean_comment("/** See {@linkplain #bar(int, int)   two  ints }. */") == "See two ints."
    assert clean_comment("/** A {@link Map<K, V> map of things} here. */") == "A map of things here."
    assert clean_comment("/** A {@link Foo label with {@code List<T>}} x. */") == "A label with List<T> x."


def test_value_literal_and_unknown_tags():
    assert clean_comment("/** Defaults to {@value Foo#X} or {@value #Y}. */") == "Defaults to Foo.X or Y."
    assert clean_comment("/** Is {@literal a<b> && {c}} ok. */") == "Is a<b> && {c} ok."
    assert clean_comment("/** Unknown {@foo bar} tag. */") == "Unknown bar tag."
    assert clean_comment("/** {@return the size of {@code xs}} */") == "Returns the size of xs."
    assert clean_comment('/** The {@index "call graph" graphs} and {@index node}. */') == "The call graph and node."


def test_unterminated_inline_tag_keeps_its_text():
    assert clean_comment("/** See {@link Foo#bar(int, int) for details. */") == "See Foo#bar(int, int) for details."
    assert clean_comment("/** A {@code List<String> tail\n * next line. */") == "A List<String> tail\nnext line."
    assert clean_comment("/** Half {@link Foo {@code x} rest. */") == "Half Foo x rest."
    assert clean_comment("/** Not a tag: {@ x} and {@} and {@1}. */") == "Not a tag: {@ x} and {@} and {@1}."


@pytest.mark.parametrize(
    "raw,query",
    [
        # jimfs-like: a varargs parameter list was cut at its first space
        ("/** Implements {@link Files#createLink(Path, Path, LinkOption...)}. */",
         "Implements Files.createLink."),
        (("/**\n * Implements {@link Path#toRealPath(LinkOption...)} and\n"
          " * {@link Files#readAttributes(Path, String, LinkOption...)}.\n */"),
         "Implements Path.toRealPath and Files.readAttributes."),
        # commons-text-like
        (("/** This is used by {@link #escape(char[], int, char...)} and "
          "{@link StringEscapeUtils#unescape(String, char...)}. */"),
         "This is used by escape and StringEscapeUtils.unescape."),
    ],
)
def test_real_world_link_lists(raw, query):
    assert extract_query(raw) == query


def test_code_keeps_generics_and_entities_literal():
    assert clean_comment("/** Returns a {@code List<String>} of {@code a &amp; b}. */") == (
        "Returns a List<String> of a &amp; b."
    )


def test_at_line_inside_pre_is_not_a_tag():
    raw = """/**
 * Example:
 * <pre>
 * @Override
 * void run() {}
 * </pre>
 * Ends here.
 * @since 1.0
 */"""
    assert clean_comment(raw) == "Example:\n@Override\nvoid run() {}\nEnds here."


def test_line_comments_and_block_comments():
    assert clean_comment("// Loads the config file.\n//   Falls back to defaults.") == (
        "Loads the config file.\nFalls back to defaults."
    )
    assert clean_comment("/* plain block\n   second */") == "plain block\nsecond"
    assert extract_query("/// triple slash") == "triple slash"


def test_tags_only_comment_has_empty_description():
    assert clean_comment("/**\n * @param x the x\n * @return y\n */") == ""
    assert extract_query(None) == ""


def test_br_and_p_break_lines():
    assert clean_comment("/** One<br>two<p>three</p> */") == "One\ntwo\nthree"


def test_chinese_comment_is_zh():
    raw = "/**\n * 处理用户评论，去掉首尾空白。\n * 如果评论为空则返回 null。\n */"
    q = extract_query(raw)
    assert q == "处理用户评论，去掉首尾空白。 如果评论为空则返回 null。"
    assert detect_lang(q) == "zh"


@pytest.mark.parametrize(
    "text,lang",
    [
        ("Returns the user name.", "en"),
        ("ユーザー名を返す", "ja"),
        ("사용자 이름을 반환합니다", "ko"),
        ("Возвращает имя пользователя", "ru"),
        ("Returns the 用户 name", "zh"),
        ("123 -- !!", "und"),
        ("", "und"),
    ],
)
def test_detect_lang_by_script(text, lang):
    assert detect_lang(text) == lang
