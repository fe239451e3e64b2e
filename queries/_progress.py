"""Plain progress lines for long runs whose stderr is not a terminal (a log
file, ``nohup``, CI): no carriage returns or cursor codes, one line at most
every ``interval`` seconds while work goes on, plus one line per finished
project. On a terminal the tqdm bars stay; these lines are for the others.

Lines look like::

    qare build: 3/10 projects, now commons-text: graph, 0:01:25 elapsed
    qare build: 4/10 projects, commons-text kept (41.2 s), 0:01:40 elapsed
"""

from __future__ import annotations

from collections.abc import Callable

from records.progress import Heartbeat

__all__ = ["Heartbeat", "BuildProgress", "set_phase", "note"]


_CURRENT: "BuildProgress | None" = None


class BuildProgress:
    """The progress of one ``build_dataset`` run: projects done out of
    ``total``, the project analysed in this process and its phase (set by
    :func:`set_phase` from ``analyse_project``). ``lines``: plain lines
    (stderr not a terminal); ``on_phase``: called with ``"name: phase"`` (the
    terminal bar's postfix)."""

    def __init__(self, total: int, done: int = 0, *, lines: bool, interval: float = 10.0, file=None,
                 on_phase: Callable[[str], None] | None = None):
        self.total, self.done = total, done
        self.project: str | None = None
        self.phase: str | None = None
        self.on_phase = on_phase
        self.heartbeat = Heartbeat("qare build: ", self._status, interval=interval, file=file, enabled=lines)

    def _status(self) -> str:
        now = f", now {self.project}: {self.phase}" if self.project and self.phase else ""
        return f"{self.done}/{self.total} projects{now}"

    def __enter__(self) -> "BuildProgress":
        global _CURRENT
        _CURRENT = self
        self.heartbeat.start()
        return self

    def __exit__(self, *exc) -> None:
        global _CURRENT
        _CURRENT = None
        self.heartbeat.stop()

    def set_phase(self, project: str, phase: str) -> None:
        self.project, self.phase = project, phase
        if self.on_phase is not None:
            self.on_phase(f"{project[:30]}: {phase}")

    def finished(self, project: str, verdict: str, seconds: float | None) -> None:
        self.done += 1
        self.project = self.phase = None
        took = f" ({seconds:.1f} s)" if isinstance(seconds, (int, float)) else ""
        self.heartbeat.line(f"{self.done}/{self.total} projects, {project} {verdict}{took}")

    def note(self, text: str) -> None:
        self.heartbeat.line(text)


def set_phase(project: str, phase: str) -> None:
    """Tell the running build (in this process, if any) which phase a project is in."""
    if _CURRENT is not None:
        _CURRENT.set_phase(project, phase)


def note(text: str) -> None:
    """A one-off progress line of the running build (plain-line mode only)."""
    if _CURRENT is not None:
        _CURRENT.note(text)
