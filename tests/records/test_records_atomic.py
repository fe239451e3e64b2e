"""records.io's one atomic writer, the temporary-file name it uses, and the one
"is this process alive" rule (used by queries' stale-temp cleanup and metrics'
stale-cgroup cleanup)."""

import os
import subprocess
import sys

import pytest

from records.io import atomic_writer, pid_alive, tmp_owner, write_text_atomic


def test_atomic_writer_replaces_only_on_success(tmp_path):
    out = tmp_path / "g.json"
    out.write_text("old")
    with atomic_writer(out) as fh:
        fh.write("new ü")
        # until the block ends, readers see the old file; the new one is the pid-named temp
        assert out.read_text() == "old"
        assert sorted(os.listdir(tmp_path)) == sorted(["g.json", f".g.json.{os.getpid()}.tmp"])
    assert out.read_text(encoding="utf-8") == "new ü" and os.listdir(tmp_path) == ["g.json"]
    with pytest.raises(RuntimeError):
        with atomic_writer(out, fsync=False) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert out.read_text(encoding="utf-8") == "new ü" and os.listdir(tmp_path) == ["g.json"]


def test_a_rename_that_fails_leaves_no_temporary_file(tmp_path):
    # the path is a folder: the complete temporary file was left beside it (session 8)
    out = tmp_path / "g.json"
    out.mkdir()
    with pytest.raises(IsADirectoryError):
        with atomic_writer(out, fsync=False) as fh:
            fh.write("whole")
    assert os.listdir(tmp_path) == ["g.json"] and os.listdir(out) == []


def test_atomic_writer_never_writes_through_a_planted_link(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / f".g.json.{os.getpid()}.tmp").symlink_to(victim)
    write_text_atomic(tmp_path / "g.json", "data")
    assert victim.read_text() == "keep" and (tmp_path / "g.json").read_text() == "data"


def test_tmp_owner_reads_the_pid_of_the_writers_names_only():
    assert tmp_owner(".samples.jsonl.4242.tmp") == 4242
    assert tmp_owner(".x-0123456789.json.7.tmp") == 7
    for name in ("samples.jsonl.4242.tmp", ".samples.jsonl.tmp", ".a.42.tmp.bak", ".a.4２.tmp", ".a.-1.tmp"):
        assert tmp_owner(name) is None, name


def test_pid_alive():
    assert pid_alive(os.getpid()) and pid_alive(os.getppid())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert not pid_alive(dead.pid)
    # ids no process can have: 0 and -1 would signal a process group / every process
    assert not pid_alive(0) and not pid_alive(-1) and not pid_alive(10 ** 30)
    if os.getuid() != 0:
        assert pid_alive(1)  # another user's process: EPERM, still alive


def test_a_file_left_at_the_temporary_name_is_replaced(tmp_path):
    # a writer killed under this process's id (PID 1 in a container) left it: O_EXCL failed on it in every
    # later run (the tester, session 9); a folder there is still an error
    left = tmp_path / f".g.json.{os.getpid()}.tmp"
    left.write_text("a killed writer's half")
    write_text_atomic(tmp_path / "g.json", "data")
    assert (tmp_path / "g.json").read_text() == "data" and os.listdir(tmp_path) == ["g.json"]
    left.mkdir()
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "g.json", "more")
    assert (tmp_path / "g.json").read_text() == "data"
