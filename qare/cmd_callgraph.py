"""`qare graph` and `qare chain`: the call graph of one Java project."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

import click

from callgraph._gcpause import survivors_frozen

from ._options import deprecated_alias, jobs_option, quiet_option
from .exitcodes import FATAL, NO_INPUT, PARTIAL, epilog

_PROJECT = click.argument("project", type=click.Path(path_type=Path))


def _classpath_options(f):
    f = deprecated_alias("--auto-classpath/--no-auto-classpath", "--discover-classpath/--no-discover-classpath",
                         "discover_classpath")(f)
    f = jobs_option("Worker processes parsing files")(f)
    f = click.option("--discover-classpath/--no-discover-classpath", "discover_classpath", default=True,
                     show_default=True,
                     help="Add the project's libraries, resolved by Maven from a sanitised copy of its poms "
                          "(Gradle: its declared coordinates) into qare's Maven cache; one stderr line says "
                          "what was resolved and what not (docs/classpath.md).")(f)
    f = maven_options(f)
    f = click.option("--classpath", "classpath", multiple=True, type=click.Path(exists=True, path_type=Path),
                     help="A dependency jar/zip or class folder (repeatable); a missing path is a usage "
                          "error, an unreadable one a warning.")(f)
    f = quiet_option()(f)
    f = click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="The warm build cache: an SQLite file of per-file declarations and resolved call "
                          "sites, invalidated by content and declarations (default <qare cache>/callgraph.sqlite; "
                          "docs/callgraph.md \"Warm cache\").")(f)
    f = click.option("--no-cache", "no_cache", is_flag=True,
                     help="Neither read nor write the warm build cache nor the stored graphs "
                          "(`qare chain` then always rebuilds).")(f)
    f = deprecated_alias("--loc", "--loc-mode", "loc_mode", type=click.Choice(["physical", "code"]))(f)
    f = click.option("--loc-mode", "loc_mode", type=click.Choice(["physical", "code"]), default="physical",
                     show_default=True, help="LOC of a method: physical lines, or non-blank non-comment lines.")(f)
    return f


def maven_options(f):
    """--offline, --maven-repo-local, --user-m2 (shared with qare build)."""
    f = click.option("--offline", is_flag=True,
                     help="Resolve libraries from the local Maven repository only (Maven's -o); "
                          "what is missing is reported.")(f)
    f = click.option("--user-m2", is_flag=True,
                     help="Use ~/.m2/repository as the local Maven repository instead of qare's cache.")(f)
    f = click.option("--maven-repo-local", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="The local Maven repository (default $QARE_MAVEN_REPO_LOCAL, "
                          "else <qare cache>/m2/repository).")(f)
    return f


def repo_local_of(maven_repo_local, user_m2):
    """The local repository chosen by --maven-repo-local / --user-m2 (None: qare's cache)."""
    if maven_repo_local is not None and user_m2:
        raise click.UsageError("--maven-repo-local and --user-m2 exclude each other")
    if user_m2:
        return Path.home() / ".m2" / "repository"
    return maven_repo_local


def _size(n: int) -> str:
    return f"{n / 1024 ** 2:.1f} MiB" if n >= 1024 ** 2 else f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} B"


def resolution_line(r) -> str:
    """One line on how the project's libraries were resolved (and what was not)."""
    if not r.build_files:
        return "classpath: no pom.xml or build.gradle(.kts) in the project; no libraries added"
    line = (f"classpath ({r.method.value}): {len(r.jars)} jar{'s' if len(r.jars) != 1 else ''}, "
            f"{len(r.unresolved)} unresolved")
    if r.unresolved:
        shown = [f"{f.coords} ({f.reason.value})" for f in r.unresolved[:4]]
        line += ": " + ", ".join(shown) + (f", … {len(r.unresolved) - 4} more" if len(r.unresolved) > 4 else "")
        refused = [f for f in r.unresolved if f.reason.value == "cache-not-private"
                   or (f.coords == "*" and f.reason.value == "refused")]
        if refused:  # the whole resolution was refused: which folder and what to do
            line += f"; {refused[0].detail}"
    line += ("; cached result" if r.from_cache else
             f"; {r.downloads} file{'s' if r.downloads != 1 else ''} downloaded ({_size(r.bytes_downloaded)})")
    line += f" in {r.seconds:.1f} s"
    if r.warnings:
        line += f"; {len(r.warnings)} build-file warning(s), first: {r.warnings[0][0]}: {r.warnings[0][1]}"
    return line


def _show_resolution(r, quiet: bool) -> bool:
    """Print the classpath line? Always, unless ``-q``; with ``-q`` only when it
    reports a failure (a dependency not resolved, a build-file warning): the
    reason of exit code 1 is never hidden."""
    return not quiet or bool(r.unresolved) or bool(r.warnings)


def _has_class_files(entry: Path) -> bool:
    """Does a jar/zip or folder given with --classpath hold any class file? (unreadable: True, the index says why)"""
    import zipfile

    try:
        if entry.is_dir():
            return next(iter(entry.rglob("*.class")), None) is not None
        with zipfile.ZipFile(entry) as zf:
            return any(n.endswith(".class") for n in zf.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return True


def _effective_classpath(project, classpath, discover_classpath, offline=False, maven_repo_local=None,
                         user_m2=False, quiet=False) -> list:
    """--classpath entries plus, with --discover-classpath, the libraries Maven resolves
    (one stderr line unless ``quiet``), for engines that take a jar list (JDT)."""
    cp = list(classpath)
    if discover_classpath and Path(project).is_dir():
        try:
            from callgraph.classpath import with_resolved

            cp, r = with_resolved(project, cp, offline=offline, repo_local=repo_local_of(maven_repo_local, user_m2))
        except Exception as e:  # resolution is best effort: say so, go on without
            click.echo(f"warning: classpath resolution failed: {type(e).__name__}: {e}", err=True)
        else:
            if _show_resolution(r, quiet):
                click.echo(resolution_line(r), err=True)
    return cp


_MAX_FILE_BYTES = 2_000_000  # build_project_graph's default, which the CLI keeps


class _Inputs:
    """What a build of PROJECT starts from, found before it runs: the
    discovered sources, the final classpath and its resolution, the JDK home
    (the graph store's key, callgraph._graphstore)."""

    def __init__(self, project, classpath, discover_classpath, quiet, offline, repo_local):
        import time

        from callgraph._discover import discover_sources
        from callgraph.classpath import find_jdk

        #: the process's age when the build's work began: its start-up phase
        from callgraph._cputime import cpu as _cpu

        self.startup = process_age()
        t0, c0 = time.perf_counter(), _cpu()
        self.files, self.skipped = discover_sources(project, max_file_bytes=_MAX_FILE_BYTES)
        t1, c1 = time.perf_counter(), _cpu()
        self.discover_seconds, self.discover_cpu = t1 - t0, c1 - c0
        self.classpath = list(classpath)
        self.resolution = None
        if discover_classpath and Path(project).is_dir():
            from callgraph.classpath import with_resolved
            from records.progress import Heartbeat

            on_terminal = sys.stderr.isatty()
            # elsewhere than a terminal (a log, nohup) a plain line every ~10 s, as during the build: a first
            # resolution downloads for a minute or two (a new user, session 8: 23 s without a line)
            with Heartbeat(f"qare: resolving the libraries of {project}", enabled=not quiet and not on_terminal):
                self.classpath, self.resolution = with_resolved(project, self.classpath, offline=offline,
                                                                repo_local=repo_local,
                                                                progress=not quiet and on_terminal)
        self.classpath_seconds = time.perf_counter() - t1
        # Maven runs in a child process: its CPU reaches _cpu (RUSAGE_CHILDREN) once it is reaped, here
        self.classpath_cpu = _cpu() - c1
        self.jdk_home = find_jdk("auto")
        #: set by ``_from_store`` when the store's graph was read but its inputs changed: the look-up's
        #: time and that graph (what ``_build`` patches)
        self.lookup_seconds = self.lookup_cpu = 0.0
        self.previous = None
        #: why the graph store did not answer (its look-up's reason): said after the build ("graph: built and stored")
        self.why = None
        #: what the look-up's check took (``_graphstore._unchanged``): the build's fingerprint reuses it
        self.probe: dict = {}


def _open_graph_store(cache, no_cache):
    """The graph store beside the warm cache (None with --no-cache or when it is refused: said on stderr)."""
    if no_cache:
        return None
    from callgraph._graphstore import open_store

    store, refused = open_store(cache)
    if refused:
        click.echo(f"warning: graph store not used: {refused}", err=True)
    return store


def _silent(*_args, **_kw) -> None:
    pass


def _report_build(pg, classpath, quiet, echo=click.echo, given=None) -> bool:
    """The stderr lines of a build (classpath line unless ``quiet``, classpath
    warnings); True when a jar or class folder of the classpath could not be
    read in full. ``echo``: where the lines go (a build made again after a bad
    stored row says nothing its first one said); ``given``: the entries to
    warn about when they hold no class file (default ``classpath``)."""
    if pg.resolution is not None and _show_resolution(pg.resolution, quiet):
        echo(resolution_line(pg.resolution), err=True)
    # an entry that is no jar/zip/class folder is skipped by the index: say which and why
    warned = {entry for entry, _ in pg.summary.classpath_warnings}
    for entry in (classpath if given is None else given):
        if str(entry) not in warned and not _has_class_files(entry):
            echo(f"warning: classpath entry {entry}: no .class files in it; it adds no library types", err=True)
    entries = {os.path.realpath(p) for p in classpath}
    if pg.resolution is not None:
        entries.update(os.path.realpath(j) for j in pg.resolution.jars)
    failed = False
    for entry, why in pg.summary.classpath_warnings:
        ignored = why.startswith(("unreadable classpath entry", "classpath entry does not exist", "not a jar, zip"))
        # the JDK's own files and the cache folder are named as they are, not as classpath
        # entries (a 0777 cache folder was "classpath entry <cache folder>": new user, session 7)
        what = "classpath entry " if os.path.realpath(entry) in entries else ""
        echo(f"warning: {what}{entry}: {why}" + ("; ignored" if ignored else ""), err=True)
        # a jar or class folder that failed (truncated, bad CRC, corrupt class) is an input that
        # failed: exit 1; notes about the JDK's own class data are not
        failed = failed or os.path.realpath(entry) in entries
    if pg.summary.cache.get("refused"):
        echo(f"warning: warm cache not used: {pg.summary.cache['refused']}", err=True)
    if pg.summary.cache.get("snapshots_refused"):  # the key or the snapshot folder (callgraph._snapshot)
        echo(f"warning: index snapshots not used: {pg.summary.cache['snapshots_refused']}", err=True)
    return failed


def _build(project, classpath, discover_classpath, jobs, quiet, loc_mode, cache=None, offline=False,
           maven_repo_local=None, user_m2=False, no_cache=False, inputs=None, store=None, store_later=None,
           patch=False, compact=False, report=True, given=None):
    """``(ProjectGraph, classpath_failed)``: warnings printed (not with
    ``report`` False: a build made again, whose first one printed them);
    ``given``: the classpath entries the user named, each warned about when
    it holds no class file (default ``classpath``; a caller that passes
    Maven's jars in ``classpath`` names the user's own: an empty starter
    jar is no mistake of theirs);
    ``classpath_failed``
    when a jar or class folder of the classpath could not be read in full.
    With ``store`` (a ``GraphStore``) the graph is stored, keyed by
    ``inputs`` (an ``_Inputs``, found now when not given) fingerprinted
    before the build reads a file; with a list ``store_later`` it is not
    stored yet: ``(store, inputs fingerprint, save)`` is appended, ``save()``
    storing it (and timing the ``store`` phase) when the caller chooses.
    With ``patch`` (and a store) a build after body edits may be the stored
    graph patched (``callgraph._patch.PatchedGraph``): it reads the stored
    graph until ``save()`` (which releases it) — write ``--out`` first.
    With ``compact`` the graph is kept as arrays (``callgraph._compact``:
    what the store and the JSON writer read; ``networkx`` on demand)."""
    import dataclasses
    import time

    t_imports = time.perf_counter()
    import callgraph
    from callgraph import build_project_graph  # noqa: F401  (imported lazily: counted in start-up, below)
    from records.progress import Heartbeat

    t_imports = time.perf_counter() - t_imports

    repo_local = repo_local_of(maven_repo_local, user_m2)
    on_terminal = sys.stderr.isatty()
    inputs_found_first = inputs is not None
    try:
        if inputs is None:
            inputs = _Inputs(project, classpath, discover_classpath, quiet, offline, repo_local)
    except callgraph.NoInputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(NO_INPUT)
    # start-up ends where the inputs' discovery began (the caller may have found
    # them before asking the store): the discover and classpath phases follow it
    startup = inputs.startup
    t_fp, c_fp = time.perf_counter(), time.process_time()
    fp = previous = stored = None
    if store is not None:
        from callgraph._graphstore import fingerprint

        # the slot's stored graph: what a build after body edits patches (callgraph._patch); read by the
        # look-up already when there was one
        stored = getattr(inputs, "previous", None)
        if stored is None and patch:
            stored = store.previous(project, loc_mode, _MAX_FILE_BYTES)
        elif stored is not None and not patch:
            stored.close()
            stored = None
        # the digests of files unchanged by the stat rule since the slot's last fingerprint are not read again
        previous = stored.inputs if stored is not None else store.stored_inputs(project, loc_mode, _MAX_FILE_BYTES)
        fp = fingerprint(project, inputs.files, inputs.skipped, inputs.classpath, inputs.jdk_home, loc_mode,
                         _MAX_FILE_BYTES, previous=previous, probe=inputs.probe)
        # the warm cache's facts keys take these digests instead of hashing every file again
        from callgraph._build import remember_digests

        remember_digests(fp.files, fp.taken_ns, _MAX_FILE_BYTES)
    t_fp, c_fp = time.perf_counter() - t_fp, time.process_time() - c_fp
    t_fp += getattr(inputs, "lookup_seconds", 0.0)  # the look-up that found the inputs changed
    c_fp += getattr(inputs, "lookup_cpu", 0.0)
    # bars on a terminal; elsewhere (a log, nohup) one plain line every ~10 s
    beat = Heartbeat(f"qare: call graph of {project}", enabled=not quiet and not on_terminal)
    pg = None
    try:
        with beat:
            # the files and classpath found above, not walked or resolved again: the store's key is what was built
            pg = callgraph.build_project_graph(
                project, classpath=inputs.classpath, auto_classpath=False, jobs=jobs,
                progress=not quiet and on_terminal, loc_mode=loc_mode, cache=None if no_cache else (cache or "auto"),
                offline=offline, maven_repo_local=repo_local, max_file_bytes=_MAX_FILE_BYTES,
                sources=(inputs.files, inputs.skipped), previous=stored, compact=compact)
    except callgraph.NoInputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(NO_INPUT)
    finally:
        from callgraph._build import forget_digests

        forget_digests()
        # a patched graph reads the stored one until it is saved; nothing else does
        if stored is not None and not hasattr(pg, "release"):
            stored.close()
    pg.resolution = inputs.resolution
    # what --out is patched from after body edits (qare._outpatch): this build's inputs and the slot's last
    pg.inputs, pg.previous_inputs = fp, previous
    phases = pg.summary.phases
    phases["classpath"] = round(phases.get("classpath", 0.0) + inputs.classpath_seconds, 3)
    phases["discover"] = round(phases.get("discover", 0.0) + inputs.discover_seconds, 3)
    # the CPU of the discovery and classpath resolution made before the build (Maven's own process included)
    for k, v in (("classpath_cpu", inputs.classpath_cpu), ("discover_cpu", inputs.discover_cpu)):
        phases[k] = round(phases.get(k, 0.0) + v, 3)
    phases["total_cpu"] = round(phases.get("total_cpu", 0.0) + inputs.classpath_cpu + inputs.discover_cpu, 3)
    # "time: build" names discover and classpath among its parts: those found before the build count in it
    pg.summary = dataclasses.replace(pg.summary,
                                     seconds=pg.summary.seconds + inputs.discover_seconds + inputs.classpath_seconds)
    failed = _report_build(pg, classpath, quiet, **({} if report else {"echo": _silent}),
                           given=classpath if given is None else given)
    # the imports above, made after the inputs were found when the graph store was asked first
    phases["startup"] = round(startup + (t_imports if inputs_found_first else 0.0), 3)
    if store is not None:
        def save(encoded=None) -> None:
            t_store, c_store = time.perf_counter(), time.process_time()
            release = getattr(pg, "release", None)
            if release is not None:
                release()  # a patched graph's stored one: its read transaction ends before the write
            # the store write makes no cyclic garbage; a full collection over
            # java.base's graph cost it 1.4 of its ~4 CPU-s
            with _gc_paused():
                store.save(fp, pg, encoded)
            phases["store"] = round(t_fp + time.perf_counter() - t_store, 3)
            phases["store_cpu"] = round(c_fp + time.process_time() - c_store, 3)

        if store_later is None:
            save()
        else:
            store_later.append((store, fp, save))
    return pg, failed


_DISPATCH_HELP = ("Dispatch of calls on a supertype (docs/callgraph.md \"Dispatch\"): rta = only overrides of "
                  "types the program instantiates (new, anonymous classes, lambdas, Spring beans); cha = every "
                  "overriding project method; declared = declared targets only.")


def _dispatch_option(f):
    from callgraph._graph import DEFAULT_DISPATCH, DISPATCH_MODES

    return click.option("--dispatch", type=click.Choice(list(DISPATCH_MODES)), default=DEFAULT_DISPATCH,
                        show_default=True, help=_DISPATCH_HELP)(f)


def _summary_text(s) -> str:
    lines = [f"files: {s.files}  lines: {s.lines}  methods: {s.methods}  call sites: {s.call_sites}"]
    share = s.resolved_share()
    kinds = "  ".join(f"{k}: {v}" for k, v in s.resolved.items())
    lines.append(f"resolved: {kinds}  unresolved: {s.unresolved}  (resolved share {share:.1%}: exact+arity+local; name edges are guesses by name); "
                 f"cha edges: {s.cha_edges} (of which witnessed by instantiated types, followed by rta: "
                 f"{s.rta_edges}; instantiated types: {s.instantiated_types})")
    st = getattr(s, "site_types", None) or {}
    ocs = s.on_classpath_share() if st else None
    if ocs is not None:
        on, off, unk = (st.get(k, 0) for k in ("third-party-on-classpath", "third-party-off-classpath", "unknown-type"))
        lines.append(f"third-party call sites with their type on the classpath: {on} of {on + off + unk} "
                     f"({ocs:.1%}; {off} of a type not on the classpath, {unk} of an unknown type, counted as not on it)")
    if s.top_reasons:
        lines.append("top reasons (unresolved / name):")
        for reason, n in s.top_reasons:
            ex = s.examples.get(reason)
            lines.append(f"  {n:7d}  {reason}" + (f"  (e.g. {ex})" if ex else ""))
    if s.parse_errors:
        lines.append(f"parse errors in {len(s.parse_errors)} file(s):")
        for f, pos in s.parse_errors[:20]:
            lines.append(f"  {f}: " + ", ".join(f"{a}:{b}" for a, b in pos[:5]))
    if s.decoded_with_fallback:
        lines.append("decoded with a fallback encoding: "
                     + ", ".join(f"{f} ({e})" for f, e in s.decoded_with_fallback[:20]))
    notes = getattr(s, "notes", ())
    if notes:
        lines.append(f"notes ({len(notes)}, no failure):")
        for f, why in notes[:10]:
            lines.append(f"  {f}: {why}")
        if len(notes) > 10:
            lines.append(f"  … {len(notes) - 10} more")
    if s.skipped:
        lines.append(f"skipped {len(s.skipped)}:")
        for f, why in s.skipped[:20]:
            lines.append(f"  {f}: {why}")
    # the library's own wall time; start-up, store and output are on top (the next line's "process")
    if (getattr(s, "cache", None) or {}).get("graph_store") == "hit":
        # answered from the graph store: no build ran, so no build phases to name (the tester, session 7:
        # this line named parse, index and resolve for a run that had none)
        lines.append(f"time: no build (nothing it reads changed); the stored graph read in {s.seconds:.2f} s wall; "
                     "the whole run is 'process'")
    else:
        lines.append(f"time: build {s.seconds:.2f} s wall = discover + classpath + jdk index + parse + index "
                     "+ resolve + graph below; the whole run is 'process'")
    if s.phases:
        lines.append(phases_text(s.phases))
    return "\n".join(lines)


PHASES = ("startup", "discover", "classpath", "jdk_index", "parse", "index", "resolve", "graph", "store", "output",
          "chain")


def phases_text(phases: dict) -> str:
    """``phases: startup 0.4 s, … (wall); build CPU …; process 12.3 s (unaccounted 0.1 s)
    wall since start = the wall phases + unaccounted``: every phase of the run in
    order, in wall seconds; then the build's CPU seconds per phase (this process
    and its workers: more than the wall where workers ran side by side, less where
    the process waited); ``process`` is the age of this process now, and
    ``unaccounted`` what no phase holds (printing the summary)."""
    parts = [f"{k.replace('_', ' ')} {phases[k]:.2f} s" for k in PHASES if k in phases]
    line = "phases: " + ", ".join(parts) + " (wall)"
    if "total_cpu" in phases:  # CPU of the build (this process and its workers): wall minus waiting
        line += "; build CPU " + ", ".join(f"{k.replace('_', ' ')} {phases[k + '_cpu']:.2f} s"
                                           for k in PHASES if k + "_cpu" in phases) + " (all processes)"
    age = process_age()
    if "startup" in phases:
        accounted = sum(phases[k] for k in PHASES if k in phases)
        line += (f"; process {age:.2f} s (unaccounted {max(0.0, age - accounted):.2f} s) "
                 "wall since start = the wall phases + unaccounted")
    return line


def process_age() -> float:
    """Wall seconds since this process started (Linux: /proc/self/stat against
    the boot clock; elsewhere since qare was imported)."""
    import time

    try:
        with open("/proc/self/stat", "rb") as fh:
            start_ticks = int(fh.read().rpartition(b")")[2].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        import qare

        return time.perf_counter() - qare.IMPORTED_AT


_XML_BAD = dict.fromkeys([c for c in range(32) if c not in (9, 10, 13)] + [0xFFFE, 0xFFFF], "\ufffd")


def _xml_safe(text: str) -> str:
    return text.translate(_XML_BAD)


def _dispatch_view(g, dispatch: str):
    """``g`` without the dispatch edges that ``dispatch`` does not follow (``name`` edges stay)."""
    from callgraph._graph import follows_edge

    if dispatch == "cha":
        return g
    return g.edge_subgraph([(u, v) for u, v, d in g.edges(data=True)
                            if d["resolution"] == "name" or follows_edge(dispatch, d)]).copy() if g.number_of_edges() else g


_ENC_STR = json.encoder.py_encode_basestring if json.encoder.c_encode_basestring is None \
    else json.encoder.c_encode_basestring


def _indented(obj, prefix: str) -> str:
    """``json.dumps(obj, ensure_ascii=False, indent=1)`` nested at depth
    ``len(prefix)``: every line after the first carries ``prefix``.

    json's indenting encoder is pure Python and went through 17 M generator
    steps on java.base (the largest cost of ``qare graph --out``); this
    writes the same text from the C string escaper, one call per value.
    """
    if obj.__class__ is str:
        return _ENC_STR(obj)
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, int):
        return int.__repr__(obj)
    inner = prefix + " "
    if isinstance(obj, (list, tuple)):
        if not obj:
            return "[]"
        return "[\n" + ",\n".join(inner + _indented(v, inner) for v in obj) + "\n" + prefix + "]"
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        return "{\n" + ",\n".join(inner + _key(k) + ": " + _indented(v, inner) for k, v in obj.items()) \
            + "\n" + prefix + "}"
    if isinstance(obj, str):
        return _ENC_STR(obj)
    # floats (nan/inf spelled as json spells them) and anything else: json itself
    return json.dumps(obj, ensure_ascii=False, indent=1).replace("\n", "\n" + prefix)


def _key(k) -> str:
    if isinstance(k, str):
        return _ENC_STR(k)
    return json.dumps({k: 0}, ensure_ascii=False)[1:].rpartition(": ")[0]  # json's own key coercion


def write_node_link_json(g, fh, skip=frozenset()) -> None:
    """Write ``g`` as node-link JSON, a few thousand nodes or edges at a time.

    The text is exactly ``json.dumps(networkx.node_link_data(g, edges="edges"),
    ensure_ascii=False, indent=1)``, without building that dict or string
    (on a large project they took 4x the graph's own memory). Nodes in
    ``skip``, and the edges touching them, are left out, as if removed from
    ``g`` first (without copying it).
    """
    fh.write("{\n")
    fh.write(f' "directed": {json.dumps(g.is_directed())},\n')
    fh.write(f' "multigraph": {json.dumps(g.is_multigraph())},\n')
    fh.write(f' "graph": {_indented(g.graph, " ")},\n')
    strings: dict = {}  # encoded keys and a few thousand repeated values
    nodes = ((d, (("id", n),)) for n, d in g.nodes(data=True) if n not in skip)
    edges = ((d, (("source", u), ("target", v))) for u, v, d in g.edges(data=True)
             if u not in skip and v not in skip)
    for i, (key, items, text) in enumerate((("nodes", nodes, _item_text), ("edges", edges, _edge_text))):
        fh.write(f' "{key}": [')
        buf: list = []
        first = True
        for d, tail in items:
            buf.append(text(d, tail, strings))
            if len(buf) >= 256:
                fh.write(("\n" if first else ",\n") + ",\n".join(buf))
                first, buf = False, []
        if buf:
            fh.write(("\n" if first else ",\n") + ",\n".join(buf))
            first = False
        fh.write("]" if first else "\n ]")
        fh.write(",\n" if i == 0 else "\n")
    fh.write("}")


# values written often enough to keep their encoded text (kinds, source sets,
# libraries: a few thousand at most are kept, so memory stays bounded)
_REPEATED = frozenset({"kind", "resolution", "source_set", "library"})


_EDGE_KEYS = frozenset({("lines", "resolution"), ("lines", "resolution", "rta")})  # in this order


def _edge_text(d: dict, tail: tuple, strings: dict) -> str:
    """``_item_text`` for the edges ``build_project_graph`` makes (``lines``
    ints, ``resolution`` and ``rta`` strings), in one format call; any other
    edge goes through ``_item_text``."""
    lines, res = d.get("lines"), d.get("resolution")
    if tuple(d) not in _EDGE_KEYS or lines.__class__ is not list or not lines \
            or res.__class__ is not str or not set(map(type, lines)) <= _INT:
        return _item_text(d, tail, strings)
    rta = d.get("rta", ())
    if rta.__class__ is not tuple and rta.__class__ is not list or not set(map(type, rta)) <= _STR:
        return _item_text(d, tail, strings)
    (_s, u), (_t, v) = tail
    if u.__class__ is not str or v.__class__ is not str:
        return _item_text(d, tail, strings)
    r = strings.get(res)
    if r is None:
        r = strings[res] = _ENC_STR(res)
    head = '  {\n   "lines": [\n    ' + ",\n    ".join(map(int.__repr__, lines)) + '\n   ],\n   "resolution": ' + r
    if "rta" in d:
        head += ',\n   "rta": ' + ("[\n    " + ",\n    ".join(map(_ENC_STR, rta)) + "\n   ]" if rta else "[]")
    return f'{head},\n   "source": {_ENC_STR(u)},\n   "target": {_ENC_STR(v)}\n  }}'


_INT, _STR = frozenset({int}), frozenset({str})


def _item_text(d: dict, tail: tuple, strings: dict) -> str:
    """``"  " + _indented({**d, **dict(tail)}, "  ")`` for one node or edge,
    without the merged dict: scalars and flat lists of str/int are written
    here, anything else by ``_indented``."""
    if any(k in d for k, _ in tail):  # a tail key would replace d's value in place: keep json's order
        return "  " + _indented({**d, **dict(tail)}, "  ")
    parts = []
    for k, v in (*d.items(), *tail):
        kt = strings.get(k)
        if kt is None:
            kt = strings[k] = _key(k)
        c = v.__class__
        if c is str:
            if k in _REPEATED:
                t = strings.get(v)
                if t is None:
                    t = _ENC_STR(v)
                    if len(strings) < 4096:
                        strings[v] = t
            else:
                t = _ENC_STR(v)
        elif v is None:
            t = "null"
        elif c is bool:
            t = "true" if v else "false"
        elif c is int:
            t = int.__repr__(v)
        elif (c is list or c is tuple) and all(x.__class__ is int for x in v):
            t = "[\n    " + ",\n    ".join(map(int.__repr__, v)) + "\n   ]" if v else "[]"
        elif (c is list or c is tuple) and all(x.__class__ is str for x in v):
            t = "[\n    " + ",\n    ".join(map(_ENC_STR, v)) + "\n   ]" if v else "[]"
        else:
            t = _indented(v, "   ")
        parts.append(f"   {kt}: {t}")
    return "  {\n" + ",\n".join(parts) + "\n  }" if parts else "  {}"


def _unknown_owner(node: str) -> bool:
    """Is the declaring type of this API node unknown (``?.add(*)``, ``?Foo.bar(*)``)?"""
    head = node.partition("(")[0]
    owner = head.rpartition(".")[0]
    return not owner or any(part.startswith("?") for part in owner.split("."))


def _unresolved_nodes(g) -> list:
    """API nodes whose declaring type is unknown (see ``export_graph``)."""
    return [n for n, d in g.nodes(data=True) if d.get("kind") == "api" and _unknown_owner(n)]


def export_graph(g, include_unresolved: bool = False):
    """The graph as exported by ``qare graph --out``: every node's ``kind`` is
    ``method`` (a project method), ``api`` (a library method; id ends in
    ``(*)`` when the overload is undecided) or ``unresolved`` (an API node
    whose declaring type is unknown, e.g. ``?.add(*)``: the receiver's type
    could not be found, so the node names no real API). ``unresolved`` nodes
    and their edges are left out unless ``include_unresolved``. Returns
    ``(graph, number of nodes left out)``; ``g`` is not changed."""
    bad = _unresolved_nodes(g)
    if not bad:
        return g, 0
    h = g.copy()
    if include_unresolved:
        for n in bad:
            h.nodes[n]["kind"] = "unresolved"
        return h, 0
    h.remove_nodes_from(bad)
    return h, len(bad)


def _write_graph(g, out: Path, skip=frozenset()) -> None:
    """Write ``g`` to ``out`` (format by suffix); ``skip`` (nodes left out
    with their edges) only for ``.json``."""
    import networkx as nx

    suffix = out.suffix.lower()
    if skip and suffix != ".json":
        raise ValueError("skip is for .json output only")
    if suffix == ".json":
        from records.io import atomic_writer

        with atomic_writer(out, fsync=False) as fh:  # as before: renamed into place, not fsynced
            write_node_link_json(g, fh, skip)
    elif suffix == ".graphml":
        # GraphML has no null and no lists: drop None, join lines with ","; XML 1.0
        # cannot hold most control characters (form feeds occur in comments)
        h = nx.DiGraph()
        for n, d in g.nodes(data=True):
            h.add_node(n, **{k: (_xml_safe(v) if isinstance(v, str) else v)
                             for k, v in d.items() if v is not None})
        for u, v, d in g.edges(data=True):
            extra = {"rta": ",".join(d["rta"])} if "rta" in d else {}
            h.add_edge(u, v, lines=",".join(map(str, d["lines"])), resolution=d["resolution"], **extra)
        nx.write_graphml(h, str(out))
    elif suffix == ".dot":
        try:
            import pydot  # noqa: F401
        except ImportError:
            raise click.UsageError(".dot output needs pydot (pip install pydot)") from None
        h = nx.DiGraph()
        for n, d in g.nodes(data=True):
            h.add_node(json.dumps(n), **{k: json.dumps(v) for k, v in d.items() if v is not None
                                         and k in ("kind", "file", "loc")})
        for u, v, d in g.edges(data=True):
            h.add_edge(json.dumps(u), json.dumps(v), label=d["resolution"])
        nx.nx_pydot.write_dot(h, str(out))
    else:
        raise click.UsageError("--out must end in .graphml, .json or .dot")


def _gc_paused():
    from callgraph._gcpause import gc_paused as paused  # one definition: the graph step's

    return paused()


def _output(pg, out: Path, dispatch: str, include_unresolved: bool, keep=None, settle=True) -> tuple:
    """Write ``--out``; ``(nodes, edges, unresolved nodes left out)``.
    Raises OSError or ValueError when it cannot be written. With ``keep``
    (``(OutputCache, key)``, qare._outcache) the file is written into the
    output cache first and copied to ``out`` from there, so the next run of
    the same inputs copies it instead of building (a cache folder that
    cannot take it: written to ``out`` as without the cache). With
    ``settle`` False a patched ``out`` may still be renaming into place when
    this returns: the caller's ``OutputCache.settle()`` says when it is
    (raising the OSError that would have been raised here)."""
    if keep is None:
        return _write_out(pg, out, dispatch, include_unresolved)
    from ._outpatch import write as write_patched

    oc, key = keep
    # after body edits: the previous output with the edited methods replaced, written to out and the cache
    try:
        counts, frame = write_patched(pg, out, oc, key, out.suffix.lower(), dispatch, include_unresolved, settle)
    except OSError:  # out or the cache folder could not take it: written in full, as without a patch
        counts, frame = None, None
    if counts is not None:
        return counts
    body = oc.temp_path(key, out.suffix.lower())
    try:
        counts = _write_out(pg, body, dispatch, include_unresolved)
    except BaseException as e:
        body.unlink(missing_ok=True)
        if not isinstance(e, OSError):
            raise
        return _write_out(pg, out, dispatch, include_unresolved)
    oc.publish(key, body, out, counts, frame)
    if settle:
        oc.settle()  # the files it replaced freed
    return counts


def _write_out(pg, out: Path, dispatch: str, include_unresolved: bool) -> tuple:
    """Write ``pg``'s ``--out`` (``pg`` a ``ProjectGraph``)."""
    parts = getattr(pg, "_parts", None)
    if parts is not None and out.suffix.lower() == ".json" and dispatch == "cha" and not include_unresolved:
        # kept as arrays (callgraph._compact): written from them, no networkx graph made
        from records.io import atomic_writer

        from . import _jsonout

        with atomic_writer(out, fsync=False) as fh:  # as before: renamed into place, not fsynced
            counts, _crc, _size = _jsonout.write(fh.buffer, _jsonout.from_parts(parts, pg._info_at))
        return counts
    g = pg.graph
    if out.suffix.lower() == ".json" and dispatch == "cha" and not include_unresolved:
        # the common case writes the graph as it is, leaving the
        # unresolved nodes out as it goes: no copy of the whole graph
        bad = frozenset(_unresolved_nodes(g))
        cut = {e for n in bad for e in (*g.in_edges(n), *g.out_edges(n))}
        _write_graph(g, out, bad)
        return g.number_of_nodes() - len(bad), g.number_of_edges() - len(cut), len(bad)
    exported, dropped = export_graph(g, include_unresolved)
    _write_graph(_dispatch_view(exported, dispatch), out)
    return exported.number_of_nodes(), exported.number_of_edges(), dropped


def _timed_output(pg, out: Path, dispatch: str, include_unresolved: bool, keep=None, settle=True):
    """:func:`_output` (``settle`` as there: the caller of a False one
    calls :func:`_settled`), its wall time as the ``output`` phase; the
    error's text instead when it fails."""
    import time

    from callgraph._graphstore import StoreError

    t_out, c_out = time.perf_counter(), time.process_time()
    try:
        return _output(pg, out, dispatch, include_unresolved, keep, settle)
    except (StoreError, sqlite3.Error):
        # a graph patched from the store reads the stored rows of the methods it did not change: a bad
        # one is a damaged store, never an unwritable --out (the tester, session 8: it was exit 4); the
        # caller builds again (graph_cmd)
        raise
    except (OSError, ValueError) as e:
        return str(e)
    finally:
        pg.summary.phases["output"] = round(time.perf_counter() - t_out, 3)
        pg.summary.phases["output_cpu"] = round(time.process_time() - c_out, 3)


def _settled(pg, keep) -> str | None:
    """Wait for the output cache's threads (``OutputCache.settle``: a
    patched ``--out`` renamed into place), the wait added to the ``output``
    phase; the error's text when ``--out`` could not be written."""
    import time

    if keep is None:
        return None
    phases = pg.summary.phases
    t, c = time.perf_counter(), time.process_time()
    try:
        keep[0].settle()
    except OSError as e:
        return str(e)
    finally:
        phases["output"] = round(phases.get("output", 0.0) + time.perf_counter() - t, 3)
        phases["output_cpu"] = round(phases.get("output_cpu", 0.0) + time.process_time() - c, 3)
    return None


#: The forked writer runs only while twice this process's resident memory
#: stays within this (bytes; issue 17's bound for a whole run): the child
#: inherits the graph, and the two processes walking it copy on write about
#: every page it holds (spring-framework: 0.97 GB resident before the fork,
#: +0.5 GB PSS with the child, to hide a writer of a few seconds)
FORK_WRITER_MAX_BYTES = 3 << 29


def _resident_bytes() -> int:
    """This process's resident memory now (Linux ``/proc``), else its peak so far."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere


def _write_beside_store(pg, out: Path, dispatch: str, include_unresolved: bool, later: list, keep=None):
    """Write ``--out`` and store the graph (``later``: from ``_build``) at the
    same time: a forked child writes the file from the graph it inherits
    while this process stores it; ``_timed_output``'s answer.

    Both are serial Python over the whole graph (java.base: ~3 s each), and
    a second core is usually idle by now. The child answers through a pipe
    (counts, or the error's text) and ends with ``os._exit``; a child that
    dies without answering is an error, and its temporary file
    (``records.io.atomic_writer``: ``.<name>.<pid>.tmp``) is removed, so
    ``out`` is either complete or as it was. The ``output`` phase is the
    wall time the output took beyond the store's (0 when it was done
    first), so the phases still add up to the process's time. Serial when
    there is nothing to store (the store already holds these inputs, or no
    store), the platform cannot fork, or twice this process's resident
    memory would pass :data:`FORK_WRITER_MAX_BYTES` (the copy the child
    makes of the graph's pages would cost more memory than its time is worth)."""
    import time

    if not later:
        return _timed_output(pg, out, dispatch, include_unresolved, keep)
    store, fp, save = later[0]
    if hasattr(pg, "release"):
        # patched from the stored graph (callgraph._patch): written first, while that graph is still readable;
        # both are short (the changed rows, the changed items), so one process does both. A stored row that
        # cannot be read raises (StoreError, the slot marked unreadable) and nothing is stored on that base.
        # A patched --out is written from its pieces and renamed into place (what it replaces freed) by a
        # thread while the graph is stored (~0.4 s on spring-framework, each half). A failure then is the
        # output's error: the stored graph can no longer be read to write it in full, which would fail the
        # same way (--out itself) but for a previous entry unreadable since this run checked its CRC
        answer = _timed_output(pg, out, dispatch, include_unresolved, keep, settle=False)
        try:
            save()
        finally:
            failed = _settled(pg, keep)
        return failed if failed is not None and not isinstance(answer, str) else answer
    if fp.slot() not in store.unreadable and store.holds(fp):
        save()
        return _timed_output(pg, out, dispatch, include_unresolved, keep)
    if out.suffix.lower() == ".json" and dispatch == "cha" and not include_unresolved:
        answer = _spawned_writer(pg, out, keep, save)
        if answer is not None:
            return answer
    if not hasattr(os, "fork") or 2 * _resident_bytes() > FORK_WRITER_MAX_BYTES:
        save()
        return _timed_output(pg, out, dispatch, include_unresolved, keep)
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the writer: never returns into click, never runs the parent's cleanup
        code = 1
        try:
            os.close(r)
            try:
                answer = {"counts": list(_output(pg, out, dispatch, include_unresolved, keep))}
                code = 0
            except (OSError, ValueError) as e:
                answer = {"error": str(e)}
            except click.UsageError as e:  # .dot without pydot: a usage error here too
                answer = {"usage": e.message}
            except BaseException as e:  # a bug: said as such, never a silent success
                answer = {"error": f"the writer failed: {type(e).__name__}: {e}"}
            with os.fdopen(w, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(answer))
        finally:
            os._exit(code)
    os.close(w)
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        save()
        t_wait = time.perf_counter()
        with os.fdopen(r, "r", encoding="utf-8") as fh:
            text = fh.read()
    finally:
        _, status = os.waitpid(pid, 0)
    pg.summary.phases["output"] = round(time.perf_counter() - t_wait, 3)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)  # the writer's CPU, reaped now
    pg.summary.phases["output_cpu"] = round(done.ru_utime + done.ru_stime - kids.ru_utime - kids.ru_stime, 3)
    try:
        answer = json.loads(text) if text else {}
    except ValueError:
        answer = {}
    if "counts" in answer and os.waitstatus_to_exitcode(status) == 0:
        return tuple(answer["counts"])
    if "usage" in answer:
        raise click.UsageError(answer["usage"])
    if "error" in answer:
        return answer["error"]
    out.with_name(f".{out.name}.{pid}.tmp").unlink(missing_ok=True)
    return f"the writer process ended without finishing (exit status {os.waitstatus_to_exitcode(status)})"


def _spawned_writer(pg, out: Path, keep, save):
    """``--out`` (node-link JSON, the ``cha`` graph without its unresolved
    nodes) written by a process of its own from the graph as the store
    encodes it (``qare._jsonout``) while this process stores that same
    encoding (``save(encoded)``); ``_timed_output``'s answer, or None when
    the writer could not be started (nothing stored yet: the caller goes on
    as before). A writer that fails is replaced by the writer of this
    process, after the store: ``out`` is complete or as it was.

    Spawned, not forked: it shares no page with this process, so the pair
    holds this process's memory plus the writer's own (~0.3 GB on
    spring-framework), where a forked writer copied every page of the graph
    both walked (+0.5 GB there: it was off for such graphs). ``output`` is
    the wall time beyond the store's, ``output_cpu`` the writer's CPU."""
    import resource
    import subprocess
    import time

    import msgpack

    from callgraph._graphstore import encode_graph
    from callgraph._subpython import module_argv

    from . import _jsonout

    phases = pg.summary.phases
    t0, c0 = time.perf_counter(), time.process_time()
    if keep is not None:
        oc, key = keep
        target = oc.temp_path(key, out.suffix.lower())
    else:
        target = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    # started first: the interpreter's start and imports overlap the encoding below
    try:
        if target.is_symlink() or target.exists():
            target.unlink()
        # this process's module search path, never the current folder's (a cloned repository's
        # msgpack.py ran in the writer: the tester, session 8)
        proc = subprocess.Popen(module_argv("qare._jsonout", str(target), "0600" if keep else "0644"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                close_fds=True)
    except OSError:
        return None
    try:
        enc = pg.encoded_for_store() if hasattr(pg, "encoded_for_store") else encode_graph(pg)
        parts = getattr(pg, "_parts", None)
        methods = parts["names"][:parts["n_methods"]] if parts is not None else sorted(pg._infos)
        infos = [pg._infos[m] for m in methods]
        # the methods' node attributes as columns (no MethodInfo row to decode there: 0.5 s on spring-framework)
        columns = [[getattr(mi, f) for mi in infos] for f in _jsonout.METHOD_FIELDS]
        payload = msgpack.packb([_jsonout.FORMAT, enc.names, enc.apis, enc.rtas, enc.adj, columns],
                                use_bin_type=True)
    except (OverflowError, KeyError, TypeError, ValueError):
        proc.stdin.close()  # the writer reads nothing, says so and ends
        proc.communicate()
        target.unlink(missing_ok=True)
        return None  # the store cannot hold it either: said by save() as before
    del infos, columns
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except OSError:  # the writer died at once: written here, below
        pass
    del payload
    # encoding the graph is the store's work (the writer reads the same encoding): counted in its phase
    t_enc, c_enc = time.perf_counter() - t0, time.process_time() - c0
    save(enc)
    phases["store"] = round(phases.get("store", 0.0) + t_enc, 3)
    phases["store_cpu"] = round(phases.get("store_cpu", 0.0) + c_enc, 3)
    del enc
    t_wait, c_wait = time.perf_counter(), time.process_time()
    fr = None
    if keep is not None:  # worked out while the writer writes
        from ._outpatch import frame, unresolved

        fr = frame(pg, unresolved(pg))
    text = proc.stdout.read()
    proc.wait()
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        answer = json.loads(text) if text else {}
    except ValueError:
        answer = {}
    counts = answer.get("counts")
    if proc.returncode != 0 or type(counts) is not list or len(counts) != 3:
        target.unlink(missing_ok=True)
        return _timed_output(pg, out, "cha", False, keep)  # the writer failed: this process writes it
    try:
        if keep is not None:
            oc.publish_written(key, target, answer.get("size"), answer.get("crc32"), out, tuple(counts), fr)
        else:
            os.replace(target, out)
        return tuple(counts)
    except OSError as e:
        target.unlink(missing_ok=True)
        return str(e)
    finally:
        if keep is not None:
            oc.settle()
        phases["output"] = round(time.perf_counter() - t_wait, 3)
        phases["output_cpu"] = round(time.process_time() - c_wait + done.ru_utime + done.ru_stime
                                     - kids.ru_utime - kids.ru_stime, 3)


def _from_store(project, out, dispatch: str, include_unresolved: bool, store, inputs, loc_mode: str,
                startup: float):
    """``(ProjectGraph, written, line)`` when nothing a build reads has changed
    since the graph store stored this project's graph (``GraphStore.lookup``:
    the stat rule and the racy-file hashing of docs/callgraph.md "Graph
    store") and, with ``out``, the output cache (qare._outcache) holds the
    bytes written then: ``written`` is ``_output``'s counts (or the error's
    text when ``out`` cannot be written; None without ``out``), the graph
    holds the stored summary (this run's phases) and no edges; ``line`` the
    stderr line that says so (the one ``qare chain`` prints). None
    otherwise: the caller builds (from the warm cache)."""
    import dataclasses
    import time

    t0, c0 = time.perf_counter(), time.process_time()
    previous: list = []
    sg, inputs.why = store.lookup(project, inputs.files, inputs.skipped, inputs.classpath, inputs.jdk_home,
                                  loc_mode, _MAX_FILE_BYTES, previous, inputs.probe)
    if sg is None:
        # the look-up's time is the store's (the build's store phase adds it), the graph it read what a build
        # after body edits patches (read once)
        inputs.lookup_seconds, inputs.lookup_cpu = time.perf_counter() - t0, time.process_time() - c0
        inputs.previous = previous[0] if previous else None
        return None
    written = None
    t_out = 0.0
    try:
        pg = sg.project_graph(project, resolution=inputs.resolution)
        built_from = sg.inputs
        line = _from_store_line(sg, len(inputs.files))
        t_store = time.perf_counter() - t0
        if out is not None:
            from callgraph._graphstore import StoreError
            from callgraph._patch import stored_graph

            from ._outcache import open_beside, out_key

            oc = open_beside(store)
            # the graph is stored, but not this output of it (a first --out, another format or option)
            inputs.why = f"no stored {out.suffix.lower()} output of the stored graph with these options"
            if oc is None or built_from is None:
                return None
            t1 = time.perf_counter()
            key = out_key(built_from, out.suffix.lower(), dispatch, include_unresolved)
            try:
                written = oc.copy_to(key, out)
                if written is None:
                    # written from the stored graph (its arrays and rows), not built again: a first --out
                    # after `qare chain` or a plain `qare graph` (7 s on spring-framework, the tester of
                    # session 9), and kept for the next run
                    written = _output(stored_graph(sg, str(project), dispatch), out, dispatch, include_unresolved,
                                      keep=(oc, key))
                    line = _from_store_line(sg, len(inputs.files), wrote=True)
            except (StoreError, sqlite3.Error):  # (a StoreError is a ValueError: caught first)
                store.unreadable.add(sg.slot)  # a bad stored row: the build rewrites the slot whole
                return None
            except (OSError, ValueError) as e:
                written = str(e)  # --out cannot be written: exit 4, as after a build
            t_out = time.perf_counter() - t1
    finally:
        sg.close()
    phases = {"startup": round(startup, 3), "discover": round(inputs.discover_seconds, 3),
              "classpath": round(inputs.classpath_seconds, 3), "store": round(t_store, 3)}
    if out is not None:
        phases["output"] = round(t_out, 3)
    pg.summary = dataclasses.replace(pg.summary, seconds=t_store, phases=phases, cache={"graph_store": "hit"})
    return pg, written, line


_GRAPH_EPILOG = epilog(
    "some files were skipped or had parse errors (listed in the summary), a classpath jar could not be read, "
    "or some of the project's libraries could not be resolved (the classpath line on stderr names them)",
    "PROJECT missing or holding no .java file",
    "cannot write --out")


@click.command("graph", epilog=_GRAPH_EPILOG, short_help="Build a project's call graph; print its summary.")
@_PROJECT
@click.option("--out", type=click.Path(path_type=Path), help="Write the graph (.graphml, .json node-link, .dot).")
@_dispatch_option
@click.option("--resolver", type=click.Choice(["qare", "jdt"]), default="qare", show_default=True,
              help="jdt: edges from Eclipse JDT's compiler bindings (needs the 'jdt' extra; see docs/crosscheck.md).")
@click.option("--include-unresolved", is_flag=True,
              help="Keep API nodes whose declaring type is unknown (e.g. ?.add(*)) in --out, as kind "
                   "'unresolved' (default: left out, with their edges).")
@_classpath_options
@survivors_frozen()  # the graph and index stay until the command ends: frozen, not walked by the collector
def graph_cmd(project, out, dispatch, resolver, include_unresolved, classpath, discover_classpath, jobs, quiet,
              loc_mode, cache, no_cache, offline, maven_repo_local, user_m2):
    """Build the call graph of PROJECT and print its summary.

    PROJECT is a Maven/Gradle project (multi-module too) or any folder of
    .java files. Edges carry `resolution` (exact, arity, cha, name) and the
    call-site `lines`; see docs/callgraph.md. --out writes the edges that
    --dispatch follows (and `name` edges); cha edges carry `rta`, the source
    sets whose instantiated types witness them.
    """
    if out is not None and out.suffix.lower() not in (".graphml", ".json", ".dot"):
        raise click.UsageError("--out must end in .graphml, .json or .dot")
    parent = os.path.dirname(os.path.abspath(out)) if out is not None else None
    if parent is not None and not os.path.isdir(parent):
        # said before the build, and naming the folder (the error of the write named the temporary
        # file's ".g.json.<pid>.tmp" after the whole build: a new user, session 8)
        why = "is not a folder" if os.path.lexists(parent) else "does not exist"
        click.echo(f"error: cannot write {out}: {parent} {why}", err=True)
        sys.exit(FATAL)
    if resolver == "jdt":
        from .cmd_crosscheck import jdt_graph

        pg = jdt_graph(project, _effective_classpath(project, classpath, discover_classpath, offline, maven_repo_local,
                                                     user_m2, quiet), loc_mode)
        cp_failed = False
    else:
        store = _open_graph_store(cache, no_cache)
        later: list = []
        oc = None  # the output cache beside the store (qare._outcache), once opened
        try:
            answered, inputs = None, None
            if store is not None:
                import callgraph

                startup = process_age()
                try:
                    inputs = _Inputs(project, classpath, discover_classpath, quiet, offline,
                                     repo_local_of(maven_repo_local, user_m2))
                except callgraph.NoInputError as e:
                    click.echo(f"error: {e}", err=True)
                    sys.exit(NO_INPUT)
                # start-up ends where the inputs' discovery began (their imports made: the time they took is no
                # phase's but start-up's)
                answered = _from_store(project, out, dispatch, include_unresolved, store, inputs, loc_mode,
                                       max(startup, inputs.startup))
                if answered is None and out is not None and inputs.previous is not None:
                    # the previous output's body checked (its CRC, read through a mapping) on the second core
                    # while this one builds: what a patch of --out copies from (qare._outpatch)
                    from ._outcache import open_beside, out_key

                    oc = open_beside(store)
                    if oc is not None:
                        oc.prefetch(out_key(inputs.previous.inputs, out.suffix.lower(), dispatch,
                                            include_unresolved))
            if answered is not None:
                pg, written, line = answered
                cp_failed = _report_build(pg, classpath, quiet)
                if not quiet:
                    click.echo(line, err=True)
            else:
                pg, cp_failed = _build(project, classpath, discover_classpath, jobs, quiet, loc_mode, cache, offline,
                                       maven_repo_local, user_m2, no_cache, inputs=inputs, store=store,
                                       store_later=later, patch=True,
                                       # arrays when nothing needs networkx: no --out, or the JSON of the cha graph
                                       compact=out is None or (out.suffix.lower() == ".json" and dispatch == "cha"
                                                               and not include_unresolved))
            if answered is None and out is not None:
                def kept_for(later):
                    nonlocal oc
                    if not later:
                        return None
                    from ._outcache import open_beside, out_key

                    if oc is None:
                        oc = open_beside(store)
                    return (oc, out_key(later[0][1], out.suffix.lower(), dispatch, include_unresolved)) \
                        if oc is not None else None

                from callgraph._graphstore import StoreError

                # no collection while the graph is stored and written: none is
                # needed, and in a forked writer it would touch (and copy) every page
                try:
                    with _gc_paused():
                        written = _write_beside_store(pg, out, dispatch, include_unresolved, later,
                                                      kept_for(later))
                except (StoreError, sqlite3.Error) as e:
                    # a graph patched after body edits met a stored row it could not read while --out was
                    # written (the slot is now marked unreadable): built whole, as if nothing were stored,
                    # then stored again over it
                    if hasattr(pg, "release"):
                        pg.release()
                    inputs.previous = None
                    later = []
                    pg, cp_failed = _build(project, classpath, discover_classpath, jobs, True, loc_mode, cache,
                                           offline, maven_repo_local, user_m2, no_cache, inputs=inputs,
                                           store=store, store_later=later, patch=False,
                                           compact=out.suffix.lower() == ".json" and dispatch == "cha"
                                           and not include_unresolved, report=False)
                    with _gc_paused():
                        written = _write_beside_store(pg, out, dispatch, include_unresolved, later,
                                                      kept_for(later))
                    _say_stored(store, str(e), True, quiet)
                    inputs.why = None  # said
            elif later:
                later[0][2]()
            if answered is None and store is not None and inputs is not None and inputs.why is not None:
                # as qare chain says it: why the store did not answer, and that the graph is stored now (or,
                # even with -q, that it could not be: every later run would build it again)
                _say_stored(store, inputs.why, False, quiet, patched=hasattr(pg, "release"))
        finally:
            if oc is not None:
                oc.close()
            if store is not None:
                store.close()
    if out is not None:
        if resolver == "jdt":
            written = _timed_output(pg, out, dispatch, include_unresolved)
        if isinstance(written, str):
            click.echo(f"error: cannot write {out}: {written}", err=True)
            sys.exit(FATAL)
        n_nodes, n_edges, dropped = written
    click.echo(_summary_text(pg.summary))
    if out is not None:
        left_out = f" ({dropped} unresolved nodes left out: --include-unresolved keeps them)" if dropped else ""
        click.echo(f"graph: {n_nodes} nodes, {n_edges} edges → {out}{left_out}")
    why = _partial_reasons(pg, cp_failed)
    if why:
        click.echo(f"exit 1: {why}", err=True)
        sys.exit(PARTIAL)


def _partial_reasons(pg, cp_failed: bool) -> str:
    """Why ``qare graph`` exits 1, in one phrase (empty when it does not):
    the kinds of input that failed, each listed above it (a new user, session
    8: exit 1 for an unresolved library was explained only in ``--help``)."""
    s = pg.summary
    unresolved = pg.resolution.unresolved if pg.resolution is not None else ()
    parts = []
    if s.skipped:
        parts.append(f"{len(s.skipped)} path{'s' if len(s.skipped) != 1 else ''} skipped (listed under 'skipped')")
    if s.parse_errors:
        parts.append(f"{len(s.parse_errors)} file{'s' if len(s.parse_errors) != 1 else ''} with parse errors")
    if cp_failed:
        parts.append("a classpath entry not read in full (see its warning)")
    if unresolved:
        parts.append(f"{len(unresolved)} librar{'ies' if len(unresolved) != 1 else 'y'} not resolved "
                     "(see the classpath line)")
    return "; ".join(parts) + ("; the graph holds everything else" if parts else "")


_CHAIN_EPILOG = epilog(
    "a classpath jar, class folder or class file could not be read, or a file of PROJECT has parse errors "
    "(a warning names each; chains through them may be missing)",
    "PROJECT missing or holding no .java file, or METHOD unknown or ambiguous (candidates listed)",
    None)


@click.command("chain", epilog=_CHAIN_EPILOG, short_help="The third-party APIs one method reaches, with depth and density.")
@_PROJECT
@click.argument("method")
@click.option("--max-depth", type=click.IntRange(min=2), default=None,
              help="Largest depth shown (methods on the chain counting both ends).")
@click.option("--format", "fmt", type=click.Choice(["tree", "json"]), default="tree", show_default=True,
              help="tree: one chain per API, indented; json: the records of a dataset sample's targets.")
@_dispatch_option
@click.option("--include-unresolved", is_flag=True, help="Also follow `name` edges (receiver type unknown).")
@deprecated_alias("--keep-unresolved", "--include-unresolved", "include_unresolved", is_flag=True)
@_classpath_options
@survivors_frozen()
def chain_cmd(project, method, max_depth, fmt, dispatch, include_unresolved, classpath, discover_classpath,
              jobs, quiet, loc_mode, cache, no_cache, offline, maven_repo_local, user_m2):
    """Show every third-party API that METHOD of PROJECT reaches, with depth, chain,
    chain LOC and density (DESIGN.md "Depth, chain and density").

    METHOD is a method id (`com.acme.C.m(java.lang.String)`) or an unambiguous
    shorter form: `C.m`, `m`, `C.m(String, int...)` (simple type names), and
    for constructors `C`, `C.C` or `C.<init>`. An ambiguous name lists the
    candidates, an unknown one the closest names (exit 3).

    With the cache on (the default), the answer comes from the graph an
    earlier `qare graph` or `qare chain` stored when none of its inputs
    changed (docs/callgraph.md "Graph store"); otherwise the graph is built
    and stored.
    """
    import time

    import callgraph

    store = _open_graph_store(cache, no_cache)
    try:
        inputs = _Inputs(project, classpath, discover_classpath, quiet, offline,
                         repo_local_of(maven_repo_local, user_m2))
    except callgraph.NoInputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(NO_INPUT)
    stored = None
    cp_failed = False
    reported = False  # the classpath line and warnings said (a build made again says them no more)
    why = None
    if store is not None:
        previous: list = []  # the stored graph when its inputs changed: what a build after body edits patches
        stored, why = store.lookup(project, inputs.files, inputs.skipped, inputs.classpath, inputs.jdk_home,
                                   loc_mode, _MAX_FILE_BYTES, previous, inputs.probe)
        inputs.previous = previous[0] if previous else None
        if store.stats["rebuilt"]:
            why = f"{why}; the store file was damaged or of another version and was made anew"
    bad_row = store is not None and bool(store.unreadable)  # said once, after the rebuild replaced it
    from callgraph._graphstore import StoreError

    try:
        if stored is not None:
            # the graph as built from these very inputs: answer from the part METHOD reaches
            pg = stored.project_graph(project, resolution=inputs.resolution)
            # the stored summary's classpath_warnings decide exit 1 as on the build that stored them
            cp_failed = _report_build(pg, classpath, quiet)
            reported = True
            try:
                mid = _chain_method(pg, method)
                t_chain = time.perf_counter()
                # on the stored adjacency itself: the same targets as pg.reach on the whole graph
                targets = stored.reach(pg, mid, max_depth=max_depth, dispatch=dispatch,
                                       include_unresolved=include_unresolved)
            except (StoreError, sqlite3.Error) as e:  # a bad stored row: build as if nothing were stored
                why, bad_row = str(e), True
                stored.close()
                stored = None
            else:
                if not quiet:
                    click.echo(_from_store_line(stored, len(inputs.files)), err=True)
        if stored is None:
            pg, cp_failed = _build(project, classpath, discover_classpath, jobs, quiet, loc_mode, cache, offline,
                                   maven_repo_local, user_m2, no_cache, inputs=inputs, store=store, patch=True,
                                   report=not reported)
            if store is not None:
                _say_stored(store, why, bad_row, quiet, patched=hasattr(pg, "release"))
            if hasattr(pg, "release"):
                # patched from the stored graph and stored (callgraph._patch): answered from the store, on its
                # arrays, as an unchanged project is; a patch not stored (another process stored meanwhile) is
                # built whole
                again, _why = store.lookup(project, inputs.files, inputs.skipped, inputs.classpath,
                                           inputs.jdk_home, loc_mode, _MAX_FILE_BYTES)
                if again is not None:
                    stored = again
                    pg = stored.project_graph(project, resolution=inputs.resolution)
                else:
                    inputs.previous = None
                    pg, cp_failed = _build(project, classpath, discover_classpath, jobs, quiet, loc_mode, cache,
                                           offline, maven_repo_local, user_m2, no_cache, inputs=inputs, store=store,
                                           report=False)
            mid = _chain_method(pg, method)
            t_chain = time.perf_counter()
            if stored is not None:
                try:
                    targets = stored.reach(pg, mid, max_depth=max_depth, dispatch=dispatch,
                                           include_unresolved=include_unresolved)
                except (StoreError, sqlite3.Error) as e:
                    # the patch stored only the rows it changed: another stored row it did not read is bad (the
                    # slot now marked unreadable). Built whole and stored again over it, as after any bad row
                    # (the tester, session 8: a traceback)
                    stored.close()
                    stored = None
                    inputs.previous = None
                    pg, cp_failed = _build(project, classpath, discover_classpath, jobs, True, loc_mode, cache,
                                           offline, maven_repo_local, user_m2, no_cache, inputs=inputs, store=store,
                                           report=False)
                    _say_stored(store, str(e), True, quiet)
                    mid = _chain_method(pg, method)
                    t_chain = time.perf_counter()
            if stored is None:
                targets = pg.reach(mid, max_depth=max_depth, dispatch=dispatch,
                                   include_unresolved=include_unresolved)
        info = pg.method(mid)
        pg.summary.phases["chain"] = round(time.perf_counter() - t_chain, 3)
    finally:
        if stored is not None:
            stored.close()
        if store is not None:
            store.close()
    if fmt == "json":
        click.echo(json.dumps([t.to_dict() for t in targets], ensure_ascii=False, indent=1))
    else:
        _print_chains(mid, info, targets)
    bad = pg.summary.parse_errors
    if bad:
        # what tree-sitter could not parse may hide methods of those files, and with them chains through them
        # (a new user, session 10: one missing ')' and chain dropped three APIs, exit 0, saying nothing)
        click.echo(f"warning: {len(bad)} file{'s' if len(bad) != 1 else ''} with parse errors (line:col); methods "
                   "in them may be missing, and the chains through them (exit code 1):\n"
                   + "\n".join(f"  {f}: " + ", ".join(f"{a}:{b}" for a, b in pos[:5]) for f, pos in bad[:10])
                   + (f"\n  ... {len(bad) - 10} more (qare graph lists them)" if len(bad) > 10 else ""), err=True)
    if cp_failed or bad:
        sys.exit(PARTIAL)  # as qare graph: a classpath entry not read in full, or files not parsed in full


def _from_store_line(stored, n_files: int, wrote: bool = False) -> str:
    """The one stderr line of an answer from the graph store (docs/callgraph.md
    "Graph store"); ``wrote``: ``--out`` written from the stored graph, not
    copied from the output cache."""
    import time

    built = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored.built_ns / 1e9))
    return (f"graph: from the store (built {built}, {n_files} file{'' if n_files == 1 else 's'} unchanged)"
            + ("; --out written from it" if wrote else ""))


def _say_stored(store, why, bad_row: bool, quiet: bool, patched: bool = False) -> None:
    """After a rebuild: whether the graph was stored, and why it had to be
    built (``why``: lookup's reason); ``patched``: the stored graph patched
    after body edits (callgraph._patch), not built whole — said so (a new
    user, session 9, could not tell the two apart). A graph that could not
    be stored is a warning even with ``-q``: every later call would rebuild
    it too."""
    if patched and store.last_error is None and not bad_row:
        if not quiet:
            click.echo(f"graph: patched and stored ({why})", err=True)
        return
    if store.last_error is not None:
        click.echo(f"warning: {why}; rebuilt, but not stored: {store.last_error}" if bad_row else
                   f"warning: graph built but not stored in {store.path}: {store.last_error}", err=True)
    elif bad_row:
        click.echo(f"warning: {why}; rebuilt and stored again", err=True)
    elif not quiet:
        click.echo(f"graph: built and stored ({why})", err=True)


def _print_chains(mid, info, targets) -> None:
    # one write: click.echo per line cost a third of a second for 30,000 lines
    out = [f"{mid}  [{info.file}:{info.start_line}-{info.end_line}, {info.loc} LOC]"]
    if not targets:
        out.append("  (no third-party API reached)")
    for t in targets:
        lib = f"  {t.library}" if t.library else ""
        out.append(f"  {t.signature or t.api + '(*)'}  depth {t.depth}  chain LOC {t.chain_loc}  "
                   f"density {t.density:.4f}  [{t.resolution}]{lib}")
        for hop, (node, (file, line)) in enumerate(zip(t.chain[1:], t.call_sites), 1):
            out.append(f"    {'  ' * (hop - 1)}→ {node}  (called at {file}:{line})")
    click.echo("\n".join(out))


def _chain_method(pg, method: str) -> str:
    """The one method id METHOD names; else the candidates or close names on stderr and exit 3."""
    import callgraph

    try:
        return pg.resolve_method(method)
    except callgraph.UnknownMethodError as e:
        click.echo(f"error: {e}", err=True)
        for c in e.candidates[:50]:
            click.echo(f"  {c}", err=True)
        if len(e.candidates) > 50:
            click.echo(f"  … {len(e.candidates) - 50} more", err=True)
        if not e.candidates:
            close = pg.suggest_methods(method)
            if close:
                click.echo("close matches:", err=True)
                for c in close:
                    click.echo(f"  {c}", err=True)
        sys.exit(NO_INPUT)


COMMANDS = [graph_cmd, chain_cmd]
