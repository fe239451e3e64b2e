"""Each file's share of the summary (callgraph._contrib): kept sorted and
summed so that nothing depends on the order the resolver met its reasons —
which follows what its memos held (generics-assertj, built twice in one
process, listed one file's two reasons in both orders), so a file resolved
alone after a body edit and one resolved inside a whole build agree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from callgraph import build_project_graph
from callgraph._contrib import aggregate, top_reasons

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "java"


def test_ties_among_top_reasons_fall_by_reason_not_by_first_seen():
    a = Counter({"b reason": 2, "a reason": 2, "c reason": 5})
    b = Counter({"a reason": 2, "c reason": 5, "b reason": 2})
    assert top_reasons(a) == top_reasons(b) == (("c reason", 5), ("a reason", 2), ("b reason", 2))
    assert top_reasons(Counter({str(i): 1 for i in range(20)}), 3) == (("0", 1), ("1", 1), ("10", 1))


def test_builds_in_any_memo_state_give_the_same_shares_and_summary(tmp_path):
    root = FIXTURES / "generics-assertj"
    builds = []
    for name in "abc":
        (tmp_path / name).mkdir(mode=0o700)
        builds.append(build_project_graph(root, auto_classpath=False, cache=tmp_path / name / "c.sqlite"))
    first = builds[0]
    for other in builds[1:]:
        assert other.contributions == first.contributions
        assert other.summary.top_reasons == first.summary.top_reasons
        assert list(other.summary.examples.items()) == list(first.summary.examples.items())
    counts, reasons, _sites, examples = aggregate(first.contributions, [], set())
    assert top_reasons(reasons) == first.summary.top_reasons and examples == first.summary.examples


def test_a_share_does_not_depend_on_the_resolvers_order():
    from callgraph._callsite import ApiTarget, FileResult, Resolution
    from callgraph._contrib import contribution, share

    a = ApiTarget("x.L.f()", "x.L", "f", True, None)
    b = ApiTarget("x.L.g()", "x.L", "g", True, None)
    one = FileResult((), (a, b), ((Resolution.EXACT, 3), (Resolution.UNRESOLVED, 2)), (("r1", 1), ("r2", 1)),
                     (("r1", "A.java:3"), ("r2", "A.java:1")), (("jdk", 2), ("project", 3)))
    two = FileResult((), (b, a), ((Resolution.UNRESOLVED, 2), (Resolution.EXACT, 3)), (("r2", 1), ("r1", 1)),
                     (("r2", "A.java:1"), ("r1", "A.java:3")), (("project", 3), ("jdk", 2)))
    assert contribution(one, None, ()) == contribution(two, None, ())
    assert share(one, ()) == share(two, ())
    assert contribution(one, None, ()).reasons == (("r1", 1), ("r2", 1))
