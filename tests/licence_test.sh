#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The licence (issue 36, item 2): LICENSE is BSD-3-Clause, and every source file, script and CMake
# file says so in an SPDX line at its top (after a #! line).
# usage: licence_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
head -1 LICENSE | grep -qx "BSD 3-Clause License" || { echo "LICENSE is not the BSD 3-Clause licence"; exit 1; }
missing=0
while IFS= read -r -d '' file; do
    if ! head -2 "$file" | grep -q "SPDX-License-Identifier: BSD-3-Clause"; then
        echo "no SPDX line at the top of $file"
        missing=$((missing + 1))
    fi
done < <(find api include replay metrics pipeline simulator python tests bench fuzz examples cmake validation \
    \( -path fuzz/corpus -o -path '*/scratch' \) -prune -o \
    -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.sh' -o -name '*.py' -o -name CMakeLists.txt \) -print0)
for file in CMakeLists.txt dev setup.py pyproject.toml .ci/run; do
    head -2 "$file" | grep -q "SPDX-License-Identifier: BSD-3-Clause" || { echo "no SPDX line at the top of $file"; missing=$((missing + 1)); }
done
[ "$missing" -eq 0 ] || exit 1
echo "every source file carries the SPDX line"
