"""API-name normalisation across APIBench-Q, CLEAR, DeepAPI and our ids."""

import pytest

from metrics.names import normalise_api, normalise_many, parse_api, simple_name


@pytest.mark.parametrize(
    "raw,level,expected",
    [
        ("java.io.File.mkdirs()", "name", ("java.io.File.mkdirs",)),
        ("java.io.File.mkdirs()", "class", ("java.io.File",)),
        ("java.io.File.mkdirs()", "signature", ("java.io.File.mkdirs()",)),
        # APIBench constructor form, nested type
        ("javax.swing.JList.JList()", "name", ("javax.swing.JList.<init>",)),
        ("java.util.Map.Entry.getKey()", "class", ("java.util.Map.Entry",)),
        # CLEAR: no parentheses
        ("java.util.Collections.max", "name", ("java.util.Collections.max",)),
        ("java.util.Collections.max", "signature", ("java.util.Collections.max(*)",)),
        # DeepAPI
        ("StringBuilder.<init>", "name", ("StringBuilder.<init>",)),
        ("StringBuilder.new", "name", ("StringBuilder.<init>",)),
        ("new java.util.ArrayList()", "name", ("java.util.ArrayList.<init>",)),
        # our own ids pass through unchanged
        (
            "com.acme.Outer.Inner.name(java.lang.String,int[],java.lang.Object...)",
            "signature",
            ("com.acme.Outer.Inner.name(java.lang.String,int[],java.lang.Object...)",),
        ),
        ("org.apache.commons.lang3.StringUtils.join(*)", "signature", ("org.apache.commons.lang3.StringUtils.join(*)",)),
        ("org.apache.commons.lang3.StringUtils.join(*)", "name", ("org.apache.commons.lang3.StringUtils.join",)),
        # '#' and '::' separators, parameter names and java.lang qualification
        ("java.io.File#renameTo(java.io.File dest)", "signature", ("java.io.File.renameTo(java.io.File)",)),
        ("java.lang.String#format(String fmt, Object... args)", "signature",
         ("java.lang.String.format(java.lang.String,java.lang.Object...)",)),
        ("java.io.File::delete", "name", ("java.io.File.delete",)),
        # generics erased, type variables to Object
        ("java.util.Map.put(K key, V value)", "signature", ("java.util.Map.put(java.lang.Object,java.lang.Object)",)),
        ("java.util.List.addAll(java.util.Collection<? extends E> c)", "signature",
         ("java.util.List.addAll(java.util.Collection)",)),
        ("  java.io.File.exists()  ", "name", ("java.io.File.exists",)),
        # constructor written without parentheses; full-width parentheses
        ("java.io.File.File", "name", ("java.io.File.<init>",)),
        ("java.io.File.mkdirs（）", "signature", ("java.io.File.mkdirs()",)),
    ],
)
def test_normalise(raw, level, expected):
    names, problems = normalise_api(raw, level)
    assert names == expected
    assert problems == ()


def test_full_width_comma_joins_several_apis():
    names, problems = normalise_api("java.io.File.mkdirs()，java.io.File.exists()")
    assert names == ("java.io.File.mkdirs", "java.io.File.exists")
    assert len(problems) == 1 and "several APIs" in problems[0]


def test_full_width_comma_inside_parameter_list_is_a_parameter_separator():
    names, problems = normalise_api("a.B.c(int，long)", "signature")
    assert names == ("a.B.c(int,long)",)
    assert problems == ()


def test_class_level_merges_joined_apis_of_one_class():
    names, _ = normalise_api("java.io.File.mkdirs()，java.io.File.exists()", "class")
    assert names == ("java.io.File",)


@pytest.mark.parametrize("raw", ["idk", "", "   ", "x y", "???", "mkdirs()"])
def test_unreadable_strings_give_no_name_and_a_problem(raw):
    names, problems = normalise_api(raw)
    assert names == ()
    assert problems


def test_non_string_is_a_problem_not_an_exception():
    names, problems = normalise_api(None)  # type: ignore[arg-type]
    assert names == () and problems


def test_argument_values_inside_parentheses_keep_the_name():
    names, problems = normalise_api('java.lang.String.format("%d", count)', "signature")
    assert names == ("java.lang.String.format(*)",)
    assert problems
    names, _ = normalise_api('java.lang.String.format("%d", count)', "name")
    assert names == ("java.lang.String.format",)


def test_unclosed_parenthesis_is_repaired_and_reported():
    names, problems = normalise_api("java.io.File.mkdirs(", "name")
    assert names == ("java.io.File.mkdirs",)
    assert any("unclosed" in p for p in problems)


def test_type_only_string():
    assert normalise_api("java.io.File", "class") == (("java.io.File",), ())
    names, problems = normalise_api("java.io.File", "name")
    assert names == () and "not a method" in problems[0]


def test_bad_level_raises():
    with pytest.raises(ValueError):
        normalise_api("a.B.c()", "method")


def test_simple_names():
    assert simple_name("java.util.Map.Entry.getKey") == "Map.Entry.getKey"
    assert simple_name("java.lang.StringBuilder.<init>(java.lang.String,int)") == "StringBuilder.<init>(String,int)"
    assert simple_name("a.B.c()") == "B.c()"
    assert normalise_api("java.lang.StringBuilder.StringBuilder()", "name", simple=True) == (("StringBuilder.<init>",), ())


def test_parse_api_fields():
    apis, problems = parse_api("javax.swing.JList.JList(java.lang.Object[] items)")
    assert problems == ()
    (a,) = apis
    assert (a.class_, a.member, a.params) == ("javax.swing.JList", "<init>", ("java.lang.Object[]",))


def test_normalise_many_dedupes_in_order_and_drops_unreadable():
    names, problems = normalise_many(["a.B.c()", "idk", "a.B.c(int)", "a.B.d"], "name")
    assert names == ["a.B.c", "a.B.d"]
    assert len(problems) == 1
