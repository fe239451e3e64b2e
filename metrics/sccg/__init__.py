"""SCCGBench virtual execution and scores (Wang et al., arXiv 2610.12920).

Each generation runs in its own sandboxed process (bubblewrap when usable)
with fake ``requests``/``httpx``/``aiohttp``/``urllib.request``/
``http.client``; the requests it attempts are scored against the gold
⟨host, endpoint, method, parameters⟩: Syntax, Dep., Secret, ExecReq,
Host/Endpoint/Method@Acc, ParamF1, Mock, Robust, failure attribution,
pass@k, Host@K/Endpoint@K. Gold records are SCCGBench dicts (see
``docs/sccg.md``); this package does not import ``queries``.

Examples
--------
>>> from metrics.sccg import route_matches, pass_at_k
>>> route_matches("/forecast/{location}", "/forecast/Paris")
True
>>> pass_at_k(n=2, c=1, k=1)
0.5
"""

from ._cgroup import memory_cgroup_status
from ._check import GoldClass, check_gold, classify
from ._evaluate import evaluate, gold_hints, strip_fences
from ._sandbox import (
    KILL_STATUSES,
    SANDBOX_MODES,
    Execution,
    Limits,
    SandboxExposure,
    SandboxUnavailable,
    execute,
    execute_many,
    sandbox_status,
)
from ._scores import (
    METRICS,
    STAGES,
    GenerationScore,
    gold_tuple,
    host_matches,
    pass_at_k,
    request_keys,
    retrieval_at_k,
    route_matches,
    score_generation,
    set_f1,
    summarise,
)

__all__ = [
    "KILL_STATUSES",
    "METRICS",
    "SANDBOX_MODES",
    "STAGES",
    "Execution",
    "GenerationScore",
    "GoldClass",
    "Limits",
    "SandboxExposure",
    "SandboxUnavailable",
    "check_gold",
    "classify",
    "evaluate",
    "execute",
    "execute_many",
    "gold_hints",
    "gold_tuple",
    "host_matches",
    "pass_at_k",
    "request_keys",
    "retrieval_at_k",
    "route_matches",
    "sandbox_status",
    "memory_cgroup_status",
    "score_generation",
    "set_f1",
    "strip_fences",
    "summarise",
]
