#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Converts every real Paraver trace popsim analyses to OTF2 (popsim convert), reads the archive
# back and compares the two reports: every number, name and warning must be the same, but for the
# warnings about the Paraver files themselves that the archive no longer has (a cut's marks, records
# past the header's end, a cutter's closing records, a missing .pcf or .row, other applications).
# Prints one row per trace; exits 1 on any other difference or failure.
#   validation/otf2_round_trips.sh [POPSIM [DATA]]
. "$(dirname "$0")/setup.sh" "$@"

failures=0 checked=0
for trace in "$data"/*/*.prv.gz "$data"/collected/*/*.prv.gz; do
    name=$(basename "$trace" .prv.gz)
    # Traces popsim refuses (validation/real_traces.sh checks why) are refused by convert too.
    if ! "$popsim" analyze --quiet "$trace" --json "$work/original.json" > /dev/null 2>&1; then
        if "$popsim" convert --quiet "$trace" "$work/$name.otf2" > /dev/null 2>&1; then
            echo "$name: FAIL: refused by analyze, converted"; failures=$((failures + 1))
        fi
        continue
    fi
    if ! "$popsim" convert --quiet "$trace" "$work/$name.otf2" > "$work/convert.log" 2>&1 ||
       ! "$popsim" analyze --quiet "$work/$name.otf2" --json "$work/back.json" > /dev/null 2>&1; then
        echo "$name: FAIL: $(tail -1 "$work/convert.log")"; failures=$((failures + 1)); continue
    fi
    row=$(python3 - "$work/original.json" "$work/back.json" <<'PY'
import json, sys
source_file_warnings = {"cut-start", "records-after-end", "reset-records", "missing-pcf",
                        "missing-row", "other-applications"}
reports = [json.load(open(path)) for path in sys.argv[1:]]
for report in reports:
    for key in ("peak_memory_bytes", "command", "popsim_version"):
        report.pop(key, None)
    for trace in report["traces"]:
        for key in ("analysis_pass", "label", "path"):
            trace.pop(key, None)
        trace["warnings"] = [w for w in trace["warnings"] if w["kind"] not in source_file_warnings]
original, back = reports
ideal = original["traces"][0]["ideal"]["runtime_ns"]
print(f"ideal {ideal} ns: " + ("same report" if original == back else "FAIL: the reports differ"))
PY
)
    echo "$name: $row"
    checked=$((checked + 1))
    [[ $row == *FAIL* ]] && failures=$((failures + 1))
    rm -rf "$work/$name.otf2" "$work/$name.def" "${work:?}/$name"
done
echo "$checked traces converted and read back, $failures failures"
[ "$checked" -gt 50 ] && [ "$failures" -eq 0 ]
