"""The per-process memo of jars' class-name indexes (``classpath._JAR_MEMO``):
a jar opened again in the same process is not re-read, a jar that changed in
any way is, and the memo stays within its bounds."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from callgraph import classpath as cpmod
from callgraph.classpath import ClasspathIndex

LANG3 = Path("/usr/share/java/commons-lang3.jar")


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch):
    memo = cpmod._JarIndexMemo(cpmod.JAR_MEMO_MAX_NAMES, cpmod.JAR_MEMO_MAX_JARS)
    monkeypatch.setattr(cpmod, "_JAR_MEMO", memo)
    return memo


def _jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


@pytest.mark.skipif(not LANG3.is_file(), reason="libcommons-lang3-java not installed")
def test_second_index_of_a_jar_comes_from_the_memo_and_reads_the_same(fresh_memo, tmp_path):
    jar = tmp_path / "commons-lang3.jar"
    shutil.copyfile(LANG3, jar)
    a = ClasspathIndex.open([jar], jdk=None)
    assert (fresh_memo.hits, fresh_memo.misses) == (0, 1)
    b = ClasspathIndex.open([jar], jdk=None)
    assert (fresh_memo.hits, fresh_memo.misses) == (1, 1)
    # the memoised ZipInfos serve the second index's lazy class reads
    sa, sb = a.lookup("org.apache.commons.lang3.StringUtils"), b.lookup("org.apache.commons.lang3.StringUtils")
    assert sb.library == sa.library == "org.apache.commons:commons-lang3:3.12.0"
    assert sorted(m.name + str(m.params) for m in sb.methods) == sorted(m.name + str(m.params) for m in sa.methods)
    assert len([m for m in sb.methods if m.name == "isBlank"]) == 1
    assert b.types_in_package("org.apache.commons.lang3") == a.types_in_package("org.apache.commons.lang3")
    a.close()
    b.close()


def test_a_jar_rewritten_with_the_same_size_and_mtime_is_read_again(fresh_memo, tmp_path):
    # what `cp -p` of another jar does: same size, old mtime, same inode; only
    # ctime tells the bytes changed
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe\xba\xbe"})
    other = _jar(tmp_path / "other.jar", {"p/Gamma.class": b"\xca\xfe\xba\xbe"})
    st = jar.stat()
    assert other.stat().st_size == st.st_size
    assert ClasspathIndex.open([jar], jdk=None).has_type("p.Alpha")
    with open(jar, "r+b") as fh:  # in place: the inode stays
        fh.write(other.read_bytes())
    os.utime(jar, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = jar.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.has_type("p.Gamma") and not ix.has_type("p.Alpha")
    assert fresh_memo.hits == 0


def test_a_replaced_jar_is_read_again(fresh_memo, tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe\xba\xbe"})
    assert ClasspathIndex.open([jar], jdk=None).has_type("p.Alpha")
    _jar(tmp_path / "new.jar", {"p/Beta.class": b"\xca\xfe\xba\xbe", "p/Beta2.class": b"\xca\xfe\xba\xbe"})
    os.replace(tmp_path / "new.jar", jar)
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.has_type("p.Beta2") and not ix.has_type("p.Alpha")
    assert fresh_memo.hits == 0


def test_warnings_of_a_memoised_jar_are_given_again_under_the_name_used(fresh_memo, tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe\xba\xbe", "../evil.class": b"x"})
    link = tmp_path / "alias.jar"
    link.symlink_to(jar)
    w1 = ClasspathIndex.open([jar], jdk=None).warnings
    w2 = ClasspathIndex.open([jar], jdk=None).warnings
    w3 = ClasspathIndex.open([link], jdk=None).warnings
    msg = "1 zip entries with unsafe paths ('..', absolute) ignored"
    assert w1 == w2 == [(str(jar), msg)]
    assert w3 == [(str(link), msg)]
    assert fresh_memo.hits == 1  # the link has its own file name: its own entry


def test_memo_keeps_within_its_bounds(tmp_path):
    memo = cpmod._JarIndexMemo(max_names=3, max_jars=2)
    memo.put("a", ({"x": 1, "y": 2}, None, ()))
    memo.put("b", ({"z": 1}, None, ()))
    assert len(memo) == 2 and memo.get("a") is not None  # a is now the most recent
    memo.put("c", ({"w": 1}, None, ()))  # 4 names > 3: the least recent (b) goes
    assert memo.get("b") is None and memo.get("a") is not None and memo.get("c") is not None
    memo.put("d", ({str(i): i for i in range(4)}, None, ()))  # larger than the memo: not kept
    assert memo.get("d") is None and len(memo) == 2
    memo.put("e", ({"v": 1}, None, ()))  # 2 jars at most
    assert len(memo) == 2 and memo.get("a") is None


def test_a_fifo_on_the_classpath_does_not_block(tmp_path):
    fifo = tmp_path / "lib.jar"
    os.mkfifo(fifo)
    with pytest.raises(cpmod._EntryError):
        cpmod._jar_index(fifo)
