"""`qare` commands of this group (filled in by its issue)."""

COMMANDS: list = []
