"""Maven coordinates checked before they become a path or reach Maven.

A coordinate from a stranger's pom or build file is joined into paths of the
local repository (``g/r/o/u/p/artifact/version/artifact-version.pom``) and of
qare's work folder, and is written into poms Maven reads. Maven's own model
validation accepts groupId and artifactId of ``[A-Za-z0-9_\\-.]+`` and a version
without ``/`` ``\\`` (and not ``.``/``..``); qare holds every coordinate to those
rules, adds that no path segment is ``.``/``..`` or empty, and refuses ``${`` in
any field (Maven would fill it in from the machine: ``${env.HOME}``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from records.safefs import is_inside

_ID = re.compile(r"[A-Za-z0-9_\-.]+")
# classifier and type: the same characters as an id (``jdk15``, ``test-jar``, ``sources``)
_SCOPES = frozenset({"compile", "provided", "runtime", "test", "system", "import"})


def _segments_ok(s: str) -> bool:
    return all(seg not in ("", ".", "..") for seg in s.split("."))


def coordinate_problem(group: str | None, artifact: str | None, version: str | None = None,
                       classifier: str | None = None, type: str | None = None,
                       scope: str | None = None) -> str | None:
    """Why these coordinates may not become a path or a generated pom, or ``None`` when they may.

    ``group`` and ``artifact`` are required; ``version``, ``classifier``, ``type``,
    ``scope`` are checked when given (not ``None``/empty)."""
    fields = {"groupId": group, "artifactId": artifact, "version": version, "classifier": classifier,
              "type": type, "scope": scope}
    for k, v in fields.items():
        if v and "$" in v:
            return f"{k} {v[:80]!r} uses ${{…}}"
    if not group or not _ID.fullmatch(group) or not _segments_ok(group):
        return f"groupId {str(group)[:80]!r} is not [A-Za-z0-9_-.]+ of non-empty segments"
    if not artifact or not _ID.fullmatch(artifact) or artifact in (".", ".."):
        return f"artifactId {str(artifact)[:80]!r} is not [A-Za-z0-9_-.]+"
    if version and (any(c in version for c in "/\\:") or version in (".", "..")
                    or any(ord(c) < 32 for c in version)):
        return f"version {version[:80]!r} holds a path separator or is . / .."
    for k in ("classifier", "type"):
        v = fields[k]
        if v and (not _ID.fullmatch(v) or v in (".", "..")):
            return f"{k} {v[:80]!r} is not [A-Za-z0-9_-.]+"
    if scope and scope not in _SCOPES:
        return f"scope {scope[:80]!r} is not one of Maven's scopes"
    return None


def inside(path: Path, base: Path) -> bool:
    """Whether ``path`` (resolved, symlinks followed) lies inside ``base`` (resolved)."""
    return is_inside(os.path.realpath(path), os.path.realpath(base))
