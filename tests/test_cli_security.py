"""Ctrl-C (SIGINT) ends any qare command with exit code 130
(docs/security.md, "Exit codes"), not 1 ("some input failed")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "fixtures" / "datasets" / "tiny"


def test_sigint_exits_130(tmp_path):
    # eval reading its predictions from a FIFO nobody writes: blocked until the signal
    fifo = tmp_path / "blocked.jsonl"
    os.mkfifo(fifo)
    args = ["eval", str(fifo), "--gold", str(TINY)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.Popen([sys.executable, "-m", "qare", *args], env=env, cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer = None
    try:
        # wait until eval has opened the FIFO (a writer can open it only once a reader has):
        # a fixed sleep sent the signal during start-up on a loaded machine. The write end
        # stays open and silent, so the read blocks until the signal
        deadline = time.monotonic() + 120
        while writer is None and p.poll() is None and time.monotonic() < deadline:
            try:
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.1)
        assert writer is not None, "eval never opened its predictions"
        time.sleep(0.5)  # from open() into the blocking read
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if writer is not None:
            os.close(writer)
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, err
    assert "interrupted (exit code 130)" in err and "Traceback" not in err
