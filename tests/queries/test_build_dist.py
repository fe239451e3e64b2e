"""`--scheduler`: the same per-project work on a dask.distributed cluster (extra `dist`)."""

import shutil
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from queries.build import BuildOptions, build_dataset  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_scheduler_builds_the_same_dataset_as_in_process(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    lst = tmp_path / "examples/projects.txt"
    opts = BuildOptions(discover_classpath=False)
    local = build_dataset(lst, tmp_path / "local", opts, quiet=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        remote = build_dataset(lst, tmp_path / "dask", opts, scheduler=cluster.scheduler_address, quiet=True)
    assert remote.failed == 0 and remote.analysed == local.analysed
    assert (tmp_path / "dask/samples.jsonl").read_bytes() == (tmp_path / "local/samples.jsonl").read_bytes()
    assert (tmp_path / "dask/apis.jsonl").read_bytes() == (tmp_path / "local/apis.jsonl").read_bytes()
