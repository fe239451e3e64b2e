"""The bottom package: record types and readers shared by the other packages.

It imports nothing of ours (DESIGN.md, "Layout"). Today it holds the
SCCGBench release reader (:mod:`records.sccg`); the dataset record types move
here with issue 11.
"""

__all__: list[str] = []
