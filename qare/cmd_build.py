"""``qare build``: a Q-ARE-style dataset from a project list."""

from __future__ import annotations

import datetime as _dt
import os
import sys

import click

from ._llm_options import LLM_EPILOG, llm_options
from ._options import deprecated_alias, jobs_option, quiet_option
from .cmd_callgraph import _size, maven_options, repo_local_of
from .exitcodes import FATAL, NO_INPUT, PARTIAL, epilog


def _date(ctx, param, value):
    if value is None:
        return None
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)") from None


def _range(ctx, param, value):
    if value is None:
        return None
    try:
        a, b = (float(x) for x in value.split(":"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not A:B (e.g. 2:5)") from None
    if a > b:
        raise click.BadParameter(f"{value!r}: A must not exceed B")
    return (a, b)


def classpath_line(part) -> str | None:
    """The one stderr line on how a project's libraries were resolved, as
    ``qare graph`` prints it, prefixed with the project's name; None when the
    build did not resolve them (``--no-discover-classpath``, a project dropped
    or failed before that step). ``part``: a ``queries.ProjectPart``."""
    rec = part.classpath
    if not isinstance(rec, dict):
        return None
    unresolved, warnings = rec.get("unresolved") or [], rec.get("warnings") or []
    if rec.get("method") == "none" and not unresolved and not warnings:
        return f"{part.project}: classpath: no pom.xml or build.gradle(.kts) in the project; no libraries added"
    # the jars the graph was built with (the list's own classpath entries first); a project that
    # failed before its graph has none recorded: then the resolved artifacts are counted. None of either
    # is "0 jars", as `qare graph` says it (a new user, session 8, read "0 artifacts" as something else)
    artifacts = rec.get("artifacts") or ()
    n, what = (len(part.classpath_jars), "jar") if part.classpath_jars or not artifacts else (len(artifacts), "artifact")
    line = f"{part.project}: classpath ({rec.get('method')}): {n} {what}{'s' if n != 1 else ''}, {len(unresolved)} unresolved"
    if unresolved:
        shown = [f"{u.get('coords')} ({u.get('reason')})" for u in unresolved[:4]]
        line += ": " + ", ".join(shown) + (f", … {len(unresolved) - 4} more" if len(unresolved) > 4 else "")
        refused = [u for u in unresolved if u.get("reason") == "cache-not-private"
                   or (u.get("coords") == "*" and u.get("reason") == "refused")]
        if refused:
            line += f"; {refused[0].get('detail')}"
    downloads = rec.get("downloads") or 0
    line += ("; cached result" if rec.get("from_cache") else
             f"; {downloads} file{'s' if downloads != 1 else ''} downloaded ({_size(rec.get('bytes_downloaded') or 0)})")
    line += f" in {rec.get('seconds') or 0:.1f} s"
    if warnings:
        line += f"; {len(warnings)} build-file warning(s), first: {warnings[0][0]}: {warnings[0][1]}"
    return line


def docs_line(part) -> str | None:
    """The one stderr line on the documentation jars a project's reached
    libraries were read from (``part.docs``, queries._docs): javadoc and
    sources jars, what was downloaded from the project's repositories for
    them, the libraries none was found for; None when no doc jar was needed
    or the build did not get that far."""
    rec = part.docs
    if not isinstance(rec, dict) or not (rec.get("javadoc") or rec.get("sources") or rec.get("failures")):
        return None
    nj, ns = len(rec.get("javadoc") or ()), len(rec.get("sources") or ())
    line = (f"{part.project}: docs: {nj} javadoc jar{'s' if nj != 1 else ''}, "
            f"{ns} sources jar{'s' if ns != 1 else ''}")
    downloads = rec.get("downloads") or 0
    if downloads:
        line += f"; {downloads} file{'s' if downloads != 1 else ''} downloaded ({_size(rec.get('bytes_downloaded') or 0)})"
    failures = rec.get("failures") or []
    if failures:
        shown = [f"{f.get('coords')} ({f.get('reason')})" for f in failures[:4]]
        line += (f"; none found for {len(failures)}: " + ", ".join(shown)
                 + (f", … {len(failures) - 4} more" if len(failures) > 4 else ""))
    return line


def _print_classpath_lines(quiet: bool):
    """``on_project`` of ``build_dataset``: each project's classpath line (and its docs
    line, :func:`docs_line`) on stderr as it finishes — with ``-q`` only when it reports
    a failure (as ``qare graph``: the reason of a missing library is never hidden);
    through tqdm so a progress bar stays intact."""
    from tqdm import tqdm

    def show(part) -> None:
        line = classpath_line(part)
        if line is not None:
            rec = part.classpath
            if not quiet or rec.get("unresolved") or rec.get("warnings"):
                tqdm.write(line, file=sys.stderr)
        line = docs_line(part)
        if line is not None and (not quiet or part.docs.get("failures")):
            tqdm.write(line, file=sys.stderr)

    return show


_EPILOG = LLM_EPILOG + epilog(
    "some project failed (recorded in projects.jsonl with its reason), a classpath= or javadoc= path the list "
    "names could not be read (a warning on stderr; listed.unreadable), a project's files were skipped or had parse "
    "errors (a warning on stderr; each in projects.jsonl warnings), or the dataset has 0 samples "
    "(a warning on stderr and projects.jsonl's no_samples_reason say why per project)",
    "PROJECT_LIST missing or naming no project",
    "the build could not proceed (e.g. the output folder is not writable, an optional package is missing)")


@click.command("build", epilog=_EPILOG, short_help="Build a Q-ARE-style dataset from a project list.")
@click.argument("project_list", type=click.Path(dir_okay=False))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Output folder (re-running resumes).")
@click.option("--min-stars", type=int, default=None, help="Keep projects with at least N stars (when the list gives stars).")
@click.option("--created-after", callback=_date, default=None, help="Keep projects created on or after this date.")
@click.option("--created-before", callback=_date, default=None, help="Keep projects created on or before this date.")
@click.option("--require-metadata", is_flag=True, help="Drop projects whose stars/created_at are missing when a criterion needs them.")
@click.option("--require-tests", is_flag=True, help="Drop projects without test sources.")
@click.option("--require-libs", multiple=True, metavar="PREFIX", help="Drop projects importing no type under PREFIX (repeatable).")
@click.option("--include-tests", is_flag=True, help="Take candidate methods from test sources too.")
@click.option("--query-lines", type=click.IntRange(min=1), default=2, show_default=True, help="Description lines that make the query.")
@click.option("--api-count-range", callback=_range, default=None, metavar="A:B", help="Keep methods with A..B direct third-party APIs (default: the IQR of the build).")
@click.option("--api-count", type=click.Choice(["direct", "reached"]), default="direct", show_default=True, help="What the API-count filter counts per method: third-party APIs it calls itself, or its whole target set (docs/dataset.md).")
@click.option("--comments", type=click.Choice(["javadoc", "any"]), default="javadoc", show_default=True, help="Comments that make queries: /** */ doc comments only, or also // and /* */ blocks above the method.")
@click.option("--iqr-over", type=click.Choice(["calling", "all"]), default="calling", show_default=True, help="IQR population: methods with >= 1 direct third-party API, or all candidates.")
@click.option("--include-unresolved", is_flag=True, help="Follow unresolved ('name') call edges to targets.")
@click.option("--dispatch", type=click.Choice(["rta", "cha", "declared"]), default=None, help="Dispatch of calls on a supertype: rta, cha or declared (docs/callgraph.md \"Dispatch\"; default: callgraph's DEFAULT_DISPATCH, see docs/dataset.md).")
@click.option("--max-depth", type=click.IntRange(min=2), default=None, help="Longest chain kept (depth counts both ends).")
@click.option("--require-docs/--no-require-docs", default=True, show_default=True, help="Drop undocumented APIs and the samples that reach them.")
@click.option("--drop-leaky", is_flag=True, help="Drop samples whose query names one of its targets.")
@click.option("--translate-cmd", default=None, metavar="CMD", help="Command reading a non-English query on stdin, printing its translation.")
@click.option("--translate", "translate", type=click.Choice(["llm"]), default=None, help="Translate non-English queries with the language model (--llm-url, --llm-model); wins over --translate-cmd.")
@click.option("--describe-undocumented", type=click.Choice(["llm"]), default=None, help="Describe undocumented APIs with the language model from their sources jar or decompiled class (doc_source: llm in apis.jsonl).")
@llm_options
@click.option("--discover-classpath/--no-discover-classpath", "discover_classpath", default=True, show_default=True, help="Resolve the project's libraries with Maven (sanitised poms / Gradle's declared coordinates) and fetch the javadoc (else sources) jars of the APIs reached; same flag as in qare graph/chain.")
@maven_options
@click.option("--jdk", default="auto", show_default=True, help="JDK home for library signatures, 'auto', or 'none'.")
@click.option("--loc-mode", "loc_mode", type=click.Choice(["physical", "code"]), default="physical", show_default=True, help="LOC of a method: physical lines, or non-blank non-comment lines.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help="Where git URLs are cloned (default <qare cache>/repos; the qare cache is $QARE_CACHE_DIR, else $XDG_CACHE_HOME/qare, else ~/.cache/qare).")
@click.option("--format", "formats", type=click.Choice(["jsonl", "parquet"]), multiple=True, default=("jsonl",), show_default=True, help="parquet adds Parquet copies (needs pyarrow: pip install -e '.[parquet]').")
@jobs_option("Projects analysed")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="Run on a dask.distributed cluster instead.")
@click.option("--no-resume", is_flag=True, help="Re-analyse projects already finished in --out.")
@quiet_option()
@deprecated_alias("--keep-unresolved", "--include-unresolved", "include_unresolved", is_flag=True)
@deprecated_alias("--auto-classpath/--no-auto-classpath", "--discover-classpath/--no-discover-classpath",
                  "discover_classpath")
@deprecated_alias("--loc", "--loc-mode", "loc_mode", type=click.Choice(["physical", "code"]))
def build(project_list, out, **kw):
    """Build a Q-ARE-style dataset (samples.jsonl, apis.jsonl, projects.jsonl,
    manifest.json) from PROJECT_LIST: a text file (folder, git repository or
    git URL[@commit] per line), or a CSV/JSONL with url/path, commit, stars,
    created_at, classpath and javadoc columns. See docs/dataset.md."""
    from queries.build import BuildError, BuildOptions, EmptyProjectList, build_dataset, summary_table

    from . import _exit

    _exit.request()  # everything is written and closed before the command returns or exits
    if (kw["translate"] or kw["describe_undocumented"]) and not (kw["llm_url"] and kw["llm_model"]):
        raise click.UsageError("--translate llm / --describe-undocumented llm need --llm-url and --llm-model")
    if kw.get("dispatch") is None:
        kw.pop("dispatch", None)  # BuildOptions' default: callgraph's DEFAULT_DISPATCH
    repo_local = repo_local_of(kw.pop("maven_repo_local"), kw.pop("user_m2"))
    # the library's ProjectGraph.reach keyword is include_unresolved; BuildOptions records it as keep_unresolved
    kw["keep_unresolved"] = kw.pop("include_unresolved")
    opts = BuildOptions.from_dict(
        dict(kw, selection=kw, jdk=None if kw["jdk"] == "none" else kw["jdk"], cache_dir=kw["cache_dir"] or "",
             llm_cache=None if kw["no_llm_cache"] else "",
             maven_repo_local=str(repo_local) if repo_local else None)
    )
    if not os.path.isfile(project_list):
        try:  # a FIFO or a device is named as such, not "no such file" (the attacker's review, session 10)
            from records.safefs import file_kind

            why = f"not a regular file ({file_kind(os.stat(project_list).st_mode)})"
        except OSError as e:
            why = "no such file" if isinstance(e, FileNotFoundError) else f"cannot read it ({e.strerror or e})"
        click.echo(f"error: {project_list}: {why}", err=True)
        sys.exit(NO_INPUT)
    try:
        result = build_dataset(
            project_list,
            out,
            opts,
            jobs=kw["jobs"],
            scheduler=kw["scheduler"],
            formats=tuple(dict.fromkeys(("jsonl", *kw["formats"]))),
            quiet=kw["quiet"],
            resume=not kw["no_resume"],
            on_project=_print_classpath_lines(kw["quiet"]),
        )
    except EmptyProjectList as e:
        click.echo(f"error: {e} (exit code 3)", err=True)
        sys.exit(NO_INPUT)
    except BuildError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(FATAL)
    click.echo(summary_table(result))
    click.echo(f"written to {result.out}")
    bad = result.unreadable
    if bad:  # the list's own inputs: never only in projects.jsonl, -q or not
        click.echo(f"warning: {len(bad)} path{'s' if len(bad) != 1 else ''} the list names could not be read "
                   "in full (exit code 1; the projects were built with what could be read):\n"
                   + "\n".join(f"  {project}: {path}: {why}" for project, path, why in bad[:20])
                   + (f"\n  ... {len(bad) - 20} more in projects.jsonl (listed.unreadable)" if len(bad) > 20 else ""),
                   err=True)
    partial = result.incomplete
    if partial:  # as qare graph: a file not read, or read only in part, is an input that failed
        click.echo(f"warning: {len(partial)} project{'s' if len(partial) != 1 else ''} with files skipped or not "
                   "parsed in full (exit code 1; each file and why in projects.jsonl warnings):\n"
                   + "\n".join(f"  {project}: {sk} skipped, {pe} with parse errors" for project, sk, pe in partial[:20])
                   + (f"\n  ... {len(partial) - 20} more" if len(partial) > 20 else ""), err=True)
    if not result.counts.get("samples"):
        why = [f"  {r['project']}: {r['no_samples_reason'] or r['error'] or r['reason'] or r['verdict']}"
               for r in result.projects]
        click.echo("warning: the dataset has 0 samples (exit code 1); per project:\n" + "\n".join(why[:20])
                   + (f"\n  ... {len(why) - 20} more in projects.jsonl" if len(why) > 20 else ""), err=True)
        sys.exit(PARTIAL)
    if result.failed or bad or partial:
        sys.exit(PARTIAL)


COMMANDS = [build]
