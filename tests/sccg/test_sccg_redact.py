"""redact_code and LeakCheck on hand-written records."""

from queries.sccg import Gold, LeakCheck, LeakReport, extract_source, leak_check, redact_code

GOLD = {
    "api_host": "weatherapi-com.p.rapidapi.com",
    "api_metadata": {
        "url": "https://weatherapi-com.p.rapidapi.com/forecast/{location}",
        "route": "/forecast/{location}",
        "method": "GET",
        "params": [{"name": "days", "in": "query"}, {"name": "api_lang", "in": "query"}, "units"],
        "code_params": [
            {"key": "days", "in": "query", "value": "3"},
            {"key": "X-RapidAPI-Key", "in": "header", "value": "<REDACTED>"},
            {"key": "location", "in": "path", "value": None},
        ],
    },
}

CODE = '''import requests

KEY = "abc123abc123abc123"


def forecast(city):
    """Call weatherapi-com.p.rapidapi.com for days of weather."""
    # GET https://weatherapi-com.p.rapidapi.com/forecast/London?days=3
    url = f"https://weatherapi-com.p.rapidapi.com/forecast/{city}?days=3&api_lang=en"
    headers = {"X-RapidAPI-Key": "abc123abc123abc123", "X-RapidAPI-Host": "weatherapi-com.p.rapidapi.com"}
    r = requests.get(url, headers=headers, params={"days": "3", "units": "metric"})
    return r.json()
'''

EXPECTED = '''import requests

KEY = "<API_KEY>"


def forecast(city):
    """Call <HOST> for <PARAM_1> of weather."""
    # GET https://<HOST><ROUTE>?<PARAM_1>=3
    url = f"https://<HOST><ROUTE>?<PARAM_1>=3&<PARAM_2>=en"
    headers = {"X-RapidAPI-Key": "<API_KEY>", "X-RapidAPI-Host": "<HOST>"}
    r = requests.get(url, headers=headers, params={"<PARAM_1>": "3", "<PARAM_3>": "metric"})
    return r.json()
'''


def test_gold_tokens():
    g = Gold.from_record(GOLD)
    assert g.keys == ("days", "api_lang", "units", "location")
    assert g.values == ()  # "3" is shorter than two characters
    assert g.host == "weatherapi-com.p.rapidapi.com"


def test_redact_exact():
    assert redact_code(CODE, GOLD) == EXPECTED


def test_redacted_code_has_no_identifying_leaks():
    report = leak_check(EXPECTED, GOLD)
    # "days"/"units" are plain words: only their code forms count, and those
    # were masked; the route prefix and the host are gone.
    assert report == LeakReport(host=False, url=False, route=False, route_segments=(), param_keys=())
    assert not report.leaked


def test_full_url_masked():
    rec = {"api_host": "a.example.com", "api_metadata": {"url": "https://a.example.com/v1/x", "route": "/v1/x"}}
    assert redact_code('u = "https://a.example.com/v1/x"\n', rec) == 'u = "<URL>"\n'
    assert redact_code('u = "https://a.example.com/v1/x/y"\n', rec) == 'u = "https://<HOST>/v1/x/y"\n'


def test_leakcheck_exact():
    text = "Get the forecast.json for a city via `api_lang` and days= from weatherapi-com using /forecast"
    report = LeakCheck(text, GOLD)
    assert report == LeakReport(
        host=True, url=False, route=True, route_segments=(), param_keys=("days", "api_lang")
    )
    assert report.tokens == ("host", "route", "days", "api_lang")


def test_leakcheck_plain_words_not_leaks():
    text = "Get the weather forecast for a city for the next few days in metric units."
    assert not leak_check(text, GOLD).leaked


def test_leakcheck_identifying_segments():
    gold = {
        "api_host": "yh-finance.p.rapidapi.com",
        "api_metadata": {"url": None, "route": "/stock/v2/get-summary", "params": ["symbol", "region_code"]},
    }
    r = leak_check("Summarise a stock: call get-summary with region_code (v2)", gold)
    assert r == LeakReport(host=False, url=False, route=False, route_segments=("get-summary",), param_keys=("region_code",))
    assert leak_check("use yh-finance to look at stocks", gold).host is True
    assert leak_check("Show a stock summary for a ticker symbol", gold).leaked is False


def test_redact_extracted_record_roundtrip():
    src = (
        "import requests\n\n"
        "def rate(base):\n"
        "    url = 'https://fx.p.rapidapi.com/latest'\n"
        "    return requests.get(url, params={'base': base, 'symbols': 'EUR,GBP'},"
        " headers={'x-rapidapi-key': 'kkkk'})\n"
    )
    rec = extract_source(src)[0]
    red = redact_code(rec["code"]["complete_function"], rec)
    assert red.splitlines()[4:] == [
        "    url = '<URL>'",
        "    return requests.get(url, params={'<PARAM_1>': base, '<PARAM_2>': '<VALUE>'},"
        " headers={'x-rapidapi-key': '<API_KEY>'})",
    ]
