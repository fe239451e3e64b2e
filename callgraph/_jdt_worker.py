"""The process that hosts the JVM for ``callgraph._jdt`` (``python -m callgraph._jdt_worker``).

A JVM inside the analysing process would make every later ``fork`` (qare's
process pools) unsafe: the child inherits JPype's objects but not the JVM's
threads, and the first garbage collection of a Java proxy there hangs. So the
JVM lives here, started once; requests come as JSON lines on stdin, answers
go as JSON lines on stdout. Records are written to the file a request names.

argv: ``libjvm.so`` path, then the JVM's classpath entries.
Request: ``{"files", "encodings" (Python codec names or null), "classpath",
"level", "running_vm", "out"}``. Answer: ``{"ok": true, "units": n, "rss_mb"}``
or ``{"ok": false, "error": "..."}``; the first answer (``"ready"``) says
whether the JVM started.
"""

from __future__ import annotations

import json
import resource
import sys


def _answer(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _java_charset(charset, enc: str | None) -> str:
    if enc in (None, "utf-8-sig"):
        return "UTF-8"
    if enc == "utf-16":
        return "UTF-16"
    try:
        if charset.isSupported(enc):
            return enc
    except Exception:  # an illegal charset name
        pass
    return "ISO-8859-1"


def main(argv: list[str]) -> int:
    libjvm, *classpath = argv
    try:
        import jpype

        # C1 only: one JDT batch is short-lived work, and C2's compiler threads cost more
        # than they win here (jimfs on this 2-core machine: 19.5 s vs 57-63 s, docs/crosscheck.md)
        jpype.startJVM(libjvm, "-Xss16m", "-Djava.awt.headless=true", "-XX:TieredStopAtLevel=1",
                       classpath=classpath, convertStrings=True)
        visitor = jpype.JClass("qare.jdt.QareJdt")
        charset = jpype.JClass("java.nio.charset.Charset")
    except Exception as e:  # no jpype, no JVM, visitor not on the classpath
        _answer({"ok": False, "error": f"{type(e).__name__}: {e}"})
        return 1
    _answer({"ok": True, "ready": True})
    for line in sys.stdin:
        try:
            req = json.loads(line)
            encodings = [_java_charset(charset, e) for e in req["encodings"]]
            n = visitor.run(req["files"], encodings, req["classpath"], [], req["level"], bool(req["running_vm"]),
                            req["out"])
            _answer({"ok": True, "units": int(n), "rss_mb": _rss_mb()})
        except Exception as e:  # a JDT crash on the whole batch: say so, stay up for the next one
            _answer({"ok": False, "error": f"{type(e).__name__}: {e}"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
