"""``qare build`` never loses data to a second build or a killed one
(docs/security.md, "Output"): one build per ``--out`` (an flock), temp files
of killed builds are removed on the next run, an empty list says so."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from qare.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "qare-example"
FAST = ["-q", "--no-require-docs", "--jdk", "none", "--no-auto-classpath"]


def run(*args):
    return CliRunner().invoke(main, ["build", *map(str, args)])


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_second_build_on_the_same_out_is_refused(tmp_path):
    lst = tmp_path / "l.txt"
    lst.write_text(f"{EXAMPLE}\n")
    out = tmp_path / "o"
    first = run(lst, "--out", out, *FAST)
    assert first.exit_code == 0, first.output
    before = (out / "samples.jsonl").read_bytes()
    assert before
    # another build holds the lock (a separate open file description, like another process)
    with open(out / ".lock", "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fh.truncate(0)
        fh.write("pid 4242\n")
        fh.flush()
        second = run(lst, "--out", out, *FAST, "--no-resume")
    assert second.exit_code == 4
    assert f"{out}: another qare build (pid 4242) is writing to this folder" in second.stderr
    assert (out / "samples.jsonl").read_bytes() == before  # not rewritten by the refused build
    third = run(lst, "--out", out, *FAST, "--no-resume")  # the lock is gone with its holder
    assert third.exit_code == 0, third.output


def test_temp_files_of_killed_builds_are_removed(tmp_path):
    out = tmp_path / "o"
    (out / ".parts").mkdir(parents=True)
    import os

    dead = _dead_pid()
    stale = [out / f".samples.jsonl.{dead}.tmp", out / ".parts" / f".x-0123456789.json.{dead}.tmp",
             # this process's own id (the build runs in it here): a dead writer's that had it (PID 1 in a
             # container, run after run: session 9)
             out / f".unwritten.jsonl.{os.getpid()}.tmp"]
    for p in stale:
        p.write_text("half a file")

    live = out / f".samples.jsonl.{os.getppid()}.tmp"  # a live process's file is not touched
    live.write_text("in progress")
    (tmp_path / "l.txt").write_text(f"{EXAMPLE}\n")
    r = run(tmp_path / "l.txt", "--out", out, *FAST)
    assert r.exit_code == 0, r.output
    assert [p.exists() for p in stale] == [False, False, False]
    assert live.exists()


def test_an_empty_list_says_so_on_stderr_and_writes_nothing(tmp_path):
    (tmp_path / "l.txt").write_text("# nothing here\n")
    for quiet in (["-q"], []):
        r = run(tmp_path / "l.txt", "--out", tmp_path / "o", *quiet)
        assert r.exit_code == 3
        assert r.stderr == f"error: {tmp_path / 'l.txt'}: the project list names no project (exit code 3)\n"
        # no summary of zeros, no "written to", no output folder (a new user, session 10)
        assert r.stdout == ""
        assert not (tmp_path / "o").exists()


def test_a_bad_jsonl_line_in_a_project_list_is_a_line_error(tmp_path):
    # 100,000 nested '[' used to end in a RecursionError traceback
    lst = tmp_path / "l.jsonl"
    lst.write_text(json.dumps({"path": str(EXAMPLE)}) + "\n" + "[" * 100_000 + "\n")
    r = run(lst, "--out", tmp_path / "o", *FAST)
    assert r.exit_code == 4
    assert isinstance(r.exception, SystemExit), r.exception  # a clean exit, no traceback
    assert f"{lst}:2: bad JSON (nested too deeply)" in r.stderr


def test_a_planted_lock_link_is_never_written_through(tmp_path):
    """A shared --out: ``.lock`` (or a temp file's guessable name) planted as a
    link to a victim file must not overwrite the victim."""
    lst = tmp_path / "l.txt"
    lst.write_text(f"{EXAMPLE}\n")
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious data\n")
    (out / ".lock").symlink_to(victim)
    r = run(lst, "--out", out, *FAST)
    assert r.exit_code == 4 and "build lock" in r.stderr
    assert victim.read_text() == "precious data\n"


def test_a_fifo_lock_is_refused_not_a_traceback(tmp_path):
    import os

    lst = tmp_path / "l.txt"
    lst.write_text(f"{EXAMPLE}\n")
    out = tmp_path / "o"
    out.mkdir()
    os.mkfifo(out / ".lock")
    r = run(lst, "--out", out, *FAST)
    assert r.exit_code == 4 and "not a regular file" in r.stderr, r.output


def test_temp_file_names_are_never_written_through_links(tmp_path):
    import os

    from records.io import write_jsonl, write_text_atomic as _write_atomic

    victim = tmp_path / "victim.txt"
    victim.write_text("precious data\n")
    target = tmp_path / "samples.jsonl"
    (tmp_path / f".samples.jsonl.{os.getpid()}.tmp").symlink_to(victim)
    _write_atomic(target, "new\n")
    assert victim.read_text() == "precious data\n" and target.read_text() == "new\n"
    # the one JSONL writer (dataset files of every package) refuses the planted link the same way
    (tmp_path / f".samples.jsonl.{os.getpid()}.tmp").symlink_to(victim)
    write_jsonl(target, [{"a": 1}])
    assert victim.read_text() == "precious data\n" and target.read_text() == '{"a": 1}\n'


def test_a_list_that_is_no_regular_file_says_what_it_is(tmp_path):
    import os

    os.mkfifo(tmp_path / "l.txt")
    r = run(tmp_path / "l.txt", "--out", tmp_path / "o", "-q")
    assert r.exit_code == 3 and r.stderr == f"error: {tmp_path / 'l.txt'}: not a regular file (FIFO)\n"
    r = run(tmp_path / "missing.txt", "--out", tmp_path / "o", "-q")
    assert r.exit_code == 3 and r.stderr == f"error: {tmp_path / 'missing.txt'}: no such file\n"
    (tmp_path / "loop.txt").symlink_to("loop.txt")
    r = run(tmp_path / "loop.txt", "--out", tmp_path / "o", "-q")
    assert r.exit_code == 3 and r.stderr == \
        f"error: {tmp_path / 'loop.txt'}: cannot read it (Too many levels of symbolic links)\n"
    assert not (tmp_path / "o").exists()
