"""Entry point of the ``qare`` command line.

Each command group lives in its own ``qare.cmd_*`` module and exposes a
``COMMANDS`` list of click commands; this module only collects them.
"""

from __future__ import annotations

import importlib
import sys

import click

from . import __version__
from .exitcodes import EPILOG, INTERRUPTED, PIPE_CLOSED

_COMMAND_MODULES = (
    "qare.cmd_callgraph",  # graph, chain
    "qare.cmd_javadoc",  # javadoc
    "qare.cmd_build",  # build
    "qare.cmd_eval",  # eval, slices, import, baseline, similarity
    "qare.cmd_sccg",  # sccg extract|redact|execute|score
    "qare.cmd_crosscheck",  # crosscheck (Eclipse JDT as an oracle)
    "qare.cmd_cache",  # cache (the graph store: report, prune)
)


class _Group(click.Group):
    """Ctrl-C ends every command with exit code 130, not click's "Aborted!"
    with 1 (which means "some input failed"). Called as the process's entry
    point (console script, ``python -m qare``), a command that asked for it
    ends the process without interpreter teardown (:mod:`qare._exit`)."""

    def __call__(self, *args, **kwargs):
        from . import _exit

        _exit.request(False)  # only what this invocation's command asks for
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit as e:
            if _exit.requested():
                _exit.now(e.code)
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted (exit code 130)", err=True)
            sys.exit(INTERRUPTED)
        except BrokenPipeError:
            # the reader went away (`qare build … | head`): end as a tool that
            # SIGPIPE ends, quietly — click's own answer is exit 1, which here
            # means "some input failed". What a build wrote so far stays (its
            # parts are written whole; a re-run resumes)
            _silence_output()
            sys.exit(PIPE_CLOSED)


def _silence_output() -> None:
    """Point stdout and stderr at /dev/null: their buffers, flushed at exit,
    would raise again on the closed pipe."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(null, stream.fileno())
        except (OSError, ValueError, AttributeError):  # not a real file (a test runner's capture)
            pass
    os.close(null)


# max_content_width: wide terminals get wide help; short_help on every command
# keeps `qare --help`'s list whole (click cuts a long default summary with "...")
@click.group(cls=_Group, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="qare")
def main() -> None:
    """qare — Java call graphs, API Call Depth/Density and Q-ARE-style datasets."""


def run() -> None:
    """The ``qare`` program (its console script and ``python -m qare``):
    :func:`main` in a process that ends with it. What the graph commands
    keep stays frozen (``callgraph._gcpause``), and so does everything else
    at the end, so the collection the interpreter makes at exit walks none
    of it (spring-framework's graph: 1.9 s spent freeing nothing the
    process's end would not). A test runner calls :func:`main` instead."""
    import gc

    from callgraph._gcpause import ending_process

    ending_process()
    try:
        main()
    finally:
        gc.freeze()


def _quiet_everywhere(cmd: click.Command) -> None:
    """Give a command without its own ``-q/--quiet`` the same option: no
    progress on stderr. Such commands report progress only through tqdm,
    which ``TQDM_DISABLE`` silences (one option name on every command)."""
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _quiet_everywhere(sub)
        return
    if any(p.name == "quiet" for p in cmd.params):
        return

    def silence(_ctx, _param, value):
        if value:
            import os

            os.environ["TQDM_DISABLE"] = "1"

    cmd.params.append(click.Option(["--quiet", "-q"], is_flag=True, expose_value=False, callback=silence,
                                   is_eager=True,
                                   help="No progress on stderr (a bar on a terminal, else a plain line every ~10 s)."))


for _name in _COMMAND_MODULES:
    for _cmd in importlib.import_module(_name).COMMANDS:
        _quiet_everywhere(_cmd)
        main.add_command(_cmd)
