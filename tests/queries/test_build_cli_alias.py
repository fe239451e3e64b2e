"""`qare build` takes the same classpath flag as `qare graph`/`qare chain`."""

from click.testing import CliRunner

from qare.cli import main


def test_auto_classpath_alias_is_accepted(tmp_path, monkeypatch):

    seen = {}

    def fake_build(project_list, out, options, **kwargs):
        seen["discover"] = options.discover_classpath
        raise SystemExit(0)

    monkeypatch.setattr("queries.build.build_dataset", fake_build)
    lst = tmp_path / "list.txt"
    lst.write_text("/nonexistent\n")
    for flag, expected in (("--no-auto-classpath", False), ("--auto-classpath", True), ("--no-discover-classpath", False)):
        seen.clear()
        result = CliRunner().invoke(main, ["build", str(lst), "--out", str(tmp_path / "o"), flag])
        assert "No such option" not in result.output, result.output
        assert seen.get("discover") is expected, (flag, result.output)
