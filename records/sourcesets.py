"""Which source set a Java file belongs to: the one test-code rule.

``callgraph`` uses it to mark each file ``main`` or ``test`` (candidates come
from ``main`` unless ``--include-tests``); ``queries`` uses it for
``--require-tests``. The folder decides, as the build tool does:
under a Maven/Gradle source root ``src/<set>/java`` (any depth, so
multi-module builds are covered) a set whose name contains ``test`` in any
case (``test``, ``integrationTest``, ``testFixtures``, ``androidTest``) is
test code; elsewhere (a plain layout) a file under a folder named ``test`` or
``tests`` is. A file name (``FooTest.java``) decides nothing: a class under
``src/main/java`` ships with the program whatever it is called.
"""

from __future__ import annotations

__all__ = ["MAIN", "TEST", "source_set"]

MAIN = "main"
TEST = "test"


def source_set(rel_parts: tuple[str, ...] | list[str]) -> str:
    """``"test"`` or ``"main"`` for a file given by the parts of its path
    relative to the project root (the last part is the file name).

    >>> source_set(("core", "src", "integrationTest", "java", "a", "B.java"))
    'test'
    >>> source_set(("src", "main", "java", "a", "BTest.java"))
    'main'
    >>> source_set(("tests", "B.java"))
    'test'
    """
    parts = tuple(rel_parts)
    for i in range(len(parts) - 2):
        if parts[i] == "src" and parts[i + 2] == "java":
            return TEST if "test" in parts[i + 1].lower() else MAIN
    return TEST if any(p in ("test", "tests") for p in parts[:-1]) else MAIN
