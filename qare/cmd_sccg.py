"""``qare sccg``: SCCGBench extraction, redaction, sandboxed execution, scores."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import exitcodes
from .exitcodes import epilog

_UNREADABLE = "an input file cannot be read or --out cannot be written"


def _read_jsonl(path: str) -> tuple[list, list]:
    """Records of a JSONL file or a JSON array file (the SCCGBench release;
    ``-`` = stdin) and ``file:line: reason`` errors."""
    from records.sccg import read_records

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            data = Path(path).read_bytes()
    except FileNotFoundError:
        click.echo(f"error: {path}: no such file", err=True)
        sys.exit(exitcodes.NO_INPUT)
    except OSError as exc:
        click.echo(f"error: {path}: {exc.strerror or exc}", err=True)
        sys.exit(exitcodes.FATAL)
    return read_records(data, path)


def _read_gold(path: str) -> tuple[list, list]:
    """Gold records that qare can use, and errors for the others."""
    from records.sccg import record_problem

    recs, errors = _read_jsonl(path)
    good = []
    for i, rec in enumerate(recs):
        why = record_problem(rec)
        if why:
            errors.append(f"{path}: record {i + 1} ({rec.get('sample_id', '?')}): {why}")
        else:
            good.append(rec)
    return good, errors


class _Out:
    """JSONL writer to a file or stdout (``-``)."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.fh = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")
        except OSError as exc:
            click.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
            sys.exit(exitcodes.FATAL)

    def write(self, obj) -> None:
        self.fh.write(json.dumps(obj, ensure_ascii=False) + "\n")

    def close(self) -> None:
        if self.fh is not sys.stdout:
            self.fh.close()
        else:
            self.fh.flush()


def _no_input(message: str, errors=()) -> None:
    """Report *errors*, then ``error: message``; exit with NO_INPUT."""
    _report_errors(errors)
    click.echo(f"error: {message}", err=True)
    sys.exit(exitcodes.NO_INPUT)


def _report_errors(errors) -> None:
    for e in errors[:50]:
        click.echo(f"warning: {e}", err=True)
    if len(errors) > 50:
        click.echo(f"warning: … and {len(errors) - 50} more", err=True)


def _finish(errors, summary=None) -> None:
    """Report *errors*, then the JSON *summary* (if any) on stderr; exit with
    PARTIAL when there were errors."""
    _report_errors(errors)
    if summary is not None:
        click.echo(json.dumps(summary), err=True)
    if errors:
        sys.exit(exitcodes.PARTIAL)


def _sandbox_or_exit(sandbox: str, protected) -> None:
    """Exit 4 unless generated code can run as *sandbox* asks; warn for none-unsafe."""
    from metrics.sccg import SandboxExposure, sandbox_status
    from metrics.sccg._sandbox import _check_protected, _interpreter_binds

    if sandbox == "none-unsafe":
        click.echo("warning: --sandbox none-unsafe: generated code runs NOT isolated (it can read and write files, "
                   "reach the network through raw sockets, signal your processes)", err=True)
        return
    ok, why = sandbox_status()
    if not ok:
        click.echo(f"error: no working sandbox: {why}. Install bubblewrap (Debian: bubblewrap), or pass "
                   f"--sandbox none-unsafe to run generated code unisolated at your own risk", err=True)
        sys.exit(exitcodes.FATAL)
    try:
        _check_protected(_interpreter_binds(), protected)
    except SandboxExposure as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exitcodes.FATAL)


@click.group(short_help="SCCGBench tools (Python Web service calls): extract, redact, execute, score.",
             epilog=epilog("some input failed (each reported as a warning)", "no input to work on", _UNREADABLE))
def sccg() -> None:
    """SCCGBench tools for Python Web service-call code: extract, redact,
    execute, score."""


@sccg.command(short_help="Find the functions that issue HTTP requests in Python repositories.", epilog=epilog(
    "some files could not be read or parsed (each reported)",
    "no repository folder, or no Python file in them",
    "an input file cannot be read or --out cannot be written"))
@click.argument("repos", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", "-o", default="-", show_default=True, help="JSONL of SCCGBench records ('-' = stdout).")
@click.option("--rapidapi-only", is_flag=True, help="Keep only functions with RapidAPI evidence.")
@click.option("--keep-templates", is_flag=True, help="Keep template/wrapper functions (still flagged).")
@click.option("--keep-duplicates", is_flag=True, help="Keep functions whose normalised code hash was seen.")
@click.option("--repo-url", multiple=True, metavar="NAME=URL", help="GitHub URL of a repo folder, for file_url.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1, 256), help="Worker processes over files.")
@click.option("--keep-secrets", is_flag=True, help="Do not mask literal credentials in the code fields.")
@click.option("--docs", type=str, default=None,
              help="JSONL of documented endpoints (host/url, route, method, params) to set doc_match_type.")
def extract(repos, out, rapidapi_only, keep_templates, keep_duplicates, repo_url, jobs, keep_secrets, docs):
    """Find functions that issue HTTP requests in the Python files of REPOS
    and write one SCCGBench record per function."""
    from queries.sccg import align_docs, extract_repos

    urls = {}
    for item in repo_url:
        name, sep, url = item.partition("=")
        if not sep:
            raise click.BadParameter(f"expected NAME=URL, got {item!r}", param_hint="--repo-url")
        urls[name] = url
    missing = [r for r in repos if not Path(r).is_dir()]
    if len(missing) == len(repos):
        _no_input(f"no repository folder found: {', '.join(missing)}")
    endpoints, doc_errors = _read_jsonl(docs) if docs else ([], [])
    result = extract_repos(repos, repo_urls=urls, rapidapi_only=rapidapi_only,
                           keep_templates=keep_templates, keep_duplicates=keep_duplicates,
                           mask_secrets=not keep_secrets, n_jobs=jobs)
    errors = [f"{e.repo}/{e.file_path}: {e.reason}" for e in result.errors]
    if not result.stats.get("files"):
        _no_input(f"no Python files in {', '.join(r for r in repos if r not in missing)}", errors)
    records = list(result.records)
    if docs:
        errors += doc_errors
        records = align_docs(records, endpoints)
    w = _Out(out)
    for r in records:
        w.write(r)
    w.close()
    _finish(errors, result.stats)


@sccg.command(short_help="Redact SCCGBench records and run LeakCheck on them.", epilog=epilog(
    "some records were malformed (each reported)",
    "RECORDS missing or holding no record",
    _UNREADABLE))
@click.argument("records", type=str)
@click.option("--out", "-o", default="-", show_default=True, help="JSONL output ('-' = stdout).")
def redact(records, out):
    """Add redacted code and LeakCheck results to SCCGBench RECORDS (JSONL).

    Each record gains ``code.redacted_function`` (host, URL, route, parameter
    keys/values and key literals replaced by placeholders),
    ``leaks.redacted_code`` (LeakCheck of that code) and ``leaks.comments``
    (LeakCheck of each comment)."""
    from queries.sccg import leak_check, redact_code
    from records.sccg import comment_texts

    recs, errors = _read_gold(records)
    if not recs:
        _no_input(f"{records}: no records", errors)
    w = _Out(out)
    for rec in recs:
        code = (rec.get("code") or {}).get("complete_function")
        if not isinstance(code, str):
            errors.append(f"{rec.get('sample_id')}: no code.complete_function")
            continue
        try:
            red = redact_code(code, rec)
        except SyntaxError as exc:
            errors.append(f"{rec.get('sample_id')}: SyntaxError: {exc}")
            continue
        rec.setdefault("code", {})["redacted_function"] = red
        rec["leaks"] = {
            "redacted_code": list(leak_check(red, rec).tokens),
            "comments": [list(leak_check(c, rec).tokens) for c in comment_texts(rec)],
        }
        w.write(rec)
    w.close()
    _finish(errors)


@sccg.command(short_help="Run generations in a sandbox and record the requests they send.", epilog=epilog(
    "some generations were malformed or had no gold record (each reported)",
    "GENERATIONS or --gold missing or holding no record",
    _UNREADABLE + ", or --sandbox bwrap and bubblewrap cannot run"))
@click.argument("generations", type=str)
@click.option("--gold", required=True, type=str, help="JSONL of gold SCCGBench records (by sample_id).")
@click.option("--out", "-o", default="-", show_default=True, help="JSONL of per-generation results.")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 256), help="Sandboxes at a time.")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "none-unsafe"]), default="auto", show_default=True,
              help="auto/bwrap: bubblewrap, and exit 4 when it does not work here; none-unsafe: run generated "
                   "code NOT isolated (a plain subprocess as nobody when run as root, else as you).")
@click.option("--cpu", "cpu_s", default=3, show_default=True, type=click.IntRange(1), help="CPU seconds per run.")
@click.option("--wall", "wall_s", default=10.0, show_default=True, type=click.FloatRange(0.5), help="Wall seconds per run.")
@click.option("--memory", "memory_mb", default=512, show_default=True, type=click.IntRange(64), help="Address space, MiB.")
@click.option("--memory-total", "total_memory_mb", default=None, type=click.IntRange(64),
              help="Memory of all a generation's processes together, MiB (own cgroup; default: --memory).")
@click.option("--no-stand-ins", is_flag=True,
              help="No inert stand-ins for unimportable modules, undefined globals, unset key-like variables.")
@click.option("--compat", type=click.Choice(["qare", "official"]), default="qare", show_default=True,
              help="official: judge host/endpoint/method (Mock) by the release evaluator's rules on the first "
                   "captured request (docs/sccg.md, Differences).")
def execute(generations, gold, out, jobs, sandbox, cpu_s, wall_s, memory_mb, total_memory_mb, no_stand_ins, compat):
    """Run each generation in its own sandboxed process with fake HTTP
    libraries and score the requests it attempts against the gold record.

    GENERATIONS is JSONL: {"sample_id", "code"} or {"sample_id",
    "generations": [...]}. Generated code runs under bubblewrap (no network,
    nothing of the host but the interpreter and /usr); without a working
    bubblewrap this exits 4 unless --sandbox none-unsafe. Prints the summary
    (see `qare sccg score`)."""
    from metrics.sccg import Limits, SandboxExposure, SandboxUnavailable, evaluate, summarise

    _sandbox_or_exit(sandbox, [gold, generations])
    gens, errors = _read_jsonl(generations)
    golds_list, gold_errors = _read_gold(gold)
    errors += gold_errors
    # {"generations": []} holds nothing to run; a non-list becomes one error row
    total = sum(len(g["generations"]) if isinstance(g.get("generations"), list) else 1 for g in gens)
    if not total:
        _no_input(f"{generations}: no generations", errors)
    if not golds_list:
        _no_input(f"{gold}: no gold records", errors)
    golds = {g.get("sample_id"): g for g in golds_list}
    limits = Limits(cpu_s=cpu_s, wall_s=wall_s, memory_mb=memory_mb, total_memory_mb=total_memory_mb)
    rows = []
    w = _Out(out)
    try:
        from tqdm import tqdm

        for row in tqdm(evaluate(gens, golds, n_jobs=jobs, limits=limits, sandbox=sandbox,
                                 protected=(gold, generations), stand_ins=not no_stand_ins, compat=compat),
                        total=total,
                        disable=not sys.stderr.isatty(), unit="gen"):
            w.write(row)
            if row["error"]:
                errors.append(f"{row['sample_id']}#{row['generation']}: {row['error']}")
            else:
                rows.append(row)
    except (SandboxUnavailable, SandboxExposure) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exitcodes.FATAL)
    finally:
        w.close()
    _finish(errors, summarise(rows)["overall"])


@sccg.command(short_help="pass@k and Host@K/Endpoint@K from execution results.", epilog=epilog(
    "some rows were malformed (each reported)",
    "RESULTS missing or holding no scored row",
    "an input file cannot be read"))
@click.argument("results", type=str)
@click.option("--k", "ks", default="1,3,5", show_default=True, help="pass@k values, comma-separated.")
@click.option("--candidates", type=str, default=None,
              help="JSONL {sample_id, candidates: [url | {host, route}]} for Host@K/Endpoint@K (needs --gold).")
@click.option("--gold", type=str, default=None, help="Gold records (JSONL), for --candidates.")
@click.option("--retrieval-k", default="1,3,5,10", show_default=True, help="K values for Host@K/Endpoint@K.")
def score(results, ks, candidates, gold, retrieval_k):
    """Summarise per-generation RESULTS of `qare sccg execute`: metric means,
    groups by doc_match_type and comments_source, failure attribution,
    pass@k; with --candidates, Host@K and Endpoint@K. Prints JSON."""
    from metrics.sccg import retrieval_at_k, summarise

    def _ints(text, name):
        try:
            vals = tuple(int(x) for x in text.split(",") if x.strip())
        except ValueError:
            raise click.BadParameter(f"expected comma-separated integers, got {text!r}", param_hint=name) from None
        if not vals or min(vals) < 1:
            raise click.BadParameter("values must be >= 1", param_hint=name)
        return vals

    k_values = _ints(ks, "--k")
    rows, errors = _read_jsonl(results)
    scored = [r for r in rows if isinstance(r.get("scores"), dict) and "sample_id" in r]
    if not scored and not candidates:
        _no_input(f"{results}: no scored rows", errors)
    out = summarise(scored, ks=k_values)
    if candidates:
        if not gold:
            raise click.UsageError("--candidates needs --gold")
        cands, e1 = _read_jsonl(candidates)
        golds, e2 = _read_jsonl(gold)
        errors += e1 + e2
        if not scored and not cands:
            _no_input(f"no scored rows in {results}, no candidates in {candidates}", errors)
        out["retrieval"] = retrieval_at_k({c.get("sample_id"): c.get("candidates") or [] for c in cands},
                                          {g.get("sample_id"): g for g in golds}, _ints(retrieval_k, "--retrieval-k"))
    click.echo(json.dumps(out, indent=2))
    _finish(errors)


@sccg.command("check-gold", short_help="Diagnose gold records: does each record's own code hit its annotation?",
              epilog=epilog("some records could not be read or run (each reported)", "no records to check",
                            _UNREADABLE + ", or no working sandbox"))
@click.argument("records", type=str)
@click.option("--out", "-o", default="-", show_default=True, help="JSONL, one diagnosis per record ('-' = stdout).")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 256), help="Sandboxes at a time.")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "none-unsafe"]), default="auto", show_default=True,
              help="As for `qare sccg execute`.")
@click.option("--wall", "wall_s", default=30.0, show_default=True, type=click.FloatRange(0.5),
              help="Wall seconds per run (gold files import real stacks: openai, fastapi, matplotlib).")
def check_gold_cmd(records, out, jobs, sandbox, wall_s):
    """Run each gold record's own code against its own annotation (with
    stand-ins) and say, per record, whether it hits and if not why:
    hit, annotation_mismatch, framework_context, dynamic_url, broken_code,
    no_request. RECORDS: JSONL or the release's JSON array. Prints counts per
    class on stderr."""
    from collections import Counter

    from metrics.sccg import Limits, SandboxExposure, SandboxUnavailable, check_gold

    _sandbox_or_exit(sandbox, [records])
    recs, errors = _read_gold(records)
    if not recs:
        _no_input(f"{records}: no records", errors)
    counts: Counter = Counter()
    w = _Out(out)
    try:
        for row in check_gold(recs, n_jobs=jobs, limits=Limits(wall_s=wall_s), sandbox=sandbox, protected=(records,)):
            counts[row["class"]] += 1
            w.write(row)
    except (SandboxUnavailable, SandboxExposure) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exitcodes.FATAL)
    finally:
        w.close()
    _finish(errors, {"n": sum(counts.values()), "classes": dict(counts.most_common())})


COMMANDS = [sccg]
