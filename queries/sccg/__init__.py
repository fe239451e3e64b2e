"""SCCGBench Python AST tools (Wang et al., *SCCGBench*, arXiv 2610.12920).

Service-call function extraction with the parameter schema (§III-B, III-C),
template/wrapper flagging and dedupe, redaction of gold answers from code,
and ``LeakCheck`` for generated intents.

Records are plain ``dict`` objects in SCCGBench's released JSON schema
(documented in ``docs/sccg.md``) so that ``metrics.sccg`` can read them
without importing this package.

Examples
--------
>>> from queries.sccg import extract_source
>>> src = '''
... import requests
... def weather(city):
...     return requests.get("https://w.p.rapidapi.com/current", params={"q": city})
... '''
>>> rec = extract_source(src, repo="demo", file_path="w.py")[0]
>>> rec["api_host"], rec["api_metadata"]["route"], rec["api_metadata"]["method"]
('w.p.rapidapi.com', '/current', 'GET')
"""

from ._align import align_docs
from ._extract import (
    ExtractionError,
    ExtractionResult,
    extract_repos,
    extract_source,
    normalised_code_hash,
    sample_id,
)
from ._redact import Gold, LeakCheck, LeakReport, leak_check, redact_code
from ._secrets import mask_credentials

__all__ = [
    "ExtractionError",
    "Gold",
    "LeakCheck",
    "LeakReport",
    "align_docs",
    "ExtractionResult",
    "extract_repos",
    "extract_source",
    "leak_check",
    "mask_credentials",
    "normalised_code_hash",
    "redact_code",
    "sample_id",
]
