"""Static evaluation of URL / dict expressions in Python ASTs.

Values are resolved where the AST alone decides them (literals, f-strings,
``+`` concatenation, ``%`` and ``str.format`` on literal templates, names bound
to such expressions); anything else becomes a ``{name}`` placeholder so that a
route like ``f"/forecast/{city}"`` keeps its templated segment.
"""

from __future__ import annotations

import ast
import re

_MAX_DEPTH = 12
#: A templated route segment: ``{x}``, ``:x`` or ``<x>``.
TEMPLATE_SEG = re.compile(r"^(\{[^{}]*\}|:[A-Za-z_]\w*|<[^<>]*>)$")


class Env:
    """Names visible at a call site: function-local assignments, then module
    constants; parameters resolve to ``{param}`` placeholders."""

    __slots__ = ("local", "module", "params", "extra")

    def __init__(self, local: dict, module: dict, params: frozenset, extra: dict | None = None):
        self.local = local
        self.module = module
        self.params = params
        # name -> [(key node, value node)] from ``d["k"] = v`` statements
        self.extra = extra or {}

    def lookup(self, name: str):
        if name in self.local:
            return self.local[name]
        if name in self.params:
            return None
        return self.module.get(name)


def placeholder(node: ast.AST) -> str:
    """The ``{...}`` placeholder written for an unresolved expression."""
    if isinstance(node, ast.Name):
        return "{" + node.id + "}"
    if isinstance(node, ast.Attribute):
        return "{" + node.attr + "}"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return "{" + str(node.slice.value) + "}"
    if isinstance(node, ast.Call):
        return placeholder(node.func)
    return "{?}"


def eval_str(node: ast.AST | None, env: Env, depth: int = 0) -> str | None:
    """Resolve *node* to a string, with ``{name}`` placeholders for unknown
    parts; ``None`` when nothing string-like can be said."""
    if node is None or depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return node.value
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return str(node.value)
        return None
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                out.append(_part(part.value, env, depth))
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = eval_str(node.left, env, depth + 1)
        right = eval_str(node.right, env, depth + 1)
        if left is None and right is None:
            return None
        return (left if left is not None else placeholder(node.left)) + (
            right if right is not None else placeholder(node.right)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template = eval_str(node.left, env, depth + 1)
        if template is None:
            return None
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _percent(template, [_part(i, env, depth) for i in items])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        template = eval_str(node.func.value, env, depth + 1)
        if template is None:
            return None
        pos = [_part(a, env, depth) for a in node.args]
        kw = {k.arg: _part(k.value, env, depth) for k in node.keywords if k.arg}
        return _format(template, pos, kw)
    if isinstance(node, ast.Call) and _callee(node) == "urlencode" and node.args:
        d = resolve_dict(node.args[0], env, depth + 1)
        if d is None:
            return None
        pairs = []
        for k, v in zip(d.keys, d.values):
            key = eval_str(k, env, depth + 1) if k is not None else None
            if key is not None:
                pairs.append(f"{key}={_part(v, env, depth)}")
        return "&".join(pairs)
    if isinstance(node, ast.Name):
        bound = env.lookup(node.id)
        if bound is not None:
            return eval_str(bound, env, depth + 1)
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        bound = env.lookup(f"{node.value.id}.{node.attr}")
        if bound is not None:
            return eval_str(bound, env, depth + 1)
    return None


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _part(node: ast.AST, env: Env, depth: int) -> str:
    value = eval_str(node, env, depth + 1)
    return value if value is not None else placeholder(node)


def _percent(template: str, values: list[str]) -> str:
    out, i, k = [], 0, 0
    while i < len(template):
        ch = template[i]
        if ch == "%" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt == "%":
                out.append("%")
                i += 2
                continue
            if nxt in "sdifr" and k < len(values):
                out.append(values[k])
                k += 1
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _format(template: str, pos: list[str], kw: dict[str, str]) -> str:
    out, i, auto = [], 0, 0
    while i < len(template):
        ch = template[i]
        if ch in "{}" and template[i : i + 2] in ("{{", "}}"):
            out.append(ch)
            i += 2
            continue
        if ch == "{":
            end = template.find("}", i)
            if end < 0:
                out.append(template[i:])
                break
            field = template[i + 1 : end].split(":", 1)[0].split("!", 1)[0]
            if field == "":
                out.append(pos[auto] if auto < len(pos) else "{?}")
                auto += 1
            elif field.isdigit():
                n = int(field)
                out.append(pos[n] if n < len(pos) else "{?}")
            else:
                out.append(kw.get(field, "{" + field + "}"))
            i = end + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def resolve_dict(node: ast.AST | None, env: Env, depth: int = 0) -> ast.Dict | None:
    """The dict literal *node* denotes (following names), or ``None``."""
    if node is None or depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Dict):
        return node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        keys = [ast.Constant(k.arg) for k in node.keywords if k.arg]
        vals = [k.value for k in node.keywords if k.arg]
        return ast.Dict(keys=keys, values=vals)
    if isinstance(node, ast.Name):
        bound = env.lookup(node.id)
        if bound is not None:
            return resolve_dict(bound, env, depth + 1)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        bound = env.lookup(f"{node.value.id}.{node.attr}")
        if bound is not None:
            return resolve_dict(bound, env, depth + 1)
    return None


def literal_value(node: ast.AST | None):
    """A JSON-able literal for *node* (``str``/number/bool/None), else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    return None


def docstring_expr(node: ast.AST) -> ast.Expr | None:
    """The docstring statement of a module, class or function node, else ``None``."""
    if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            return first
    return None
