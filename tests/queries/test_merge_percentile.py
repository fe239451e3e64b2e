"""queries._merge.percentile_linear: the build's IQR bounds without numpy,
equal to the bit to numpy's ``percentile(method="linear")`` (the independent
source here) — the API-count range of every build depends on it."""

import random

import numpy as np
import pytest

from queries._merge import _api_count_range, percentile_linear


def _numpy(values, q):
    return float(np.percentile(np.asarray(values, dtype=float), q, method="linear"))


@pytest.mark.parametrize("seed", range(20))
def test_equals_numpy_on_random_counts_and_floats(seed):
    rnd = random.Random(seed)
    n = rnd.randint(1, 60)
    ints = [rnd.randint(0, 40) for _ in range(n)]
    floats = [rnd.uniform(-1e6, 1e6) for _ in range(n)]
    for q in (0, 1, 12.5, 25, 33.3, 50, 66.7, 75, 90, 99.9, 100):
        assert percentile_linear(ints, q) == _numpy(ints, q)
        assert percentile_linear(floats, q) == _numpy(floats, q)


def test_worked_by_hand():
    # n = 5: virtual index 4 * 0.25 = 1 -> the second value; 4 * 0.75 = 3 -> the fourth
    assert percentile_linear([9, 1, 5, 3, 7], 25) == 3.0
    assert percentile_linear([9, 1, 5, 3, 7], 75) == 7.0
    # n = 4: 3 * 0.25 = 0.75 -> 1 + (2 - 1) * 0.75; 3 * 0.75 = 2.25 -> 3 + (4 - 3) * 0.25
    assert percentile_linear([4, 3, 2, 1], 25) == 1.75
    assert percentile_linear([4, 3, 2, 1], 75) == 3.25
    assert percentile_linear([6], 25) == 6.0


def test_refuses_empty_and_out_of_range():
    with pytest.raises(ValueError):
        percentile_linear([], 25)
    with pytest.raises(ValueError):
        percentile_linear([1, 2], 101)


def test_api_count_range_is_the_iqr_of_calling_methods():
    rng = _api_count_range([0, 0, 1, 2, 3, 4], None, "calling")  # zeros left out: [1, 2, 3, 4]
    assert (rng["low"], rng["high"], rng["n"]) == (1.75, 3.25, 4)
    assert type(rng["low"]) is float
    rng = _api_count_range([0, 0, 1, 2, 3, 4], None, "all")  # 5 * 0.25 = 1.25 -> 0 + 1 * 0.25
    assert (rng["low"], rng["high"]) == (0.25, 2.75)
