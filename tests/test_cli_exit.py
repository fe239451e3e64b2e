"""qare/_exit.py: ``qare build`` ends its process without interpreter teardown,
once everything is written, with the exit status and output a normal exit
gives; other commands, and click's CliRunner, are untouched."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


def _py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("code, status, err", [("None", 0, ""), ("3", 3, ""), ("-1", 255, ""), ("True", 1, ""),
                                               ("'a message'", 1, "a message\n")])
def test_now_runs_atexit_flushes_and_gives_pythons_exit_status(code, status, err):
    r = _py("import atexit, sys\n"
            "from qare import _exit\n"
            "atexit.register(lambda: print('atexit ran'))\n"
            "print('buffered', end=' ')\n"  # stdout is a pipe: block-buffered until the flush
            f"_exit.now({code})\n"
            "print('never')\n")
    assert (r.returncode, r.stdout, r.stderr) == (status, "buffered atexit ran\n", err)


@pytest.mark.parametrize("how", ["plain", "now"])
def test_a_stdout_that_cannot_be_flushed_is_exit_120_as_pythons_own(tmp_path, how):
    # the tester (session 8): the reader of stdout gone before the last flush; plain Python says so and
    # exits 120 (Py_FinalizeEx failed), _exit.now gave the command's 0
    end = "_exit.now(0)" if how == "now" else "sys.exit(0)"
    code = ("import sys, time\nfrom qare import _exit\nsys.stdout.write('summary\\n')\n"
            f"time.sleep(0.3)\n{end}\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONUNBUFFERED"}
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                         env=env)
    p.stdout.close()  # the reader is gone before the write is flushed: EPIPE
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 120, err
    assert "Broken pipe" in err


def test_the_entry_point_ends_at_once_only_when_the_command_asked():
    # a command that asked: the atexit handler runs, a finaliser of a live object does not (no teardown)
    probe = ("import atexit, sys, click\n"
             "from qare import _exit, cli\n"
             "class Late:\n"
             "    def __del__(self): print('teardown')\n"
             "keep = Late()\n"
             "atexit.register(lambda: print('atexit'))\n"
             "@click.command('probe')\n"
             "@click.option('--ask', is_flag=True)\n"
             "def probe(ask):\n"
             "    if ask: _exit.request()\n"
             "    sys.exit(4)\n"
             "cli.main.add_command(probe)\n"
             "sys.argv = ['qare', 'probe'] + sys.argv[1:]\n"
             "cli.main()\n")
    asked = subprocess.run([sys.executable, "-c", probe, "--ask"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    plain = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert (asked.returncode, asked.stdout) == (4, "atexit\n")
    assert (plain.returncode, plain.stdout) == (4, "atexit\nteardown\n")
    # a request made through CliRunner (which never ends the process) does not outlive its invocation
    earlier = probe.replace("cli.main()\n", "from click.testing import CliRunner\n"
                            "CliRunner().invoke(cli.main, ['probe', '--ask'])\ncli.main()\n")
    after = subprocess.run([sys.executable, "-c", earlier], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert (after.returncode, after.stdout) == (4, "atexit\nteardown\n")


def test_qare_build_process_writes_everything_and_exits_as_before(tmp_path):
    """The real process (python -m qare build) against the same build through CliRunner in this process."""
    from qare.cli import main

    lst = ROOT / "examples" / "projects.txt"
    args = ["build", str(lst), "--no-discover-classpath", "--jdk", "none", "-q"]
    proc = subprocess.run([sys.executable, "-m", "qare", *args, "--out", str(tmp_path / "proc")],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "runner")])
    assert proc.returncode == res.exit_code
    assert proc.stdout.replace(str(tmp_path / "proc"), "OUT") == res.output.replace(str(tmp_path / "runner"), "OUT")
    for name in ("samples.jsonl", "apis.jsonl"):
        assert (tmp_path / "proc" / name).read_bytes() == (tmp_path / "runner" / name).read_bytes()
    assert json.loads((tmp_path / "proc" / "manifest.json").read_text())["counts"] == \
        json.loads((tmp_path / "runner" / "manifest.json").read_text())["counts"]
