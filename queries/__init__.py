"""The dataset builder (Q-ARE-style query → target-API sets), evaluation
slices, and the SCCGBench Python AST tools.

Public API of the builder (docs/dataset.md):

- ``build_dataset(project_list, out, BuildOptions(...), jobs=, scheduler=,
  formats=, quiet=) -> BuildResult`` — the whole ``qare build``;
- ``analyse_project(spec, opts, deps=) -> ProjectPart`` and
  ``merge_parts(parts, opts, out) -> MergeResult`` — its two stages, with
  the typed values between them (``Candidate``, ``ProjectPart``,
  ``Verdict``) and what it needs from ``callgraph``/``javadoc``
  (``BuildDeps``);
- ``read_project_list(path) -> list[ProjectSpec]``, ``Selection``,
  ``fetch_project`` — project lists, fetching and selection (Q-ARE §3.1);
- ``clean_comment``, ``extract_query``, ``detect_lang`` — comments → queries;
- ``find_leaks``, ``sample_id``.

Record types of the files are in :mod:`records` (the bottom package).
"""

from .build import (
    BuildDeps,
    BuildError,
    EmptyProjectList,
    BuildOptions,
    BuildResult,
    Candidate,
    MergeResult,
    ProjectPart,
    Verdict,
    analyse_project,
    build_dataset,
    find_leaks,
    merge_parts,
    sample_id,
    summary_table,
)
from .comments import clean_comment, detect_lang, extract_query
from .projects import (
    FetchError,
    ProjectListError,
    ProjectSpec,
    Selection,
    fetch_project,
    read_project_list,
)

__all__ = [
    "build_dataset",
    "BuildOptions",
    "BuildResult",
    "BuildError",
    "EmptyProjectList",
    "BuildDeps",
    "Candidate",
    "ProjectPart",
    "Verdict",
    "MergeResult",
    "analyse_project",
    "merge_parts",
    "summary_table",
    "find_leaks",
    "sample_id",
    "read_project_list",
    "ProjectSpec",
    "ProjectListError",
    "Selection",
    "fetch_project",
    "FetchError",
    "clean_comment",
    "extract_query",
    "detect_lang",
]
