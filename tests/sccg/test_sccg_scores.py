"""SCCGBench score definitions on hand-made inputs."""

import ast
from math import comb

import pytest

from metrics.sccg import (
    gold_tuple,
    host_matches,
    pass_at_k,
    retrieval_at_k,
    route_matches,
    score_generation,
    set_f1,
    summarise,
)
from metrics.sccg._scores import (
    dependencies_resolvable,
    has_exception_handling,
    has_literal_secret,
    has_status_check,
)

GOLD = {
    "sample_id": "s",
    "api_host": "Weather.P.RapidAPI.com",
    "api_metadata": {"route": "/v1/forecast/{location}", "method": "get", "params": [], "code_params": [
        {"key": "days", "in": "query", "value": 3}, {"key": "X-RapidAPI-Key", "in": "header", "value": "k"},
        {"key": "location", "in": "path", "value": None}]},
}


@pytest.mark.parametrize(
    "gold,path,ok",
    [
        ("/forecast/{location}", "/forecast/London", True),
        ("/forecast/{location}", "/forecast/New%20York/", True),
        ("/forecast/{location}", "/forecast/", False),
        ("/forecast/{location}", "/forecast/London/daily", False),
        ("/users/:id/repos", "/users/42/repos", True),
        ("/Forecast", "/forecast", True),  # issue 16: the release differs from its code in case only
        ("/", "", True),
        ("/a//b", "/a/b", True),
    ],
)
def test_route_matches(gold, path, ok):
    assert route_matches(gold, path) is ok


def test_route_templates_both_sides():
    assert not route_matches("/a/b", "/a/{x}")
    assert route_matches("/a/b", "/a/{x}", templates_both_sides=True)


def test_host_matches():
    assert host_matches("weather.p.rapidapi.com", "WEATHER.p.rapidapi.com:443")
    assert not host_matches("weather.p.rapidapi.com", "weather2.p.rapidapi.com")
    assert not host_matches(None, None)


def test_gold_tuple_falls_back_to_code_keys():
    assert gold_tuple(GOLD) == ("Weather.P.RapidAPI.com", "/v1/forecast/{location}", "GET", frozenset({"days"}))
    documented = dict(GOLD, api_metadata=dict(GOLD["api_metadata"], params=["days", {"name": "units", "in": "query"},
                                                                            {"name": "X-Key", "in": "header"}]))
    assert gold_tuple(documented)[3] == frozenset({"days", "units"})


@pytest.mark.parametrize("n,c,k", [(5, 0, 1), (5, 1, 1), (5, 1, 3), (5, 2, 5), (10, 3, 4), (20, 19, 2), (1, 1, 1)])
def test_pass_at_k_matches_combinatorial_form(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))


def test_pass_at_k_rejects_bad_input():
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_set_f1():
    assert set_f1([], []) == 1.0
    assert set_f1(["a"], []) == 0.0
    assert set_f1(["a", "b"], ["b", "c", "d"]) == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))


def _tree(src):
    return ast.parse(src)


def test_status_check_rules():
    assert has_status_check(_tree("r.raise_for_status()"))
    assert has_status_check(_tree("if r.status_code == 200:\n    pass"))
    assert has_status_check(_tree("ok = r.status == 200"))
    assert has_status_check(_tree("assert resp.ok"))
    assert has_status_check(_tree("x = 1 if r.getcode() != 200 else 2"))
    assert not has_status_check(_tree("print(r.status_code)"))
    assert not has_status_check(_tree("return r.json()"))


def test_exception_handling_rules():
    assert has_exception_handling(_tree("try:\n    get()\nexcept Exception:\n    pass"))
    assert not has_exception_handling(_tree("try:\n    x = 1\nexcept Exception:\n    pass"))
    assert not has_exception_handling(_tree("try:\n    get()\nfinally:\n    pass"))


def test_secret_rules():
    assert has_literal_secret('h = {"X-RapidAPI-Key": "a1b2c3d4e5f6g7h8i9j0"}', _tree('h = {"X-RapidAPI-Key": "a1b2c3d4e5f6g7h8i9j0"}'))
    assert not has_literal_secret('h = {"X-RapidAPI-Key": "YOUR_RAPIDAPI_KEY_HERE_1234"}',
                                  _tree('h = {"X-RapidAPI-Key": "YOUR_RAPIDAPI_KEY_HERE_1234"}'))
    assert not has_literal_secret('h = {"X-RapidAPI-Key": os.environ["K"]}', _tree('h = {"X-RapidAPI-Key": os.environ["K"]}'))
    src = 'API_TOKEN = "ghp1234567890abcdefXYZ"'
    assert has_literal_secret(src, _tree(src))
    # RapidAPI-shaped keys count even in unparseable code
    assert has_literal_secret('x = "0123456789mshabcdefabcdefabcdefjsnabcdef1234"(', None)


def test_dependencies():
    assert dependencies_resolvable(_tree("import os, json\nimport requests\nfrom aiohttp import ClientSession"))
    assert not dependencies_resolvable(_tree("import surely_not_a_module_xyz"))
    assert dependencies_resolvable(_tree("import surely_not_a_module_xyz"), frozenset({"surely_not_a_module_xyz"}))
    assert not dependencies_resolvable(_tree("from . import helpers"))


def test_best_request_is_judged():
    reqs = [
        {"host": "auth.example.com", "route": "/token", "method": "POST", "params": {}, "body": {"user": "u"}},
        {"host": "weather.p.rapidapi.com", "route": "/v1/forecast/Paris", "method": "GET", "params": {"days": "1"}},
    ]
    s = score_generation("import requests\n", reqs, GOLD)
    assert (s.host, s.endpoint, s.method, s.mock, s.param_f1, s.stage) == (True, True, True, True, 1.0, "mock_hit")
    assert s.request is reqs[1]


def test_attribution_order():
    miss_ep = [{"host": "weather.p.rapidapi.com", "route": "/v2/forecast/x", "method": "POST", "params": {}}]
    assert score_generation("x = 1\n", miss_ep, GOLD).stage == "endpoint"
    assert score_generation("x = 1\n", [], GOLD).stage == "request_construction"
    assert score_generation("x = (\n", [], GOLD).stage == "syntax"


def test_retrieval_at_k():
    golds = {"a": GOLD, "b": {"api_host": "x.example.com", "api_metadata": {"route": "/items/{id}"}}}
    cands = {
        "a": ["https://other.com/v1/forecast/{location}", {"host": "weather.p.rapidapi.com", "route": "/v1/forecast/{city}"}],
        "b": [{"url": "https://x.example.com/items"}, {"url": "https://y.example.com/items/{id}"}],
    }
    r = retrieval_at_k(cands, golds, ks=(1, 2))
    assert r == {"n": 2, "host@1": 0.5, "endpoint@1": 0.0, "host@2": 1.0, "endpoint@2": 0.5}


def test_summarise_groups_and_pass_at_k():
    def row(sid, mock, dmt, cs):
        s = score_generation("x = 1\n", [{"host": "weather.p.rapidapi.com", "route": "/v1/forecast/a", "method": "GET" if mock else "PUT", "params": {}}], GOLD).to_dict()
        return {"sample_id": sid, "scores": s, "doc_match_type": dmt, "comments_source": cs}

    rows = [row("a", True, "url", "original"), row("a", False, "url", "original"), row("a", False, "url", "original"),
            row("b", False, "host_only", None)]
    s = summarise(rows, ks=(1, 2, 3))
    assert s["overall"]["mock"] == 0.25 and s["overall"]["method"] == 0.25 and s["overall"]["host"] == 1.0
    assert s["groups"]["doc_match_type"]["url"]["mock"] == pytest.approx(1 / 3)
    assert s["groups"]["comments_source"]["unknown"]["n"] == 1
    assert s["failure_attribution"]["method"] == {"count": 3, "share": 0.75}
    # sample a: n=3, c=1; sample b: n=1, c=0 (only in pass@1)
    assert s["pass_at_k"]["1"]["value"] == pytest.approx((1 / 3 + 0) / 2)
    assert s["pass_at_k"]["2"] == {"value": pytest.approx(1 - comb(2, 2) / comb(3, 2)), "samples": 1}
    assert s["pass_at_k"]["3"] == {"value": 1.0, "samples": 1}


def test_compat_official_judging():
    # the release evaluator's rules, on requests worked out by hand
    gold = {"api_host": "gold.p.rapidapi.com",
            "api_metadata": {"url": "https://gold.p.rapidapi.com/search", "route": "/search", "method": None}}
    code = "def f():\n    pass\n"
    wrong_host = {"url": "https://api.other.com/search", "host": "api.other.com", "route": "/search",
                  "method": "GET", "headers": {"X-RapidAPI-Host": "gold.p.rapidapi.com"}, "params": {}}
    longer = {"url": "https://gold.p.rapidapi.com/search/v2/deep", "host": "gold.p.rapidapi.com",
              "route": "/search/v2/deep", "method": "GET", "headers": {}, "params": {}}
    right = {"url": "https://gold.p.rapidapi.com/search", "host": "gold.p.rapidapi.com", "route": "/search",
             "method": "POST", "headers": {}, "params": {}}
    for req, qare_mock, official_mock in ((wrong_host, False, True), (longer, False, True)):
        assert score_generation(code, [req], gold).mock is qare_mock
        assert score_generation(code, [req], gold, compat="official").mock is official_mock
    # a missing gold method is GET for the official rules, any method for qare's
    assert score_generation(code, [right], gold).mock is True
    assert score_generation(code, [right], gold, compat="official").mock is False
    # official judges the first request; qare the best one
    assert score_generation(code, [longer, right], gold).request is right
    assert score_generation(code, [right, longer], gold, compat="official").mock is False
    with pytest.raises(ValueError):
        score_generation(code, [], gold, compat="paper")
