#!/usr/bin/env bash
# The test command of the README: installs what the tests need (system
# packages, Python packages, offline test inputs) and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
exec python3 -m pytest -q "$@"
