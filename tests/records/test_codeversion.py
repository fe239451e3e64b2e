"""records.codeversion: the code fingerprint of the caches."""

import os

from records import codeversion


def _same_stamp_rewrite(p, text):
    st = p.stat()
    p.write_text(text)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns


def test_content_not_stamp_decides(tmp_path):
    # an edit that keeps size and mtime (an editor, `cp -p`, a checkout) is another code
    (tmp_path / "m.py").write_text("X = 1\n")
    a = codeversion.code_version(tmp_path)
    _same_stamp_rewrite(tmp_path / "m.py", "X = 2\n")
    codeversion._MEMO.clear()
    assert codeversion.code_version(tmp_path) != a


def test_distributions_and_new_modules_count(tmp_path):
    (tmp_path / "m.py").write_text("X = 1\n")
    a = codeversion.code_version(tmp_path)
    b = codeversion.code_version(tmp_path, distributions=("msgpack",))
    c = codeversion.code_version(tmp_path, distributions=("no-such-distribution-qare",))
    assert len({a, b, c}) == 3 and all(len(x) == 16 for x in (a, b, c))
    (tmp_path / "n.py").write_text("")
    codeversion._MEMO.clear()
    assert codeversion.code_version(tmp_path) != a


def test_records_itself_is_part_of_it(tmp_path, monkeypatch):
    # a changed record reader (records/*.py) must invalidate the caches too
    (tmp_path / "m.py").write_text("X = 1\n")
    a = codeversion.code_version(tmp_path)
    fake = tmp_path / "fake_records"
    fake.mkdir()
    (fake / "io.py").write_text("# another reader\n")
    monkeypatch.setattr(codeversion, "_HERE", fake)
    codeversion._MEMO.clear()
    assert codeversion.code_version(tmp_path) != a
