#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A short fuzzing run for CI: BUILD_DIR has the fuzz targets (./dev test builds them with clang).
# Fails on a crash, a sanitizer report or an unexpected exception; each corpus is copied first so
# the run leaves the tree as it was.
#   fuzz/smoke.sh BUILD_DIR [SECONDS]    SECONDS for the Paraver reader, a third of it for the others
# A longer local run of one target (docs: fuzz/README.md):
#   fuzz/smoke.sh BUILD_DIR 600 synth    ten minutes of the synth description parser
set -euo pipefail
build=${1:?usage: fuzz/smoke.sh BUILD_DIR [SECONDS [TARGET]]}
seconds=${2:-15}
only=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # TARGET CORPUS SECONDS
    local target=$1 corpus=$2 time=$3
    [ -n "$only" ] && [ "$only" != "$corpus" ] && return 0
    cp -r "$here/corpus/$corpus" "$work/$corpus"
    if ! "$build/fuzz/$target" -max_total_time="$time" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/" "$work/$corpus" > "$work/$target.log" 2>&1; then
        grep -v "^#[0-9]" "$work/$target.log" | tail -40 # the report and the input that failed
        # Keep the input (the work folder goes): beside the build, and in the log as base64.
        mkdir -p "$build/fuzz-artifacts"
        for input in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
            [ -f "$input" ] || continue
            cp "$input" "$build/fuzz-artifacts/"
            echo "$target: input kept as $build/fuzz-artifacts/$(basename "$input"); base64:"
            base64 "$input"
        done
        echo "$target: FAILED"
        return 1
    fi
    grep -E "^#[0-9]+[[:space:]]+DONE" "$work/$target.log" | tail -1 # executions, coverage, features
    grep -E "^Done" "$work/$target.log" | tail -1
    echo "$target: no crash in $time s"
}
third=$(( seconds / 3 > 0 ? seconds / 3 : 1 ))
run paraver_fuzz paraver "$seconds"
run config_fuzz config "$( [ -n "$only" ] && echo "$seconds" || echo "$third" )"
run dimemas_trace_fuzz dimemas "$( [ -n "$only" ] && echo "$seconds" || echo "$third" )"
run synth_fuzz synth "$( [ -n "$only" ] && echo "$seconds" || echo "$third" )"
run gztool_index_fuzz gztool "$( [ -n "$only" ] && echo "$seconds" || echo "$third" )"
