"""Files a resumed build reads back from ``--out`` (part files, the translation
cache) are data of whoever could write there: a FIFO must not block the build,
a part of the wrong shape is analysed again, a cache of the wrong shape is ignored
(queries/build.py ``_load_part``, queries/_merge.py ``_Translator``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_fifo_part_file_is_a_miss_not_a_hang(tmp_path):
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    code = textwrap.dedent(f"""
        from pathlib import Path
        from queries.build import _load_part
        print(_load_part(Path({str(fifo)!r}), "f"))
    """)
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(REPO)),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "None", r.stderr


def test_a_part_of_the_wrong_shape_is_analysed_again(tmp_path):
    from queries._part import PART_FORMAT
    from queries.build import _load_part

    p = tmp_path / "p.json"
    p.write_text(json.dumps({"format": PART_FORMAT, "fingerprint": "f", "verdict": "kept", "key": "k",
                             "spec": {}, "project": "p", "apis": ["x"]}))
    assert _load_part(p, "f") is None


def test_a_translation_cache_of_the_wrong_shape_is_ignored(tmp_path):
    from queries._merge import _Translator
    from queries.build import BuildOptions

    opts = BuildOptions(translate_cmd="cat")
    for bad in (["not", "a", "dict"], {"q": ["x"]}, {"q": 1}):
        (tmp_path / ".translations.json").write_text(json.dumps(bad))
        assert _Translator(opts, None, tmp_path).cache == {}
    (tmp_path / ".translations.json").write_text(json.dumps({"你好": "hello"}))
    assert _Translator(opts, None, tmp_path).cache == {"你好": "hello"}
