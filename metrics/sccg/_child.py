"""Runner executed inside the sandbox: ``python3 -I -c <this file's text>``.

Self-contained on purpose (``-I`` puts nothing of ours on ``sys.path``). It
reads one JSON job from stdin, sets its own rlimits, drops root, blocks
Internet sockets, installs the fake HTTP libraries, runs the generation and
streams one JSON line per event to the report fd:
``start``, ``request`` (one per attempted request), ``socket`` (a refused
connection), ``done`` (status, error, stdout size).
"""

import hashlib
import hmac
import json
import os
import resource
import sys

_RUNNER_FILE = sys._getframe().f_code.co_filename  # "<string>" under -c
_JOB = json.loads(sys.stdin.read())
sys.stdin.close()
_MAIN = os.getpid()
_LIM = _JOB["limits"]


def _make_emit(fd, key):
    """The report writer: ``<HMAC> <json>`` lines on *fd* (see ``_sandbox._verified``).

    The key lives only in this closure; the job text that carried it is
    dropped below. That keeps lines written blindly to inherited file
    descriptors from counting. It is no wall against code written to attack
    this runner: the generation runs in this process and can read its memory
    (docs/sccg.md, threat model).
    """
    seq = [0]

    def emit(obj):
        line = json.dumps(obj, default=repr)
        if len(line) > 65536:
            line = json.dumps({"event": obj.get("event"), "truncated": True})
        data = line.encode()
        mac = hmac.new(key, f"{seq[0]}:".encode() + data, hashlib.sha256).hexdigest().encode()
        seq[0] += 1
        try:
            os.write(fd, mac + b" " + data + b"\n")
        except OSError:
            pass

    return emit


_emit = _make_emit(_JOB["fd"], bytes.fromhex(_JOB.pop("key")))


def _setlimit(which, value):
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


resource.setrlimit(resource.RLIMIT_CPU, (_LIM["cpu_s"], _LIM["cpu_s"] + 1))
_setlimit(resource.RLIMIT_AS, _LIM["memory_mb"] * 1024 * 1024)
_setlimit(resource.RLIMIT_FSIZE, _LIM["fsize_mb"] * 1024 * 1024)
_setlimit(resource.RLIMIT_NOFILE, 64)
_setlimit(resource.RLIMIT_CORE, 0)
_setlimit(resource.RLIMIT_NPROC, _LIM["nproc"])

import inspect  # noqa: E402
import io  # noqa: E402
import socket as _socket  # noqa: E402
import types  # noqa: E402
import typing  # noqa: E402
from urllib.parse import parse_qsl, urlsplit  # noqa: E402

_N_REQ = [0]
_OUT_BYTES = [0]


def _text(value):
    """*value* decoded when it is bytes, else unchanged."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _safe(value, depth=0):
    if value is None or isinstance(value, (bool, int, float)):
        return value
    value = _text(value)
    if isinstance(value, str):
        return value[:500]
    if depth >= 3:
        return repr(value)[:200]
    if isinstance(value, dict):
        return {str(k)[:200]: _safe(v, depth + 1) for k, v in list(value.items())[:100]}
    if isinstance(value, (list, tuple, set)):
        return [_safe(v, depth + 1) for v in list(value)[:100]]
    return repr(value)[:200]


def _pairs(value):
    """dict / list of pairs / query string → dict of str keys."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, (bytes, str)):
        return dict(parse_qsl(_text(value), keep_blank_values=True))
    try:
        return {str(k): v for k, v in value}
    except (TypeError, ValueError):
        return {}


def _body(data, json_):
    if json_ is not None:
        return _safe(json_)
    if data is None:
        return None
    if isinstance(data, dict):
        return _safe(data)
    if isinstance(data, (bytes, str)):
        text = _text(data)
        try:
            return _safe(json.loads(text))
        except ValueError:
            pairs = parse_qsl(text, keep_blank_values=True)
            return _safe(dict(pairs)) if pairs else text[:500]
    if isinstance(data, (list, tuple)):
        return _safe(_pairs(data))
    return repr(data)[:200]


def _record(lib, method, url, params=None, headers=None, data=None, json_=None, base=None):
    url = "" if url is None else str(url)
    if base and "://" not in url:
        url = str(base).rstrip("/") + "/" + url.lstrip("/")
    try:
        parts = urlsplit(url)
        host, path, query = parts.hostname, parts.path, parts.query
    except ValueError:
        host, path, query = None, url, ""
    merged = dict(parse_qsl(query, keep_blank_values=True))
    merged.update(_pairs(params))
    _N_REQ[0] += 1
    if _N_REQ[0] <= _LIM["max_requests"]:
        _emit(
            {
                "event": "request",
                "lib": lib,
                "method": str(method).upper(),
                "url": url[:2000],
                "host": host,
                "route": path or "/",
                "params": _safe(merged),
                "headers": _safe({str(k): v for k, v in (headers or {}).items()}),
                "body": _body(data, json_),
            }
        )


# --------------------------------------------------------------------------- sockets


class SandboxNetworkError(PermissionError):
    pass


def _deny(addr):
    _emit({"event": "socket", "address": repr(addr)[:200]})
    raise SandboxNetworkError("network access is blocked in the SCCG sandbox")


class _GuardedSocket(_socket.socket):
    def connect(self, address):
        if self.family in (_socket.AF_INET, _socket.AF_INET6):
            _deny(address)
        return super().connect(address)

    def connect_ex(self, address):
        if self.family in (_socket.AF_INET, _socket.AF_INET6):
            _deny(address)
        return super().connect_ex(address)

    def bind(self, address):
        if self.family in (_socket.AF_INET, _socket.AF_INET6):
            _deny(address)
        return super().bind(address)

    def sendto(self, *args):
        if self.family in (_socket.AF_INET, _socket.AF_INET6):
            _deny(args[-1])
        return super().sendto(*args)


def _no_dns(*args, **kwargs):
    _deny(args[:2])


_socket.socket = _GuardedSocket
_socket.getaddrinfo = _no_dns
_socket.gethostbyname = _no_dns
_socket.create_connection = lambda address, *a, **k: _deny(address)


# --------------------------------------------------------------------------- responses


class _Headers(dict):
    def get(self, key, default=None):
        for k, v in self.items():
            if k.lower() == str(key).lower():
                return v
        return default


class _Closing:
    """A context manager that is itself; ``close()`` does nothing."""

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _AsyncClosing:
    """An async context manager that is itself."""

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False


class FakeResponse(_Closing):
    """Placeholder response: 200, JSON body ``{}``."""

    def __init__(self, url="", method="GET"):
        self.url = url
        self.method = method
        self.status_code = 200
        self.status = 200
        self.code = 200
        self.ok = True
        self.reason = "OK"
        self.reason_phrase = "OK"
        self.is_success = True
        self.is_error = False
        self.encoding = "utf-8"
        self.apparent_encoding = "utf-8"
        self.headers = _Headers({"content-type": "application/json"})
        self.text = "{}"
        self.content = b"{}"
        self.history = []
        self.elapsed = 0.0
        self.request = types.SimpleNamespace(url=url, method=method, headers={})

    def json(self, **kwargs):
        return {}

    def raise_for_status(self):
        return self

    def iter_content(self, *a, **k):
        return iter([b"{}"])

    def iter_lines(self, *a, **k):
        return iter([b"{}"])

    def iter_bytes(self, *a, **k):
        return iter([b"{}"])

    def read(self, *a):
        return b"{}"

    def __bool__(self):
        return True


class _AsyncResponse(FakeResponse, _AsyncClosing):
    async def json(self, **kwargs):
        return {}

    async def text(self, **kwargs):  # noqa: F811 - aiohttp's text() is a coroutine
        return "{}"

    async def read(self, *a):
        return b"{}"

    async def aread(self):
        return b"{}"

    def release(self):
        pass


class _AsyncHttpxResponse(FakeResponse, _AsyncClosing):
    async def aread(self):
        return b"{}"

    async def aclose(self):
        pass


# --------------------------------------------------------------------------- requests / httpx

_VERBS = ("get", "post", "put", "delete", "patch", "head", "options")


#: The positional parameters after ``url`` of requests' verb functions
#: (``get(url, params=None)``, ``post(url, data=None, json=None)``, …).
_POSITIONAL = {"get": ("params",), "options": (), "head": (), "post": ("data", "json"), "put": ("data",),
               "patch": ("data",), "delete": ()}


def _bind(verb, args, kw):
    for name, value in zip(_POSITIONAL[verb], args):
        kw.setdefault(name, value)
    return kw


def _verb_functions(mod, request):
    """Module functions ``get``, ``post``, … calling ``request(verb, url, **kw)``
    (``requests.get(url, params)`` positionally too)."""
    for v in _VERBS:
        setattr(mod, v, (lambda verb: lambda url, *a, **kw: request(verb, url, **_bind(verb, a, kw)))(v))


def _verb_methods(cls):
    """Methods ``get``, ``post``, … calling ``self.request(verb, url, **kw)``."""
    for v in _VERBS:
        setattr(cls, v, (lambda verb: lambda self, url, *a, **kw: self.request(verb, url, **_bind(verb, a, kw)))(v))


def _module_request(lib):
    def request(method, url, params=None, data=None, headers=None, json=None, **kw):
        _record(lib, method, url, params, headers, data, json)
        return FakeResponse(url, method)

    return request


def _merged(base, extra):
    """A client's session-level dict updated with a request's own."""
    out = dict(base)
    out.update(extra or {})
    return out


def _inert(name):
    """A class that accepts any constructor arguments and does nothing."""
    return type(name, (), {"__init__": lambda self, *a, **k: None})


def _make_exceptions(mod, names, base):
    root = type(names[0], (base,), {})
    setattr(mod, names[0], root)
    for n in names[1:]:
        setattr(mod, n, type(n, (root,), {}))
    return root


def _build_requests():
    m = types.ModuleType("requests")
    m.__path__ = []
    exc = types.ModuleType("requests.exceptions")
    _make_exceptions(
        exc,
        ["RequestException", "HTTPError", "ConnectionError", "Timeout", "ConnectTimeout", "ReadTimeout",
         "TooManyRedirects", "InvalidURL", "MissingSchema", "SSLError", "ProxyError", "RetryError", "ChunkedEncodingError"],
        IOError,
    )
    exc.JSONDecodeError = type("JSONDecodeError", (exc.RequestException, ValueError), {})
    for n in dir(exc):
        if not n.startswith("_"):
            setattr(m, n, getattr(exc, n))
    m.exceptions = exc
    request = _module_request("requests")

    class Session(_Closing):
        def __init__(self):
            self.headers = _Headers()
            self.params = {}
            self.auth = None
            self.proxies = {}
            self.verify = True
            self.cookies = {}

        def request(self, method, url, params=None, data=None, headers=None, json=None, **kw):
            _record("requests", method, url, _merged(self.params, _pairs(params)), _merged(self.headers, headers),
                    data, json)
            return FakeResponse(url, method)

        def mount(self, *a, **k):
            pass

        def prepare_request(self, req):
            return req.prepare(self)

        def send(self, prepared, **kw):
            _record("requests", prepared.method, prepared.url, prepared.params, prepared.headers, prepared.data,
                    prepared.json)
            return FakeResponse(prepared.url, prepared.method)

    class Request:
        def __init__(self, method=None, url=None, headers=None, files=None, data=None, params=None, auth=None,
                     cookies=None, hooks=None, json=None):
            self.method, self.url, self.headers = method, url, dict(headers or {})
            self.data, self.params, self.json = data, params, json

        def prepare(self, session=None):
            p = PreparedRequest()
            p.method = str(self.method or "GET").upper()
            p.url = self.url
            p.params = _merged(session.params, _pairs(self.params)) if session else self.params
            p.headers = _merged(session.headers, self.headers) if session else dict(self.headers)
            p.data, p.json = self.data, self.json
            return p

    class PreparedRequest:
        method = url = params = data = json = None
        headers = {}

        def prepare(self, method=None, url=None, headers=None, data=None, params=None, json=None, **kw):
            self.method, self.url, self.headers = str(method or "GET").upper(), url, dict(headers or {})
            self.data, self.params, self.json = data, params, json

    _verb_functions(m, request)
    _verb_methods(Session)
    m.Request, m.PreparedRequest = Request, PreparedRequest
    m.request = request
    m.Session = Session
    m.session = Session
    m.Response = FakeResponse
    m.codes = types.SimpleNamespace(ok=200, OK=200, created=201, not_found=404, unauthorized=401)
    adapters = types.ModuleType("requests.adapters")
    adapters.HTTPAdapter = _inert("HTTPAdapter")
    auth = types.ModuleType("requests.auth")
    auth.HTTPBasicAuth = _inert("HTTPBasicAuth")
    auth.AuthBase = type("AuthBase", (), {})
    m.adapters, m.auth = adapters, auth
    return {"requests": m, "requests.exceptions": exc, "requests.adapters": adapters, "requests.auth": auth}


def _build_httpx():
    m = types.ModuleType("httpx")
    root = _make_exceptions(m, ["HTTPError", "RequestError", "TransportError", "TimeoutException", "ConnectError",
                                "ReadTimeout", "ConnectTimeout", "NetworkError"], Exception)
    m.HTTPStatusError = type("HTTPStatusError", (root,), {})
    m.InvalidURL = type("InvalidURL", (Exception,), {})
    m.Timeout = _inert("Timeout")
    m.Limits = _inert("Limits")
    m.Response = FakeResponse
    m.codes = types.SimpleNamespace(OK=200, ok=200)
    request = _module_request("httpx")

    class Client(_Closing):
        def __init__(self, base_url=None, headers=None, params=None, **kw):
            self.base_url = base_url
            self.headers = _Headers(headers or {})
            self.params = _pairs(params)

        def _do(self, method, url, params=None, data=None, headers=None, json=None, **kw):
            _record("httpx", method, url, _merged(self.params, _pairs(params)), _merged(self.headers, headers),
                    data, json, base=self.base_url)

        def request(self, method, url, **kw):
            self._do(method, url, **kw)
            return FakeResponse(url, method)

        def stream(self, method, url, **kw):
            return self.request(method, url, **kw)

    class AsyncClient(Client, _AsyncClosing):
        async def request(self, method, url, **kw):
            self._do(method, url, **kw)
            return _AsyncHttpxResponse(url, method)

        def stream(self, method, url, **kw):
            self._do(method, url, **kw)
            return _AsyncHttpxResponse(url, method)

        async def aclose(self):
            pass

    _verb_functions(m, request)
    _verb_methods(Client)  # AsyncClient inherits them; self.request is its own
    m.request = request
    m.stream = request
    m.Client, m.AsyncClient = Client, AsyncClient
    return {"httpx": m}


def _build_aiohttp():
    m = types.ModuleType("aiohttp")
    root = _make_exceptions(m, ["ClientError", "ClientConnectionError", "ClientConnectorError",
                                "ServerTimeoutError", "ClientPayloadError"], Exception)
    m.ClientResponseError = type("ClientResponseError", (root,), {})
    m.ContentTypeError = type("ContentTypeError", (m.ClientResponseError,), {})
    for n in ("ClientTimeout", "TCPConnector", "BasicAuth", "FormData"):
        setattr(m, n, _inert(n))

    class _Ctx:
        def __init__(self, resp):
            self._resp = resp

        def __await__(self):
            async def _get():
                return self._resp

            return _get().__await__()

        async def __aenter__(self):
            return self._resp

        async def __aexit__(self, *exc):
            return False

    class ClientSession(_AsyncClosing):
        def __init__(self, base_url=None, *, headers=None, **kw):
            self._base = base_url
            self.headers = _Headers(headers or {})
            self.closed = False

        def request(self, method, url, *, params=None, data=None, json=None, headers=None, **kw):
            _record("aiohttp", method, url, params, _merged(self.headers, headers), data, json, base=self._base)
            return _Ctx(_AsyncResponse(str(url), method))

        async def close(self):
            self.closed = True

    _verb_methods(ClientSession)
    m.ClientSession = ClientSession
    m.request = lambda method, url, **kw: ClientSession().request(method, url, **kw)
    return {"aiohttp": m}


def _patch_urllib_and_http_client():
    import http.client as hc
    import urllib.request as ur

    real_request = ur.Request

    class Request(real_request):
        pass

    def urlopen(url, data=None, timeout=None, **kw):
        req = url if isinstance(url, real_request) else real_request(str(url), data=data)
        if data is not None and isinstance(url, real_request):
            req.data = data
        headers = {k: v for k, v in req.header_items()}
        _record("urllib", req.get_method(), req.full_url, None, headers, req.data, None)
        return FakeResponse(req.full_url, req.get_method())

    class _Opener:
        def open(self, url, data=None, timeout=None):
            return urlopen(url, data)

        def addheaders(self):
            return []

    ur.Request = Request
    ur.urlopen = urlopen
    ur.build_opener = lambda *a, **k: _Opener()
    ur.install_opener = lambda *a, **k: None

    class HTTPSConnection:
        scheme = "https"

        def __init__(self, host, port=None, *a, **kw):
            self.host = host
            self._pending = None

        def request(self, method, url, body=None, headers=None, **kw):
            full = f"{self.scheme}://{self.host}{url}"
            _record("http.client", method, full, None, headers or {}, body, None)
            self._pending = full

        def getresponse(self):
            return FakeResponse(self._pending or "", "GET")

        def close(self):
            pass

    hc.HTTPSConnection = HTTPSConnection
    hc.HTTPConnection = type("HTTPConnection", (HTTPSConnection,), {"scheme": "http"})


for _mods in (_build_requests(), _build_httpx(), _build_aiohttp()):
    sys.modules.update(_mods)
_patch_urllib_and_http_client()


# --------------------------------------------------------------------------- stand-ins

_STAND_INS = []
_KEYLIKE = ("key", "token", "secret", "password", "passwd", "auth", "apikey", "credential")


def _stand_in(kind, name):
    item = f"{kind}:{name}"
    if item not in _STAND_INS and len(_STAND_INS) < 200:
        _STAND_INS.append(item)
        _emit({"event": "stand_in", "kind": kind, "name": str(name)[:200]})


class StandIn:
    """An inert value for a module, global or attribute the snippet's file
    had and the sandbox has not: every attribute, call, item and operator
    gives another stand-in; it iterates as empty, is falsy, prints as ``""``."""

    def __init__(self, name="stand_in"):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if any(t in attr.lower() for t in _KEYLIKE):
            return _Str("test-api-key")  # `settings.rapidapi_key`: as a key-like global
        return StandIn(f"{self._name}.{attr}")

    def __setattr__(self, attr, value):
        pass

    def __fspath__(self):
        return "stand_in"  # `os.path.join(CONFIG.data_dir, "x.json")`: a relative path that does not exist

    def __call__(self, *a, **k):
        return StandIn(f"{self._name}()")

    def __getitem__(self, key):
        return StandIn(f"{self._name}[]")

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __str__(self):
        return ""

    def __repr__(self):
        return f"<stand-in {self._name}>"

    def __format__(self, spec):
        return ""

    def __int__(self):
        return 0

    def __float__(self):
        return 0.0

    def __index__(self):
        return 0

    def __contains__(self, item):
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def __await__(self):
        async def _self():
            return self
        return _self().__await__()

    def __mro_entries__(self, bases):
        return (object,)  # class Foo(stand_in_base): ...

    def __eq__(self, other):
        return other is self or other is None  # `if cached == None:` takes the path a miss takes

    def __hash__(self):
        return id(self)

    def __add__(self, other):
        return other if isinstance(other, str) else self

    def __radd__(self, other):
        return other if isinstance(other, str) else self

    __sub__ = __mul__ = __truediv__ = __floordiv__ = __mod__ = __pow__ = __or__ = __and__ = lambda self, o: self
    __rsub__ = __rmul__ = __rtruediv__ = __rmod__ = __ror__ = __rand__ = lambda self, o: self
    __lt__ = __le__ = __gt__ = __ge__ = lambda self, o: False


class _StandInModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return StandIn(f"{self.__name__}.{attr}")

    def __call__(self, *a, **k):  # `import tqdm; tqdm(...)`
        return StandIn(f"{self.__name__}()")


class _Str(str):
    """A stand-in string that can also be called (``get_api_key()``); an
    attribute no ``str`` has is a stand-in (``entry_id.get()`` on a Tk entry
    the name rules took for an id)."""

    def __call__(self, *a, **k):
        return self

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return StandIn(f"{str(self)!r}.{attr}")


class _StandInDict(dict):
    """A stand-in for a dict-like global (``CONFIG``, ``headers``, ``config``):
    empty, a missing key or attribute is a stand-in, calling it gives one
    (``load_rapid_config()``)."""

    def __init__(self, name):
        super().__init__()
        self._name = name

    def __missing__(self, key):
        return StandIn(f"{self._name}[{key!r}]")

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if any(t in attr.lower() for t in _KEYLIKE):
            return _Str("test-api-key")
        return StandIn(f"{self._name}.{attr}")

    def __call__(self, *a, **k):
        return StandIn(f"{self._name}()")


class _StandInFinder:
    """Last on ``sys.meta_path``: a module no real finder has becomes an inert
    stand-in (``dotenv``, ``pandas`` when not installed, the project's own
    modules, relative imports), recorded in the result."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        import importlib.machinery

        # only the generation's own imports: the stdlib probes optional
        # modules (msvcrt, _winapi) and must keep seeing them missing
        f = sys._getframe(1)
        while f is not None and (f.f_code.co_filename.startswith("<frozen importlib")
                                 or f.f_code.co_filename == _RUNNER_FILE):
            f = f.f_back
        if f is None or f.f_code.co_filename != "<generation>":
            return None
        return importlib.machinery.ModuleSpec(name, cls, is_package=True)

    @staticmethod
    def create_module(spec):
        mod = _StandInModule(spec.name)
        mod.__path__ = []
        mod.__all__ = []
        return mod

    @staticmethod
    def exec_module(module):
        name = module.__name__
        if name.startswith(_PKG + "."):
            _stand_in("module", "." + name.rsplit(".", 1)[-1])  # a relative import: ".config"
        elif "." not in name:
            _stand_in("module", name)  # its submodules are stand-ins with it


#: Installed, but never imported in the sandbox: machine-learning stacks whose
#: import alone takes longer than the wall limit or maps more than the memory
#: limit (``import torch``: "libtorch_cpu.so: failed to map segment" after
#: 12 s under 512 MiB; ``import sklearn.preprocessing``: 6.3 s at load 10),
#: and no service call needs them. A generation importing one gets a
#: stand-in, recorded as ``module:NAME``.
HEAVY_MODULES = frozenset({"torch", "torchvision", "torchaudio", "tensorflow", "keras", "jax", "jaxlib",
                           "transformers", "sentence_transformers", "sklearn", "scipy"})


class _HeavyFinder(_StandInFinder):
    """First on ``sys.meta_path``: :data:`HEAVY_MODULES` become stand-ins."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] not in HEAVY_MODULES:
            return None
        return super().find_spec(name, path, target)


_PKG = "__sccg_pkg__"
#: The generation's own package, three levels deep so ``from ...x import y`` resolves.
_GEN_PKG = _PKG + ".a.b.c"


class _Globals(dict):
    """Module globals of the generation: a name the snippet never defines
    (``RAPIDAPI_KEY``, ``logger``, ``CONFIG``, a forgotten ``import
    requests``) gets a stand-in instead of a NameError, recorded."""

    def __missing__(self, name):
        import builtins

        if name.startswith("__") and name.endswith("__"):
            raise KeyError(name)
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if name in ("requests", "httpx", "aiohttp"):
            value = sys.modules[name]
        elif _real_module(name) is not None:
            value = _real_module(name)  # a forgotten `import os`
        elif any(t in name.lower() for t in _KEYLIKE):
            value = _Str("test-api-key")
        elif name in _called_names():
            value = StandIn(name)  # a helper the snippet calls but lacks (`split_dates(...)`), whatever its name says
        elif name.lower() in _SESSION_NAMES:
            value = sys.modules["requests"].Session()  # a module-level `session = requests.Session()` the snippet lacks
        else:
            known = _by_name_known(name)
            if isinstance(known, dict):
                value = _StandInDict(name)  # CONFIG["station_id"], config.settings
            else:
                value = _Str(known) if isinstance(known, str) else known if known is not None else StandIn(name)
        _stand_in("global", name)
        self[name] = value
        return value


_CALLED = []


def _called_names():
    """Names the generation calls directly (``f(...)``)."""
    if not _CALLED:
        import ast

        names = set()
        try:
            for n in ast.walk(ast.parse(_JOB["code"])):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    names.add(n.func.id)
        except (SyntaxError, ValueError):
            pass
        _CALLED.append(frozenset(names))
    return _CALLED[0]


def _real_module(name):
    import importlib
    import importlib.util

    try:
        if name.isidentifier() and importlib.util.find_spec(name) is not None:
            return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a module that fails to import is not there
        return None
    return None


class _Env(dict):
    """``os.environ`` of the generation: a key-like variable that is not set
    (``RAPIDAPI_KEY``, ``API_TOKEN``) reads as ``"test-api-key"``, recorded;
    others behave as usual."""

    def _keylike(self, key):
        return isinstance(key, str) and any(t in key.lower() for t in _KEYLIKE)

    def __missing__(self, key):
        if self._keylike(key):
            _stand_in("env", key)
            return "test-api-key"
        raise KeyError(key)

    def get(self, key, default=None):
        if key in self:
            return dict.__getitem__(self, key)
        if not default and self._keylike(key):  # os.getenv("API_KEY", "") too
            return self.__missing__(key)
        return default


def _install_stand_ins():
    import time

    import builtins

    sys.meta_path.insert(0, _HeavyFinder)
    sys.meta_path.append(_StandInFinder)
    # stdin is closed: `input()` reads as the default argument string, recorded
    def _input(prompt=""):
        _stand_in("stdin", "input")
        return _Str("test")
    builtins.input = _input
    parts = _GEN_PKG.split(".")
    for i in range(1, len(parts) + 1):
        pkg = types.ModuleType(".".join(parts[:i]))
        pkg.__path__ = []
        sys.modules[pkg.__name__] = pkg
    os.environ = _Env(os.environ)
    # a fake response never needs waiting for: retry back-offs and pacing
    # (up to 10 s) return at once; a longer sleep is a hang and still times out
    real_sleep = time.sleep
    time.sleep = lambda seconds=0: None if seconds <= 10 else real_sleep(seconds)


# --------------------------------------------------------------------------- arguments

_NAME_RULES = (
    (("api_key", "apikey", "key", "token", "secret", "password", "auth", "access_token"), "test-api-key"),
    (("url", "endpoint", "link", "uri"), "https://example.com"),
    (("host", "domain"), "example.com"),
    (("lat", "latitude"), 51.5074),
    (("lon", "lng", "long", "longitude"), -0.1278),
    (("city", "location", "place", "address", "region", "town", "destination", "origin"), "London"),
    (("country", "country_code"), "US"),
    (("date", "day", "start_date", "end_date", "from_date", "to_date", "since", "until"), "2024-01-01"),
    (("year",), 2024),
    (("month",), 1),
    (("limit", "count", "size", "per_page", "page_size", "max_results", "top", "num", "n"), 10),
    (("page", "offset", "index", "start"), 1),
    (("lang", "language", "locale", "target", "source_lang", "target_lang"), "en"),
    (("email",), "user@example.com"),
    (("phone", "number", "phone_number"), "+15555550100"),
    (("symbol", "ticker", "stock"), "AAPL"),
    (("currency", "base", "from_currency", "to_currency"), "USD"),
    (("amount", "price", "value", "quantity", "qty"), 1),
    (("id", "user_id", "item_id", "product_id", "video_id", "movie_id"), "1"),
    (("headers", "params", "data", "payload", "body", "json", "options", "kwargs", "config"), {}),
    (("verbose", "debug", "flag"), False),
    (("timeout",), 5),
    (("file", "path", "filename", "filepath"), "input.txt"),
)
_DEFAULT_FILE = "input.txt"
_DEFAULT_BY_TYPE = {int: 1, float: 1.0, bool: True, str: "test", list: [], dict: {}, bytes: b"test", tuple: ()}


def _by_name(name):
    low = name.lower()
    for names, value in _NAME_RULES:
        if low in names:
            return value
    parts = [p for p in low.replace("-", "_").split("_") if p]
    for names, value in _NAME_RULES:
        if parts and (parts[-1] in names or parts[0] in names):
            return value
    # plurals: "pages_anz" is a page count, "cities" a city
    singular = [p[:-3] + "y" if p.endswith("ies") else p[:-1] if p.endswith("s") and len(p) > 3 else p for p in parts]
    for names, value in _NAME_RULES:
        if singular and (singular[-1] in names or singular[0] in names):
            return value
    return "test"


def _by_name_known(name):
    """The value of a name rule, or ``None`` when only the default applies."""
    v = _by_name(name)
    return None if v == "test" else v


def _base_type(annotation):
    if annotation is inspect.Parameter.empty or annotation is None:
        return None
    if isinstance(annotation, str):
        low = annotation.replace(" ", "").lower()
        for t in (int, float, bool, str, list, dict, bytes, tuple):
            if low == t.__name__ or low.startswith(t.__name__ + "[") or low.startswith("optional[" + t.__name__):
                return t
        return None
    origin = typing.get_origin(annotation)
    if origin is typing.Union or (origin is not None and origin.__class__.__name__ == "UnionType"):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _base_type(args[0]) if args else None
    if origin in (list, dict, tuple):
        return origin
    return annotation if annotation in _DEFAULT_BY_TYPE else None


_SESSION_NAMES = ("session", "sess", "client", "http", "http_session", "http_client", "requests_session")


def argument_value(name, annotation=inspect.Parameter.empty):
    if name.lower() in _SESSION_NAMES:
        return sys.modules["requests"].Session()  # a passed-in session: a fake one
    value = _by_name(name)
    t = _base_type(annotation)
    if t is not None and not (isinstance(value, t) and not (t is int and isinstance(value, bool))):
        if t is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return _DEFAULT_BY_TYPE[t]
    return value


#: Literal values of the gold's parameters by lower-cased key (job "hints").
_HINTS = {str(k).lower(): v for k, v in (_JOB.get("hints") or {}).items()}


def _hinted(name, annotation):
    """The gold's literal value for a parameter of the same name, when its
    type fits the annotation."""
    v = _HINTS.get(name.lower())
    if v is None or not isinstance(v, (str, int, float, bool)):
        return None
    t = _base_type(annotation)
    return v if t is None or isinstance(v, t) else None


_DATETIME_ATTRS = frozenset({"strftime", "hour", "minute", "second", "microsecond", "isoformat", "timestamp",
                             "weekday", "isoweekday", "timetuple", "astimezone", "tzinfo"})


def _function_node(fn):
    """The ``def`` of *fn* in the generation's source (``None`` when not found)."""
    import ast

    try:
        tree = ast.parse(_JOB["code"])
    except (SyntaxError, ValueError):
        return None
    line = fn.__code__.co_firstlineno
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if best is None or abs(first - line) < best[0]:
                best = (abs(first - line), node)
    return best[1] if best else None


def _usage_values(fn):
    """Argument values from how the function uses an unannotated parameter,
    ahead of the name rules: read as a datetime (``p.strftime``, ``p.hour``) →
    ``datetime(2024, 1, 1, 12, 0)``; parsed by ``strptime(p, FMT)`` → that
    datetime formatted by FMT; compared with a number, or ``int(p)``/
    ``float(p)``/``range(p)`` → the name rule's number, else ``1``;
    subscripted by a string (``p["body"]``) → an empty mapping whose missing
    keys are stand-ins; iterated
    (``for x in p``) → a one-element list, the element a stand-in when the loop
    variable is subscripted or has attributes read, else the loop variable's
    name-rule value."""
    import ast
    import datetime

    node = _function_node(fn)
    if node is None:
        return {}
    params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    when = datetime.datetime(2024, 1, 1, 12, 0)
    out = {}

    def name_of(n):
        return n.id if isinstance(n, ast.Name) and n.id in params else None

    def number(p):
        v = _by_name(p)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 1

    objects = set()  # loop variables used as containers or objects
    for n in ast.walk(node):
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name):
            objects.add(n.value.id)
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in _DATETIME_ATTRS and name_of(n.value):
            out.setdefault(n.value.id, when)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "strptime" \
                and len(n.args) >= 2 and name_of(n.args[0]) and isinstance(n.args[1], ast.Constant) \
                and isinstance(n.args[1].value, str):
            try:
                out.setdefault(n.args[0].id, when.strftime(n.args[1].value))
            except ValueError:
                pass
        elif isinstance(n, ast.Compare):
            sides = [n.left] + list(n.comparators)
            nums = [x for x in sides if isinstance(x, ast.Constant) and isinstance(x.value, (int, float))
                    and not isinstance(x.value, bool)]
            for x in sides:
                if nums and name_of(x):
                    out.setdefault(x.id, number(x.id))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("int", "float", "range") \
                and n.args and name_of(n.args[0]):
            out.setdefault(n.args[0].id, number(n.args[0].id))
        elif isinstance(n, ast.Subscript) and name_of(n.value) and isinstance(n.slice, ast.Constant) \
                and isinstance(n.slice.value, str):
            out.setdefault(n.value.id, _StandInDict(n.value.id))  # template["body"]: a mapping
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and name_of(n.iter):
            target = n.target.id if isinstance(n.target, ast.Name) else None
            if target is None or target in objects:
                element = StandIn(f"{n.iter.id}[0]")
            else:
                element = _by_name(target)
            out.setdefault(n.iter.id, [element])
    return out


def _call_args(fn):
    args, kwargs = [], {}
    usage = _usage_values(fn) if _JOB.get("stand_ins", True) else {}
    # a bare function cut out of its class (`def f(self, text)` at top level)
    unbound = inspect.isfunction(fn) and "." not in fn.__qualname__
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        v = _hinted(p.name, p.annotation)
        if v is None and unbound and i == 0 and p.name in ("self", "cls") and _JOB.get("stand_ins", True):
            _stand_in("arg", p.name)  # the instance the snippet's class would have made
            v = StandIn(p.name)
        if v is None and p.name in usage and _base_type(p.annotation) is None:
            v = usage[p.name]
        if v is None:
            v = argument_value(p.name, p.annotation)
        if v == _DEFAULT_FILE and _JOB.get("stand_ins", True):
            try:  # the file argument names a file that exists (empty) in the working folder
                open(_DEFAULT_FILE, "a").close()
            except OSError:
                pass
        if p.kind == p.KEYWORD_ONLY:
            kwargs[p.name] = v
        else:
            args.append(v)
    return args, kwargs


class _Sink(io.TextIOBase):
    def write(self, s):
        _OUT_BYTES[0] += len(s)
        return len(s)

    def writable(self):
        return True


def _drive(result):
    import asyncio  # only coroutines need it; saves start-up time otherwise

    if inspect.iscoroutine(result):
        return asyncio.run(result)
    if inspect.isasyncgen(result):
        async def _consume():
            n = 0
            async for _ in result:
                n += 1
                if n >= 100:
                    break
        return asyncio.run(_consume())
    if inspect.isgenerator(result):
        for n, _ in enumerate(result):
            if n >= 99:
                break
    return result


def _pick(ns, name):
    funcs = [v for v in ns.values() if inspect.isfunction(v) and v.__code__.co_filename == "<generation>"]
    if name:
        short = name.split(".")[-1]
        cls_name = name.split(".")[0] if "." in name else None
        if cls_name and isinstance(ns.get(cls_name), type):
            cls = ns[cls_name]
            method = getattr(cls, short, None)
            if method is not None:
                a, k = _call_args(cls.__init__) if cls.__init__ is not object.__init__ else ([], {})
                inst = cls(*a[1:], **k)
                return getattr(inst, short)
        for f in funcs:
            if f.__name__ == short:
                return f
    return funcs[0] if funcs else None


#: Modules imported before root is dropped when ``nobody`` cannot read the
#: interpreter (``--sandbox none-unsafe`` with pyenv under /root): later
#: imports of anything else fail there, and the note says so.
_PRELOAD = ("asyncio", "base64", "collections", "csv", "dataclasses", "datetime", "decimal", "enum", "functools",
            "hashlib", "hmac", "itertools", "json", "logging", "math", "pathlib", "random", "re", "string", "time",
            "traceback", "uuid", "urllib.error", "urllib.parse", "urllib.request", "http.client", "xml.etree.ElementTree",
            "zoneinfo", "concurrent.futures", "threading", "argparse", "textwrap", "pprint", "copy", "statistics")


def _drop_privileges():
    if _JOB.get("preload"):
        import importlib

        for name in _PRELOAD:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a missing optional module is fine
                pass
    if _JOB.get("drop_to_nobody"):
        # uid 0 is exempt from RLIMIT_NPROC, and root reads everything: run as nobody
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def _main():
    _drop_privileges()
    _emit({"event": "start", "uid": os.getuid()})
    sys.stdout = sys.stderr = _Sink()
    status, error, fname, where = "ok", None, None, None
    try:
        code = compile(_JOB["code"], "<generation>", "exec")
    except (SyntaxError, ValueError) as exc:
        status, error = "syntax_error", f"{type(exc).__name__}: {exc}"
        code = None
    if code is not None:
        try:
            if _JOB.get("stand_ins", True):
                _install_stand_ins()
                ns = _Globals({"__name__": "__sccg_generation__", "__builtins__": __builtins__,
                               "__package__": _GEN_PKG, "__file__": "/tmp/work/generation.py"})
            else:
                ns = {"__name__": "__sccg_generation__", "__builtins__": __builtins__}
            exec(code, ns)
            fn = _pick(ns, _JOB.get("function_name"))
            if fn is None:
                status = "no_function"
            else:
                fname = getattr(fn, "__qualname__", None)
                a, k = _call_args(fn)
                _drive(fn(*a, **k))
        except SystemExit as exc:
            status, error = "exit", f"SystemExit: {exc.code!r}"[:500]
        except MemoryError as exc:
            status, error = "memory_limit", f"MemoryError: {exc}"[:500]
        except BaseException as exc:  # noqa: BLE001 - every failure is a result
            status, error = "raised", f"{type(exc).__name__}: {exc}"[:500]
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None:  # where it was raised: the generation's own code, or a library
                code_ = tb.tb_frame.f_code
                where = f"{'generation' if code_.co_filename == '<generation>' else 'library'}:{code_.co_name}"
        finally:
            if os.getpid() != _MAIN:
                os._exit(0)
    _emit({"event": "done", "status": status, "error": error, "function": fname, "error_site": where,
           "stdout_bytes": _OUT_BYTES[0], "n_requests": _N_REQ[0]})
    os._exit(0)


_main()
