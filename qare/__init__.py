"""The ``qare`` command line: a thin layer over ``callgraph``, ``javadoc``,
``queries`` and ``metrics``.

Every command parses its options, makes one library call and prints. Library
errors become clean CLI errors with the exit codes in :mod:`qare.exitcodes`.
"""

import time as _time

IMPORTED_AT = _time.perf_counter()  # start-up phase where the process age is unknown (not Linux)
__version__ = "0.1.0"
__all__ = ["__version__"]
