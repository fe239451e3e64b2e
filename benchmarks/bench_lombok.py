"""Unresolved getter/setter/logger call sites with and without Lombok modelling (issue 10).

Usage: PYTHONPATH=. python3 benchmarks/bench_lombok.py PROJECT [--no-lombok] [--no-classpath]

Builds the call graph in this process (``jobs=1``, the project's libraries
resolved from Maven Central as ``qare graph`` does unless ``--no-classpath``)
and sorts every method invocation whose resolution is ``unresolved`` (no
target) or ``name`` (a guess by name) into

- ``getter``: ``getX()``/``isX()`` with no argument,
- ``setter``: ``setX(v)`` with one argument,
- ``logger``: a call on a receiver named ``log``/``logger`` (any case), the
  field Lombok's ``@Slf4j``/``@Log``/... generate,
- ``other``.

``--no-lombok`` turns the Lombok planner off (``plan_type`` returns None for
every type), which is what the resolver saw before callgraph/_lombok.py; all
else (JDK members, classpath) stays as it is, so the difference is Lombok's
alone. Prints one JSON line.
"""

from __future__ import annotations

import collections
import json
import re
import sys

from callgraph import _index_lombok, _resolve, build_project_graph

_GETTER = re.compile(r"(get|is)[A-Z0-9_$]")
_SETTER = re.compile(r"set[A-Z0-9_$]")
_LOGGER = re.compile(r"(?i)log(ger)?")


def category(n) -> str:
    """The category of a ``method_invocation`` node (see module docstring)."""
    name = n.child_by_field_name("name")
    obj = n.child_by_field_name("object")
    args = n.child_by_field_name("arguments")
    nargs = len(args.named_children) if args is not None else 0
    text = name.text.decode() if name is not None else ""
    if obj is not None and obj.type == "identifier" and _LOGGER.fullmatch(obj.text.decode()):
        return "logger"
    if _GETTER.match(text) and nargs == 0:
        return "getter"
    if _SETTER.match(text) and nargs == 1:
        return "setter"
    return "other"


def main(argv: list[str]) -> None:
    root = argv[0]
    lombok = "--no-lombok" not in argv
    counts: collections.Counter = collections.Counter()
    if not lombok:
        _index_lombok.plan_type = lambda *a, **k: None
    site = _resolve.FileResolver.site

    def counting_site(self, cap, n):
        r = site(self, cap, n)
        if cap == "call" and r.kind in ("unresolved", "name"):
            counts[f"{r.kind}_{category(n)}"] += 1
        return r

    _resolve.FileResolver.site = counting_site
    pg = build_project_graph(root, jobs=1, auto_classpath="--no-classpath" not in argv)
    s = pg.summary
    res = pg.resolution
    out = {"project": root, "lombok": lombok, "files": s.files, "call_sites": s.call_sites,
           "unresolved": s.unresolved, "name": s.resolved.get("name", 0),
           "classpath_jars": len(getattr(res, "jars", ()) or ()) if res is not None else None}
    for kind in ("unresolved", "name"):
        for cat in ("getter", "setter", "logger", "other"):
            out[f"{kind}_{cat}"] = counts.get(f"{kind}_{cat}", 0)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
