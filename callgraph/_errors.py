"""Named errors of the ``callgraph`` package."""

from __future__ import annotations


class CallGraphError(Exception):
    """Base class of every error ``callgraph`` raises on purpose."""


class NoInputError(CallGraphError):
    """Nothing to analyse: the path is missing, empty, or holds no usable ``.java`` file.

    The command line maps it to exit code 3 (``qare.exitcodes.NO_INPUT``).
    """


class UnknownMethodError(CallGraphError):
    """A method name given to ``reach``/``qare chain`` is unknown or ambiguous.

    Attributes
    ----------
    candidates : list[str]
        Method ids that match the name (empty when nothing matches).
    """

    def __init__(self, message: str, candidates: list[str] | None = None):
        super().__init__(message)
        self.candidates = list(candidates or [])
