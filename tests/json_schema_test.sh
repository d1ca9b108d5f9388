#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every kind of JSON report popsim writes validates against docs/popsim-1.schema.json (Debian's
# python3-jsonschema): analyze (a series, without replay, a window, phases, a region, root causes,
# OpenMP and hybrid traces), simulate and whatif; on the validation data too when it is there.
# usage: json_schema_test.sh POPSIM SOURCE_DIR SHARED_DATA WORK_DIR
set -euo pipefail
popsim=$1 source=$2 data=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
halo=$source/examples/halo
run() { "$popsim" "$@" --quiet > /dev/null; }
run analyze "$halo"/halo_{2,4,8}.prv --json "$work/analyze_series.json"
run analyze "$halo"/halo_{2,4,8}.prv --project 64,1024 --json "$work/analyze_projection.json"
run analyze "$halo/halo_4.prv" --no-replay --json "$work/analyze_no_replay.json"
run analyze "$halo/halo_4.prv" --from 1ms --to 5ms --json "$work/analyze_window.json"
run analyze "$halo/halo_4.prv" --phases MPI_Allreduce --json "$work/analyze_phases.json"
run analyze "$halo/halo_4.prv" --region MPI_Waitall --json "$work/analyze_region.json"
run analyze "$halo/halo_4.prv" --root-causes --json "$work/analyze_root_causes.json"
run analyze "$halo/halo_4.prv" --communication --json "$work/analyze_communication.json"
run analyze "$halo/halo_4.prv" --gains --json "$work/analyze_gains.json"
run simulate "$halo/halo_4.prv" --balance --json "$work/simulate_balance.json"
run whatif "$halo/halo_4.prv" --balance --cpu-ratio 1,2 --json "$work/whatif_balance.json"
run simulate "$halo/halo_4.prv" --json "$work/simulate_ideal.json"
run simulate "$halo/halo_4.prv" --latency 5us --bandwidth 1GB/s --from 1ms --to 5ms --json "$work/simulate_window.json"
run whatif "$halo/halo_4.prv" --latency 0,1us --bandwidth 1GB/s,inf --buses 0,1 --json "$work/whatif.json"
if [ -d "$data" ]; then
    run analyze "$data"/imagemagick-omp/omp{1,2}.prv.gz --json "$work/analyze_openmp.json"
    run analyze "$data"/hpcg-hybrid --json "$work/analyze_hybrid.json"
    run analyze "$data"/epoch/epoch_{1,2}proc.prv.gz --json "$work/analyze_epoch.json"
    run analyze "$data"/epoch/epoch_2proc.prv.gz --root-causes --json "$work/analyze_epoch_root_causes.json"
fi
/usr/bin/python3 - "$source/docs/popsim-1.schema.json" "$work"/*.json <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = 0
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"FAIL {path}: {'/'.join(map(str, e.path))}: {e.message[:200]}")
    failed += bool(errors)
    print(f"{'ok  ' if not errors else 'FAIL'} {path.rsplit('/', 1)[1]}")
sys.exit(1 if failed else 0)
PY
echo "PASS: every report validates against popsim/1"
