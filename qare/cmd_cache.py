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
        if cache is None:
            for line in [*_named_repository(path.parent), *_other_entries(path.parent, {path.name})]:
                click.echo(line)
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
    if cache is None:
        for line in [*_named_repository(path.parent), *_other_entries(path.parent, {path.name, rows.name})]:
            click.echo(line)


def _named_repository(folder: Path) -> list[str]:
    """The local Maven repository ``$QARE_MAVEN_REPO_LOCAL`` names, when it
    lies outside the cache folder: every command downloads the libraries'
    jars there, and a new user looking for them in the folder's listing
    found only the folder's own ``m2`` (new-user pass, session 7)."""
    import os

    from callgraph._mvn_resolve import REPO_LOCAL_ENV, default_repo_local

    if not os.environ.get(REPO_LOCAL_ENV):
        return []
    repo = default_repo_local()
    try:
        inside = Path(os.path.realpath(repo)).is_relative_to(Path(os.path.realpath(folder)))
    except OSError:
        inside = False
    if inside:
        return []  # listed below as part of the folder's entries
    return [f"local Maven repository (${REPO_LOCAL_ENV}): {repo}, {_mb(_tree_bytes(repo))}"]


#: what each entry of the qare cache folder holds (docs/security.md "Caches"); others are listed by name
_ENTRIES = {
    "m2": "the local Maven repository: libraries' jars, their javadoc and sources jars, resolutions",
    "repos": "projects cloned by qare build",
    "javadoc-index": "javadoc jars' member indexes",
    "jar-index.sqlite": "libraries' jar listings, 128 MiB at most",
    "jdt": "Eclipse JDT's classpath listing and runner, for --resolver jdt and qare crosscheck",
    "llm": "language-model replies of qare build --translate-cmd/--describe-cmd",
    "graphs.sqlite.out": "qare graph --out files of stored graphs, 4 entries and 1 GiB at most",
    "jimage-index-*.json": "JDK module image indexes, 8 at most",
    "callgraph.sqlite.index": "project index snapshots of the warm cache, 3 at most",
    "leaks": "the leak check's common-word answers",
}


def _other_entries(folder: Path, shown: set) -> list[str]:
    """One line per other entry of the cache folder: its size (links not
    followed, files counted once) and what it holds — a new user looking for
    the disk space found only the two SQLite files listed."""
    import os

    sizes: dict[str, int] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if name in shown or any(name == f"{s}{x}" for s in shown for x in ("-wal", "-shm")):
            continue
        group = "jimage-index-*.json" if name.startswith("jimage-index-") and name.endswith(".json") else name
        sizes[group] = sizes.get(group, 0) + _tree_bytes(folder / name)
    if not sizes:
        return []
    return [f"other entries of {folder}:"] + [
        f"  {_mb(n):>10s}  {group}" + (f"  ({_ENTRIES[group]})" if group in _ENTRIES else "")
        for group, n in sizes.items()]


def _tree_bytes(path: Path) -> int:
    import os
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return 0
    if stat.S_ISREG(st.st_mode):
        return st.st_size
    if not stat.S_ISDIR(st.st_mode):
        return 0  # a link, a FIFO, a device: not followed, not counted
    total, stack = 0, [str(path)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
        except OSError:
            pass
    return total


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
