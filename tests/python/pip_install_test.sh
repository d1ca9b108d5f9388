#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `pip install --no-build-isolation .` (offline, as this machine has no package index) into a fresh
# venv of Debian's python3 made with --system-site-packages (for pandas), then the Python session
# of docs/library.md on the bundled example traces; the same for every other Python 3.9+ found
# (pyenv, conda, /usr/local): built, installed and loaded, and the session run where pandas imports. The module is compiled without optimisation, by clang (POPSIM_CMAKE_ARGS):
# the test checks the packaging, not the speed or the compiler (the release tree builds with g++,
# the sanitizers' with clang), and clang -O0 compiles popsim in 60 % of g++ -O0's time; CI has 20
# minutes.
# usage: pip_install_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source=$1 work=$2
rm -rf "$work"
mkdir -p "$work/traces"
fail() { echo "pip_install_test: $*" >&2; exit 1; }

# The traces the session names, made from the bundled examples.
for n in 2 4; do
    gzip -c "$source/examples/halo/halo_$n.prv" > "$work/traces/run_$n.prv.gz"
    cp "$source/examples/halo/halo_$n.pcf" "$work/traces/run_$n.pcf"
    cp "$source/examples/halo/halo_$n.row" "$work/traces/run_$n.row"
done
# The session: docs/library.md's Python block, run as written.
python_block=$(awk '/^## Python/ { on = 1 } on && /^```python/ { code = 1; next } code && /^```/ { exit } code' \
    "$source/docs/library.md")
[ -n "$python_block" ] || fail "no Python session in docs/library.md"
printf '%s\n' "$python_block" > "$work/session.py"
cat >> "$work/session.py" <<'PY'
# What the session must have shown (the example series: halo exchanges on 2 and 4 ranks).
assert list(a.metrics.columns) == ["2", "4"], a.metrics.columns
assert 0.5 < a.metrics.loc["Parallel efficiency"].min() <= 1
assert len(a.per_rank) == 6 and runtimes.size >= 2 and len(w) == 6
print("session ok:", popsim.__file__)
PY

# install PYTHON NAME [venv options]: a fresh venv with popsim pip-installed; prints the venv.
install() {
    local python=$1 name=$2
    shift 2
    local venv="$work/venv-$name"
    "$python" -m venv "$@" "$venv" || fail "$python: cannot make a venv"
    if [ "${borrow_debian:-}" = 1 ]; then # Debian's wheel (pure Python) and pandas, after the venv's own
        "$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' |
            { read -r site && echo /usr/lib/python3/dist-packages > "$site/debian.pth"; }
    fi
    (cd "$source" && POPSIM_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CXX_COMPILER=clang++" \
        "$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet . > "$work/pip-$name.log" 2>&1) ||
        fail "pip install into the $name venv: $(tail -20 "$work/pip-$name.log")"
}

# session NAME: the library.md session in the venv, with popsim imported from the venv.
session() {
    local venv="$work/venv-$1"
    (cd "$work/traces" && "$venv/bin/python" "$work/session.py") > "$work/session-$1.log" 2>&1 ||
        fail "the session in the $1 venv: $(tail -20 "$work/session-$1.log")"
    grep -q "^session ok: $venv/" "$work/session-$1.log" || fail "$1: popsim was not imported from the venv"
    echo "pip_install_test: $1 ($("$venv/bin/python" --version)): installed, session ok"
}

install /usr/bin/python3 debian --system-site-packages
session debian

# Every other Python 3.9+ here, in a venv that borrows Debian's wheel (and pandas, which serves its
# own minor version only) through a .pth file: the module is built and loaded, and the session runs
# where pandas imports.
# shellcheck disable=SC2016
minor='import sys; print("%d.%d" % sys.version_info[:2])'
others=0
for candidate in $(type -ap python3) /root/.pyenv/versions/*/bin/python3 /opt/conda/bin/python3 /usr/local/bin/python3; do
    [ -x "$candidate" ] || continue
    real=$("$candidate" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2> /dev/null) || continue
    case "$real" in /usr/bin/*) continue ;; esac
    grep -qx "$real" "$work/tried" 2> /dev/null && continue
    echo "$real" >> "$work/tried"
    version=$("$candidate" -c "$minor")
    "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || {
        echo "pip_install_test: $real: Python $version is older than 3.9, not tried"
        continue
    }
    # A venv has setuptools below Python 3.12 only; there is no package index here to fetch it.
    "$candidate" -c 'import importlib.util as u, sys
sys.exit(sys.version_info >= (3, 12) and u.find_spec("setuptools") is None)' || {
        echo "pip_install_test: $real: Python $version has no setuptools here (and no package index), not tried"
        continue
    }
    others=$((others + 1))
    name="other$others"
    borrow_debian=1 install "$candidate" "$name"
    if "$work/venv-$name/bin/python" -c 'import pandas' 2> /dev/null; then
        session "$name"
        continue
    fi
    "$work/venv-$name/bin/python" - > "$work/load-$name.log" 2>&1 <<'PY' || fail "$name: the module does not load: $(cat "$work/load-$name.log")"
import glob, importlib.util, sysconfig
path = glob.glob(sysconfig.get_paths()["platlib"] + "/popsim/_popsim*.so")[0]
spec = importlib.util.spec_from_file_location("popsim._popsim", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(module.version())
PY
    echo "pip_install_test: $name (Python $version, $real): installed, the module loads; no pandas for it, so no session"
done
[ "$others" -gt 0 ] || echo "pip_install_test: no Python but Debian's here"
