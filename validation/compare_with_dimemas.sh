#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs an installed Dimemas (prv2dim + Dimemas) and popsim on the same trace and configuration and
# prints the predicted runtimes side by side.
#   validation/compare_with_dimemas.sh TRACE.prv CONFIG.cfg [PRV2DIM DIMEMAS]
# PRV2DIM and DIMEMAS default to the programs of those names on the PATH. Without them it says so and
# does nothing (exit 0). popsim is taken from build/popsim, or the PATH.
set -euo pipefail
trace=${1:?usage: compare_with_dimemas.sh TRACE.prv CONFIG.cfg [PRV2DIM DIMEMAS]}
config=${2:?usage: compare_with_dimemas.sh TRACE.prv CONFIG.cfg [PRV2DIM DIMEMAS]}
prv2dim=${3:-$(command -v prv2dim || true)}
dimemas=${4:-$(command -v Dimemas || true)}
here=$(cd "$(dirname "$0")/.." && pwd)
popsim=$here/build/popsim
[ -x "$popsim" ] || popsim=$(command -v popsim)
if [ -z "$prv2dim" ] || [ -z "$dimemas" ]; then
    echo "No Dimemas given or found (prv2dim and Dimemas): nothing to compare."
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plain=$work/trace.prv
case "$trace" in *.gz) gzip -dc "$trace" > "$plain" ;; *) cp "$trace" "$plain" ;; esac
base=${trace%.gz}; base=${base%.prv}
for ext in pcf row; do [ -f "$base.$ext" ] && cp "$base.$ext" "$work/trace.$ext"; done
"$prv2dim" "$plain" "$work/trace.dim" > "$work/prv2dim.log" 2>&1
cp "$config" "$work/run.cfg"
collectives=$(dirname "$config")/dimemas.collectives
[ -f "$collectives" ] && cp "$collectives" "$work/"
(cd "$work" && "$dimemas" -S 32k --dim trace.dim -p sim.prv run.cfg > dimemas.log 2>&1) || {
    echo "Dimemas failed:"; tail -20 "$work/dimemas.log"; exit 1; }
dimemas_ns=$(awk -F: 'NR==1 {sub(/_ns/, "", $3); print $3}' "$work/sim.prv")
"$popsim" simulate "$trace" --config "$config" --json "$work/popsim.json" > /dev/null
popsim_ns=$(python3 -c "import json; print(json.load(open('$work/popsim.json'))['predicted_runtime_ns'])")
python3 -c "
d, p = $dimemas_ns, $popsim_ns
print(f'Dimemas {d} ns, popsim {p} ns, difference {p - d:+d} ns ({(p - d) / d:+.2e})')"
