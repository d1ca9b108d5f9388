#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# For every real trace of ../shared/data that popsim analyses: `popsim cut` of its middle third,
# analysed, must print the numbers `analyze --from --to` prints for the same window of the
# original, and the cut must pass the strict reader (--strict) when the original does. One row per
# trace.
#   validation/window_cuts.sh [POPSIM [DATA]]
. "$(dirname "$0")/setup.sh" "$@"

failures=0 compared=0
for trace in $(find "$data" -name '*.prv.gz' | sort); do
    name=$(basename "$trace" .prv.gz)
    # Only the traces popsim analyses as they are (refused and truncated ones have their tests).
    "$popsim" analyze "$trace" --quiet --json "$work/whole.json" > /dev/null 2>&1 || continue
    end=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['traces'][0]['runtime_ns'])" "$work/whole.json")
    from=$((end / 3))ns to=$((2 * end / 3))ns
    if ! "$popsim" cut "$trace" --from "$from" --to "$to" -o "$work/cut.prv" --quiet > /dev/null 2> "$work/err"; then
        echo "FAIL $name: cut: $(cat "$work/err")"; failures=$((failures + 1)); continue
    fi
    # A trace the strict reader takes (no records to re-pair) must give a cut it takes too.
    strict=; "$popsim" analyze "$trace" --strict --quiet --no-replay > /dev/null 2>&1 && strict=--strict
    "$popsim" analyze "$work/cut.prv" $strict --quiet --no-color 2>&1 | sed "s|$work/cut.prv|TRACE|" > "$work/of_cut"
    "$popsim" analyze "$trace" --from "$from" --to "$to" --quiet --no-color 2>&1 | sed "s|$trace|TRACE|" | grep -v "^TRACE: window \[" > "$work/windowed"
    compared=$((compared + 1))
    if cmp -s "$work/of_cut" "$work/windowed"; then
        printf '%-58s same report, window [%s, %s)\n' "$name" "$from" "$to"
    else
        echo "FAIL $name: the cut's report differs from the window's:"; diff "$work/of_cut" "$work/windowed" | head -10
        failures=$((failures + 1))
    fi
done
echo "$compared traces compared, $failures failures"
[ "$failures" -eq 0 ] && [ "$compared" -gt 0 ]
