"""Credential literals in Python code: where they are, and masking them."""

from __future__ import annotations

import ast
import io
import re
import tokenize

# the one credential rule (records.secrets), shared with metrics.sccg's Secret score
from records.secrets import KEY_NAME_RE, is_credential_literal

# Template wording (the extractor's ``placeholder_key_value`` flag: a record
# that reads like a tutorial). Not the credential decision, which is
# records.secrets' own, broader placeholder list.
PLACEHOLDER_RE = re.compile(
    r"(your|xxx|<[^>]*>|\{\{|insert|enter[-_ ]?(your|the)|sign-up-for-key|api[-_ ]?key[-_ ]?here|placeholder|changeme|replace)",
    re.I,
)

MASK = "<REDACTED>"


def secret_positions(tree: ast.AST, *, credentials_only: bool = False) -> set[tuple[int, int]]:
    """(line, column) starts of string literals bound to key-like names: dict
    values under key-like string keys (``…host`` keys excluded), keyword
    arguments, assignments and parameter defaults; with *credentials_only*,
    only literals that look like real credentials (≥ 8 non-blank characters,
    no placeholder wording)."""
    out = set()

    def lit(node):
        ok = isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value != ""
        return ok and (not credentials_only or is_credential_literal(node.value))

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if (
                    isinstance(k, ast.Constant)
                    and isinstance(k.value, str)
                    and KEY_NAME_RE.search(k.value)
                    and not k.value.lower().endswith("host")
                    and lit(v)
                ):
                    out.add((v.lineno, v.col_offset))
        elif isinstance(node, ast.keyword) and node.arg and KEY_NAME_RE.search(node.arg) and lit(node.value):
            out.add((node.value.lineno, node.value.col_offset))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and lit(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "" for t in targets]
            if any(KEY_NAME_RE.search(n) for n in names):
                out.add((node.value.lineno, node.value.col_offset))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pos = a.args[len(a.args) - len(a.defaults):]
            for arg, d in list(zip(pos, a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
                if d is not None and KEY_NAME_RE.search(arg.arg) and lit(d):
                    out.add((d.lineno, d.col_offset))
    return out


def split_string_token(tok: str) -> tuple[str, str, str]:
    """A STRING token → (prefix and opening quote(s), body, closing quote(s))."""
    i = 0
    while tok[i] not in "'\"":
        i += 1
    q = tok[i : i + 3] if tok[i : i + 3] in ('"""', "'''") else tok[i]
    return tok[: i + len(q)], tok[i + len(q) : len(tok) - len(q)], q


def rewrite_tokens(code: str, rewrite) -> str:
    """*code* with each token for which ``rewrite(token)`` returns a string
    (``None`` = keep) replaced by that string; the rest unchanged."""
    lines = code.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        new = rewrite(tok)
        if new is not None and new != tok.string:
            edits.append((offsets[tok.start[0] - 1] + tok.start[1], offsets[tok.end[0] - 1] + tok.end[1], new))
    for start, end, new in reversed(edits):
        code = code[:start] + new + code[end:]
    return code


def replace_strings(code: str, positions: set, text: str) -> str:
    """*code* with the one-line string tokens starting at *positions* replaced
    by a literal holding *text* (same prefix and quotes), lines unchanged."""
    if not positions:
        return code

    def rewrite(tok):
        if tok.type == tokenize.STRING and tok.start in positions and tok.start[0] == tok.end[0]:
            prefix, _, q = split_string_token(tok.string)
            return prefix + text + q
        return None

    return rewrite_tokens(code, rewrite)


def mask_credentials(code: str, tree: ast.AST | None = None) -> str:
    """Replace literal credentials (see :func:`secret_positions` with
    ``credentials_only``) by ``<REDACTED>``; line structure is kept."""
    tree = tree if tree is not None else ast.parse(code)
    return replace_strings(code, secret_positions(tree, credentials_only=True), MASK)
