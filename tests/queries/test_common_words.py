"""queries._common_words: the leak check's common-word answers kept in the
qare cache. The answers must be wordfreq's (asked directly here as the
independent source); a kept answer is served without wordfreq; a file that
is not a plain, private, well-formed memo is ignored and rewritten."""

import json
import os
import sys

import pytest
from wordfreq import zipf_frequency

from queries import leaks
from queries._common_words import MAX_BYTES, CommonWords

WORDS = ["value", "trim", "Arguments", "uuid", "md5", "substring", "Logger", "parse"]


def _truth(w):
    return zipf_frequency(w.lower(), "en") >= leaks.COMMON_ZIPF


def _no_wordfreq(monkeypatch):
    """Make any question to wordfreq fail: what is answered then came from the memo."""
    import wordfreq

    def boom(*a, **k):
        raise AssertionError("wordfreq asked")

    monkeypatch.setattr(wordfreq, "zipf_frequency", boom)


def test_answers_are_wordfreqs_and_the_next_process_gets_them_from_the_file(tmp_path, monkeypatch):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    first = CommonWords(leaks.COMMON_ZIPF, base)
    got = {w: first(w) for w in WORDS}
    assert got == {w: _truth(w) for w in WORDS}
    assert got["value"] and not got["uuid"]  # the two sides of the threshold are both exercised
    first.save()
    path = first.path
    assert path.is_file() and (path.stat().st_mode & 0o777) == 0o600
    assert json.loads(path.read_text()) == {w.lower(): v for w, v in got.items()}
    _no_wordfreq(monkeypatch)
    second = CommonWords(leaks.COMMON_ZIPF, base)
    assert {w: second(w) for w in WORDS} == got
    assert second.new == 0


def test_another_threshold_has_its_own_file(tmp_path):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    a, b = CommonWords(2.5, base), CommonWords(9.0, base)
    assert a.path != b.path
    a("value")
    a.save()
    assert b("value") is False  # "value" is common at 2.5, not at 9: b did not read a's answer


@pytest.mark.parametrize("content", [
    b"not json",
    b'{"uuid": "yes"}',
    b'["uuid"]',
    b'{"uuid": 1}',
    b"[" * 100_000,
])
def test_a_malformed_file_is_ignored_and_rewritten(tmp_path, content):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    memo = CommonWords(leaks.COMMON_ZIPF, base)
    memo.path.parent.mkdir(mode=0o700)
    memo.path.write_bytes(content)
    assert memo("uuid") is _truth("uuid") is False
    memo.save()
    assert json.loads(memo.path.read_text()) == {"uuid": False}


def test_a_forged_answer_is_refused_unless_the_folder_is_private(tmp_path, monkeypatch):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    memo = CommonWords(leaks.COMMON_ZIPF, base)
    memo.path.parent.mkdir(mode=0o700)
    memo.path.write_text('{"uuid": true}')  # the wrong answer, to see where it is believed
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is True  # private folder: the memo is trusted
    os.chmod(memo.path.parent, 0o777)
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is False  # others could write it: wordfreq asked


def test_links_fifos_and_huge_files_are_not_read(tmp_path):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    memo = CommonWords(leaks.COMMON_ZIPF, base)
    memo.path.parent.mkdir(mode=0o700)
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"uuid": true}')
    memo.path.symlink_to(outside)
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is False
    memo.path.unlink()
    os.mkfifo(memo.path)  # a FIFO would block a reader forever
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is False
    memo.path.unlink()
    memo.path.write_text('{"uuid": true, "pad": "' + "x" * MAX_BYTES + '"}')
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is False


def test_no_cache_folder_keeps_answers_in_memory_only(tmp_path):
    memo = CommonWords(leaks.COMMON_ZIPF, None)
    assert memo("value") is True and memo.path is None
    memo.save()  # nothing to write to, nothing raised
    assert not any(tmp_path.iterdir())


def test_is_common_word_uses_and_fills_the_qare_cache(tmp_path, monkeypatch):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(base))
    monkeypatch.setattr(leaks, "_MEMOS", {})
    assert leaks.is_common_word("Logger") is _truth("Logger")
    assert leaks.is_common_word("info") is _truth("info")
    leaks.save_common_words()
    monkeypatch.setattr(leaks, "_MEMOS", {})
    _no_wordfreq(monkeypatch)
    assert leaks.is_common_word("logger") is _truth("Logger")
    assert leaks.find_leaks("Returns the Logger", [{"class": "org.slf4j.Logger", "api": "org.slf4j.Logger.info"}]) \
        == ["Logger"]


def test_a_build_asking_nothing_leaves_an_empty_memo_so_the_next_warm_up_skips_wordfreq(tmp_path, monkeypatch):
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(base))
    monkeypatch.setattr(leaks, "_MEMOS", {})
    leaks.save_common_words()  # no memo made yet: nothing to write
    leaks.warm_common_words()  # no file: wordfreq warmed (the real one)
    leaks.save_common_words()
    memo_file = leaks._memo().path
    assert json.loads(memo_file.read_text()) == {}
    monkeypatch.setattr(leaks, "_MEMOS", {})
    _no_wordfreq(monkeypatch)
    leaks.warm_common_words()  # the empty memo was found: wordfreq not loaded
    assert leaks._memo().found


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_another_users_file_is_not_read(tmp_path):
    """The tester's planted file (session 7): owned by nobody, in the private
    folder, its forged answer was believed. The output cache refuses such a file; so does the memo."""
    base = tmp_path / "qc"
    base.mkdir(mode=0o700)
    memo = CommonWords(leaks.COMMON_ZIPF, base)
    memo.path.parent.mkdir(mode=0o700)
    memo.path.write_text('{"uuid": true}')
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is True
    os.chown(memo.path, 65534, 65534)
    assert CommonWords(leaks.COMMON_ZIPF, base)("uuid") is False
