"""`qare crosscheck`: qare's third-party call targets against Eclipse JDT's bindings."""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import click

from .cmd_callgraph import _PROJECT, _build, _classpath_options, _effective_classpath
from .exitcodes import FATAL, NO_INPUT, PARTIAL, epilog


def _run_jdt(project, cp):
    """JDT's answer for PROJECT; JDT unavailable → exit 4, no Java files → exit 3."""
    import callgraph
    from callgraph import crosscheck as xc

    try:
        return xc.run_jdt(project, cp)
    except xc.JdtUnavailableError as e:
        click.echo(f"error: Eclipse JDT unavailable: {e}", err=True)
        sys.exit(FATAL)
    except callgraph.NoInputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(NO_INPUT)


def _index(cp):
    from callgraph.classpath import ClasspathIndex

    return ClasspathIndex.open([str(p) for p in cp])


def jdt_graph(project, cp, loc_mode):
    """`qare graph --resolver jdt`: the ProjectGraph from JDT's bindings."""
    from callgraph import crosscheck as xc

    if loc_mode != "physical":
        raise click.UsageError("--resolver jdt counts physical LOC only (--loc code needs --resolver qare)")
    jdt = _run_jdt(project, cp)
    for f, why in jdt.failed[:20]:
        click.echo(f"warning: {f}: {why}", err=True)
    return xc.build_jdt_graph(jdt, _index(cp))


def _pct(x) -> str:
    return "    -" if x is None else f"{100 * x:5.1f}"


def _table(report) -> str:
    from callgraph.crosscheck import CATEGORIES

    lines = [f"{'category':22s} {'name P':>7s} {'name R':>7s} {'sig P':>7s} {'sig R':>7s}"
             f"  {'tp/fp/fn (name)':>17s}  {'tp/fp/fn (signature)':>20s}"]
    for cat in CATEGORIES:
        n, s = report.score(cat, "name"), report.score(cat, "signature")
        if not (n.tp or n.fp or n.fn or s.tp or s.fp or s.fn):
            continue
        lines.append(f"{cat:22s} {_pct(n.precision):>7s} {_pct(n.recall):>7s} {_pct(s.precision):>7s} "
                     f"{_pct(s.recall):>7s}  {f'{n.tp}/{n.fp}/{n.fn}':>17s}  {f'{s.tp}/{s.fp}/{s.fn}':>20s}")
    res = "  ".join(f"{k} {ok}/{n}" for k, (ok, n) in report.by_resolution.items())
    lines.append(f"qare targets confirmed by JDT (name level), per resolution: {res or '-'}")
    lines.append(f"unjudgeable (JDT binding rests on missing types or a compile error): "
                 f"{report.unjudgeable_sites} sites, {report.unjudgeable_qare_targets} qare targets there")
    lines.append("JDT call sites: " + "  ".join(f"{k} {v}" for k, v in sorted(report.judgements.items())))
    return "\n".join(lines)


@click.command("crosscheck", short_help="Check qare's third-party targets against Eclipse JDT's bindings.",
               epilog=epilog("qare skipped files or JDT failed on a file (each reported)",
                             "no Java files in PROJECT",
                             "JDT cannot run (the 'jdt' extra, Maven Central or a JDK 17+ missing: the reason is "
                             "printed), or --out cannot be written"))
@_PROJECT
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the disagreeing call sites as JSONL (file, line, name, categories, level, jdt, qare).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: precision/recall per call-site category and level; json: the same as one object.")
@_classpath_options
def crosscheck_cmd(project, out, fmt, classpath, discover_classpath, jobs, quiet, loc_mode, cache, no_cache, offline,
                   maven_repo_local, user_m2):
    """Check qare's third-party call targets in PROJECT against Eclipse JDT's
    compiler bindings (JDT from Maven Central, run through JPype: the 'jdt'
    extra).

    Both get the same source files and classpath. Prints precision and recall
    of qare's targets per call-site category at API-name and at signature
    level; call sites where JDT's answer rests on missing types or a compile
    error are counted apart as unjudgeable. See docs/crosscheck.md.
    """
    from callgraph import crosscheck as xc

    cp = _effective_classpath(project, classpath, discover_classpath, offline, maven_repo_local, user_m2)
    t0 = time.perf_counter()
    # Maven's jars come in cp as if named: only the user's own --classpath entries are warned about when they
    # hold no class file (a new user, session 10: a warning for each of 14 Spring Boot starters, empty by design)
    pg, _cp_failed = _build(project, tuple(cp), False, jobs, quiet, loc_mode, cache, no_cache=no_cache,
                            given=tuple(classpath))
    qare_s = time.perf_counter() - t0
    jdt = _run_jdt(project, cp)
    report = xc.crosscheck(pg, jdt, _index(cp))
    if out is not None:
        try:
            with open(out, "w", encoding="utf-8") as fh:
                for d in report.disagreements:
                    fh.write(json.dumps(d.to_dict(), ensure_ascii=False) + "\n")
        except OSError as e:
            click.echo(f"error: cannot write {out}: {e}", err=True)
            sys.exit(FATAL)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # qare (the JVM runs in a child)
    timing = {"qare_seconds": round(qare_s, 2), "jdt_seconds": round(jdt.seconds, 2),
              "jdt_setup_seconds": round(jdt.setup_seconds, 2), "qare_peak_rss_mb": round(rss),
              "jdt_peak_rss_mb": round(jdt.peak_rss_mb)}
    if fmt == "json":
        click.echo(json.dumps({**report.to_dict(), **timing, "jdt_version": jdt.jdt_version,
                               "jdt_failed": [list(x) for x in jdt.failed]}, indent=1))
    else:
        click.echo(f"JDT {jdt.jdt_version}: {len(jdt.files)} files, {len(jdt.calls)} call sites; "
                   f"qare: {pg.summary.files} files, {pg.summary.call_sites} call sites")
        click.echo(_table(report))
        click.echo(f"time: qare {qare_s:.1f} s, JDT {jdt.seconds:.1f} s (+{jdt.setup_seconds:.1f} s setup); "
                   f"peak RSS: qare's process {rss:.0f} MB, JDT's {jdt.peak_rss_mb:.0f} MB")
        if out is not None:
            click.echo(f"{len(report.disagreements)} disagreeing call sites → {out}")
    for f, why in jdt.failed[:20]:
        click.echo(f"warning: JDT: {f}: {why}", err=True)
    if pg.summary.skipped or pg.summary.parse_errors or jdt.failed:
        sys.exit(PARTIAL)


COMMANDS = [crosscheck_cmd]
