#!/usr/bin/env bash
# Installs the system and Python packages the tests use, and unpacks the
# Debian javadoc sites used as real JDK 8 / JDK 11 layout inputs into
# .cache/test-inputs (kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(libcommons-lang3-java bubblewrap)
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
