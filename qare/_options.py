"""Options shared by several ``qare`` commands, so one name means one thing
everywhere: ``-j/--jobs`` (one rule: default 1, 0 = every CPU available),
``-q/--quiet``, and hidden deprecated aliases of renamed options."""

from __future__ import annotations

import functools

import click

JOBS_RULE = "default 1; 0 = every CPU this process may use"


def jobs_option(what: str):
    """``-j/--jobs N``: how many ``what`` run in parallel (:data:`JOBS_RULE`);
    the command gets the resolved count (>= 1) as ``jobs``."""
    return click.option("--jobs", "-j", "jobs", type=click.IntRange(min=0), default=1, show_default=True,
                        callback=lambda ctx, param, value: resolve_jobs(value),
                        help=f"{what} in parallel (0 = every CPU available).")


def resolve_jobs(n: int) -> int:
    """``n``, or the CPUs available when ``n`` is 0."""
    if n:
        return n
    from callgraph import default_jobs

    return default_jobs()


def quiet_option(what: str = "progress"):
    """``-q/--quiet``: no progress on stderr (bars on a terminal, plain lines otherwise)."""
    return click.option("--quiet", "-q", is_flag=True,
                        help=f"No {what} on stderr (a bar on a terminal, else a plain line every ~10 s).")


def deprecated_alias(old: str, new: str, dest: str, **kw):
    """A hidden option ``old`` (e.g. ``--auto-classpath/--no-auto-classpath``)
    that sets the command's ``dest`` parameter like ``new`` does. Silent:
    scripts that parse stderr or stdout keep working. Apply it below the command's other option decorators
    (closest to the function)."""
    hidden = f"_deprecated_{dest}"

    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            value = kwargs.pop(hidden, None)
            if value is not None:
                kwargs[dest] = value
            return f(*args, **kwargs)

        return click.option(old, hidden, hidden=True, default=None, **kw)(wrapper)

    return deco
