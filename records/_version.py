"""The tool version (also ``pyproject.toml``'s ``version``; ``qare --version`` prints it)."""

__version__ = "0.1.0"
