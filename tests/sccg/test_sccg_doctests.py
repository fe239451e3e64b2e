"""The examples in the SCCG docstrings run."""

import doctest

import pytest

import metrics.sccg
import metrics.sccg._scores
import queries.sccg


@pytest.mark.parametrize("module", [queries.sccg, metrics.sccg, metrics.sccg._scores])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_public_api_is_listed():
    for pkg in (queries.sccg, metrics.sccg):
        assert all(hasattr(pkg, name) for name in pkg.__all__)
        assert all(not name.startswith("_") for name in pkg.__all__)
