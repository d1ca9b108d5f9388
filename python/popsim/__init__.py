# SPDX-License-Identifier: BSD-3-Clause
"""popsim: the POP efficiency metrics of Paraver traces, and their replay on ideal and
Dimemas-style networks, as pandas tables.

    import popsim
    a = popsim.analyze(["run_4.prv.gz", "run_8.prv.gz"])
    a.metrics        # rows = metrics, columns = runs (PyPOP's layout), fractions of 1
    a.per_rank       # per rank: useful, start-up, load imbalance, serialisation, transfer (ns)
    popsim.whatif("run_4.prv.gz", latency=["1us", "10us"], bandwidth="1GB/s")

Keyword arguments are the command's options (`popsim COMMAND --help`, `man popsim`), with
underscores for dashes: model="openmp", no_replay=True, from_="2s" (`from` is a Python keyword),
latency=["1us", "10us"] (a list sweeps it in whatif). The warnings about a trace are Python
warnings (popsim.TraceWarning); a refused call raises popsim.Error.
"""

import json
import os
import warnings

import pandas as pd

from . import _popsim

__version__ = _popsim.version()
__all__ = ["analyze", "simulate", "whatif", "Analysis", "Error", "TraceWarning"]


class Error(Exception):
    """A call popsim refused; `kind` is "usage" (an option it does not take), "bad_input" (a trace
    or configuration it cannot use) or "failure"; the message names the file and the cause."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class TraceWarning(UserWarning):
    """Something popsim noticed in a trace and worked around (the report lists every instance)."""


def _speedups(value):
    """speedup= as --speedup options: "REGION=FACTOR", a list of them, or {REGION: FACTOR or a
    list of factors to sweep}."""
    if isinstance(value, dict):
        return [
            f"{region}={','.join(str(f) for f in factors) if isinstance(factors, (list, tuple)) else factors}"
            for region, factors in value.items()
        ]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _options(kwargs):
    """[(option, value)] as the library takes them: True is a flag, a list is comma-separated
    (speedup= repeats --speedup instead: _speedups)."""
    options = []
    for name, value in kwargs.items():
        if value is None or value is False:
            continue
        option = name.rstrip("_").replace("_", "-")
        if option == "speedup":
            options.extend(("speedup", v) for v in _speedups(value))
            continue
        if value is True:
            options.append((option, ""))
        elif isinstance(value, (list, tuple)):
            if not value:
                raise Error("usage", f"{name}=[] sweeps nothing: give at least one value")
            options.append((option, ",".join(str(v) for v in value)))
        else:
            options.append((option, str(value)))
    return options


def _call(function, *args):
    try:
        return function(*args)
    except _popsim.Error as e:
        kind, message = e.args
        raise Error(kind, message) from None


def _warn(path, report_warnings):
    for w in report_warnings:
        warnings.warn(f"{path}: {w['message']}", TraceWarning, stacklevel=3)


def _metric_frame(rows, columns):
    """Rows = metrics (by label), columns = runs; times in seconds, as the labels say; undefined
    values are NaN. attrs["keys"] are the JSON report's names, attrs["units"] the units."""
    seconds = [row["unit"] == "ns" for row in rows]
    frame = pd.DataFrame(
        [
            [float("nan") if v is None else v / 1e9 if in_s else v for v in row["values"]]
            for row, in_s in zip(rows, seconds)
        ],
        index=pd.Index([row["label"] for row in rows], name="metric"),
        columns=columns,
    )
    frame.attrs["keys"] = [row["key"] for row in rows]
    frame.attrs["units"] = ["s" if in_s else row["unit"] for row, in_s in zip(rows, seconds)]
    return frame


_FORMATS = {"fraction": "{:.2%}", "number": "{:.2f}", "s": "{:.6f}", "count": "{:.0f}"}


def _formatted(frame):
    """The frame's values as popsim prints them: efficiencies in %, "-" where undefined."""
    return pd.DataFrame(
        [
            ["-" if pd.isna(v) else _FORMATS[unit].format(v) for v in row]
            for row, unit in zip(frame.itertuples(index=False), frame.attrs["units"])
        ],
        index=frame.index,
        columns=frame.columns,
    )


class Analysis:
    """What popsim.analyze returns.

    metrics      the efficiencies and scalings of the model shown (rows) for each run (columns),
                 as fractions of 1: the table `popsim analyze` prints, in PyPOP's layout
    raw          runtimes, useful times (ns), instructions, IPC, frequency, same layout
    runs         one row per run: label, path, processes, threads, runtime (ns), ideal runtime (ns)
    per_rank     per run and rank: useful, start-up and shut-down, load imbalance, serialisation,
                 transfer (ns): the traced runtime split five ways
    per_thread   per run and thread: useful, idle in parallel regions, serial, MPI (ns)
    report       every number of every model: the JSON of `analyze --json` (schema popsim/1)
    model, description   the model shown and how the series was read
    """

    def __init__(self, result):
        self.model = result["model"]
        self.description = result["description"]
        self.report = json.loads(result["json"])
        self._html = result["html"]
        columns = pd.Index(result["columns"], name=result["column_title"])
        self.metrics = _metric_frame(result["metrics"], columns)
        self.raw = _metric_frame(result["raw"], columns)
        traces = self.report["traces"]
        self.runs = pd.DataFrame(
            {
                "label": t["label"],
                "path": t["path"],
                "processes": t["processes"],
                "threads": t["threads"],
                "runtime_ns": t["runtime_ns"],
                "ideal_runtime_ns": t["ideal"]["runtime_ns"] if t["ideal"] else None,
            }
            for t in traces
        )
        self.per_rank = self._per_item(
            traces,
            lambda t: t["rank_breakdown_ns"],
            [
                "run",
                "rank",
                "useful",
                "startup_shutdown",
                "load_imbalance",
                "serialization",
                "transfer",
            ],
        )
        self.per_thread = self._per_item(
            traces,
            lambda t: t["hybrid"]["thread_breakdown_ns"],
            ["run", "process", "thread", "useful", "idle_in_regions", "serial", "mpi"],
        )

    @staticmethod
    def _per_item(traces, items, columns):
        frames = [pd.DataFrame(items(t), columns=columns[1:]).assign(run=t["label"]) for t in traces]
        return pd.concat(frames, ignore_index=True)[columns]

    def __repr__(self):
        table = pd.concat([_formatted(self.metrics), _formatted(self.raw)])
        return f"{self.description}\n\n{table.to_string()}"

    def _repr_html_(self):
        description = self.description.replace("&", "&amp;").replace("<", "&lt;")
        return f"<p>{description.replace(chr(10), '<br>')}</p>{self._html}"


def _path(trace):
    """A trace's path as the library takes it: a str or a path-like object (pathlib.Path), its
    bytes as the file system has them."""
    if not isinstance(trace, (str, os.PathLike)):
        raise Error("usage", f"a trace is a path (str or pathlib.Path), not {type(trace).__name__}")
    return os.fsencode(trace)


def analyze(traces, **options):
    """`popsim analyze TRACES OPTIONS`: the POP metrics of one trace or a scaling series (one
    trace per run; .prv, .prv.gz or folders of them): a path (str or pathlib.Path) or a list of
    them. Returns an Analysis."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    if not isinstance(traces, (list, tuple)):
        raise Error(
            "usage", f"traces are a path or a list of paths, not {type(traces).__name__}"
        )
    if not traces:
        raise Error("usage", "no trace given: analyze takes a path or a list of paths")
    result = Analysis(_call(_popsim.analyze, [_path(t) for t in traces], _options(options)))
    for t in result.report["traces"]:
        _warn(t["path"], t["warnings"])
    return result


def simulate(trace, **options):
    """`popsim simulate TRACE OPTIONS`: the run replayed on a network (ideal unless the options
    give one). Returns (runtimes, threads): a pandas Series of the predicted, ideal-network and
    real runtimes (ns) and the predicted run's five MPI efficiencies, and a DataFrame of the
    per-thread predicted times; output="x.prv" writes the simulated trace."""
    report = json.loads(_call(_popsim.simulate, _path(trace), _options(options)))
    _warn(report["trace"], report["warnings"])
    runtimes = pd.Series(
        {
            "predicted_runtime_ns": report["predicted_runtime_ns"],
            "predicted_max_useful_ns": report["predicted_max_useful_ns"],
            "ideal_runtime_ns": report["ideal_runtime_ns"],
            "real_runtime_ns": report["real_runtime_ns"],
            **report["efficiencies"],
        },
        name=report["network"],
    )
    return runtimes, pd.DataFrame(report["threads"])


_PREDICTIONS = (
    "predicted_runtime_ns",
    "ideal_runtime_ns",
    "speedup",
    "parallel_efficiency",
    "load_balance",
    "communication_efficiency",
    "serialization_efficiency",
    "transfer_efficiency",
)


def whatif(trace, **options):
    """`popsim whatif TRACE OPTIONS`: the predicted runtime and efficiencies on every network of
    the cross product of the swept options (latency=["1us", "10us"], bandwidth=[...], ...;
    speedup={"solve*": [1, 2]} for code what-ifs, balance=True or a region).
    Returns a tidy DataFrame, one row per network: each parameter as typed and in its base unit
    (latency_ns, bandwidth_bytes_per_s, ...), then the predictions; attrs holds the real and
    ideal runtimes."""
    report = json.loads(_call(_popsim.whatif, _path(trace), _options(options)))
    _warn(report["trace"], report["warnings"])
    frame = pd.DataFrame(report["configurations"])
    predictions = [c for c in frame.columns if c in _PREDICTIONS]
    frame = frame[[c for c in frame.columns if c not in _PREDICTIONS] + predictions]
    frame.attrs["real_runtime_ns"] = report["real_runtime_ns"]
    frame.attrs["ideal_runtime_ns"] = report["ideal_runtime_ns"]
    return frame
