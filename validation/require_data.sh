# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the test scripts that read the validation data: `require_data DIR` exits with status
# 77, which CTest reports as a skipped test, when DIR is absent (a clone of the repository alone).
require_data() {
    [ -d "$1" ] && return 0
    echo "popsim-skip: this test needs the validation data, absent from $1 (put it there or set POPSIM_DATA; README, \"Tests\")"
    exit 77
}
