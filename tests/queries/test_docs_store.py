"""queries._docs.doc_store: `qare build` reads each library's doc jar through
the per-jar doc-index cache (javadoc.DocSetStore) under the qare cache; a
build from the cache writes the same samples and APIs, byte for byte, as one
that read the jars."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from javadoc import _index
from queries import _docs
from queries.build import BuildOptions, build_dataset

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def doc_jar_list(tmp_path) -> Path:
    """The bundled example projects with their library's doc comments as a
    sources jar (folders are never cached, archives are)."""
    jar = tmp_path / "textkit-1.0-sources.jar"
    src = EXAMPLES / "libs" / "textkit" / "src"
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(src.rglob("*.java")):
            z.write(p, p.relative_to(src).as_posix())
    projects = tmp_path / "projects"
    shutil.copytree(EXAMPLES / "projects", projects)
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{p} javadoc={jar}\n" for p in sorted(projects.iterdir())))
    return lst


@pytest.fixture
def qare_cache(tmp_path, monkeypatch) -> Path:
    qc = tmp_path / "qare-cache"
    qc.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    monkeypatch.setattr(_docs, "_STORE", {})
    _index._CACHE.clear()
    yield qc
    _index._CACHE.clear()


def _build(lst: Path, out: Path):
    _index._CACHE.clear()  # a new process, as far as the archives are concerned
    _docs._STORE.clear()
    opts = BuildOptions(discover_classpath=False, jdk=None, facts_cache_dir=None)
    return build_dataset(lst, out, opts, quiet=True, resume=False)


def test_a_build_from_the_cache_writes_the_same_bytes(tmp_path, doc_jar_list, qare_cache, monkeypatch):
    cold = _build(doc_jar_list, tmp_path / "cold")
    assert cold.counts["samples"] > 0
    entries = list((qare_cache / _docs.DOC_STORE_DIR).glob("*.json.z"))
    assert len(entries) == 1
    reads = []
    real = _index.read_any
    monkeypatch.setattr(_index, "read_any", lambda *a, **k: reads.append(a) or real(*a, **k))
    warm = _build(doc_jar_list, tmp_path / "warm")
    assert reads == []  # the jar came from the cache
    assert _docs.doc_store().hits == 1
    for name in ("samples.jsonl", "apis.jsonl"):
        assert (tmp_path / "warm" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()
    assert warm.counts["samples"] == cold.counts["samples"]


def test_a_corrupt_cache_file_is_rebuilt_in_a_build(tmp_path, doc_jar_list, qare_cache):
    _build(doc_jar_list, tmp_path / "one")
    (entry,) = list((qare_cache / _docs.DOC_STORE_DIR).glob("*.json.z"))
    good = entry.read_bytes()
    entry.write_bytes(b"\x78\x9c garbage")
    _build(doc_jar_list, tmp_path / "two")
    assert _docs.doc_store().rebuilt == 1
    assert entry.read_bytes() == good
    for name in ("samples.jsonl", "apis.jsonl"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_no_store_when_the_qare_cache_is_off(tmp_path, doc_jar_list, monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", "off")
    monkeypatch.setattr(_docs, "_STORE", {})
    assert _docs.doc_store() is None
    monkeypatch.setattr(_docs, "_STORE", {})
    qc = tmp_path / "shared"
    qc.mkdir()
    os.chmod(qc, 0o777)  # anyone could plant entries: not used
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    notes = []
    monkeypatch.setattr(_docs._progress, "note", notes.append)
    assert _docs.doc_store() is None
    assert any("doc-index cache not used" in n and "writable by group or others" in n for n in notes)
    monkeypatch.setattr(_docs, "_STORE", {})
    _index._CACHE.clear()
    # the build still documents its APIs, reading the jar itself
    res = _build(doc_jar_list, tmp_path / "out")
    assert res.counts["samples"] > 0
    assert not (qc / _docs.DOC_STORE_DIR).exists() or not list((qc / _docs.DOC_STORE_DIR).glob("*.json.z"))


def test_the_memo_is_bounded_in_members(monkeypatch):
    from collections import OrderedDict

    from javadoc import ApiDoc, DocSet, SiteLayout

    class Index:
        def __init__(self, n):
            members = tuple(ApiDoc(id=f"p.C.m{i}()", api=f"p.C.m{i}", class_="p.C", kind="method",
                                   signature_text="", description="d", first_sentence="d", params=(), returns=None,
                                   throws=(), deprecated=None, doc_source="sources", layout=SiteLayout.SOURCES,
                                   location="p/C.java") for i in range(n))
            self.docsets = [DocSet(source="x", layout=SiteLayout.SOURCES, classes=(), members=members)]
            self.failed, self.warnings = (), []

    made = iter([Index(100), Index(100), Index(100), Index(250)])
    monkeypatch.setattr(_docs, "_DOCS_MEMO", OrderedDict())
    monkeypatch.setattr(_docs, "_DOCS_MEMO_MEMBERS", 250)
    monkeypatch.setattr(_docs, "doc_store", lambda: None)
    import javadoc

    monkeypatch.setattr(javadoc.DocIndex, "open", classmethod(lambda cls, p, store=None: next(made)))
    monkeypatch.setattr(_docs._progress, "note", lambda *a: None)
    for p in ("/a", "/b", "/c"):
        _docs.open_docs([p])
    assert list(_docs._DOCS_MEMO) == ["/b", "/c"]  # 300 members > 250: the oldest went
    _docs.open_docs(["/d"])
    assert list(_docs._DOCS_MEMO) == ["/d"]  # alone over the budget, still kept


def test_the_store_follows_the_qare_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(_docs, "_STORE", {})
    monkeypatch.setenv("QARE_CACHE_DIR", "off")
    assert _docs.doc_store() is None
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("QARE_CACHE_DIR", str(a))
    sa = _docs.doc_store()
    monkeypatch.setenv("QARE_CACHE_DIR", str(b))
    sb = _docs.doc_store()
    assert sa.folder == a / _docs.DOC_STORE_DIR and sb.folder == b / _docs.DOC_STORE_DIR
    assert _docs.doc_store() is sb


def test_projects_with_the_same_doc_jars_share_one_combined_index(tmp_path, doc_jar_list, qare_cache, monkeypatch):
    import javadoc

    jar = str(next(tmp_path.glob("*-sources.jar")))
    other = tmp_path / "copy-sources.jar"
    shutil.copy(jar, other)
    built = []
    real_init = javadoc.DocIndex.__init__

    def counting(self, docsets, warnings=None):
        built.append(len(docsets))
        real_init(self, docsets, warnings)

    monkeypatch.setattr(javadoc.DocIndex, "__init__", counting)
    _docs.clear_docs_memo()
    first = _docs.open_docs([jar])
    n = len(built)  # the one-path index and the combined one
    assert _docs.open_docs([jar]) is first and len(built) == n  # nothing indexed again
    both = _docs.open_docs([jar, str(other)])
    assert both is not first and len(both.docsets) == 2
    assert _docs.open_docs([jar]) is not both  # another site list: combined again
    solo = _docs.open_docs([str(other)])  # as many sites as the last list, but another one
    assert [d.source for d in solo.docsets] == [str(other)]
    api = first.members()[0]
    assert _docs.open_docs([jar]).get(api.id) == api
    _docs.clear_docs_memo()
    assert not _docs._COMBINED and not _docs._DOCS_MEMO
    assert _docs.open_docs([jar]) is not first  # a new build indexes afresh
