"""Every command has help text and documents the exit codes."""

from click.testing import CliRunner

from qare.cli import main


def _walk(group, prefix=()):
    for name, cmd in group.commands.items():
        yield prefix + (name,), cmd
        if hasattr(cmd, "commands"):
            yield from _walk(cmd, prefix + (name,))


def test_top_level_help_lists_exit_codes():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.output


def test_every_command_has_help():
    runner = CliRunner()
    for path, cmd in _walk(main):
        assert cmd.help, f"qare {' '.join(path)} has no help text"
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
