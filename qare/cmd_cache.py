"""`qare cache`: what qare's call-graph caches hold, and pruning the graph store."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .exitcodes import FATAL, epilog


def _mb(n: int) -> str:
    return f"{n / 2 ** 20:.1f} MB"


@click.command("cache", epilog=epilog(None, None, "the graph store cannot be opened or written"),
               short_help="Show the call-graph caches; prune the graph store.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The warm build cache file whose graph store to show (default <qare cache>/callgraph.sqlite, "
                   "store <qare cache>/graphs.sqlite).")
@click.option("--prune", "prune", is_flag=True,
              help="Delete the least recently used stored graphs beyond the size bound now "
                   "(--max-bytes, else $QARE_GRAPH_STORE_MAX_BYTES, else 2 GiB).")
@click.option("--max-bytes", type=click.IntRange(min=0), default=None,
              help="The bound --prune applies (0: delete every stored graph).")
def cache_cmd(cache, prune, max_bytes):
    """Print the graph store's graphs (project, LOC mode, size, last use) and
    the sizes of the cache files; --prune applies the size bound
    (docs/callgraph.md "Graph store")."""
    import sqlite3

    from callgraph._graphstore import default_path, max_bytes as bound, open_store

    path = default_path(cache)
    if path is None:
        click.echo("the qare cache folder is off (QARE_CACHE_DIR)")
        return
    if not path.exists() and not prune:
        click.echo(f"graph store {path}: none yet")
        return
    store, refused = open_store(cache)
    if store is None:
        click.echo(f"error: graph store {path} not usable: {refused or 'cannot be opened'}", err=True)
        sys.exit(FATAL)
    try:
        if prune:
            n = store.prune(max_bytes)
            click.echo(f"pruned {n} stored graph{'s' if n != 1 else ''}")
        graphs = store.graphs()
    except sqlite3.Error as e:
        click.echo(f"error: graph store {path}: {e}", err=True)
        sys.exit(FATAL)
    finally:
        store.close()
    total = sum(g["bytes"] for g in graphs)
    click.echo(f"graph store {path}: {len(graphs)} graph{'s' if len(graphs) != 1 else ''}, {_mb(total)} of rows "
               f"(bound {_mb(bound())}), file {_mb(_file_bytes(path))}")
    for g in graphs:
        if g["problem"]:  # a row this version did not write: said, and deleted by the next write or --prune
            click.echo(f"  {'?':>10s}  bad row ({g['problem']}; deleted on the next write)  {g['project']}")
            continue
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(g["used"]))
        click.echo(f"  {_mb(g['bytes']):>10s}  used {used}  {g['loc_mode']:8s}  {g['project']}")
    rows = path.with_name("callgraph.sqlite") if cache is None else Path(cache)
    if rows.is_file():
        click.echo(f"warm per-file cache {rows}: file {_mb(_file_bytes(rows))} (no bound; delete it to reclaim)")


def _file_bytes(path: Path) -> int:
    """The SQLite file and its write-ahead log."""
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += Path(f"{path}{suffix}").stat().st_size
        except OSError:
            pass
    return total


COMMANDS = [cache_cmd]
