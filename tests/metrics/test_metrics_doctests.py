"""The examples in the metrics docstrings run and hold."""

import doctest

import pytest

import metrics.baselines
import metrics.names
import metrics.scores


@pytest.mark.parametrize("module", [metrics.names, metrics.scores, metrics.baselines])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
