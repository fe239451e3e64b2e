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

EPILOG = (
    "Exit codes: 0 ok; 1 finished but some inputs failed (see the report); "
    "2 usage error; 3 no input to work on (missing path, no Java files, empty "
    "file) or an unknown/ambiguous METHOD (candidates listed); 4 fatal error "
    "(e.g. an optional package missing: the message names it); 130 interrupted "
    "(Ctrl-C)."
)
