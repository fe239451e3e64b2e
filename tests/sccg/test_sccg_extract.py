"""Extraction records for the fixture repositories in fixtures/sccg/repos."""

from pathlib import Path

import pytest

from queries.sccg import extract_repos, extract_source, normalised_code_hash, sample_id

REPOS = Path(__file__).resolve().parents[2] / "fixtures" / "sccg" / "repos"
NAMES = ["weather_app", "httpx_client", "aio_bot", "legacy_urllib", "wrappers"]


@pytest.fixture(scope="module")
def result():
    return extract_repos([REPOS / n for n in NAMES])


@pytest.fixture(scope="module")
def by_name(result):
    return {r["function_name"]: r for r in result.records}


def _params(rec):
    return [(p["key"], p["in"], p["value"]) for p in rec["api_metadata"]["code_params"]]


def test_kept_functions_and_counts(result, by_name):
    # format_temp/dump have no HTTP call; the copy in wrappers/dup is a
    # duplicate; endpoint_a1/a2 (placeholder key param + template comment) and
    # lookup1..3 (same shape in three files) are template code.
    assert sorted(by_name) == sorted(
        [
            "get_forecast",
            "current_by_location",
            "Catalog.search",
            "fetch_item",
            "create_order",
            "translate",
            "detect",
            "random_quote",
            "post_feedback",
            "movie",
        ]
    )
    assert result.stats == {
        "files": 12,
        "functions": 16,
        "duplicates_dropped": 1,
        "templates_dropped": 5,
        "records": 10,
        "errors": 2,
    }
    assert [(e.repo, e.file_path, e.reason.split(":")[0]) for e in result.errors] == [
        ("wrappers", "tools/broken.py", "SyntaxError"),
        ("wrappers", "tools/latin.py", "ValueError"),
    ]


def test_requests_rapidapi_with_constants(by_name):
    rec = by_name["get_forecast"]
    assert rec["sample_id"] == sample_id("weather_app", "app/weather.py", "get_forecast")
    assert rec["api_host"] == "weatherapi-com.p.rapidapi.com"
    assert rec["api_name"] == "weatherapi-com"
    meta = rec["api_metadata"]
    assert (meta["url"], meta["method"], meta["route"], meta["library"]) == (
        "https://weatherapi-com.p.rapidapi.com/forecast.json",
        "GET",
        "/forecast.json",
        "requests",
    )
    assert _params(rec) == [
        ("q", "query", "{city}"),
        ("days", "query", "{days}"),
        ("lang", "query", "en"),
        ("X-RapidAPI-Key", "header", "{API_KEY}"),
        ("X-RapidAPI-Host", "header", "weatherapi-com.p.rapidapi.com"),
    ]
    assert rec["dependencies"] == ["requests"]  # os/json stdlib, app is local
    assert rec["comments"] == ["Fetch the three-day forecast for a city.", "Return the forecast JSON for *city*."]
    assert rec["comments_source"] == "original" and rec["code"]["has_comments"]
    assert rec["extraction"]["rapidapi_evidence"] == [
        "header:x-rapidapi-host",
        "header:x-rapidapi-key",
        "host:*.p.rapidapi.com",
    ]
    assert rec["github_info"]["start_line"] == 17 and rec["github_info"]["end_line"] == 28
    complete = rec["code"]["complete_function"]
    assert complete.splitlines()[:8] == [
        "import os",
        "import requests",
        "from app.settings import TIMEOUT",
        "",
        'RAPIDAPI_HOST = "weatherapi-com.p.rapidapi.com"',
        'BASE_URL = "https://" + RAPIDAPI_HOST',
        'API_KEY = os.environ.get("RAPIDAPI_KEY", "")',
        "",
    ]
    assert "UNUSED" not in complete and "import json" not in complete
    assert complete.endswith(rec["code"]["original_function"])
    assert rec["code"]["annotated_function"].startswith("# Fetch the three-day forecast")
    compile(complete, "complete", "exec")


def test_format_route_and_secret_redacted(by_name):
    rec = by_name["current_by_location"]
    meta = rec["api_metadata"]
    assert (meta["method"], meta["route"]) == ("POST", "/current/{location}")
    assert _params(rec) == [
        ("units", "body", "metric"),
        ("aqi", "body", "no"),
        ("location", "path", None),
        ("x-rapidapi-key", "header", "<REDACTED>"),
        ("x-rapidapi-host", "header", "weatherapi-com.p.rapidapi.com"),
    ]
    assert meta["headers"]["x-rapidapi-key"] == "<REDACTED>"
    assert rec["extraction"]["duplicates"] == ["wrappers/dup/copy.py::current_by_location"]
    # the literal key never reaches the record
    for field in ("complete_function", "original_function", "annotated_function"):
        assert '"x-rapidapi-key": "<REDACTED>"' in rec["code"][field]
        assert "0123456789abcdef" not in rec["code"][field]
    assert rec["comments"] == [] and rec["comments_source"] is None


def test_httpx_client_objects(by_name):
    search = by_name["Catalog.search"]
    assert search["api_metadata"]["url"] == "https://api.example.org/v2/products/search"
    assert _params(search) == [
        ("term", "query", "{term}"),
        ("page", "query", "{page}"),
        ("Authorization", "header", "Bearer {token}"),
    ]
    assert search["extraction"]["is_method"] is True
    item = by_name["fetch_item"]
    assert (item["api_metadata"]["route"], item["api_metadata"]["library"]) == ("/v2/items/{item_id}", "httpx")
    assert _params(item) == [("item_id", "path", None), ("Accept", "header", "application/json")]
    order = by_name["create_order"]
    assert (order["api_metadata"]["method"], order["api_metadata"]["url"]) == ("POST", "https://api.example.org/v2/orders")
    assert _params(order) == [("sku", "body", "{sku}"), ("qty", "body", 1)]
    assert order["dependencies"] == ["httpx"]


def test_aiohttp_sessions(by_name):
    tr = by_name["translate"]
    assert (tr["api_host"], tr["api_metadata"]["method"], tr["api_metadata"]["route"]) == (
        "google-translate1.p.rapidapi.com",
        "POST",
        "/language/translate/v2",
    )
    assert _params(tr) == [
        ("q", "body", "{text}"),
        ("target", "body", "{target}"),
        ("X-RapidAPI-Host", "header", "google-translate1.p.rapidapi.com"),
        ("X-RapidAPI-Key", "header", "<REDACTED>"),
    ]
    assert tr["extraction"]["template_flags"] == ["placeholder_key_value"]
    assert tr["comments"] == ["Translate a chat message before posting it."]
    det = by_name["detect"]
    assert det["api_metadata"]["route"] == "/language/translate/v2/detect"
    assert _params(det) == [("q", "query", "{text}")]
    assert det["dependencies"] == ["aiohttp"]


def test_urllib_and_http_client(by_name):
    q = by_name["random_quote"]
    assert q["api_metadata"]["url"] == "https://quotes15.p.rapidapi.com/quotes/random/?language_code={language_code}"
    assert (q["api_metadata"]["method"], q["api_metadata"]["library"]) == ("GET", "urllib")
    assert _params(q) == [
        ("language_code", "query", "{language_code}"),
        ("X-RapidAPI-Host", "header", "quotes15.p.rapidapi.com"),
    ]
    fb = by_name["post_feedback"]
    assert (fb["api_host"], fb["api_metadata"]["method"]) == ("feedback.example.net", "POST")
    assert _params(fb) == [("message", "body", "{message}"), ("rating", "body", 5)]
    mv = by_name["movie"]
    assert (mv["api_host"], mv["api_metadata"]["route"], mv["api_metadata"]["library"]) == (
        "imdb8.p.rapidapi.com",
        "/title/find",
        "http.client",
    )
    assert _params(mv)[0] == ("q", "query", "{title}")


def test_templates_kept_on_request():
    res = extract_repos([REPOS / "wrappers"], keep_templates=True)
    flags = {r["function_name"]: r["extraction"]["template_flags"] for r in res.records}
    assert flags == {
        "current_by_location": [],
        "endpoint_a1": ["placeholder_key_param", "template_comment"],
        "endpoint_a2": ["placeholder_key_param", "template_comment"],
        "lookup1": ["template_cluster"],
        "lookup2": ["template_cluster"],
        "lookup3": ["template_cluster"],
    }


def test_no_http_function_gives_no_record():
    assert extract_source("def f(x):\n    return x + 1\n") == []


def test_rapidapi_only_filter():
    src = (
        "import requests\n"
        "def a():\n    return requests.get('https://api.github.com/users')\n"
        "def b():\n    return requests.get('https://x.p.rapidapi.com/v1')\n"
    )
    assert [r["function_name"] for r in extract_source(src)] == ["a", "b"]
    assert [r["function_name"] for r in extract_source(src, rapidapi_only=True)] == ["b"]


def test_code_hash_ignores_layout_comments_docstrings():
    a = "def f(x):\n    '''Doc.'''\n    # c\n    return g(x,  1)\n"
    b = "def f(x):\n    return g(x, 1)\n"
    c = "def f(x):\n    return g(x, 2)\n"
    assert normalised_code_hash(a) == normalised_code_hash(b) != normalised_code_hash(c)


def test_percent_format_and_method_kw():
    src = (
        "import requests as rq\n"
        "BASE = 'https://h.example.com'\n"
        "def f(sym):\n"
        "    path = '/quote/%s/daily' % sym\n"
        "    return rq.request(method='put', url=BASE + path, data={'a': 1})\n"
    )
    rec = extract_source(src)[0]
    assert (rec["api_metadata"]["method"], rec["api_metadata"]["route"]) == ("PUT", "/quote/{sym}/daily")


def test_self_referencing_url_builds_fold_in_order():
    src = (
        "import requests\n"
        "BASE = 'https://api.x.com'\n"
        "def f(q, extra):\n"
        "    url = BASE + '/v1'\n"
        "    url = url + '/search'\n"
        "    url += '?q=' + q\n"
        "    for i in range(3):\n"
        "        url = url + '&p=' + extra\n"
        "    return requests.get(url)\n"
        "def g(u):\n"
        "    u = u + '/x'\n"
        "    return requests.get(u)\n"
    )
    f, g = extract_source(src)
    assert f["api_metadata"]["url"] == "https://api.x.com/v1/search?q={q}&p={extra}"
    assert [(p["key"], p["in"]) for p in f["api_metadata"]["code_params"]] == [("q", "query"), ("p", "query")]
    assert (g["api_metadata"]["url"], g["api_host"], g["api_metadata"]["route"]) == ("{u}/x", None, None)


def test_files_without_http_hint_are_still_parsed():
    with pytest.raises(SyntaxError):
        extract_source("def broken(:\n    pass\n")


def test_class_attributes_resolve():
    src = (
        "import requests\n"
        "class Client:\n"
        "    BASE = 'https://news.p.rapidapi.com'\n"
        "    def __init__(self, key):\n"
        "        self.headers = {'X-RapidAPI-Key': key, 'X-RapidAPI-Host': 'news.p.rapidapi.com'}\n"
        "        self.version = 'v2'\n"
        "    def top(self, country):\n"
        "        return requests.get(f'{self.BASE}/{self.version}/top', headers=self.headers,"
        " params={'country': country})\n"
    )
    (rec,) = extract_source(src)
    assert rec["api_metadata"]["url"] == "https://news.p.rapidapi.com/v2/top"
    assert [(p["key"], p["in"], p["value"]) for p in rec["api_metadata"]["code_params"]] == [
        ("country", "query", "{country}"),
        ("X-RapidAPI-Key", "header", "{key}"),
        ("X-RapidAPI-Host", "header", "news.p.rapidapi.com"),
    ]


def test_mask_secrets_can_be_disabled():
    src = "import requests\nTOKEN = 'abcdef123456'\ndef f():\n    return requests.get('https://a.b/c', headers={'token': TOKEN, 'x-key': 'YOUR_KEY'})\n"
    masked = extract_source(src)[0]["code"]["complete_function"]
    assert "TOKEN = '<REDACTED>'" in masked and "'x-key': 'YOUR_KEY'" in masked
    assert "abcdef123456" in extract_source(src, mask_secrets=False)[0]["code"]["complete_function"]


def test_full_record_exact(by_name):
    rec = dict(by_name["detect"])
    extraction = dict(rec.pop("extraction"))
    fn = (
        "async def detect(text):\n"
        "    async with ClientSession() as s:\n"
        '        async with s.get("https://google-translate1.p.rapidapi.com/language/translate/v2/detect?q=" + text)'
        " as resp:\n"
        "            return await resp.json()"
    )
    url = "https://google-translate1.p.rapidapi.com/language/translate/v2/detect?q={text}"
    params = [{"key": "q", "in": "query", "value": "{text}"}]
    assert rec == {
        "sample_id": sample_id("aio_bot", "bot.py", "detect"),
        "api_name": "google-translate1",
        "api_host": "google-translate1.p.rapidapi.com",
        "function_name": "detect",
        "language": "python",
        "github_info": {"repo": "aio_bot", "file_path": "bot.py", "file_url": None, "start_line": 15,
                        "end_line": 18, "stars": None, "forks": None, "license": None, "updated_at": None},
        "code": {"complete_function": "from aiohttp import ClientSession\n\n\n" + fn, "original_function": fn,
                 "annotated_function": fn, "has_comments": False},
        "api_metadata": {"url": url, "method": "GET", "headers": {}, "params": [],
                         "route": "/language/translate/v2/detect", "endpoint_id": None, "endpoint_name": None,
                         "doc_match_type": None, "code_params": params, "library": "aiohttp"},
        "comments": [],
        "comments_source": None,
        "dependencies": ["aiohttp"],
    }
    assert extraction.pop("code_hash") == normalised_code_hash(fn)
    assert len(extraction.pop("structure_hash")) == 64
    assert extraction == {
        "calls": [{"library": "aiohttp", "method": "GET", "url": url, "host": "google-translate1.p.rapidapi.com",
                   "route": "/language/translate/v2/detect", "headers": {}, "params": params, "line": 17}],
        "rapidapi_evidence": ["host:*.p.rapidapi.com"],
        "template_flags": [],
        "is_method": False,
        "is_template": False,
        "duplicates": [],
    }


def test_parallel_extraction_gives_the_same_records(result):
    par = extract_repos([REPOS / n for n in NAMES], n_jobs=2)
    assert par.records == result.records and par.errors == result.errors and par.stats == result.stats


GITHUB_API = '''import requests


class GithubApi:
    def __init__(self, token):
        self.session = requests.Session()
        self.session.headers.update({"Accept": "application/json"})
        self.session.headers["Authorization"] = "token " + token

    def repo(self, owner, name):
        return self.session.get(f"https://api.github.com/repos/{owner}/{name}").json()
'''


def test_session_headers_set_in_init_exact_record():
    # issue 6: headers set on self.session in __init__ reach the request made in another method
    [rec] = extract_source(GITHUB_API, repo="gh", file_path="gh/api.py")
    extraction = dict(rec.pop("extraction"))
    fn = 'def repo(self, owner, name):\n    return self.session.get(f"https://api.github.com/repos/{owner}/{name}").json()'
    url = "https://api.github.com/repos/{owner}/{name}"
    headers = {"Accept": "application/json", "Authorization": "token {token}"}
    params = [
        {"key": "owner", "in": "path", "value": None},
        {"key": "name", "in": "path", "value": None},
        {"key": "Accept", "in": "header", "value": "application/json"},
        {"key": "Authorization", "in": "header", "value": "token {token}"},
    ]
    assert rec == {
        "sample_id": sample_id("gh", "gh/api.py", "GithubApi.repo"),
        "api_name": "api",
        "api_host": "api.github.com",
        "function_name": "GithubApi.repo",
        "language": "python",
        "github_info": {"repo": "gh", "file_path": "gh/api.py", "file_url": None, "start_line": 10,
                        "end_line": 11, "stars": None, "forks": None, "license": None, "updated_at": None},
        "code": {"complete_function": fn, "original_function": fn, "annotated_function": fn, "has_comments": False},
        "api_metadata": {"url": url, "method": "GET", "headers": headers, "params": [],
                         "route": "/repos/{owner}/{name}", "endpoint_id": None, "endpoint_name": None,
                         "doc_match_type": None, "code_params": params, "library": "requests"},
        "comments": [],
        "comments_source": None,
        "dependencies": [],
    }
    assert extraction.pop("code_hash") == normalised_code_hash(fn)
    assert len(extraction.pop("structure_hash")) == 64
    assert extraction == {
        "calls": [{"library": "requests", "method": "GET", "url": url, "host": "api.github.com",
                   "route": "/repos/{owner}/{name}", "headers": headers, "params": params, "line": 11}],
        "rapidapi_evidence": [],
        "template_flags": [],
        "is_method": True,
    }


SESSION_RULES = '''import httpx
import requests

BASE = "https://api.example.com/v1"
shared = requests.Session()
shared.headers["User-Agent"] = "qare-test"


class Client:
    def __init__(self, token):
        self.session = requests.Session()
        self.session.headers.update({"Accept": "application/json", "Authorization": "Bearer " + token})
        self.session.params = {"format": "json"}

    def login(self):
        self.session.headers["X-Trace"] = "1"

    def items(self, kind):
        return self.session.get(BASE + "/items/" + kind, params={"limit": 5}, headers={"Accept": "text/csv"}).json()


class Xml:
    def __init__(self):
        self.c = httpx.Client(base_url="https://h.example.com", headers={"Accept": "application/xml"}, params={"v": "2"})
        self.c.headers.update(accept_language="en")

    def get(self):
        return self.c.get("/x")


def ping():
    return shared.get("https://s.example.com/ping")


def local_only():
    s = requests.Session()
    return s.get("https://l.example.com/")
'''


def test_session_level_updates_rules():
    recs = {r["function_name"]: r["api_metadata"] for r in extract_source(SESSION_RULES)}
    # __init__ then other methods; the request's own headers= wins; session params are query params
    assert recs["Client.items"]["headers"] == {"Accept": "text/csv", "Authorization": "Bearer {token}", "X-Trace": "1"}
    assert [(p["key"], p["in"], p["value"]) for p in recs["Client.items"]["code_params"]] == [
        ("limit", "query", 5), ("format", "query", "json"), ("kind", "path", None),
        ("Accept", "header", "text/csv"), ("Authorization", "header", "Bearer {token}"), ("X-Trace", "header", "1"),
    ]
    # httpx.Client(base_url=, headers=, params=) in __init__ plus a keyword headers.update
    assert recs["Xml.get"]["url"] == "https://h.example.com/x"
    assert recs["Xml.get"]["headers"] == {"Accept": "application/xml", "accept_language": "en"}
    assert [(p["key"], p["in"]) for p in recs["Xml.get"]["code_params"]] == [
        ("v", "query"), ("Accept", "header"), ("accept_language", "header")]
    # module-level session: its module-level updates apply; a local session gets none of them
    assert recs["ping"]["headers"] == {"User-Agent": "qare-test"}
    assert recs["local_only"]["headers"] == {}
