#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cuts a real trace at random byte offsets (mid-line or at a line start, as an interrupted merge,
# copy or download leaves it) and checks that popsim never analyses a cut silently: each cut is
# refused with exit 2, and with --allow-truncated it is analysed only with a warning naming how
# much of the run is missing. Prints one row per cut.
#   validation/truncated_cuts.sh [POPSIM [DATA [CUTS [SEED]]]]
. "$(dirname "$0")/setup.sh" "$@"
cuts=${3:-30}
seed=${4:-2026}
source_trace=$data/lammps-melt/lammps_melt_2.prv.gz

zcat "$source_trace" > "$work/whole.prv"
size=$(stat -c %s "$work/whole.prv")
parallel_efficiency() {
    python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))["traces"][0]["mpi_multiplicative"]["parallel_efficiency"]
print("-" if v is None else f"{100 * v:.2f}")' "$1"
}
"$popsim" analyze "$work/whole.prv" --quiet --json "$work/whole.json" > /dev/null || exit 1
whole_pe=$(parallel_efficiency "$work/whole.json")
echo "lammps_melt_2: $size bytes uncompressed, PE $whole_pe % whole; $cuts cuts (seed $seed)"
printf '%10s %-9s %4s  %-60s %4s %7s  %s\n' offset "cut" exit "refusal" exit PE "--allow-truncated warning"

failures=0
# Every other cut moves back to the start of its line: a cut between two records.
offsets=$(python3 - "$work/whole.prv" "$cuts" "$seed" <<'PY'
import random, sys
text = open(sys.argv[1], "rb").read()
r = random.Random(int(sys.argv[3]))
cuts = sorted(r.randrange(1, len(text)) for _ in range(int(sys.argv[2])))
print(*(c if i % 2 == 0 else text.rfind(b"\n", 0, c) + 1 for i, c in enumerate(cuts)))
PY
)
for offset in $offsets; do
    cut=$work/cut.prv
    head -c "$offset" "$work/whole.prv" > "$cut"
    where=$([ "$(tail -c 1 "$cut" | od -An -c | tr -d ' ')" = '\n' ] && echo line-start || echo mid-line)
    "$popsim" analyze "$cut" --quiet > /dev/null 2> "$work/err"
    status=$?
    refusal=$(sed 's/^popsim: error: [^:]*:\([0-9]*\): /line \1: /' "$work/err" | cut -c1-60)
    "$popsim" analyze "$cut" --allow-truncated --json "$work/cut.json" > /dev/null 2> "$work/err2"
    allowed=$?
    pe=- warning=$(grep -o 'the trace is truncated: the records end at [^;]*' "$work/err2" | head -1)
    [ "$allowed" -eq 0 ] && pe=$(parallel_efficiency "$work/cut.json")
    [ "$allowed" -ne 0 ] && warning="refused: $(sed 's/^popsim: error: //' "$work/err2" | cut -c1-80)"
    printf '%10s %-9s %4s  %-60s %4s %7s  %s\n' "$offset" "$where" "$status" "$refusal" "$allowed" "$pe" "$warning"
    # A cut must be refused (2); with --allow-truncated it is analysed with the warning, or
    # refused (2) when too little is left to analyse.
    if [ "$status" -ne 2 ] || { [ "$allowed" -eq 0 ] && [ -z "$warning" ]; } ||
        { [ "$allowed" -ne 0 ] && [ "$allowed" -ne 2 ]; }; then
        failures=$((failures + 1))
    fi
done
echo
echo "$failures cuts analysed silently or failing otherwise"
[ "$failures" -eq 0 ]
