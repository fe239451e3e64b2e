"""The README's and docs/' relative links and the folders they name are in
the repository (issue 12: DESIGN.md once pointed to folders that were not)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_relative_links_resolve():
    bad = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                bad.append(f"{page.relative_to(ROOT)}: {target}")
    assert not bad, bad


def test_no_pointer_to_folders_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for folder in ("seeds/", "reference/"):
            assert folder not in text or (ROOT / folder).is_dir(), f"{page.name} names {folder}"
