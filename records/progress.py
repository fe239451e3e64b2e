"""A plain progress line every ~10 s while a long step runs and stderr is
not a terminal (a log file, ``nohup``, CI): no carriage returns or cursor
codes. In the bottom package so that ``qare graph``/``qare chain`` can use it
without importing ``queries`` (~60 ms of imports on every warm run);
``queries._progress`` builds ``qare build``'s progress on it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

__all__ = ["Heartbeat", "clock_text"]


def clock_text(seconds: float) -> str:
    """``H:MM:SS`` of ``seconds``."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class Heartbeat:
    """Every ``interval`` seconds, ``prefix + status() + elapsed`` on ``file``
    from a daemon thread, until :meth:`stop` (or the ``with`` block ends).
    ``enabled=False`` makes every method a no-op."""

    def __init__(self, prefix: str, status: Callable[[], str] = lambda: "", *, interval: float = 10.0,
                 file=None, enabled: bool = True, clock: Callable[[], float] = time.monotonic):
        self.prefix, self.status, self.interval = prefix, status, interval
        self.file = file or sys.stderr
        self.enabled = enabled
        self._clock = clock
        self.started = clock()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def elapsed(self) -> str:
        return clock_text(self._clock() - self.started)

    def line(self, text: str) -> None:
        """Print ``prefix text, H:MM:SS elapsed`` now (when enabled)."""
        if not self.enabled:
            return
        with self._lock:
            try:
                print(f"{self.prefix}{text}, {self.elapsed()} elapsed", file=self.file, flush=True)
            except (OSError, ValueError):  # stderr closed: progress is not worth failing the run
                self.enabled = False

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.line(self.status())

    def start(self) -> "Heartbeat":
        if self.enabled and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="qare-progress", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "Heartbeat":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
