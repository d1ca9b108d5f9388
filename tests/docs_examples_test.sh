#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every ```sh block of the user guide, so the documented commands cannot rot.
# usage: docs_examples_test.sh POPSIM SOURCE_DIR SHARED_DATA WORK_DIR
set -euo pipefail
popsim=$1 source=$2 data=$3 work=$4
rm -rf "$work" && mkdir -p "$work/bin"
ln -s "$popsim" "$work/bin/popsim"
python3 - "$source/docs/user-guide.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
assert blocks, "no sh examples found"
for i, b in enumerate(blocks):
    open(f"{sys.argv[2]}/example_{i:02d}.sh", "w").write("set -euo pipefail\n" + b)
print(f"{len(blocks)} examples")
PY
cd "$work"
skipped=()
for example in example_*.sh; do
    # Without the validation data, the examples that read it are skipped, the others still run.
    if [ ! -d "$data" ] && grep -q '\$DATA' "$example"; then skipped+=("$example"); continue; fi
    echo "== $example"
    # The mpirun example as root (CI, containers), where Open MPI wants to be told, on 2 cores.
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    PATH="$work/bin:$PATH" EXAMPLES="$source/examples" DATA="$data" bash "$example" > "$example.out" 2>&1 || {
        cat "$example.out"; echo "FAIL: $example"; exit 1; }
done
if [ ${#skipped[@]} -gt 0 ]; then
    echo "popsim-skip: ${#skipped[@]} examples need the validation data, absent from $data (put it there or set POPSIM_DATA; README, \"Tests\"): ${skipped[*]}"
    exit 77
fi
echo "PASS: every user-guide example ran"
