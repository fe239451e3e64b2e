"""SCCGBench virtual execution and scores (Wang et al., arXiv 2610.12920)."""

from ._sandbox import Execution, Limits, execute, execute_many, sandbox_status

__all__ = ["Execution", "Limits", "execute", "execute_many", "sandbox_status"]
