"""Exit codes shared by every ``qare`` command (documented in ``qare --help``)."""

OK = 0
"""Everything requested was done."""
PARTIAL = 1
"""The run finished, but some inputs failed (each recorded with file and reason)."""
USAGE = 2
"""Bad command line (unknown option, missing argument) — click's own code."""
NO_INPUT = 3
"""Nothing to work on: path missing, empty project, no Java files, no records."""
FATAL = 4
"""The run could not proceed at all (e.g. unreadable output folder)."""

INTERRUPTED = 130
"""Stopped by SIGINT (Ctrl-C): 128 + the signal number, as shells report it."""
PIPE_CLOSED = 141
"""The reader of the output went away (``qare … | head``): 128 + SIGPIPE, what
a shell reports for a tool that signal ends; nothing more is printed."""

EPILOG = (
    "Exit codes (each command's --help says what they mean for it): 0 ok; "
    "1 finished, but some inputs failed (each reported with file and reason); "
    "2 usage error; 3 no input to work on; 4 fatal error; 130 interrupted (Ctrl-C); "
    "141 the output's reader went away (a pipe closed, e.g. by head)."
)
"""The summary under ``qare --help``."""


def epilog(partial: str | None, no_input: str | None, fatal: str | None) -> str:
    """A command's own exit-code footer: what 1, 3 and 4 mean for it (``None``:
    the command never exits with that code). 0 and 2 mean the same everywhere.

    >>> epilog(None, "no such file", None)
    'Exit codes: 0 ok; 2 usage error; 3 no such file; 130 interrupted (Ctrl-C).'
    """
    parts = ["0 ok"]
    if partial:
        parts.append(f"1 {partial}")
    parts.append("2 usage error")
    if no_input:
        parts.append(f"3 {no_input}")
    if fatal:
        parts.append(f"4 {fatal}")
    parts.append("130 interrupted (Ctrl-C)")
    return "Exit codes: " + "; ".join(parts) + "."
