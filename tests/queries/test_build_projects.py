"""Project lists (text, CSV, JSONL), fetching (local folders, git clones pinned to a commit) and selection."""

import datetime as dt
import subprocess

import pytest

from queries.projects import (
    FetchError,
    ProjectListError,
    ProjectSpec,
    Selection,
    fetch_project,
    read_project_list,
    select_checkout,
    select_metadata,
)


def test_text_list_with_columns_urls_and_comments(tmp_path):
    (tmp_path / "lists").mkdir()
    f = tmp_path / "lists/p.txt"
    f.write_text(
        "# header comment\n"
        "\n"
        "../proj  javadoc=docs/a-javadoc.jar;docs/a-sources.jar classpath=lib/a.jar stars=25  # trailing\n"
        "https://github.com/apache/commons-text@0123abc\n"
        "git@github.com:google/jimfs.git name=jimfs\n",
        encoding="utf-8",
    )
    a, b, c = read_project_list(f)
    assert a.source == str((tmp_path / "proj").resolve()) and not a.is_url
    assert a.name == "proj" and a.stars == 25 and a.line == 3
    assert a.javadoc == (str(tmp_path / "lists/docs/a-javadoc.jar"), str(tmp_path / "lists/docs/a-sources.jar"))
    assert a.classpath == (str(tmp_path / "lists/lib/a.jar"),)
    assert (b.source, b.commit, b.name, b.is_url) == ("https://github.com/apache/commons-text", "0123abc", "apache/commons-text", True)
    assert (c.source, c.commit, c.name) == ("git@github.com:google/jimfs.git", None, "jimfs")
    assert len({a.key, b.key, c.key}) == 3


def test_csv_and_jsonl_lists(tmp_path):
    (tmp_path / "l.csv").write_text(
        "url,commit,stars,created_at,javadoc\n"
        "https://github.com/a/b,abc,30,2025-03-01T10:00:00Z,x.jar;y.jar\n"
        ",,,,\n"
        "./local,,,,\n"
    )
    a, b = read_project_list(tmp_path / "l.csv")
    assert (a.name, a.commit, a.stars, a.created_at) == ("a/b", "abc", 30, dt.date(2025, 3, 1))
    assert a.javadoc == (str(tmp_path / "x.jar"), str(tmp_path / "y.jar"))
    assert b.source == str(tmp_path / "local") and b.stars is None
    (tmp_path / "l.jsonl").write_text(
        '{"path": "p1", "classpath": ["lib/a.jar", "lib/b.jar"], "name": "one"}\n\n{"url": "https://h/o/r.git"}\n'
    )
    a, b = read_project_list(tmp_path / "l.jsonl")
    assert a.name == "one" and a.classpath == (str(tmp_path / "lib/a.jar"), str(tmp_path / "lib/b.jar"))
    assert b.name == "o/r"


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("bad.jsonl", '{"path": "a"}\n{oops\n', "bad.jsonl:2: bad JSON"),
        ("bad.csv", "url,stars\nhttps://h/a/b,many\n", "stars 'many' is not an integer"),
        ("bad2.csv", "url,created_at\nhttps://h/a/b,yesterday\n", "is not an ISO date"),
        ("nosrc.csv", "name,stars\nx,1\n", "no url/path/source value"),
        ("bad.txt", "proj colour=blue\n", "bad.txt:1: expected KEY=VALUE"),
    ],
)
def test_bad_lists_name_file_and_line(tmp_path, name, content, message):
    (tmp_path / name).write_text(content)
    with pytest.raises(ProjectListError, match=message):
        read_project_list(tmp_path / name)


def test_non_utf8_and_missing_lists(tmp_path):
    (tmp_path / "x.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(ProjectListError, match="not UTF-8"):
        read_project_list(tmp_path / "x.txt")
    with pytest.raises(ProjectListError, match="cannot read"):
        read_project_list(tmp_path / "none.txt")


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)})
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    _git("init", "-q", "-b", "main", cwd=r)
    (r / "A.java").write_text("class A {}\n")
    _git("add", "A.java", cwd=r)
    c1 = _git("commit", "-q", "-m", "one", cwd=r)
    (r / "B.java").write_text("class B {}\n")
    _git("add", "B.java", cwd=r)
    c2 = _git("commit", "-q", "-m", "two", cwd=r)
    return r, c1, c2


def test_local_repository_used_in_place_with_its_commit(repo):
    r, c1, c2 = repo
    root, commit = fetch_project(ProjectSpec(source=str(r), name="repo"), "/nonexistent-cache")
    assert root == r and commit == c2
    with pytest.raises(FetchError, match="list asks for"):
        fetch_project(ProjectSpec(source=str(r), name="repo", commit=c1[:10]), "/nonexistent-cache")


def test_url_is_cloned_shallow_at_the_pinned_commit(repo, tmp_path):
    r, c1, c2 = repo
    url = f"file://{r}"
    spec = read_project_list_line(tmp_path, f"{url}@{c1}")
    root, commit = fetch_project(spec, tmp_path / "cache")
    assert commit == c1
    assert (root / "A.java").is_file() and not (root / "B.java").exists()
    assert root.parent == tmp_path / "cache"
    # re-used from the cache
    root2, commit2 = fetch_project(spec, tmp_path / "cache")
    assert (root2, commit2) == (root, c1)
    head = read_project_list_line(tmp_path, url)
    root3, commit3 = fetch_project(head, tmp_path / "cache")
    assert commit3 == c2 and (root3 / "B.java").is_file()
    shallow = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root3, capture_output=True, text=True)
    assert shallow.stdout.strip() == "1"


def test_unreachable_url_is_a_fetch_error(tmp_path):
    spec = read_project_list_line(tmp_path, f"file://{tmp_path}/missing-repo")
    with pytest.raises(FetchError, match="git"):
        fetch_project(spec, tmp_path / "cache")
    assert not any((tmp_path / "cache").iterdir())


def read_project_list_line(tmp_path, line):
    f = tmp_path / "one.txt"
    f.write_text(line + "\n")
    (spec,) = read_project_list(f)
    return spec


def test_select_metadata_bounds_are_inclusive():
    sel = Selection(min_stars=20, created_after=dt.date(2025, 2, 6), created_before=dt.date(2025, 12, 31))
    ok = ProjectSpec(source="x", stars=20, created_at=dt.date(2025, 2, 6))
    assert select_metadata(ok, sel) == (True, "")
    assert select_metadata(ProjectSpec(source="x", stars=20, created_at=dt.date(2025, 12, 31)), sel) == (True, "")
    assert select_metadata(ProjectSpec(source="x", stars=20, created_at=dt.date(2026, 1, 1)), sel) == (
        False, "created 2026-01-01 after 2025-12-31")
    assert select_metadata(ProjectSpec(source="x", stars=19), sel) == (False, "stars 19 < 20")


def test_select_checkout_tests_and_libs(tmp_path):
    (tmp_path / "src/main/java").mkdir(parents=True)
    (tmp_path / "src/main/java/A.java").write_text("import static org.springframework.util.Assert.notNull;\n")
    sel = Selection(require_tests=True, require_libs=("org.springframework.",))
    assert select_checkout(tmp_path, sel) == (False, "no test sources (--require-tests)")
    # a *Test.java name under src/main/java is main code (the call graph's rule, records.sourcesets)
    (tmp_path / "src/main/java/FooTest.java").write_text("class FooTest {}\n")
    assert select_checkout(tmp_path, sel) == (False, "no test sources (--require-tests)")
    (tmp_path / "src/integrationTest/java").mkdir(parents=True)
    (tmp_path / "src/integrationTest/java/FooIT.java").write_text("class FooIT {}\n")
    assert select_checkout(tmp_path, sel) == (True, "")
    assert select_checkout(tmp_path, Selection(require_libs=("org.springframeworkx",)))[0] is False


def test_pinned_commit_on_a_plain_folder_is_an_error(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(FetchError, match="not in a git work tree"):
        fetch_project(ProjectSpec(source=str(tmp_path / "plain"), name="plain", commit="abc"), tmp_path / "c")
    root, commit = fetch_project(ProjectSpec(source=str(tmp_path / "plain"), name="plain"), tmp_path / "c")
    assert (root, commit) == (tmp_path / "plain", None)


def test_existing_folder_with_at_sign_is_not_split(tmp_path):
    (tmp_path / "lib@2").mkdir()
    (spec,) = [read_project_list_line(tmp_path, "lib@2")]
    assert (spec.source, spec.commit) == (str(tmp_path / "lib@2"), None)


@pytest.mark.parametrize("source,name", [
    ("file:///work/.mirror/google+jimfs/repo", "google+jimfs"),
    ("file:///srv/git/jimfs.git", "jimfs"),
    ("https://github.com/google/jimfs.git", "google/jimfs"),
    ("https://git.example.org/google/jimfs/repo", "google/jimfs"),
    ("ssh://git@host/o/r/.git", "o/r"),
    ("git@github.com:google/jimfs.git", "google/jimfs"),
    ("https://host/r.git", "r"),
])
def test_name_drops_a_generic_last_segment(tmp_path, source, name):
    (tmp_path / "l.txt").write_text(f"{source}\n")
    (spec,) = read_project_list(tmp_path / "l.txt")
    assert spec.name == name


def test_local_repo_and_dot_git_folders_take_the_parent_name(tmp_path):
    (tmp_path / "jimfs/repo").mkdir(parents=True)
    (tmp_path / "text/.git").mkdir(parents=True)
    (tmp_path / "l.txt").write_text("jimfs/repo\ntext/.git\n")
    assert [s.name for s in read_project_list(tmp_path / "l.txt")] == ["jimfs", "text"]
