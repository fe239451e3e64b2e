"""The bottom package: the record types of a dataset and the small rules
every other package shares.

It imports nothing of ours (DESIGN.md, "Layout"), so ``callgraph``,
``javadoc``, ``queries`` and ``metrics`` may all import it without an arrow
running back up:

- :mod:`records.dataset` — samples, targets, APIs, projects (frozen,
  keyword-only dataclasses with explicit required/optional fields) and the
  file names of a dataset folder;
- :mod:`records.ids` — method ids, API names, the resolution vocabulary;
- :mod:`records.io` — the one streaming JSONL reader and atomic writer,
  :class:`Problem` and :func:`report_problems`;
- :mod:`records.jvm`, :mod:`records.javalang`, :mod:`records.sourcesets`,
  :mod:`records.safefs`, :mod:`records.secrets` — the JVM descriptor parser,
  the ``java.lang`` type names, the test-code rule, bounded regular-file
  reading and the credential-literal rule, each defined once here;
- :mod:`records.sccg` — the SCCGBench release reader;
- ``__version__`` — the tool version written into every manifest.
"""

from ._version import __version__
from .dataset import (
    APIS_FILE,
    MANIFEST_FILE,
    PROJECTS_FILE,
    SAMPLES_FILE,
    ApiRecord,
    CallSiteRecord,
    ParamDoc,
    ProjectRecord,
    SampleRecord,
    SchemaError,
    TargetRecord,
    ThrowsDoc,
    required_keys,
)
from .ids import RESOLUTION_STRENGTH, UNDECIDED, Resolution, api_class, api_name, split_id
from .io import Problem, iter_jsonl, read_jsonl, report_problems, write_json, write_jsonl, write_text_atomic

__all__ = [
    "__version__",
    "SampleRecord",
    "TargetRecord",
    "CallSiteRecord",
    "ApiRecord",
    "ParamDoc",
    "ThrowsDoc",
    "ProjectRecord",
    "SchemaError",
    "required_keys",
    "SAMPLES_FILE",
    "APIS_FILE",
    "PROJECTS_FILE",
    "MANIFEST_FILE",
    "Resolution",
    "RESOLUTION_STRENGTH",
    "UNDECIDED",
    "split_id",
    "api_name",
    "api_class",
    "Problem",
    "iter_jsonl",
    "read_jsonl",
    "write_jsonl",
    "write_json",
    "write_text_atomic",
    "report_problems",
]
