"""`qare build` exit codes for a missing, empty or broken list and an unwritable output folder."""

from click.testing import CliRunner

from qare.cli import main


def run(*args):
    return CliRunner().invoke(main, ["build", *map(str, args), "-q"])


def test_missing_list_is_no_input(tmp_path):
    r = run(tmp_path / "nope.txt", "--out", tmp_path / "o")
    assert r.exit_code == 3 and "no such file" in r.output


def test_empty_list_is_no_input(tmp_path):
    (tmp_path / "l.txt").write_text("# nothing here\n")
    r = run(tmp_path / "l.txt", "--out", tmp_path / "o")
    assert r.exit_code == 3
    assert not (tmp_path / "o").exists()  # nothing to build, nothing written (session 10)


def test_broken_list_is_fatal_with_file_and_line(tmp_path):
    (tmp_path / "l.jsonl").write_text('{"path": "a"}\n[1, 2]\n')
    r = run(tmp_path / "l.jsonl", "--out", tmp_path / "o")
    assert r.exit_code == 4 and "l.jsonl:2: expected a JSON object" in r.output


def test_unwritable_output_is_fatal(tmp_path):
    (tmp_path / "l.txt").write_text("x\n")
    (tmp_path / "file").write_text("")
    r = run(tmp_path / "l.txt", "--out", tmp_path / "file/sub")
    assert r.exit_code == 4 and "cannot create output folder" in r.output


def test_bad_range_is_usage_error(tmp_path):
    (tmp_path / "l.txt").write_text("x\n")
    r = run(tmp_path / "l.txt", "--out", tmp_path / "o", "--api-count-range", "5:2")
    assert r.exit_code == 2 and "A must not exceed B" in r.output
