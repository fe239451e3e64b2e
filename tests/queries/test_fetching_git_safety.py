"""Project lists are data: no field of a list may make git run a command.

Each attack below executed ``touch MARKER`` through ``git fetch
--upload-pack=<cmd>`` (or the ``ext::`` transport) before revisions and URLs
were validated and every positional git argument followed ``--``.
"""

import json
import subprocess

import pytest

from queries.projects import FetchError, ProjectSpec, check_revision, check_url, fetch_project, read_project_list


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.fixture
def origin(tmp_path):
    r = tmp_path / "origin"
    r.mkdir()
    _git("init", "-q", "-b", "main", cwd=r)
    (r / "A.java").write_text("class A {}\n")
    _git("add", "A.java", cwd=r)
    _git("commit", "-q", "-m", "one", cwd=r)
    return r


def _payloads(marker):
    return [
        f"--upload-pack=touch {marker}",
        f"--upload-pack=sh -c 'touch {marker}'",
        f"-uupload=touch {marker}",
        "--help",
    ]


def test_option_shaped_commit_in_jsonl_is_refused_and_runs_nothing(origin, tmp_path):
    marker = tmp_path / "pwned"
    for payload in _payloads(marker):
        lst = tmp_path / "list.jsonl"
        lst.write_text(json.dumps({"url": f"file://{origin}", "commit": payload}) + "\n")
        (spec,) = read_project_list(lst)
        with pytest.raises(FetchError, match="not a commit id or a ref name"):
            fetch_project(spec, tmp_path / "cache")
        assert not marker.exists(), payload


def test_option_shaped_commit_in_text_and_url_at_forms(origin, tmp_path):
    marker = tmp_path / "pwned"
    lst = tmp_path / "list.txt"
    lst.write_text(f"file://{origin} commit=--upload-pack=touch%20{marker}\n"
                   f"file://{origin}@--upload-pack=touch\n")
    specs = read_project_list(lst)
    assert len(specs) == 2
    for spec in specs:
        assert spec.commit.startswith("--upload-pack")
        with pytest.raises(FetchError):
            fetch_project(spec, tmp_path / "cache")
    assert not marker.exists()


def test_upload_pack_payload_without_validation_would_run(origin, tmp_path):
    """The attack is real: plain git does run it (so the tests above can fail)."""
    marker = tmp_path / "proof"
    w = tmp_path / "w"
    w.mkdir()
    _git("init", "-q", cwd=w)
    _git("remote", "add", "origin", f"file://{origin}", cwd=w)
    subprocess.run(["git", "fetch", "-q", "origin", f"--upload-pack=touch {marker}"], cwd=w,
                   capture_output=True)
    assert marker.exists()


def test_ext_and_other_transports_are_refused(origin, tmp_path):
    marker = tmp_path / "pwned"
    for url in (f"ext::sh -c touch% {marker}", "fd::0", f"--upload-pack=touch {marker}",
                "foo+bar://host/x", "gopher://host/x"):
        with pytest.raises(FetchError):
            check_url(url)
    spec = ProjectSpec(source=f"ext::sh -c touch% {marker}", name="x", is_url=True)
    with pytest.raises(FetchError):
        fetch_project(spec, tmp_path / "cache")
    assert not marker.exists()
    for ok in ("https://github.com/a/b", "ssh://git@host/a/b.git", "git@github.com:a/b.git", f"file://{origin}"):
        assert check_url(ok) == ok


def test_redirected_ext_transport_is_refused_by_git_itself(origin, tmp_path):
    """A local bare repository whose remote would be fetched through ext::
    (e.g. a submodule or an alternate URL) cannot use it: git's protocol
    allow-list is set on every call."""
    marker = tmp_path / "pwned"
    spec = ProjectSpec(source=f"file://{origin}", name="o", is_url=True, commit=None)
    root, commit = fetch_project(spec, tmp_path / "cache")
    assert (root / "A.java").is_file() and len(commit) == 40
    # the same machinery, asked for ext:: directly, is refused by git
    from queries import fetching
    with pytest.raises(FetchError):
        fetching._git(["ls-remote", "--", f"ext::sh -c touch% {marker}"], cwd=tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize("rev,ok", [
    ("0123abcd", True), ("a" * 40, True), ("v1.2.3", True), ("main", True), ("refs/tags/v1", True),
    ("release/2025.1", True), ("-x", False), ("--upload-pack=x", False), ("a..b", False),
    ("a b", False), ("a\nb", False), ("", False), ("x~1", False), ("@{-1}", False),
])
def test_check_revision(rev, ok):
    if ok:
        assert check_revision(rev) == rev
    else:
        with pytest.raises(FetchError):
            check_revision(rev)


def test_build_records_the_refused_project_and_goes_on(origin, tmp_path):
    from click.testing import CliRunner
    from qare.cli import main

    marker = tmp_path / "pwned"
    lst = tmp_path / "list.jsonl"
    lst.write_text(json.dumps({"url": f"file://{origin}", "commit": f"--upload-pack=touch {marker}"}) + "\n"
                   + json.dumps({"path": str(origin)}) + "\n")
    res = CliRunner().invoke(main, ["build", str(lst), "--out", str(tmp_path / "ds"), "--no-auto-classpath"])
    assert not marker.exists()
    assert res.exit_code == 1, res.output
    rows = [json.loads(x) for x in (tmp_path / "ds" / "projects.jsonl").read_text().splitlines()]
    bad = [r for r in rows if "upload-pack" in json.dumps(r)]
    assert bad and all(r.get("status") != "kept" for r in bad)
    assert any("not a commit id or a ref name" in json.dumps(r) for r in bad)


def test_a_clone_folder_others_may_write_is_neither_reused_nor_cloned_into(origin, tmp_path):
    """A checkout planted (or changed) in a shared clone folder would be analysed as
    the project: the folder must pass check_private (docs/security.md "Caches")."""
    import os

    spec = ProjectSpec(source=f"file://{origin}", name="o", is_url=True, commit=None)
    cache = tmp_path / "cache"
    root, _ = fetch_project(spec, cache)
    assert (cache.stat().st_mode & 0o777) == 0o700  # made private
    (root / "A.java").write_text("class Planted {}\n")  # what someone with write access could do
    assert fetch_project(spec, cache)[0] == root  # private: reused
    cache.chmod(0o770)
    try:
        os.chown(cache, -1, 65534)  # a group that is not the user's own
    except PermissionError:
        cache.chmod(0o777)
    with pytest.raises(FetchError, match="refusing the clone folder .*writable by group or others"):
        fetch_project(spec, cache)
