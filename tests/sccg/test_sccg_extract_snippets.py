"""Issue 16 item 4: extraction from snippets cut out of their files."""

from queries.sccg import extract_source


def _one(src):
    recs = extract_source(src, repo="demo", file_path="snip.py")
    return {r["function_name"]: r for r in recs}


def test_bare_requests_without_import_line():
    recs = _one('def f(city):\n    return requests.get("https://w.p.rapidapi.com/now", {"q": city}).json()\n')
    meta = recs["f"]["api_metadata"]
    assert (recs["f"]["api_host"], meta["route"], meta["method"]) == ("w.p.rapidapi.com", "/now", "GET")
    # positional params are query keys
    assert [(p["key"], p["in"]) for p in meta["code_params"]] == [("q", "query")]


def test_a_name_the_file_binds_is_not_the_library():
    src = "requests = object()\n\ndef f():\n    return requests.get('https://w.p.rapidapi.com/now')\n"
    assert _one(src) == {}


def test_passed_in_session():
    src = ("import requests\n\n"
           "def fetch(session, symbol):\n"
           "    return session.post('https://q.p.rapidapi.com/quote', {'s': symbol}, headers={'X-RapidAPI-Host': 'q'})\n")
    meta = _one(src)["fetch"]["api_metadata"]
    assert (meta["route"], meta["method"]) == ("/quote", "POST")
    assert [(p["key"], p["in"]) for p in meta["code_params"]] == [("s", "body"), ("X-RapidAPI-Host", "header")]
    # a parameter of another name is not taken for a client
    assert _one(src.replace("session", "thing")) == {}


def test_bare_aiohttp_without_import_line():
    src = ("async def look(number):\n"
           "    async with aiohttp.ClientSession() as s:\n"
           "        async with s.post(f'https://bins.p.rapidapi.com/?bin={number}') as r:\n"
           "            return await r.json()\n")
    meta = _one(src)["look"]["api_metadata"]
    assert (meta["route"], meta["method"], meta["library"]) == ("/", "POST", "aiohttp")


def test_module_level_session_the_snippet_lost():
    src = ("import requests\n\n"
           "def info(session_id):\n"
           "    return session.get(url='https://m.example.org/api/v1/sessions/%s' % session_id).json()\n")
    meta = _one(src)["info"]["api_metadata"]
    assert (meta["url"], meta["method"]) == ("https://m.example.org/api/v1/sessions/{session_id}", "GET")
    # bound in the function, or at module level to something else: not a client
    assert _one(src.replace("    return", "    session = object()\n    return")) == {}
    assert _one(src.replace("import requests\n", "import requests\nsession = object()\n")) == {}
