"""evaluate(), strata and bootstrap on the hand-written tiny dataset
(fixtures/datasets/tiny; the expected values are worked out in comments)."""

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from metrics.dataset import load_dataset, load_predictions
from metrics.evaluate import evaluate
from metrics.strata import bootstrap_ci, density_bin, density_bins, loc_band, stratify

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "tiny"

PREDS = {
    # gold {isBlank, toJson}: hits at 1 and 3
    "alpha-1": [
        "org.apache.commons.lang3.StringUtils.isBlank()",
        "x.Y.z",
        "com.google.gson.Gson.toJson(java.lang.Object)",
    ],
    # gold {readFileToString}: nothing predicted
    "alpha-2": [],
    # gold {info, isBlank}: both, CLEAR style
    "beta-1": ["org.slf4j.Logger.info", "org.apache.commons.lang3.StringUtils.isBlank"],
    # gold {RestTemplate.<init>}: APIBench constructor form
    "beta-2": ["org.springframework.web.client.RestTemplate.RestTemplate()"],
    "nobody": ["a.B.c"],
}


@pytest.fixture(scope="module")
def tiny():
    return load_dataset(TINY)


def test_overall_by_hand(tiny):
    r = evaluate(PREDS, tiny, ks=(1, 3))
    s = r.overall.scores
    assert r.n_samples == r.n_scored == 4
    assert s["precision"] == pytest.approx((2 / 3 + 0 + 1 + 1) / 4)
    assert s["recall"] == pytest.approx((1 + 0 + 1 + 1) / 4)
    assert s["f1"] == pytest.approx((0.8 + 0 + 1 + 1) / 4)
    assert s["aem"] == pytest.approx(0.5)
    assert s["sr@1"] == pytest.approx(0.75)
    assert s["map@3"] == pytest.approx(((1 + 2 / 3) / 2 + 0 + 1 + 1) / 4)
    ndcg1 = 1.5 / (1 + 1 / math.log2(3))
    assert s["ndcg@3"] == pytest.approx((ndcg1 + 0 + 1 + 1) / 4)
    assert s["mrr"] == pytest.approx(0.75)
    # micro: tp 5, |pred| 6, |gold| 6
    assert r.overall.micro["precision"] == pytest.approx(5 / 6)
    assert r.overall.micro["recall"] == pytest.approx(5 / 6)
    assert r.unknown_ids == ("nobody",)
    assert r.missing == ()
    assert r.partial
    lo, hi = r.overall.ci["precision"]
    assert lo <= s["precision"] <= hi


def test_missing_predictions_score_zero_and_are_reported(tiny):
    preds = {k: v for k, v in PREDS.items() if k in ("alpha-1", "beta-1")}
    r = evaluate(preds, tiny, ks=(1,))
    assert set(r.missing) == {"alpha-2", "beta-2"}
    assert r.overall.scores["recall"] == pytest.approx(0.5)


def test_class_level(tiny):
    r = evaluate(PREDS, tiny, level="class", ks=(1,))
    # alpha-1: classes {StringUtils, Gson} vs predicted {StringUtils, x.Y, Gson}
    assert r.overall.scores["precision"] == pytest.approx((2 / 3 + 0 + 1 + 1) / 4)


def test_signature_level_and_wildcard_gold(tiny):
    r = evaluate(PREDS, tiny, level="signature", ks=(1,))
    # alpha-1: isBlank() != isBlank(CharSequence); toJson(Object) matches the
    # undecided toJson(*) gold -> P 1/3 R 1/2. beta-1: CLEAR names carry no
    # parameter list -> "(*)" -> no match. beta-2: <init>() matches.
    assert r.overall.scores["precision"] == pytest.approx((1 / 3 + 0 + 0 + 1) / 4)
    assert r.overall.scores["recall"] == pytest.approx((1 / 2 + 0 + 0 + 1) / 4)


def test_simple_names(tiny):
    preds = {"alpha-2": ["FileUtils.readFileToString"]}
    r = evaluate(preds, tiny, ks=(1,), simple=True)
    assert r.overall.scores["recall"] == pytest.approx(1 / 4)
    r = evaluate(preds, tiny, ks=(1,))
    assert r.overall.scores["recall"] == 0.0


def test_by_depth_sample_and_target(tiny):
    r = evaluate(PREDS, tiny, ks=(1,), by=("depth", "target_depth"))
    depth = {g.label: g for g in r.strata["depth"]}
    assert list(depth) == ["2", "3", "4"]
    assert depth["2"].n == 2 and depth["2"].scores["precision"] == pytest.approx(0.5)
    assert depth["3"].scores["precision"] == pytest.approx(2 / 3)
    assert depth["4"].scores["precision"] == 1.0
    td = {g.label: g for g in r.strata["target_depth"]}
    assert {k: g.n for k, g in td.items()} == {"2": 4, "3": 1, "4": 1}
    # depth 2: alpha-1 gold {isBlank}, toJson removed from preds -> P 1/2
    assert td["2"].scores["precision"] == pytest.approx((0.5 + 0 + 1 + 1) / 4)
    # depth 3: alpha-1 gold {toJson}, preds [x.Y.z, toJson] -> P 1/2, MRR 1/2
    assert td["3"].scores["precision"] == pytest.approx(0.5)
    assert td["3"].scores["mrr"] == pytest.approx(0.5)
    assert td["4"].scores["recall"] == 1.0


def test_by_density_bins_and_boundaries(tiny):
    r = evaluate(PREDS, tiny, ks=(1,), by=("density", "loc", "project", "library"))
    dens = {g.label: g.n for g in r.strata["density"]}
    # 1/300 -> bin 0; 1/12 and 1/18 (exact edge) -> bin 1; 1/3 -> last (closed)
    assert dens == {"[0, 0.05556)": 1, "[0.05556, 0.1111)": 2, "[0.2778, 0.3333]": 1}
    assert {g.label: g.n for g in r.strata["loc"]} == {"1-10": 1, "11-25": 2, ">245": 1}
    assert {g.label: g.n for g in r.strata["project"]} == {"alpha": 2, "beta": 2}
    lib = [g.label for g in r.strata["library"]]
    assert lib[-1] == "unknown" and "org.apache.commons:commons-lang3:3.14.0" in lib


def test_density_bin_edges_exact():
    edges = density_bins(6)
    assert edges[0] == 0 and edges[-1] == Fraction(1, 3)
    assert density_bin(0.0, edges)[0] == 0
    assert density_bin(1 / 3, edges)[0] == 5
    assert density_bin(1 / 18, edges)[0] == 1
    assert density_bin(1 / 9, edges)[0] == 2
    assert density_bin(0.5, edges) == (6, "> 0.3333")
    assert density_bin(1.0, edges)[0] == 6
    custom = density_bins([0, 0.1, 1])
    assert density_bin(0.1, custom)[0] == 1
    assert density_bin(1.0, custom)[0] == 1
    with pytest.raises(ValueError):
        density_bins([0.2, 0.1])


def test_loc_bands():
    assert loc_band(1) == (0, "1-10")
    assert loc_band(10) == (0, "1-10")
    assert loc_band(11) == (1, "11-25")
    assert loc_band(245) == (4, "126-245")
    assert loc_band(246) == (5, ">245")
    assert loc_band(None) == (-1, "unknown")


def test_stratify_unknown_raises(tiny):
    with pytest.raises(ValueError):
        stratify(tiny.samples, "colour")


def test_bootstrap_deterministic_and_contains_mean():
    vals = [0.0, 0.13, 1.0, 0.91, 0.77, 0.5, 0.25, 0.02, 1.0, 0.64]
    a = bootstrap_ci(vals, seed=7)
    b = bootstrap_ci(vals, seed=7)
    assert a == b
    lo, hi = a
    assert lo < sum(vals) / len(vals) < hi
    assert 0 <= lo and hi <= 1
    assert bootstrap_ci(vals, seed=8) != a
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([]) is None


def test_bad_lines_in_predictions_are_reported(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_bytes(
        b'{"id": "alpha-1", "predictions": ["a.B.c"]}\n'
        b"not json\n"
        b'{"id": "alpha-2"}\n'
        b'{"id": "alpha-1", "predictions": []}\n'
        b'{"id": "beta-1", "predictions": ["a.B.c", 3]}\n'
        b'\xff\xfe\n'
    )
    preds, problems = load_predictions(p)
    assert preds == {"alpha-1": ["a.B.c"], "beta-1": ["a.B.c"]}
    reasons = " | ".join(str(x) for x in problems)
    assert "not JSON" in reasons and "no 'predictions'" in reasons
    assert "repeated" in reasons and "non-string" in reasons and "not UTF-8" in reasons
    assert len(problems) == 5


def test_report_json_round_trips(tiny):
    r = evaluate(PREDS, tiny, ks=(1,), by=("depth",), n_resamples=50)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["overall"]["n"] == 4
    assert d["strata"]["depth"][0]["label"] == "2"
    assert d["unknown_ids"] == ["nobody"]


def test_bootstrap_matrix_equals_per_column():
    import numpy as np

    from metrics.strata import bootstrap_cis

    m = np.array([[0.1, 1.0], [0.5, 0.0], [0.9, 1.0], [0.3, 0.0], [0.7, 1.0]])
    cis = bootstrap_cis(m, n_resamples=300, seed=3)
    assert cis[0] == bootstrap_ci(m[:, 0], n_resamples=300, seed=3)
    assert cis[1] == bootstrap_ci(m[:, 1], n_resamples=300, seed=3)
