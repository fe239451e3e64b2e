"""Set and ranking metrics against values worked out by hand, and against an
independent transcription of the APIBench-Q evaluation recipe."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.scores import (
    dedupe,
    map_at_k,
    map_at_k_apibench_recipe,
    micro_set_scores,
    mrr,
    ndcg_at_k,
    precision_at_k,
    set_scores,
    success_at_k,
)


def _recipe(predictions, gold, k=10):
    """The seed's scoring recipe (shared/seeds/apibench-q-eval.md), written
    out again here as an independent reference."""
    pred_k = predictions[:k]
    hit = 1.0 if any(p in gold for p in pred_k) else 0.0
    precisions = [1.0 if p in gold else 0.0 for p in pred_k]
    ap = sum(p * (1.0 / (i + 1)) for i, p in enumerate(precisions)) / min(len(gold), k)
    rr = 0.0
    for i, p in enumerate(predictions):
        if p in gold:
            rr = 1.0 / (i + 1)
            break
    dcg = sum(1.0 / math.log2(i + 2) for i, p in enumerate(pred_k) if p in gold)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    ndcg = dcg / idcg if idcg > 0 else 0.0
    return hit, ap, rr, ndcg


# --- set metrics -----------------------------------------------------------

def test_set_scores_by_hand():
    s = set_scores(["a", "b", "x"], ["a", "b", "c", "d"])
    assert (s.tp, s.n_pred, s.n_gold) == (2, 3, 4)
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(1 / 2)
    assert s.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))  # 4/7
    assert s.f1 == pytest.approx(4 / 7)
    assert s.exact_match == 0.0


def test_exact_match_ignores_order_and_duplicates():
    s = set_scores(["b", "a", "a"], ["a", "b"])
    assert (s.precision, s.recall, s.f1, s.exact_match) == (1.0, 1.0, 1.0, 1.0)
    assert s.n_pred == 2


def test_empty_predictions_score_zero():
    s = set_scores([], ["a", "b"])
    assert (s.precision, s.recall, s.f1, s.exact_match) == (0.0, 0.0, 0.0, 0.0)


def test_empty_gold_with_predictions_scores_zero():
    s = set_scores(["a"], [])
    assert (s.precision, s.recall, s.f1, s.exact_match) == (0.0, 0.0, 0.0, 0.0)


def test_both_empty_is_a_perfect_answer():
    s = set_scores([], [])
    assert (s.precision, s.recall, s.f1, s.exact_match) == (1.0, 1.0, 1.0, 1.0)


def test_no_overlap_f1_zero():
    assert set_scores(["x"], ["a"]).f1 == 0.0


def test_micro_pools_counts():
    a = set_scores(["a", "x"], ["a"])  # tp1 pred2 gold1
    b = set_scores(["b"], ["b", "c", "d"])  # tp1 pred1 gold3
    m = micro_set_scores([a, b])
    assert (m.tp, m.n_pred, m.n_gold) == (2, 3, 4)
    assert m.precision == pytest.approx(2 / 3)
    assert m.recall == pytest.approx(0.5)
    assert m.f1 == pytest.approx(4 / 7)
    # macro precision would be (1/2 + 1)/2 = 0.75: the two differ
    assert (a.precision + b.precision) / 2 == pytest.approx(0.75)
    assert micro_set_scores([]).precision == 0.0


# --- ranking metrics -------------------------------------------------------

def test_dedupe_keeps_first():
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_success_at_k():
    r = ["x", "y", "a"]
    assert success_at_k(r, {"a"}, 1) == 0.0
    assert success_at_k(r, {"a"}, 2) == 0.0
    assert success_at_k(r, {"a"}, 3) == 1.0
    assert success_at_k(r, {"a"}, 10) == 1.0  # k > list length
    assert success_at_k([], {"a"}, 5) == 0.0
    assert success_at_k(r, set(), 5) == 0.0


def test_map_by_hand():
    # hits at ranks 2 and 3; P@2 = 1/2, P@3 = 2/3; min(|gold|, k) = 2
    assert map_at_k(["x", "a", "b"], {"a", "b"}, 3) == pytest.approx((1 / 2 + 2 / 3) / 2)
    # k = 2 cuts the second hit; divisor min(2, 2) = 2
    assert map_at_k(["x", "a", "b"], {"a", "b"}, 2) == pytest.approx((1 / 2) / 2)
    # k = 1: divisor min(3, 1) = 1
    assert map_at_k(["a", "b"], {"a", "b", "c"}, 1) == 1.0
    # three gold, two found at 1 and 3, k = 10 > len
    assert map_at_k(["a", "x", "b"], {"a", "b", "c"}, 10) == pytest.approx((1 + 2 / 3) / 3)
    assert map_at_k([], {"a"}, 5) == 0.0
    assert map_at_k(["a"], set(), 5) == 0.0


def test_map_recipe_variant_differs_only_with_several_hits():
    gold = {"a", "b"}
    r = ["x", "a", "b"]
    assert map_at_k_apibench_recipe(r, gold, 3) == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert map_at_k(r, gold, 3) > map_at_k_apibench_recipe(r, gold, 3)
    # one hit: P@i = 1/i, both agree
    for ranked in (["a"], ["x", "a"], ["x", "y", "z", "a"]):
        assert map_at_k(ranked, {"a"}, 5) == map_at_k_apibench_recipe(ranked, {"a"}, 5)
    # hits at 1 and 2 only: P@2 = 1 vs 1/2
    assert map_at_k(["a", "b"], gold, 2) == 1.0
    assert map_at_k_apibench_recipe(["a", "b"], gold, 2) == pytest.approx(0.75)
    # the variant is the recipe's own AP line
    assert map_at_k_apibench_recipe(r, gold, 3) == pytest.approx(_recipe(r, gold, 3)[1])


def test_mrr():
    assert mrr(["x", "y", "a", "b"], {"a", "b"}) == pytest.approx(1 / 3)
    assert mrr(["a"], {"a"}) == 1.0
    assert mrr(["x"], {"a"}) == 0.0
    assert mrr([], {"a"}) == 0.0
    assert mrr(["x", "y", "a"], {"a"}, k=2) == 0.0
    # duplicates removed before ranking: "x" twice is one miss
    assert mrr(["x", "x", "a"], {"a"}) == pytest.approx(1 / 2)


def test_ndcg_by_hand():
    # one hit at rank 2 of one gold: (1/log2 3) / 1
    assert ndcg_at_k(["x", "a"], {"a"}, 5) == pytest.approx(1 / math.log2(3))
    # two gold, hits at 1 and 3, k=3: (1 + 1/2) / (1 + 1/log2 3)
    assert ndcg_at_k(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    # perfect
    assert ndcg_at_k(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    # ideal DCG counts min(|gold|, k): three gold, k=1, hit at 1 -> 1
    assert ndcg_at_k(["a"], {"a", "b", "c"}, 1) == 1.0
    assert ndcg_at_k([], {"a"}, 3) == 0.0
    assert ndcg_at_k(["a"], set(), 3) == 0.0


def test_precision_at_k_divides_by_k():
    assert precision_at_k(["a"], {"a"}, 5) == pytest.approx(0.2)


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_bad_k_raises(k):
    with pytest.raises(ValueError):
        success_at_k(["a"], {"a"}, k)


RANKINGS = [
    (["a", "b", "c"], {"a"}),
    (["x", "a", "y", "b"], {"a", "b"}),
    (["x", "y", "z"], {"a"}),
    (["x", "y", "z", "w", "v", "u", "t", "s", "r", "q", "a"], {"a", "b"}),
    ([], {"a", "b", "c"}),
    (["c", "b", "a"], {"a", "b", "c", "d", "e"}),
]


@pytest.mark.parametrize("ranked,gold", RANKINGS)
@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_agrees_with_recipe_for_sr_mrr_ndcg(ranked, gold, k):
    hit, ap, rr, ndcg = _recipe(ranked, gold, k)
    assert success_at_k(ranked, gold, k) == hit
    assert mrr(ranked, gold) == pytest.approx(rr)
    assert ndcg_at_k(ranked, gold, k) == pytest.approx(ndcg)
    assert map_at_k_apibench_recipe(ranked, gold, k) == pytest.approx(ap)


def test_duplicates_count_once_unlike_recipe():
    ranked, gold = ["a", "a", "b"], {"a", "b"}
    # recipe counts "a" twice: DCG 1 + 1/log2(3) + 1/2 > IDCG, NDCG > 1
    assert _recipe(ranked, gold, 3)[3] > 1.0
    assert ndcg_at_k(ranked, gold, 3) == pytest.approx(1.0)
    # with duplicates removed the two agree again
    assert ndcg_at_k(ranked, gold, 3) == pytest.approx(_recipe(dedupe(ranked), gold, 3)[3])


_items = st.sampled_from(list("abcdefgh"))


@settings(max_examples=300, deadline=None)
@given(st.lists(_items, max_size=12), st.sets(_items, min_size=1, max_size=5), st.sampled_from([1, 3, 5, 10]))
def test_properties_against_recipe(ranked, gold, k):
    # on any list: scores in [0, 1]; standard AP >= the recipe's AP; SR, MRR,
    # NDCG and the recipe's AP equal the recipe applied to the de-duplicated list
    uniq = dedupe(ranked)
    hit, ap, rr, ndcg = _recipe(uniq, gold, k)
    for v in (success_at_k(ranked, gold, k), map_at_k(ranked, gold, k), ndcg_at_k(ranked, gold, k), mrr(ranked, gold)):
        assert 0.0 <= v <= 1.0 + 1e-12
    assert map_at_k(ranked, gold, k) >= map_at_k_apibench_recipe(ranked, gold, k) - 1e-12
    assert success_at_k(ranked, gold, k) == hit
    assert mrr(ranked, gold) == pytest.approx(rr)
    assert ndcg_at_k(ranked, gold, k) == pytest.approx(ndcg)
    assert map_at_k_apibench_recipe(ranked, gold, k) == pytest.approx(ap)
    s = set_scores(ranked, gold)
    assert s.exact_match == (1.0 if set(ranked) == gold else 0.0)
    assert min(s.precision, s.recall) - 1e-12 <= s.f1 <= max(s.precision, s.recall) + 1e-12
