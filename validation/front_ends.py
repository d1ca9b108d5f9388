#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python module (and through it the C++ library) gives the command line's reports on every
real trace of ../shared/data: `popsim analyze TRACE --json` against popsim.analyze(TRACE).report,
number for number, and a refused trace refused alike (the same message, the kind of its exit
status); then simulate and whatif, with and without code what-ifs, on the series of epoch.
Only `peak_memory_bytes` may differ (one process runs both the library and this script).

    validation/front_ends.py POPSIM MODULE_DIR [DATA]

MODULE_DIR holds the built package (build/python). Exits 1 on a difference, 77 without the data.
"""

import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

popsim_binary, module_dir = sys.argv[1], sys.argv[2]
data = Path(sys.argv[3] if len(sys.argv) > 3 else os.environ.get("POPSIM_DATA", ""))
if not data.is_dir():
    print(f"popsim-skip: this test needs the validation data, absent from {data}")
    sys.exit(77)
sys.path.insert(0, module_dir)
import popsim  # noqa: E402  (from MODULE_DIR)

# The exit status of each kind of refusal (include/popsim/popsim.hpp).
STATUS = {"usage": 1, "bad_input": 2, "failure": 3}


def without_peak_memory(report):
    report.pop("peak_memory_bytes", None)
    return report


def command_line(command, traces, options, json_path):
    """`popsim COMMAND TRACES OPTIONS --json FILE`: its exit status and error message."""
    args = [popsim_binary, command, *([traces] if isinstance(traces, str) else traces)]
    args += ["--quiet", "--json", json_path]
    for name, value in options.items():
        args.append("--" + name.rstrip("_").replace("_", "-"))
        if value is not True:
            args.append(",".join(value) if isinstance(value, list) else value)
    run = subprocess.run(args, capture_output=True, text=True, check=False)
    return run.returncode, run.stderr.strip().removeprefix("popsim: error: ")


def library(command, trace, options):
    """The module's report of the same call (a dict), or the Error it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", popsim.TraceWarning)
        try:
            if command == "analyze":
                return popsim.analyze(trace, **options).report
            if command == "simulate":
                return popsim.simulate(trace, json=json_of_module, **options)
            return popsim.whatif(trace, json=json_of_module, **options)
        except popsim.Error as e:
            return e


def compared(command, trace, options, work):
    """Whether the module and the command agree on `command trace options`; prints any difference."""
    cli_json = str(work / "cli.json")
    status, message = command_line(command, trace, options, cli_json)
    ours = library(command, trace, options)
    if command != "analyze" and not isinstance(ours, popsim.Error):
        ours = json.loads(Path(json_of_module).read_text())  # what the module's call wrote
    label = f"{command} {trace} {options}"
    if isinstance(ours, popsim.Error):
        if status == STATUS[ours.kind] and message == str(ours):
            return True
        print(f"DIFFERENT: {label}: the module refused ({ours.kind}: {ours}), "
              f"the command exited {status}: {message}")
        return False
    if status != 0:
        print(f"DIFFERENT: {label}: the module answered, the command exited {status}: {message}")
        return False
    theirs = without_peak_memory(json.loads(Path(cli_json).read_text()))
    if without_peak_memory(ours) == theirs:
        return True
    keys = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    print(f"DIFFERENT: {label}: the reports differ in {keys}")
    return False


traces = sorted(
    str(p)
    for pattern in ("*.prv", "*.prv.gz", "traces.otf2")
    for p in data.rglob(pattern)
    if not p.name.endswith(".sim.prv")
)
epoch = sorted(str(p) for p in data.glob("epoch/*.prv.gz"))
runs = [("analyze", t, {}) for t in traces]
runs += [("analyze", epoch, {"model": "additive"})]
runs += [("simulate", t, {"latency": "2us", "bandwidth": "1GB/s"}) for t in epoch[:3]]
runs += [("simulate", epoch[2], {"balance": True})]
runs += [("whatif", epoch[3], {"latency": ["1us", "10us"], "buses": ["1", "4"]})]
runs += [("whatif", epoch[3], {"speedup": "70000002:main=1,2", "balance": True})]

failures = 0
with tempfile.TemporaryDirectory() as scratch:
    work = Path(scratch)
    json_of_module = str(work / "module.json")
    for command, trace, options in runs:
        failures += not compared(command, trace, options, work)
print(f"{len(runs) - failures} of {len(runs)} calls alike in the command line and the module")
sys.exit(1 if failures else 0)
