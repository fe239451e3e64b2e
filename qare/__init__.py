"""The ``qare`` command line: a thin layer over ``callgraph``, ``javadoc``,
``queries`` and ``metrics``.

Every command parses its options, makes one library call and prints. Library
errors become clean CLI errors with the exit codes in :mod:`qare.exitcodes`.
"""

from records import __version__
__all__ = ["__version__"]
