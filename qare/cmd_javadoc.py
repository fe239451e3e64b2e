"""``qare javadoc``: API description records from javadoc sites and sources."""

from __future__ import annotations

import json
import sys
from collections import Counter

import click

from ._options import jobs_option
from .exitcodes import FATAL, NO_INPUT, PARTIAL, epilog


_EPILOG = epilog(
    "some input could not be read or had a broken page (each reported as FILE: REASON)",
    "no documented member found in PATHS",
    "cannot write --out")


@click.command("javadoc", epilog=_EPILOG, short_help="API description records from javadoc sites and sources.")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--out", "out", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="JSONL file of API records (the apis.jsonl format); '-' writes to stdout.")
@click.option("--library", default=None, metavar="GROUP:ARTIFACT:VERSION", help="Value of the records' library field.")
@jobs_option("Processes parsing a site's pages")
def javadoc(paths, out, library, jobs):
    """Read javadoc sites (*-javadoc.jar, zips of sites, site folders; JDK 8,
    11, 17+ and 25 layouts) and Java sources (*-sources.jar, source folders)
    and write one API record per method, constructor, field, enum constant
    and annotation element: id, description, first sentence, @param,
    @return, @throws, deprecation. Prints counts by layout and kind, and every
    problem as FILE: REASON. See docs/javadoc.md."""
    from javadoc import DocIndex

    index = DocIndex.open(*paths, workers=jobs)
    members = index.members()
    summary = sys.stderr if out == "-" else sys.stdout
    if members:
        try:
            fh = sys.stdout if out == "-" else open(out, "w", encoding="utf-8")  # noqa: SIM115 - or stdout
        except OSError as exc:
            click.echo(f"error: cannot write {out}: {exc}", err=True)
            sys.exit(FATAL)
        try:
            for m in members:
                fh.write(json.dumps(m.to_dict(library), ensure_ascii=False) + "\n")
        finally:
            if fh is not sys.stdout:
                fh.close()
    by_layout = Counter(m.layout.value for m in members)
    by_kind = Counter(m.kind for m in members)
    for ds in index.docsets:
        layout = ds.layout.value if ds.layout else "-"
        unit = "files" if layout == "sources" else "pages"
        click.echo(f"{ds.source}: {layout}, {ds.pages} {unit}, {len(ds.classes)} types, "
                   f"{len(ds.members)} members", file=summary)
    click.echo("members by layout: " + (", ".join(f"{k} {v}" for k, v in sorted(by_layout.items())) or "none"),
               file=summary)
    click.echo("members by kind: " + (", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())) or "none"),
               file=summary)
    for where, reason in index.warnings:
        click.echo(f"warning: {where}: {reason}", err=True)
    if not members:
        click.echo("error: no documented members found", err=True)
        sys.exit(NO_INPUT)
    if index.warnings or index.failed:
        sys.exit(PARTIAL)


COMMANDS = [javadoc]
