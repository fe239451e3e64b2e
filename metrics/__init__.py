"""Scoring: set metrics, ranking metrics, API-name normalisation, stratified
reports and plots; SCCGBench virtual execution and scores.

Public API (Q-ARE / APIBench-Q side)::

    from metrics import set_scores, map_at_k, normalise_api, ...

Definitions, edge cases and sources: ``docs/metrics.md``.
"""

from . import baseline_llm as _baseline_llm
from . import baselines as _baselines
from . import dataset as _dataset
from . import evaluate as _evaluate
from . import importers as _importers
from . import names as _names
from . import plots as _plots
from . import scores as _scores
from . import similarity as _similarity
from . import slices as _slices
from . import strata as _strata
from .baseline_llm import *  # noqa: F401,F403
from .baselines import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403
from .evaluate import *  # noqa: F401,F403
from .importers import *  # noqa: F401,F403
from .names import *  # noqa: F401,F403
from .plots import *  # noqa: F401,F403
from .scores import *  # noqa: F401,F403
from .similarity import *  # noqa: F401,F403
from .slices import *  # noqa: F401,F403
from .strata import *  # noqa: F401,F403

# Each module's ``__all__`` is its public API; the package re-exports them all.
__all__: list[str] = [
    *_names.__all__,
    *_scores.__all__,
    *_dataset.__all__,
    *_evaluate.__all__,
    *_strata.__all__,
    *_slices.__all__,
    *_importers.__all__,
    *_baselines.__all__,
    *_baseline_llm.__all__,
    *_similarity.__all__,
    *_plots.__all__,
]
