"""The ``qare`` command line: a thin layer over ``callgraph``, ``javadoc``,
``queries`` and ``metrics``.

Every command parses its options, makes one library call and prints. Library
errors become clean CLI errors with the exit codes in :mod:`qare.exitcodes`.
"""

import time as _time

IMPORTED_AT = _time.perf_counter()  # start-up phase where the process age is unknown (not Linux)

from records import __version__  # noqa: E402  (after the clock: start-up is measured from here)
__all__ = ["__version__"]
