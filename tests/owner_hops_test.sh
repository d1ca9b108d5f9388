#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# popsim_owner_hops_bench (the exchange a replay divided among owners would need,
# docs/architecture.md) against counts made by hand on a pipeline of 4 ranks: 0 -> 1 -> 2 -> 3,
# then a barrier of all four, which completes on the owner of rank 0.
#   2 owners {0,1} {2,3}: the message 1 -> 2 and ranks 2 and 3 entering and leaving the barrier
#     cross: 5 values; the longest chain crosses at 1 -> 2, at 3's entry and at an exit: 3.
#   4 owners: three messages and ranks 1-3 entering and leaving: 9 values; the chain crosses at
#     every message, at 3's entry and at an exit: 5.
# usage: owner_hops_test.sh POPSIM OWNER_HOPS_BENCH SCRATCH_DIR
set -euo pipefail
popsim=$1 bench=$2 scratch=$3
mkdir -p "$scratch"
cat > "$scratch/pipeline.txt" <<'DESCRIPTION'
ranks 4
0 compute 1us
0 Send 1us to=1 size=8
1 Recv 1us from=0 size=8
1 Send 1us to=2 size=8
2 Recv 1us from=1 size=8
2 Send 1us to=3 size=8
3 Recv 1us from=2 size=8
0 Barrier 1us
1 Barrier 1us
2 Barrier 1us
3 Barrier 1us
DESCRIPTION
"$popsim" synth -o "$scratch/pipeline.prv" "$scratch/pipeline.txt" > /dev/null 2>&1
got=$("$bench" "$scratch/pipeline.prv" 2 4 8 | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }' | tr '\n' ';')
expected="2 5 3;4 9 5;"
[ "$got" = "$expected" ] || { echo "owners, values crossing, chain crossings: got '$got', expected '$expected'"; exit 1; }
