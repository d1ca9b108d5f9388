#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Analyses every real trace of ../shared/data (the collected ones, HPCC, prime, LAMMPS, epoch) and
# prints one row each: exit status, runtime, ideal runtime, PE, SerE, TE and the kinds of warnings.
#   validation/real_traces.sh [POPSIM [DATA]]
# Exits 1 when a trace that must be analysed is refused; the few that may be refused (malformed
# COMPSs traces, the 2004-format qsort) must be refused with their known cause. PROFET's test
# inputs, whose records stop at 9 % of the run their header declares, must be refused as truncated
# and are then analysed with --allow-truncated.
. "$(dirname "$0")/setup.sh" "$@"

# Traces popsim may refuse, and the cause it must give.
declare -A refused=(
    [cholesky_autoparallel]="records out of time order"
    [jacobi2d_autoparallel]="records out of time order"
    [qsort_beo3]="communicator line field 4 (task) is not an unsigned integer: '-1'"
)
declare -A truncated=([test1]=1 [test2]=1 [test3]=1)

failures=0
printf '%-58s %4s %12s %12s %7s %7s %7s  %s\n' trace exit "runtime ms" "ideal ms" PE SerE TE warnings
for trace in "$data"/collected/*/*.prv.gz "$data"/hpcc/*.prv.gz "$data"/prime/*.prv.gz \
             "$data"/lammps-melt/*.prv.gz "$data"/epoch/*.prv.gz; do
    name=$(basename "$trace" .prv.gz)
    json=$work/$name.json
    "$popsim" analyze "$trace" --quiet --json "$json" > /dev/null 2> "$work/err"
    status=$?
    label=${trace#"$data"/}
    if [ "$status" -eq 2 ] && [ -n "${truncated[$name]:-}" ] && grep -q "the trace is truncated" "$work/err"; then
        label="$label --allow-truncated"
        "$popsim" analyze "$trace" --quiet --allow-truncated --json "$json" > /dev/null 2> "$work/err"
        status=$?
    fi
    if [ "$status" -ne 0 ]; then
        cause=$(cat "$work/err")
        expected=${refused[$name]:-}
        if [ -n "$expected" ] && [[ "$cause" == *"$expected"* ]]; then
            printf '%-58s %4s  refused as expected: %s\n' "${trace#"$data"/}" "$status" "${cause#*: error: }"
        else
            printf '%-58s %4s  UNEXPECTED: %s\n' "${trace#"$data"/}" "$status" "$cause"
            failures=$((failures + 1))
        fi
        continue
    fi
    python3 - "$json" "$label" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
m = t["mpi_multiplicative"]
pct = lambda v: "-" if v is None else f"{100 * v:.2f}"
ideal = t["ideal"]["runtime_ns"] / 1e6 if t["ideal"] else float("nan")
kinds = ",".join(f'{w["kind"]}({w["count"]})' for w in t["warnings"]) or "-"
print(f'{sys.argv[2]:<58} {0:>4} {t["runtime_ns"] / 1e6:>12.3f} {ideal:>12.3f} '
      f'{pct(m["parallel_efficiency"]):>7} {pct(m["serialization_efficiency"]):>7} '
      f'{pct(m["transfer_efficiency"]):>7}  {kinds}')
PY
done
echo
echo "$failures unexpected refusals"
[ "$failures" -eq 0 ]
