"""Documentation alignment levels (url / route / host_only)."""

from queries.sccg import align_docs, extract_source

SRC = '''
import requests

def forecast(city):
    return requests.get(f"https://w.p.rapidapi.com/forecast/{city}", params={"days": 3})

def current():
    return requests.get("https://w.p.rapidapi.com/current.json")

def history(city):
    return requests.post("https://w.p.rapidapi.com/history/" + city + "/daily")

def other():
    return requests.get("https://elsewhere.example.com/x")
'''

DOCS = [
    {"api_host": "w.p.rapidapi.com", "route": "/forecast/{location}", "method": "GET", "endpoint_id": "e1",
     "endpoint_name": "Forecast", "params": [{"name": "days", "in": "query"}, {"name": "location", "in": "path"}]},
    {"url": "https://w.p.rapidapi.com/current.json", "method": "POST", "endpoint_id": "e2a"},
    {"url": "https://w.p.rapidapi.com/current.json", "method": "GET", "endpoint_id": "e2b"},
    {"api_host": "w.p.rapidapi.com", "route": "/history/{date}", "method": "POST", "endpoint_id": "e3"},
]


def test_align_levels():
    recs = {r["function_name"]: r for r in align_docs(extract_source(SRC), DOCS)}
    f = recs["forecast"]["api_metadata"]
    assert (f["doc_match_type"], f["endpoint_id"], f["endpoint_name"]) == ("route", "e1", "Forecast")
    assert (f["route"], f["code_route"]) == ("/forecast/{location}", "/forecast/{city}")
    assert f["params"] == DOCS[0]["params"]
    c = recs["current"]["api_metadata"]
    assert (c["doc_match_type"], c["endpoint_id"]) == ("url", "e2b")  # same method preferred
    h = recs["history"]["api_metadata"]
    assert (h["doc_match_type"], h["endpoint_id"], h["route"]) == ("host_only", None, "/history/{city}/daily")
    assert recs["other"]["api_metadata"]["doc_match_type"] is None
