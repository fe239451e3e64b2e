"""The stat-signature rule (callgraph._statsig, docs/callgraph.md "Graph store",
"Stat rule"): an equal signature recorded well after the file's last write
stands for its content; a racy one (mtime or ctime within RACY_NS of the
record's time, or later) and any changed field make the file hashed."""

from __future__ import annotations

import hashlib
import os
import time

from callgraph import _statsig as ss


def _digest(path):
    try:
        return hashlib.sha256(open(path, "rb").read()).hexdigest()
    except OSError:
        return None


def test_signature_fields_and_missing(tmp_path):
    f = tmp_path / "A.java"
    f.write_text("class A {}")
    st = os.stat(f)
    assert ss.signature(f) == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev) == ss.signature_of(st)
    assert ss.signature(tmp_path / "none.java") == ss.MISSING
    assert not ss.trusted(ss.MISSING, time.time_ns())


def test_racy_signatures_are_not_trusted(tmp_path):
    f = tmp_path / "A.java"
    f.write_text("class A {}")
    sig = ss.signature(f)
    written_now = time.time_ns()
    assert not ss.trusted(sig, written_now)  # written within RACY_NS of the record
    assert not ss.trusted(sig, sig[1] + ss.RACY_NS)  # exactly the window: still racy
    assert ss.trusted(sig, max(sig[1], sig[2]) + ss.RACY_NS + 1)


def test_unchanged_hashes_a_racy_file_and_sees_the_edit(tmp_path):
    f = tmp_path / "A.java"
    f.write_text("class A {}")
    sig, digest = ss.signature(f), _digest(f)
    later = max(sig[1], sig[2]) + 10 * ss.RACY_NS
    calls = []

    def counting(p):
        calls.append(p)
        return _digest(p)

    assert ss.unchanged(f, sig, later, counting, digest) and calls == []  # one stat, no read
    assert ss.unchanged(f, sig, time.time_ns(), counting, digest) and calls == [f]  # racy: hashed
    # same size, mtime set back: ctime moved, so the signature differs and the bytes are compared
    st = os.stat(f)
    f.write_text("class B {}")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not ss.unchanged(f, sig, later, counting, digest)
    assert not ss.unchanged(f, sig, later, counting, None)  # no recorded digest never matches
