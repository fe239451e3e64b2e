"""Issue 16: gold self-execution of records shaped like the release.

Each record below is written for this test in the release's schema (a
sample id, ``api_host``, ``function_name``, ``code.complete_function``,
``api_metadata`` with ``url``/``method``/``route``/``params``/
``code_params`` fragments); the code and hosts are made up. The first group
is code that needs the executor's rules to reach its own request (each one
missed before the rule existed); the second is code that cannot be trusted
for the reason its ``check-gold`` class names.
"""

import pytest

from metrics.sccg import GoldClass, check_gold, classify, sandbox_status

BWRAP_OK, BWRAP_WHY = sandbox_status()
MODE = "auto" if BWRAP_OK else "none-unsafe"

HOST = "tidewatch.p.rapidapi.com"
HDR = f'    headers = {{"x-rapidapi-host": "{HOST}", "x-rapidapi-key": RAPIDAPI_KEY}}\n'


def _rec(sid, fn, code, route="/tides", method="GET", host=HOST):
    return {
        "sample_id": sid,
        "api_name": host.split(".")[0],
        "api_host": host,
        "function_name": fn,
        "language": "python",
        "github_info": {"repo": "someone/tides", "file_path": "tides/api.py"},
        "code": {"complete_function": code, "original_function": code, "has_comments": "False"},
        "api_metadata": {"url": f"https://{host}{route}", "method": method, "headers": {"x-rapidapi-host": host},
                         "params": None, "path_params": None, "header_params": None, "payload": None,
                         "route": route, "doc_match_type": "url",
                         "code_params": {"headers_code": HDR.strip()}},
        "comments": [],
    }


URL = f'"https://{HOST}/tides"'

# ----------------------------------------------------------- executor rules

EXECUTOR = {
    # a dict-like global the file defined: CONFIG["station_id"] (was `{}` → KeyError)
    "X-CONFIG": ("fetch", "import requests\ndef fetch(api_key):\n" + HDR
                 + f'    params = {{"station": CONFIG["station_id"]}}\n'
                   f'    return requests.get({URL}, headers=headers, params=params)\n', "global:CONFIG"),
    # config = load_config(): a called global is a helper stand-in, even named like a dict
    "X-CALLED": ("fetch", "import requests\ndef fetch():\n    cfg = load_config()\n    days = split_dates(cfg)\n"
                 + HDR + f'    return requests.get({URL}, headers=headers, params={{"d": days[0][1]}})\n',
                 "global:split_dates"),
    # a parameter used as a datetime (was "test" → no strftime)
    "X-DATETIME": ("hourly", "import requests\ndef hourly(lat, moment):\n    day = moment.strftime('%Y-%m-%d')\n"
                   + HDR + f'    r = requests.get({URL}, headers=headers, params={{"day": day, "h": moment.hour}})\n'
                           '    return r.json()\n', None),
    # parsed by strptime (the name rule gave `start` the page number 1)
    "X-STRPTIME": ("window", "import requests, datetime\ndef window(start, end):\n"
                   "    a = datetime.datetime.strptime(start, '%d.%m.%Y')\n"
                   "    b = datetime.datetime.strptime(end, '%d.%m.%Y')\n"
                   + HDR + f'    return requests.get({URL}, headers=headers, params={{"from": a.isoformat(), '
                           f'"days": (b - a).days}})\n', None),
    # compared with a number, converted by int() (was "test" → TypeError, ValueError)
    "X-NUMBER": ("bucket", "import requests\ndef bucket(market_cap, deck):\n"
                 "    size = 'small' if market_cap < 1000000 else 'big'\n    if int(deck) > 11:\n        return None\n"
                 + HDR + f'    return requests.get({URL}, headers=headers, params={{"size": size}})\n', None),
    # iterated, the loop variable subscripted: a list of one stand-in (was a string's characters)
    "X-ITER": ("each", "import requests\ndef each(pairs):\n    for pair in pairs:\n"
               + "    " + HDR + f'        requests.get({URL}, headers=headers, params={{"m": pair["match_id"]}})\n',
               None),
    # input(): stdin is closed; the default answer is read, recorded
    "X-INPUT": ("ask", "import requests\ndef ask():\n    name = input('Drink name? ').lower()\n" + HDR
                + f'    return requests.get({URL} + "?name=" + name, headers=headers)\n', "stdin:input"),
    # a method cut out of its class: `self` is a stand-in, recorded
    "X-SELF": ("tides_for", "import requests\ndef tides_for(self, city):\n" + HDR
               + f'    self.last = requests.get({URL}, headers=headers, params={{"city": city}})\n', "arg:self"),
    # the module-level session the snippet's file made
    "X-SESSION": ("poll", "import requests\ndef poll():\n" + HDR
                  + f'    return session.get({URL}, headers=headers)\n', "global:session"),
    # a key-like attribute of a stand-in settings object is a key, not falsy
    "X-SETTINGS": ("guarded", "import requests\nfrom tides.config import settings\ndef guarded():\n"
                   "    if not settings.rapidapi_key:\n        return []\n" + HDR
                   + f'    return requests.get({URL}, headers=headers)\n', "module:tides"),
    # a Tk entry the name rules took for an id: its .get() is a stand-in
    "X-ENTRY": ("send_id", "import requests\ndef send_id():\n    place = entry_id.get()\n" + HDR
                + f'    return requests.get({URL}, headers=headers, params={{"p": place}})\n', "global:entry_id"),
    # a heavy ML import is a stand-in, never imported (torch alone outlasts the wall limit)
    "X-HEAVY": ("news", "import requests\nimport torch\nfrom sklearn.preprocessing import OneHotEncoder\n"
                "def news(symbol):\n" + HDR + f'    return requests.get({URL}, headers=headers, params={{"q": symbol}})\n',
                "module:torch"),
    # subscripted by a string: a mapping whose missing keys are stand-ins (was "test" → TypeError)
    "X-MAPPING": ("render", "import requests\ndef render(api_key, template):\n" + HDR
                  + f'    return requests.get({URL}, headers=headers, params={{"html": template["body"]}})\n', None),
    # a framework file, but this function uses none of it: judged like any other
    "X-FWFILE": ("plain", "import requests\nfrom flask import Flask, request\ndef plain(city):\n" + HDR
                 + f'    return requests.get({URL}, headers=headers, params={{"c": city}})\n', None),
    # a file argument names a file that exists (empty)
    "X-FILE": ("upload", "import requests\ndef upload(apk_file_path):\n" + HDR
               + f'    return requests.get({URL}, headers=headers, files={{"f": open(apk_file_path, "rb")}})\n', None),
    # a stand-in used as a path: os.path.join(Store.get_data_path(), ...)
    "X-FSPATH": ("cached", "import requests, os, json\ndef cached():\n"
                 "    p = os.path.join(Store.get_data_path(), 'c.json')\n    if os.path.exists(p):\n"
                 "        return json.load(open(p))\n" + HDR + f'    return requests.get({URL}, headers=headers)\n',
                 "global:Store"),
}

# ----------------------------------------------------------- untrustworthy records

CLASSES = {
    "C-HELPER": ("tides", "import requests\ndef tides(station):\n" + HDR
                 + f"    data = request_with_retries({URL}, headers, {{'s': station}})\n    return data\n",
                 "missing_helper", "calls request_with_retries, not in the snippet"),
    "C-HELPER-GATE": ("info", "import requests\ndef info(place):\n    pack = geocode(place)\n    if not pack:\n"
                      "        return None\n" + HDR + f"    return requests.get({URL}, headers=headers)\n",
                      "missing_helper", "calls geocode, not in the snippet"),
    "C-SELF-HELPER": ("convert", "import requests, urllib.parse\ndef convert(self, text: str):\n"
                      "    text = self.strip_links(text)\n    body = 'c=' + urllib.parse.quote(text)\n" + HDR
                      + f"    return requests.post({URL}, data=body, headers=headers)\n",
                      "missing_helper", "calls self.strip_links, not in the snippet"),
    "C-INPUT": ("more", "import requests\ndef more(term):\n    if input('More? ').lower() == 'y':\n" + "    " + HDR
                + f"        requests.get({URL}, headers=headers, params={{'q': term}})\n",
                "needs_input", "reads input(); nothing sent with the default answer"),
    "C-FILE": ("summarise", "import requests, json\ndef summarise():\n    payload = json.load(open('payload.json'))\n"
               + HDR + f"    return requests.post({URL}, json=payload, headers=headers)\n",
               "missing_file", "FileNotFoundError: [Errno 2] No such file or directory: 'payload.json'"),
    "C-ARGS": ("by_city", "import requests\ndef by_city(city):\n    ids = {'bonn': 10517, 'koeln': 10513}\n"
               "    station = ids[city]\n" + HDR
               + f"    return requests.get({URL}, headers=headers, params={{'station': station}})\n",
               "argument_dependent", "KeyError: 'London'"),
    "C-ARGS-RAISE": ("homes", "import requests\ndef homes(status, city=None, zip_code=None):\n"
                     "    if city is None and zip_code is None:\n        raise ValueError('city or zip code')\n" + HDR
                     + f"    return requests.get({URL}, headers=headers)\n",
                     "argument_dependent", "ValueError: city or zip code"),
    "C-NOWMOD": ("daily", "import requests\nimport datetime as datetime\ndef daily(lat, lon):\n"
                 "    day = datetime.now().date()\n" + HDR
                 + f"    return requests.get({URL}, headers=headers, params={{'start': day}})\n",
                 "broken_code", "the code reads datetime.now, which that module does not have"),
    "C-REDACTED": ("builds", "import requests\ndef builds():\n"
                   "    url = 'https://%s:<REDACTED_EMAIL>/api/v1/builds' % (user, access_key)\n"
                   "    return requests.get(url)\n",
                   "broken_code", "the release's redaction cut a URL literal: https://%s:<REDACTED_EMAIL>/api/v1/builds"),
    "C-NOHTTP": ("copy_clipboard", "import subprocess\ndef copy_clipboard(text):\n"
                 "    return subprocess.call(['true', text]) == 0\n",
                 "annotation_mismatch", "the code makes no HTTP call at all"),
    "C-FLASK": ("status", "import requests\ndef status():\n    if request.method == 'POST':\n"
                "        code = request.form['flight']\n" + "    " + HDR
                + f"        r = requests.get({URL} + '/' + code, headers=headers)\n"
                  "        return render_template('s.html', data=r.json())\n",
                "framework_context", "no request; uses request without importing it"),
    "C-STREAMLIT": ("verse", "import requests\ndef verse(chapter):\n    key = st.secrets.get('rapidapi')\n"
                    "    if not key:\n        return None\n" + HDR + f"    return requests.get({URL}, headers=headers)\n",
                    "framework_context", "no request; uses st without importing it"),
    "C-ROUTE-ARG": ("league", "import requests\ndef league(path, params):\n" + HDR
                    + f"    return requests.get(f'https://{HOST}/{{path}}', headers=headers, params=params)\n",
                    "dynamic_url", f"route built from parameter(s) path: https://{HOST}/input.txt"),
    # a parameter fills only a later segment of another endpoint: not dynamic
    "C-ROUTE-LATER": ("current", "import requests\ndef current(station_id):\n" + HDR
                      + f"    return requests.get(f'https://{HOST}/currents/{{station_id}}', headers=headers)\n",
                      "annotation_mismatch", f"endpoint: code sends GET https://{HOST}/currents/1"),
    # the code writes the gold route's segments and more: the annotation is cut, not dynamic
    "C-ROUTE-CUT": ("flight", "import requests\ndef flight(number):\n" + HDR
                    + f"    return requests.get('https://{HOST}/tides/number/' + number, headers=headers)\n",
                    "annotation_mismatch", f"endpoint: code sends GET https://{HOST}/tides/number/"),
    "C-FW-ROUTE": ("other", "import requests\nfrom flask import Flask\ndef other():\n" + HDR
                   + f"    return requests.get('https://{HOST}/currents', headers=headers)\n",
                   "annotation_mismatch", f"endpoint: code sends GET https://{HOST}/currents"),
    # a library raised (strptime on a name-rule value): not blamed on the arguments
    "C-LIBRARY": ("since", "import requests, datetime\ndef since(tag):\n"
                  "    d = datetime.datetime.strptime(tag.upper(), '%Y')\n" + HDR
                  + f"    return requests.get({URL}, headers=headers, params={{'y': d.year}})\n",
                  "no_request", "ValueError: time data 'TEST' does not match format '%Y'"),
}


@pytest.fixture(scope="module")
def rows():
    recs = [_rec(sid, fn, code) for sid, (fn, code, *_) in {**EXECUTOR, **CLASSES}.items()]
    return {r["sample_id"]: r for r in check_gold(recs, sandbox=MODE, n_jobs=2)}


@pytest.mark.parametrize("sid", sorted(EXECUTOR))
def test_executor_rules_reach_the_gold_request(rows, sid):
    row = rows[sid]
    assert row["class"] == "hit", (sid, row["reason"], row["status"], row["stand_ins"])
    assert row["captured"].startswith(f"GET https://{HOST}/tides"), row["captured"]
    need = EXECUTOR[sid][2]
    if need:
        assert need in row["stand_ins"]


def test_values_from_usage(rows):
    assert rows["X-DATETIME"]["scores"]["request"]["params"] == {"day": "2024-01-01", "h": 12}
    assert rows["X-STRPTIME"]["scores"]["request"]["params"] == {"from": "2024-01-01T00:00:00", "days": 0}
    assert rows["X-NUMBER"]["scores"]["request"]["params"] == {"size": "small"}
    assert rows["X-INPUT"]["captured"] == f"GET https://{HOST}/tides?name=test"
    assert rows["X-HEAVY"]["stand_ins"][:2] == ["module:torch", "module:sklearn"]


@pytest.mark.parametrize("sid", sorted(CLASSES))
def test_untrustworthy_records_are_classed(rows, sid):
    _, _, cls, reason = CLASSES[sid]
    assert rows[sid]["class"] == cls, (sid, rows[sid]["reason"])
    assert rows[sid]["reason"].startswith(reason), rows[sid]["reason"]
    if cls not in ("dynamic_url", "annotation_mismatch"):
        assert rows[sid]["captured"] is None


def _ex(**kw):
    return {"status": "raised", "error": "KeyError: 'x'", "stand_ins": [], "error_site": "generation:f", **kw}


SCORES = {"mock": 0, "syntax": 1, "request": None, "stage": "request_construction"}
GOLD = {"function_name": "f", "api_host": HOST}


def test_classify_rules_precisely():
    code = "import requests\ndef f(a):\n    x = {}[a]\n    requests.get('https://h.example.org/')\n"
    assert classify(code, _ex(), SCORES, GOLD) == (GoldClass.ARGUMENT_DEPENDENT, "KeyError: 'x'")
    # raised in a library, or the function has no parameters: not the arguments
    assert classify(code, _ex(error_site="library:_strptime"), SCORES, GOLD)[0] is GoldClass.NO_REQUEST
    no_args = code.replace("def f(a)", "def f()")
    assert classify(no_args, _ex(), SCORES, GOLD)[0] is GoldClass.NO_REQUEST
    # a helper stand-in that the function does not call is not a missing helper
    assert classify(code, _ex(stand_ins=["global:helper"]), SCORES, GOLD)[0] is GoldClass.ARGUMENT_DEPENDENT
    called = code.replace("x = {}[a]", "x = helper(a)")
    assert classify(called, _ex(stand_ins=["global:helper"]), SCORES, GOLD) == (
        GoldClass.MISSING_HELPER, "calls helper, not in the snippet; KeyError: 'x'")
    # a real module's missing attribute only when the code imports that module
    err = "AttributeError: module 'datetime' has no attribute 'now'"
    assert classify("import datetime\n" + code, _ex(error=err), SCORES, GOLD)[0] is GoldClass.BROKEN_CODE
    assert classify(code, _ex(error=err), SCORES, GOLD)[0] is GoldClass.ARGUMENT_DEPENDENT
    # a framework name counts only as a stand-in (the snippet did not define it)
    assert classify(code, _ex(stand_ins=["global:request"]), SCORES, GOLD)[0] is GoldClass.FRAMEWORK_CONTEXT
    # a request captured: the new no-request classes never apply
    req = {"host": "h.example.org", "url": "https://h.example.org/", "method": "GET"}
    sc = {**SCORES, "request": req, "stage": "host"}
    assert classify(called, _ex(stand_ins=["global:helper"]), sc, GOLD)[0] is GoldClass.ANNOTATION_MISMATCH


def test_classify_parses_the_code_once(monkeypatch):
    # every rule of classify reads one syntax tree (it was parsed up to three times)
    import ast

    calls = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda src, *a, **k: calls.append(1) or real(src, *a, **k))
    code = "import requests\ndef f(a):\n    x = {}[a]\n    requests.get('https://h.example.org/')\n"
    assert classify(code, _ex(), SCORES, GOLD)[0] is GoldClass.ARGUMENT_DEPENDENT  # no request captured
    assert len(calls) == 1
    calls.clear()
    req = {"method": "GET", "url": f"https://{HOST}/currents", "host": HOST}
    sent = code.replace("'https://h.example.org/'", f"'https://{HOST}/currents'")
    got = classify(sent, _ex(), {**SCORES, "request": req, "stage": "endpoint"},
                   {**GOLD, "api_metadata": {"route": "/tides", "method": "GET"}})
    assert got == (GoldClass.ANNOTATION_MISMATCH, f"endpoint: code sends GET https://{HOST}/currents")
    assert len(calls) == 1
