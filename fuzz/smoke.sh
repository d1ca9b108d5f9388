#!/usr/bin/env bash
# A short fuzzing run for CI: BUILD_DIR has the fuzz targets (./dev test builds them with clang).
# Fails on a crash, a sanitizer report or an unexpected exception; the corpus is copied first so
# the run leaves the tree as it was.
set -euo pipefail
build=${1:?usage: fuzz/smoke.sh BUILD_DIR [SECONDS]}
seconds=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/corpus" "$work/corpus"
"$build/fuzz/paraver_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/" "$work/corpus" 2>&1 | tail -5
echo "fuzz smoke run: no crash in ${seconds} s"
