"""Service-call function extraction (SCCGBench §III-B/III-C) with ``ast``."""

from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import os
import re
import sys
import tokenize
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from records.secrets import KEY_NAME_RE

from ._secrets import PLACEHOLDER_RE as _PLACEHOLDER_RE
from ._secrets import mask_credentials
from ._static import Env, docstring_expr, eval_str, literal_value, placeholder, resolve_dict

VERBS = ("get", "post", "put", "delete", "patch", "head", "options")
_MODULE_CALLS = {
    **{f"requests.{v}": ("requests", v.upper()) for v in VERBS},
    "requests.request": ("requests", None),
    **{f"requests.api.{v}": ("requests", v.upper()) for v in VERBS},
    **{f"httpx.{v}": ("httpx", v.upper()) for v in VERBS},
    "httpx.request": ("httpx", None),
    "httpx.stream": ("httpx", None),
    "urllib.request.urlopen": ("urllib", None),
}
_CLIENTS = {
    "requests.Session": "requests",
    "requests.session": "requests",
    "requests.sessions.Session": "requests",
    "httpx.Client": "httpx",
    "httpx.AsyncClient": "httpx",
    "aiohttp.ClientSession": "aiohttp",
    "http.client.HTTPSConnection": "http.client",
    "http.client.HTTPConnection": "http.client",
}
_REQUEST_CLASS = "urllib.request.Request"
#: Library names a bare reference means even without an import line.
_IMPLICIT = ("requests", "httpx", "aiohttp")
#: Parameter names taken for a passed-in client (``def f(session): session.get(...)``).
SESSION_PARAMS = frozenset({"session", "sess", "client", "http", "http_session", "http_client", "requests_session"})
_HTTP_HINT = re.compile(r"requests|httpx|aiohttp|urllib|http\.client|HTTPSConnection|HTTPConnection")
_MAX_FILE_BYTES = 1_000_000
_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", ".venv", "env", "build", "dist"}
#: Comment lines that tool-learning wrapper generators emit verbatim.
TEMPLATE_COMMENTS = (
    "define the target rapidapi endpoint url",
    "set the rapidapi host and key",
    "send the request to the rapidapi endpoint",
    "return the json response from the api",
)


@dataclass(frozen=True, slots=True)
class ExtractionError:
    """A file that could not be read or parsed: path relative to the repo and why."""

    repo: str
    file_path: str
    reason: str


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    """Records (dicts in SCCGBench's schema) kept after dedupe and template
    filtering, the files that failed, and counts."""

    records: tuple
    errors: tuple
    stats: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- imports


def _import_map(stmts) -> dict[str, str]:
    names: dict[str, str] = {}
    for node in stmts:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if a.name != "*":
                    names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _import_stmts(node: ast.AST) -> list:
    """Every ``import``/``from … import`` statement under *node*."""
    return [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]


def _param_names(fn: ast.AST) -> frozenset:
    """Names of the positional and keyword parameters of the function *fn*."""
    a = fn.args
    return frozenset(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)


def _qualname(node: ast.AST, imports: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return imports.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _qualname(node.value, imports)
        return f"{base}.{node.attr}" if base else None
    return None


def _target_key(node: ast.AST) -> str | None:
    """``s`` for a Name, ``self.session`` for an attribute on a name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


# --------------------------------------------------------------------------- module facts


@dataclass(slots=True)
class _Module:
    tree: ast.Module
    source: str
    lines: list
    imports: dict
    constants: dict  # name -> value node
    const_stmts: dict  # name -> statement
    import_stmts: list
    clients: dict  # key -> (lib, Call)
    comment_lines: dict | None  # lineno -> comment text, tokenized on first use


def _comments(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(iter(source.splitlines(keepends=True)).__next__):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string.lstrip("#").strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _client_of(call: ast.AST, imports) -> str | None:
    if isinstance(call, ast.Call):
        return _CLIENTS.get(_qualname(call.func, imports) or "")
    return None


def _collect_clients(body_nodes, imports, into: dict) -> None:
    for node in body_nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                lib = _client_of(sub.value, imports)
                key = _target_key(sub.targets[0])
                if lib and key:
                    into[key] = (lib, sub.value)
            elif isinstance(sub, (ast.With, ast.AsyncWith)):
                for item in sub.items:
                    lib = _client_of(item.context_expr, imports)
                    key = _target_key(item.optional_vars) if item.optional_vars is not None else None
                    if lib and key:
                        into[key] = (lib, item.context_expr)


def _module_facts(source: str) -> _Module:
    tree = ast.parse(source)
    import_stmts = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    imports = _import_map(import_stmts)
    constants, const_stmts = {}, {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            constants[node.targets[0].id] = node.value
            const_stmts[node.targets[0].id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            constants[node.target.id] = node.value
            const_stmts[node.target.id] = node
    defined = set(constants) | {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                               ast.ClassDef))}
    for lib in _IMPLICIT:
        # a snippet cut from its file often lost its `import requests`: a bare
        # `requests.get(...)` still means the library when nothing else binds the name
        if lib not in imports and lib not in defined:
            imports[lib] = lib
    clients: dict = {}
    _collect_clients([n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))], imports, clients)
    return _Module(
        tree=tree,
        source=source,
        lines=source.splitlines(),
        imports=imports,
        constants=constants,
        const_stmts=const_stmts,
        import_stmts=import_stmts,
        clients=clients,
        comment_lines=None,
    )


# --------------------------------------------------------------------------- calls


def _kw(call: ast.Call, name: str):
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def _arg(call: ast.Call, index: int, name: str):
    value = _kw(call, name)
    if value is None and len(call.args) > index and not isinstance(call.args[index], ast.Starred):
        value = call.args[index]
    return value


def _dict_items(node, env: Env, depth: int = 0) -> list[tuple[str, ast.AST]]:
    """(key, value node) pairs of the dict *node* denotes, following names,
    ``**spread`` entries and ``d["k"] = v`` statements."""
    if node is None or depth > 8:
        return []
    if isinstance(node, ast.Name) and not isinstance(env.lookup(node.id), (ast.Dict, type(None), ast.Name)):
        bound = env.lookup(node.id)
        if isinstance(bound, ast.Call) and not (isinstance(bound.func, ast.Name) and bound.func.id == "dict"):
            return _dict_items(bound, env, depth + 1)
    d = resolve_dict(node, env)
    items: list[tuple[str, ast.AST]] = []
    if d is None and isinstance(node, ast.Call):
        # json.dumps(payload), urlencode(payload).encode(): look through the wrapper
        inner = node.args[0] if node.args else None
        if inner is None and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
            inner = node.func.value
        return _dict_items(inner, env, depth + 1)
    if d is not None:
        for k, v in zip(d.keys, d.values):
            if k is None:
                items.extend(_dict_items(v, env, depth + 1))
            else:
                key = eval_str(k, env)
                if key is not None:
                    items.append((key, v))
    if isinstance(node, ast.Name):
        for k, v in env.extra.get(node.id, ()):
            key = eval_str(k, env)
            if key is not None:
                items.append((key, v))
    return items


def _value_repr(node: ast.AST, env: Env):
    lit = literal_value(node)
    if lit is not None:
        return lit
    resolved = eval_str(node, env)
    return resolved if resolved is not None else placeholder(node)


def _split_url(url: str | None) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    if url is None:
        return None, None, []
    text = url.strip()
    if "://" not in text:
        if text.startswith("/"):
            return None, text.split("?", 1)[0] or "/", parse_qsl(text.partition("?")[2], keep_blank_values=True)
        return None, None, []
    try:
        parts = urlsplit(text)
    except ValueError:
        return None, None, []
    host = parts.netloc.rsplit("@", 1)[-1].lower() or None
    if host and ("{" in host or "}" in host):
        host = None
    if host and ":" in host:
        host = host.split(":", 1)[0]
    return host, parts.path or "/", parse_qsl(parts.query, keep_blank_values=True)


def _join(base: str | None, url: str | None) -> str | None:
    if not base:
        return url
    if url is None:
        return base
    if "://" in url:
        return url
    return base.rstrip("/") + "/" + url.lstrip("/")


@dataclass(slots=True)
class _Call:
    lib: str
    method: str | None
    url: str | None
    host: str | None
    route: str | None
    params: list  # [{"key","in","value"}]
    headers: dict
    line: int


def _method_of(node, env: Env) -> str | None:
    """The HTTP method a ``method=`` argument names (upper case), or ``None``
    when absent or not decided statically."""
    m = eval_str(node, env)
    return m.upper() if m and "{" not in m else None


def _text_or_placeholder(node, env: Env) -> str | None:
    """The string *node* evaluates to, its ``{name}`` placeholder when it
    cannot be evaluated, ``None`` without a node."""
    if node is None:
        return None
    text = eval_str(node, env)
    return text if text is not None else placeholder(node)


def _request_facts(call: ast.Call, env: Env, imports: dict, clients: dict, requests_vars: dict) -> _Call | None:
    func = call.func
    qn = _qualname(func, imports)
    lib = method = None
    url_node = None
    client_call = None
    if qn in _MODULE_CALLS:
        lib, method = _MODULE_CALLS[qn]
        if lib == "urllib":
            return _urlopen_facts(call, env, imports, requests_vars)
        if method is None:
            method = _method_of(_arg(call, 0, "method"), env)
            url_node = _arg(call, 1, "url")
        else:
            url_node = _arg(call, 0, "url")
    elif isinstance(func, ast.Attribute):
        key = _target_key(func.value)
        client = clients.get(key) if key else None
        if client is None and isinstance(func.value, ast.Call):
            lib_ = _client_of(func.value, imports)
            client = (lib_, func.value) if lib_ else None
        if client is None:
            return None
        lib, client_call = client
        verb = func.attr
        if lib == "http.client":
            if verb != "request":
                return None
            return _http_client_facts(call, client_call, env)
        if verb in VERBS:
            method = verb.upper()
            url_node = _arg(call, 0, "url")
        elif verb in ("request", "stream"):
            method = _method_of(_arg(call, 0, "method"), env)
            url_node = _arg(call, 1, "url")
        else:
            return None
    else:
        return None
    url = _text_or_placeholder(url_node, env)
    params: list[dict] = []
    headers: dict = {}
    if client_call is not None:
        base = _kw(client_call, "base_url")
        url = _join(eval_str(base, env) if base is not None else None, url)
        for k, v in _dict_items(_kw(client_call, "headers"), env):
            headers[k] = _value_repr(v, env)
        for k, v in _dict_items(_kw(client_call, "params"), env):
            params.append({"key": k, "in": "query", "value": _value_repr(v, env)})
    host, route, qkeys = _split_url(url)
    for k, v in qkeys:
        params.append({"key": k, "in": "query", "value": v})
    # requests' positional parameters after the URL: get(url, params), post(url, data, json), request(m, url, params, data)
    verb = (func.attr if isinstance(func, ast.Attribute) else "").lower()
    first = 2 if verb in ("request", "stream") else 1
    positional = {"get": ("params",), "post": ("data", "json"), "put": ("data",), "patch": ("data",),
                  "request": ("params", "data"), "stream": ("params", "data")}.get(verb, ())
    given = {name: _kw(call, name) for name in ("params", "data", "json")}
    for i, name in enumerate(positional):
        if lib == "requests" and given[name] is None and len(call.args) > first + i \
                and not isinstance(call.args[first + i], ast.Starred):
            given[name] = call.args[first + i]
    for k, v in _dict_items(given["params"], env):
        params.append({"key": k, "in": "query", "value": _value_repr(v, env)})
    for name in ("json", "data"):
        for k, v in _dict_items(given[name], env):
            params.append({"key": k, "in": "body", "value": _value_repr(v, env)})
    for k, v in _dict_items(_kw(call, "headers"), env):
        headers[k] = _value_repr(v, env)
    return _finish(lib, method, url, host, route, params, headers, call.lineno)


def _finish(lib, method, url, host, route, params, headers, line) -> _Call:
    """The call's facts, path parameters added and duplicates dropped; its
    headers become ``header`` parameters in :func:`_finish_headers`, once
    the client's session-level headers are merged in."""
    if route:
        for name in re.findall(r"\{([^{}]*)\}", route):
            params.append({"key": name, "in": "path", "value": None})
    seen, unique = set(), []
    for p in params:
        if (p["key"], p["in"]) not in seen:
            seen.add((p["key"], p["in"]))
            unique.append(p)
    return _Call(lib, method, url, host, route, unique, headers, line)


def _urlopen_facts(call: ast.Call, env: Env, imports: dict, requests_vars: dict) -> _Call:
    target = _arg(call, 0, "url")
    req = None
    if isinstance(target, ast.Call) and _qualname(target.func, imports) == _REQUEST_CLASS:
        req = target
    elif isinstance(target, ast.Name) and target.id in requests_vars:
        req = requests_vars[target.id]
    data = _arg(call, 1, "data")
    headers: dict = {}
    method = None
    if req is not None:
        url_node = _arg(req, 0, "url")
        data = data if data is not None else _arg(req, 1, "data")
        for k, v in _dict_items(_arg(req, 2, "headers"), env):
            headers[k] = _value_repr(v, env)
        method = _method_of(_kw(req, "method"), env)
    else:
        url_node = target
    url = _text_or_placeholder(url_node, env)
    if method is None:
        method = "POST" if data is not None and not (isinstance(data, ast.Constant) and data.value is None) else "GET"
    host, route, qkeys = _split_url(url)
    params = [{"key": k, "in": "query", "value": v} for k, v in qkeys]
    for k, v in _dict_items(data, env):
        params.append({"key": k, "in": "body", "value": _value_repr(v, env)})
    return _finish("urllib", method, url, host, route, params, headers, call.lineno)


def _http_client_facts(call: ast.Call, conn: ast.Call, env: Env) -> _Call:
    host_node = _arg(conn, 0, "host")
    host = eval_str(host_node, env) if host_node is not None else None
    if host and ("{" in host or "/" in host):
        host = None
    method = _method_of(_arg(call, 0, "method"), env)
    path = _text_or_placeholder(_arg(call, 1, "url"), env)
    url = f"https://{host}{path or ''}" if host else path
    h, route, qkeys = _split_url(url)
    headers = {k: _value_repr(v, env) for k, v in _dict_items(_arg(call, 3, "headers"), env)}
    params = [{"key": k, "in": "query", "value": v} for k, v in qkeys]
    for k, v in _dict_items(_arg(call, 2, "body"), env):
        params.append({"key": k, "in": "body", "value": _value_repr(v, env)})
    return _finish("http.client", method, url, host.lower() if host else h, route, params, headers, call.lineno)


# --------------------------------------------------------------------------- functions


def _functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node, None
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{sub.name}", sub, node


def _class_attrs(cls: ast.ClassDef) -> dict:
    """``self.x``/``cls.x``/``Class.x`` → value: class-body assignments and
    ``self.x = …`` in the methods (``__init__`` first, first binding wins)."""
    out: dict = {}
    for node in cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            for prefix in ("self", "cls", cls.name):
                out.setdefault(f"{prefix}.{node.targets[0].id}", node.value)
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    methods.sort(key=lambda m: m.name != "__init__")
    for m in methods:
        for sub in ast.walk(m):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                key = _target_key(sub.targets[0])
                if key and key.startswith("self."):
                    out.setdefault(key, sub.value)
    return out


def _assignments(fn: ast.AST):
    """Single-name assignments and ``d["k"] = v`` statements of *fn*, in order."""
    simple, extra = [], []
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
            t = sub.targets[0]
            if isinstance(t, ast.Name):
                simple.append((sub.lineno, t.id, sub.value))
            elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                extra.append((sub.lineno, t.value.id, t.slice, sub.value))
        elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name) and sub.value is not None:
            simple.append((sub.lineno, sub.target.id, sub.value))
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and isinstance(sub.op, ast.Add):
            simple.append((sub.lineno, sub.target.id, ast.BinOp(ast.Name(sub.target.id), ast.Add(), sub.value)))
    simple.sort(key=lambda x: x[0])
    return simple, extra


def _substitute(value: ast.AST, name: str, prev: ast.AST | None) -> ast.AST:
    """*value* with loads of *name* replaced by its earlier binding, or by an
    opaque ``{name}`` placeholder when there is none."""

    class _T(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id == name:
                if prev is not None:
                    return prev
                return ast.Attribute(value=ast.Name("_", ast.Load()), attr=name, ctx=ast.Load())
            return node

    return _T().visit(copy.deepcopy(value))


def _env_at(line: int, simple, extra, params: frozenset, consts: dict) -> Env:
    local: dict = {}
    for lineno, name, value in simple:
        if lineno > line and name in local:
            continue
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
            # x = x + y / x += y: fold into the earlier binding
            value = _substitute(value, name, local.get(name, consts.get(name)))
        local[name] = value
    ex: dict = defaultdict(list)
    for lineno, name, key, value in extra:
        if lineno <= line:
            ex[name].append((key, value))
    return Env(local, consts, params, ex)


def _is_candidate(call: ast.Call, imports: dict, clients: dict) -> bool:
    """Cheap pre-check before resolving names at the call site."""
    if _qualname(call.func, imports) in _MODULE_CALLS:
        return True
    if isinstance(call.func, ast.Attribute):
        if _target_key(call.func.value) in clients:
            return True
        return isinstance(call.func.value, ast.Call) and _client_of(call.func.value, imports) is not None
    return False


def function_calls(fn: ast.AST, module: _Module, class_clients: dict, class_attrs: dict | None = None,
                   cls: ast.ClassDef | None = None) -> list[_Call]:
    """Every HTTP request the function *fn* issues, in source order.

    Requests through a client get its session-level headers and query
    params: constructor ``headers=``/``params=``/``base_url=``, then the
    updates of :func:`_session_updates` from the client's scopes
    (:func:`_update_scopes`), later ones winning; the request's own
    ``headers=`` win over all of them.
    """
    imports = dict(module.imports)
    imports.update(_import_map(_import_stmts(fn)))
    clients = dict(module.clients)
    clients.update(class_clients)
    local_clients: dict = {}
    _collect_clients([fn], imports, local_clients)
    params = _param_names(fn)
    # a client passed in as an argument: of the library the file imports (requests first)
    lib = next((v for v in ("requests", "httpx", "aiohttp") if imports.get(v) == v), None)
    for name in params & SESSION_PARAMS:
        if lib and name not in clients and name not in local_clients:
            local_clients[name] = (lib, None)
    # a module-level client the snippet's file made and the snippet lost
    # (`session.get(...)` with `session` bound nowhere): the same rule
    bound = params | set(module.constants) | set(imports) | {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))} | {
        n.name for n in module.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for name in SESSION_PARAMS - bound:
        if lib and name not in clients and name not in local_clients:
            local_clients[name] = (lib, None)
    clients.update(local_clients)
    simple, extra = _assignments(fn)
    consts = {**module.constants, **class_attrs} if class_attrs else module.constants
    req_vars = {
        name: value
        for _, name, value in simple
        if isinstance(value, ast.Call) and _qualname(value.func, imports) == _REQUEST_CLASS
    }
    calls = []
    updates_cache: dict = {}
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Call) and _is_candidate(sub, imports, clients):
            env = _env_at(sub.lineno, simple, extra, params, consts)
            facts = _request_facts(sub, env, imports, clients, req_vars)
            if facts is not None:
                key = _target_key(sub.func.value) if isinstance(sub.func, ast.Attribute) else None
                if key in clients:
                    if key not in updates_cache:
                        scopes = _update_scopes(key, fn, cls, module, local_clients, class_clients)
                        updates_cache[key] = _session_updates(scopes, key, module, consts)
                    own = {k for k, _ in _dict_items(_kw(sub, "headers"), env)}
                    _apply_session(facts, *updates_cache[key], own)
                calls.append(facts)
    calls.sort(key=lambda c: c.line)
    for c in calls:
        _finish_headers(c)
    return calls


def _update_scopes(key: str, fn, cls, module: _Module, local_clients: dict, class_clients: dict) -> list:
    """Where session-level updates of the client *key* are looked for, in
    the order they apply: a client bound in *fn* → *fn* only; ``self.x``
    bound in the class → ``__init__``, the other methods in source order,
    then *fn*; a module-level client → the module's top-level statements,
    then *fn*."""
    if key in local_clients or (key not in class_clients and key not in module.clients):
        return [fn]
    if key in class_clients and cls is not None:
        methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m is not fn]
        methods.sort(key=lambda m: m.name != "__init__")  # stable: source order otherwise
        return methods + [fn]
    top = [n for n in module.tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return [top, fn]


def _session_field(node: ast.AST, key: str) -> str | None:
    """``headers``/``params`` when *node* is ``<key>.headers``/``<key>.params``."""
    if isinstance(node, ast.Attribute) and node.attr in ("headers", "params") and _target_key(node.value) == key:
        return node.attr
    return None


def _session_updates(scopes: list, key: str, module: _Module, consts: dict) -> tuple[list, list]:
    """``(headers, params)``: ``[(name, value)]`` set on the client *key* by
    ``<key>.headers.update({...}|k=v)``, ``<key>.headers[k] = v`` and
    ``<key>.headers = {...}`` (same for ``params``), in scope order then
    source order; values resolved in the scope where they are set."""
    out: dict = {"headers": [], "params": []}
    for scope in scopes:
        if isinstance(scope, list):  # module level
            nodes, env_of = scope, (lambda line: Env({}, module.constants, frozenset()))
        else:
            nodes = [scope]
            simple, extra = _assignments(scope)
            sp = _param_names(scope)
            env_of = (lambda line, simple=simple, extra=extra, sp=sp: _env_at(line, simple, extra, sp, consts))
        found = []
        for node in nodes:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "update":
                    field = _session_field(sub.func.value, key)
                    if field:
                        found.append((sub.lineno, sub.col_offset, field, sub.args[0] if sub.args else None,
                                      [(k.arg, k.value) for k in sub.keywords if k.arg]))
                elif isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    t = sub.targets[0]
                    field = _session_field(t, key)
                    if field:
                        found.append((sub.lineno, sub.col_offset, field, sub.value, []))
                    elif isinstance(t, ast.Subscript) and _session_field(t.value, key):
                        found.append((sub.lineno, sub.col_offset, _session_field(t.value, key), None,
                                      [(t.slice, sub.value)]))
        for line, _, field, dict_node, pairs in sorted(found, key=lambda f: f[:2]):
            env = env_of(line)
            items = _dict_items(dict_node, env) if dict_node is not None else []
            for k, v in pairs:
                name = k if isinstance(k, str) else eval_str(k, env)
                if name is not None:
                    items.append((name, v))
            out[field].extend((k, _value_repr(v, env)) for k, v in items)
    return out["headers"], out["params"]


def _apply_session(facts: _Call, headers: list, params: list, own: set) -> None:
    """Merge session-level *headers*/*params* into *facts*; the request's
    own header names *own* and query keys already present win."""
    for k, v in headers:
        if k not in own:
            facts.headers[k] = v
    have = {p["key"] for p in facts.params if p["in"] == "query"}
    at = max((i + 1 for i, p in enumerate(facts.params) if p["in"] == "query"), default=0)
    for k, v in params:
        if k not in have:
            have.add(k)
            facts.params.insert(at, {"key": k, "in": "query", "value": v})
            at += 1


def _finish_headers(c: _Call) -> None:
    """Append the call's headers (request, client and session level) as ``header`` parameters."""
    c.params.extend({"key": k, "in": "header", "value": v} for k, v in c.headers.items())


def _rapidapi_evidence(call: _Call) -> list[str]:
    ev = []
    if call.host and call.host.endswith(".p.rapidapi.com"):
        ev.append("host:*.p.rapidapi.com")
    lower = {k.lower() for k in call.headers}
    for h in ("x-rapidapi-host", "x-rapidapi-key"):
        if h in lower:
            ev.append(f"header:{h}")
    return ev


# --------------------------------------------------------------------------- code


def _strip_docstring(fn):
    clone = ast.parse(ast.unparse(fn)).body[0]
    for node in ast.walk(clone):
        if docstring_expr(node) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return clone


def normalised_code_hash(fn: ast.AST | str) -> str:
    """SHA-256 (hex) of ``ast.dump`` of a function without positions or
    docstrings, so formatting and comment changes do not split duplicates.

    Parameters
    ----------
    fn : ast.FunctionDef | ast.AsyncFunctionDef | str
        A function node, or source whose first statement is the function.
    """
    if isinstance(fn, str):
        fn = ast.parse(fn).body[0]
    return _hashes(fn)[0]


def _hashes(fn: ast.AST) -> tuple[str, str]:
    """(:func:`normalised_code_hash`, structure hash) of *fn*, stripping its
    docstrings once: the structure hash also erases constants, names,
    arguments and function names (the shape ``template_cluster`` groups by)."""
    clone = _strip_docstring(fn)
    code_hash = hashlib.sha256(ast.dump(clone, include_attributes=False).encode()).hexdigest()
    for node in ast.walk(clone):
        if isinstance(node, ast.Constant):
            node.value = "C"
        elif isinstance(node, ast.Name):
            node.id = "N"
        elif isinstance(node, ast.arg):
            node.arg = "A"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.name = "F"
    return code_hash, hashlib.sha256(ast.dump(clone, include_attributes=False).encode()).hexdigest()


def _segment(module: _Module, first: int, last: int, dedent: bool) -> str:
    text = "\n".join(module.lines[first - 1 : last])
    return inspect.cleandoc("\n" + text) if dedent else text


def _leading_comment_start(module: _Module, line: int) -> int:
    start = line
    while start - 1 >= 1 and module.lines[start - 2].strip().startswith("#"):
        start -= 1
    return start


def _names_used(nodes) -> set[str]:
    out = set()
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name):
                out.add(sub.id)
    return out


def _needed_context(fn, module: _Module):
    """Module imports and constants the function needs (constants transitively)."""
    used = _names_used([fn])
    const_names: list[str] = []
    todo = [n for n in used if n in module.const_stmts]
    while todo:
        name = todo.pop()
        if name in const_names:
            continue
        const_names.append(name)
        names = _names_used([module.const_stmts[name].value])
        todo.extend(n for n in names if n in module.const_stmts)
        used |= names
    imports = []
    for stmt in module.import_stmts:
        keep = [a for a in stmt.names if (a.asname or a.name.split(".")[0]) in used or a.name == "*"]
        if keep:
            if len(keep) == len(stmt.names):
                imports.append((stmt, _segment(module, stmt.lineno, stmt.end_lineno, False)))
            else:
                clone = ast.ImportFrom(module=stmt.module, names=keep, level=stmt.level) if isinstance(stmt, ast.ImportFrom) else ast.Import(names=keep)
                imports.append((clone, ast.unparse(clone)))
    consts = sorted((module.const_stmts[n] for n in const_names), key=lambda s: s.lineno)
    return imports, [(s, _segment(module, s.lineno, s.end_lineno, False)) for s in consts]


def _deps(import_nodes, local_modules: set[str]) -> list[str]:
    out = set()
    for node in import_nodes:
        if isinstance(node, ast.Import):
            tops = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.split(".")[0]]
        else:
            continue
        for t in tops:
            if t not in sys.stdlib_module_names and t not in local_modules and t != "__future__":
                out.add(t)
    return sorted(out)


def _function_comments(fn, module: _Module, start: int) -> list[str]:
    out = []
    doc = ast.get_docstring(fn)
    if doc:
        out.append(doc.strip())
    block = [module.comment_lines.get(i, "") for i in range(start, (fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno))]
    block = [b for b in block if b]
    if block:
        out.insert(0, "\n".join(block))
    # comment-only lines opening the body read like a docstring
    head = [
        module.comment_lines[i]
        for i in range(fn.lineno + 1, fn.body[0].lineno)
        if i in module.comment_lines and module.lines[i - 1].lstrip().startswith("#")
    ]
    if head:
        out.append("\n".join(head))
    return out


def _template_flags(fn, calls: list[_Call], comments: list[str], module: _Module) -> list[str]:
    flags = []
    args = fn.args
    defaults = dict(zip([a.arg for a in args.args][len(args.args) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    for name, d in defaults.items():
        if KEY_NAME_RE.search(name) and isinstance(d, ast.Constant) and isinstance(d.value, str) and d.value:
            flags.append("placeholder_key_param")
            break
    body_comments = [
        module.comment_lines[i].lower() for i in range(fn.lineno, fn.end_lineno + 1) if i in module.comment_lines
    ] + [c.lower() for c in comments]
    if any(t in c for c in body_comments for t in TEMPLATE_COMMENTS):
        flags.append("template_comment")
    for c in calls:
        if any(
            KEY_NAME_RE.search(k) and isinstance(v, str) and _PLACEHOLDER_RE.search(v) for k, v in c.headers.items()
        ):
            flags.append("placeholder_key_value")
            break
    return flags


# --------------------------------------------------------------------------- records


def _primary(calls: list[_Call]) -> _Call:
    for c in calls:
        if _rapidapi_evidence(c):
            return c
    for c in calls:
        if c.host:
            return c
    return calls[0]


def _api_host(call: _Call) -> str | None:
    if call.host:
        return call.host
    for k, v in call.headers.items():
        if k.lower() == "x-rapidapi-host" and isinstance(v, str) and "{" not in v:
            return v.lower()
    return None


def _safe_headers(headers: dict) -> dict:
    """Header values with literal credentials replaced by ``<REDACTED>``."""
    out = {}
    for k, v in headers.items():
        if isinstance(v, str) and KEY_NAME_RE.search(k) and "{" not in v and not k.lower().endswith("host"):
            out[k] = "<REDACTED>"
        else:
            out[k] = v
    return out


def _call_dict(c: _Call) -> dict:
    params = [
        dict(p, value="<REDACTED>") if p["in"] == "header" and _safe_headers({p["key"]: p["value"]})[p["key"]] == "<REDACTED>" else p
        for p in c.params
    ]
    return {
        "library": c.lib,
        "method": c.method,
        "url": c.url,
        "host": c.host,
        "route": c.route,
        "headers": _safe_headers(c.headers),
        "params": params,
        "line": c.line,
    }


def sample_id(repo: str, file_path: str, function_name: str) -> str:
    """``sccg-`` + the first 12 hex digits of SHA-1 over ``repo/path::function``."""
    return "sccg-" + hashlib.sha1(f"{repo}/{file_path}::{function_name}".encode()).hexdigest()[:12]


def extract_source(
    source: str,
    *,
    repo: str = "",
    file_path: str = "<string>",
    repo_url: str | None = None,
    local_modules: frozenset = frozenset(),
    rapidapi_only: bool = False,
    mask_secrets: bool = True,
) -> list[dict]:
    """Service-call functions of one Python module, as SCCGBench records.

    Parameters
    ----------
    source : str
        Module text.
    repo, file_path : str
        Provenance written to ``github_info`` (``file_path`` relative, POSIX).
    repo_url : str, optional
        ``https://github.com/owner/name``; with it ``file_url`` is
        ``{repo_url}/blob/HEAD/{file_path}#L{start}-L{end}``.
    local_modules : frozenset of str
        Top-level module names that belong to the repository (not dependencies).
    rapidapi_only : bool
        Keep only functions whose request shows RapidAPI evidence.
    mask_secrets : bool
        Replace literal credentials in the code fields by ``<REDACTED>``
        (values of key-like names, ≥ 8 characters, no placeholder wording).

    Returns
    -------
    list of dict
        One record per function issuing at least one HTTP request, in source
        order, before dedupe and template filtering (see ``docs/sccg.md``).

    Raises
    ------
    SyntaxError
        When *source* does not parse.
    """
    if not _HTTP_HINT.search(source):
        ast.parse(source)  # still report files that do not parse
        return []
    module = _module_facts(source)
    out = []
    class_facts: dict = {}  # id(class) -> (clients bound to attributes, _class_attrs)
    for name, fn, cls in _functions(module.tree):
        class_clients: dict = {}
        class_attrs = None
        if cls is not None:
            if id(cls) not in class_facts:
                cc: dict = {}
                _collect_clients([cls], {**module.imports, **_import_map(_import_stmts(cls))}, cc)
                class_facts[id(cls)] = ({k: v for k, v in cc.items() if "." in k}, _class_attrs(cls))
            class_clients, class_attrs = class_facts[id(cls)]
        calls = function_calls(fn, module, class_clients, class_attrs, cls)
        if not calls:
            continue
        if module.comment_lines is None:
            module.comment_lines = _comments(source)
            if mask_secrets:
                # records never carry literal credentials; lines stay aligned
                module.lines = mask_credentials(source, module.tree).splitlines()
        evidence = sorted({e for c in calls for e in _rapidapi_evidence(c)})
        if rapidapi_only and not evidence:
            continue
        first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
        start = _leading_comment_start(module, first)
        original = _segment(module, first, fn.end_lineno, cls is not None)
        annotated = _segment(module, start, fn.end_lineno, cls is not None)
        imports, consts = _needed_context(fn, module)
        complete = "\n".join([s for _, s in imports] + ([""] if imports and consts else []) + [s for _, s in consts])
        complete = (complete + "\n\n\n" if complete else "") + annotated
        comments = _function_comments(fn, module, start)
        import_nodes = [n for n, _ in imports] + _import_stmts(fn)
        primary = _primary(calls)
        host = _api_host(primary)
        call_dicts = [_call_dict(c) for c in calls]
        params = list(call_dicts[calls.index(primary)]["params"])  # same content as _call_dict(primary)
        code_hash, structure_hash = _hashes(fn)
        out.append(
            {
                "sample_id": sample_id(repo, file_path, name),
                "api_name": host.split(".")[0] if host else None,
                "api_host": host,
                "function_name": name,
                "language": "python",
                "github_info": {
                    "repo": repo,
                    "file_path": file_path,
                    "file_url": f"{repo_url.rstrip('/')}/blob/HEAD/{file_path}#L{first}-L{fn.end_lineno}" if repo_url else None,
                    "start_line": first,
                    "end_line": fn.end_lineno,
                    "stars": None,
                    "forks": None,
                    "license": None,
                    "updated_at": None,
                },
                "code": {
                    "complete_function": complete,
                    "original_function": original,
                    "annotated_function": annotated,
                    "has_comments": bool(comments),
                },
                "api_metadata": {
                    "url": primary.url,
                    "method": primary.method,
                    "headers": _safe_headers(primary.headers),
                    "params": [],
                    "route": primary.route,
                    "endpoint_id": None,
                    "endpoint_name": None,
                    "doc_match_type": None,
                    "code_params": params,
                    "library": primary.lib,
                },
                "comments": comments,
                "comments_source": "original" if comments else None,
                "dependencies": _deps(import_nodes, set(local_modules)),
                "extraction": {
                    "calls": call_dicts,
                    "rapidapi_evidence": evidence,
                    "template_flags": _template_flags(fn, calls, comments, module),
                    "code_hash": code_hash,
                    "structure_hash": structure_hash,
                    "is_method": cls is not None,
                },
            }
        )
    return out


def _read_python(path: Path) -> str:
    if path.stat().st_size > _MAX_FILE_BYTES:
        raise ValueError(f"larger than {_MAX_FILE_BYTES} bytes")
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        enc, _ = tokenize.detect_encoding(iter(raw.splitlines(keepends=True)).__next__)
        return raw.decode(enc)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ValueError(f"not decodable: {exc}") from None


def _python_files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(".py"):
                p = Path(dirpath) / f
                if p.is_file() and not p.is_symlink():
                    yield p


def _local_modules(root: Path) -> frozenset:
    names = set()
    for p in _python_files(root):
        rel = p.relative_to(root).parts
        names.add(p.stem)
        names.update(rel[:-1])
    return frozenset(names)


def _extract_file(task) -> tuple[list, ExtractionError | None]:
    """One file's records, or the reason it failed (runs in a worker)."""
    path, repo, rel, url, local, rapidapi_only, mask_secrets = task
    try:
        src = _read_python(Path(path))
        return extract_source(src, repo=repo, file_path=rel, repo_url=url, local_modules=local,
                              rapidapi_only=rapidapi_only, mask_secrets=mask_secrets), None
    except (SyntaxError, ValueError, OSError, RecursionError, MemoryError) as exc:
        return [], ExtractionError(repo, rel, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop the run
        return [], ExtractionError(repo, rel, f"internal error {type(exc).__name__}: {exc}")


def extract_repos(
    repos,
    *,
    repo_urls: dict | None = None,
    rapidapi_only: bool = False,
    keep_templates: bool = False,
    keep_duplicates: bool = False,
    cluster_min: int = 3,
    mask_secrets: bool = True,
    n_jobs: int = 1,
) -> ExtractionResult:
    """Extract, flag templates and dedupe over several repository folders.

    Parameters
    ----------
    repos : iterable of path-like
        Repository roots; each repo's name is its folder name.
    repo_urls : dict, optional
        Folder name → GitHub URL, for ``file_url``.
    rapidapi_only : bool
        Keep only functions with RapidAPI evidence.
    keep_templates : bool
        Keep records flagged as template/wrapper code (flag stays in
        ``extraction.template_flags``).
    keep_duplicates : bool
        Keep records whose normalised code hash was seen before.
    mask_secrets : bool
        Replace literal credentials in the code fields (see :func:`extract_source`).
    n_jobs : int
        Worker processes over files (results keep file order).
    cluster_min : int
        A function shape (constants, names and arguments erased) seen in at
        least this many functions across at least two files is flagged
        ``template_cluster``.

    Returns
    -------
    ExtractionResult
        Files that do not decode or parse are reported in ``errors``; the rest
        goes on.
    """
    records, errors = [], []
    stats = defaultdict(int)
    stats["files"] = 0  # always reported: 0 means nothing to work on
    tasks = []
    for root in repos:
        root = Path(root)
        if not root.is_dir():
            errors.append(ExtractionError(str(root), "", "not a directory"))
            continue
        local = _local_modules(root)
        for path in _python_files(root):
            stats["files"] += 1
            tasks.append((str(path), root.name, path.relative_to(root).as_posix(),
                          (repo_urls or {}).get(root.name), local, rapidapi_only, mask_secrets))
    if n_jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            results = list(pool.map(_extract_file, tasks, chunksize=16))
    else:
        results = [_extract_file(t) for t in tasks]
    for recs, error in results:
        records.extend(recs)
        if error is not None:
            errors.append(error)
    stats["functions"] = len(records)
    shapes: dict = defaultdict(list)
    for r in records:
        shapes[r["extraction"]["structure_hash"]].append(r)
    for group in shapes.values():
        files = {(r["github_info"]["repo"], r["github_info"]["file_path"]) for r in group}
        if len(group) >= cluster_min and len(files) >= 2:
            for r in group:
                r["extraction"]["template_flags"].append("template_cluster")
    kept, seen = [], {}
    for r in records:
        flags = r["extraction"]["template_flags"]
        r["extraction"]["is_template"] = any(f in flags for f in ("placeholder_key_param", "template_comment", "template_cluster"))
        if r["extraction"]["is_template"] and not keep_templates:
            stats["templates_dropped"] += 1
            continue
        h = r["extraction"]["code_hash"]
        if h in seen and not keep_duplicates:
            seen[h]["extraction"]["duplicates"].append(f"{r['github_info']['repo']}/{r['github_info']['file_path']}::{r['function_name']}")
            stats["duplicates_dropped"] += 1
            continue
        r["extraction"]["duplicates"] = []
        seen.setdefault(h, r)
        kept.append(r)
    stats["records"] = len(kept)
    stats["errors"] = len(errors)
    return ExtractionResult(tuple(kept), tuple(errors), dict(stats))
