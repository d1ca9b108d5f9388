# SPDX-License-Identifier: BSD-3-Clause
"""The Python module against hand-computed examples: pandas tables in PyPOP's layout, the
per-rank and per-thread data, a tidy what-if table, popsim's errors and warnings.

usage: POPSIM=build/popsim PYTHONPATH=<the module's folder> python3 -m unittest popsim_test
(tests/CMakeLists.txt runs it on the build tree; tests/package_test.sh on the installed package)
"""

import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import pandas as pd

import popsim

SCRATCH = tempfile.mkdtemp(prefix="popsim_python_")


def tearDownModule():
    shutil.rmtree(SCRATCH)


def synth(name, description):
    """A trace `popsim synth` writes from `description`."""
    text = os.path.join(SCRATCH, name + ".txt")
    with open(text, "w") as f:
        f.write(description)
    trace = os.path.join(SCRATCH, name + ".prv")
    subprocess.run([os.environ["POPSIM"], "synth", text, "-o", trace], check=True, capture_output=True)
    return trace


# Two ranks computing 1 s and 3 s (LB = PE = 2/3, runtime 3 s); four computing 1 s each (LB 1).
UNEVEN = "ranks 2\n0 compute 1s\n1 compute 3s\n"
EVEN = "ranks 4\n0 compute 1s\n1 compute 1s\n2 compute 1s\n3 compute 1s\n"


class Analyze(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.uneven, cls.even = synth("uneven", UNEVEN), synth("even", EVEN)
        cls.a = popsim.analyze([cls.uneven, cls.even])

    def test_metrics_are_rows_and_runs_columns(self):
        m = self.a.metrics
        self.assertEqual(list(m.columns), ["2", "4"])
        self.assertEqual(m.columns.name, "Number of processes")
        self.assertAlmostEqual(m.loc["Load balance", "2"], 2 / 3)
        self.assertEqual(m.loc["Load balance", "4"], 1.0)
        self.assertAlmostEqual(m.loc["Parallel efficiency", "2"], 2 / 3)
        # 4 s of computation in both runs: strong scaling, computation scalability 1.
        self.assertEqual(m.loc["Computation scalability", "4"], 1.0)
        self.assertEqual(self.a.model, "mpi")

    def test_raw_rows_in_the_units_of_their_labels(self):
        self.assertEqual(list(self.a.raw.loc["Runtime (s)"]), [3.0, 1.0])
        self.assertEqual(self.a.raw.attrs["units"][0], "s")

    def test_runs_and_ranks(self):
        runs = self.a.runs
        self.assertEqual(list(runs["label"]), ["uneven.prv", "even.prv"])
        self.assertEqual(list(runs["runtime_ns"]), [3_000_000_000, 1_000_000_000])
        ranks = self.a.per_rank
        self.assertEqual(len(ranks), 6)
        second = ranks[(ranks["run"] == "uneven.prv") & (ranks["rank"] == 2)]
        self.assertEqual(second["useful"].item(), 3_000_000_000)
        first = ranks[(ranks["run"] == "uneven.prv") & (ranks["rank"] == 1)]
        self.assertEqual(first["load_imbalance"].item(), 2_000_000_000)
        self.assertEqual(first["startup_shutdown"].item(), 0)

    def test_shown_as_popsim_prints_it(self):
        self.assertIn("66.67%", repr(self.a))
        html = self.a._repr_html_()
        self.assertIn("<table", html)
        self.assertIn("background:", html)  # the POP colours

    def test_the_report_is_the_json_one(self):
        self.assertEqual(self.a.report["schema"], "popsim/1")


# One process, two threads; a 2 s parallel region after 1 s of serial code: the master computes
# all along, the worker computes 1 s in the region and idles 1 s there.
ONE_REGION = (
    "ranks 1 threads 2\n"
    "0.0 compute 1s\n0.0 event 60000001 1\n0.0 compute 2s\n0.0 event 60000001 0\n"
    "0.1 at 1s\n0.1 event 60000001 1\n0.1 compute 1s\n0.1 idle 1s\n0.1 event 60000001 0\n"
)


class PerThread(unittest.TestCase):
    def test_where_each_thread_time_goes(self):
        # One process, two threads; a 2 s parallel region after 1 s of serial code: the master
        # computes all along, the worker computes 1 s in the region and idles 1 s there; its
        # first second, outside any region, is serial time.
        trace = synth("omp", ONE_REGION)
        a = popsim.analyze(trace)
        self.assertEqual(a.model, "openmp")
        threads = a.per_thread.set_index("thread")
        self.assertEqual(threads.loc[1, "useful"], 3_000_000_000)
        self.assertEqual(threads.loc[2, "useful"], 1_000_000_000)
        self.assertEqual(threads.loc[2, "idle_in_regions"], 1_000_000_000)
        self.assertEqual(threads.loc[2, "serial"], 1_000_000_000)

    def test_hybrid_models_have_their_raw_rows(self):
        # Issue 36, item 5: the hybrid tables' raw data was empty. The run above: 3 s long, its
        # threads useful 3 s and 1 s; Hybrid parallel efficiency = 2 s average / 3 s.
        trace = synth("omp_hybrid", ONE_REGION)
        for model in ("hybrid-multiplicative", "hybrid-additive", "talp"):
            a = popsim.analyze(trace, model=model)
            raw = a.raw["1x2"]
            self.assertEqual(raw["Runtime (s)"], 3.0, model)
            self.assertEqual(raw["Useful duration, total (s)"], 4.0, model)
            self.assertEqual(raw["Useful duration, thread average (s)"], 2.0, model)
            self.assertEqual(raw["Useful duration, thread maximum (s)"], 3.0, model)
        self.assertAlmostEqual(a.metrics.loc["Parallel efficiency", "1x2"], 2 / 3)

    def test_nothing_on_stderr(self):
        # The command would say it chose the OpenMP model; the library only returns it.
        trace = synth("omp_quiet", "ranks 1 threads 2\n0.0 compute 1s\n0.1 compute 1s\n")
        call = f"import popsim; assert popsim.analyze({trace!r}).model == 'openmp'"
        run = subprocess.run([sys.executable, "-c", call], capture_output=True, text=True)
        self.assertEqual((run.returncode, run.stderr), (0, ""))


class Networks(unittest.TestCase):
    def test_whatif_is_tidy_with_typed_columns(self):
        trace = synth("whatif", UNEVEN)
        w = popsim.whatif(trace, latency=["1us", "10us"], bandwidth=["1GB/s", "inf"])
        self.assertEqual(len(w), 4)  # the cross product
        self.assertEqual(sorted(set(w["latency_ns"])), [1000, 10000])
        self.assertTrue(pd.api.types.is_integer_dtype(w["latency_ns"]))
        self.assertEqual(list(w["predicted_runtime_ns"]), [3_000_000_000] * 4)  # no message
        self.assertEqual(w.columns[-1], "transfer_efficiency")
        self.assertEqual(w.attrs["real_runtime_ns"], 3_000_000_000)

    def test_whatif_code_speedups(self):
        # Rank 0 computes 6 s in function 1 and 2 s more, rank 1 4 s in function 2: 8 s ideal;
        # function 1 twice as fast: 3 + 2 = 5 s; with function 2 four times: max(5, 1) = 5 s, and
        # balanced (no collective: one segment each) (5 + 1) / 2 = 3 s.
        trace = synth(
            "whatif_speedups",
            "ranks 2\n0 event 60000019 1\n0 compute 6s\n0 event 60000019 0\n0 compute 2s\n"
            "1 event 60000019 2\n1 compute 4s\n1 event 60000019 0\n",
        )
        w = popsim.whatif(trace, speedup={"60000019:1": [1, 2]})
        self.assertEqual(list(w["predicted_runtime_ns"]), [8_000_000_000, 5_000_000_000])
        w = popsim.whatif(trace, speedup=["60000019:1=2", "60000019:2=4"], balance=True)
        self.assertEqual(list(w["predicted_runtime_ns"]), [5_000_000_000, 3_000_000_000])
        self.assertEqual(list(w["balanced"]), [False, True])

    def test_simulate(self):
        runtimes, threads = popsim.simulate(synth("simulate", UNEVEN), latency="5us")
        self.assertEqual(runtimes["predicted_runtime_ns"], 3_000_000_000)
        self.assertEqual(runtimes["ideal_runtime_ns"], 3_000_000_000)
        self.assertAlmostEqual(runtimes["parallel_efficiency"], 2 / 3)
        self.assertAlmostEqual(runtimes["load_balance"], 2 / 3)
        self.assertEqual(list(threads["useful_ns"]), [1_000_000_000, 3_000_000_000])


class Errors(unittest.TestCase):
    def test_bad_input_names_the_file(self):
        with self.assertRaises(popsim.Error) as caught:
            popsim.analyze("nope.prv")
        self.assertEqual(caught.exception.kind, "bad_input")
        self.assertEqual(str(caught.exception), "nope.prv: no such file or folder")

    def test_an_option_the_command_does_not_take(self):
        with self.assertRaises(popsim.Error) as caught:
            popsim.analyze(synth("usage", UNEVEN), model="bogus")
        self.assertEqual(caught.exception.kind, "usage")
        self.assertIn("--model: 'bogus' is not one of auto, mpi", str(caught.exception))

    def test_warnings_are_python_warnings(self):
        trace = synth("cut", UNEVEN + "declared_end 2s\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            popsim.analyze(trace, no_replay=True)
        messages = [str(w.message) for w in caught if issubclass(w.category, popsim.TraceWarning)]
        self.assertEqual(len(messages), 1)
        self.assertIn("records lie after the trace end the header declares", messages[0])


class Paths(unittest.TestCase):
    """Issue 35, items 5 and 8: what Python users pass, and messages that are not UTF-8."""

    def test_a_path_a_str_or_a_list_of_either(self):
        import pathlib

        trace = synth("paths", UNEVEN)
        for given in (trace, pathlib.Path(trace), [pathlib.Path(trace)], (trace,)):
            self.assertEqual(list(popsim.analyze(given).runs["runtime_ns"]), [3_000_000_000])
        runtimes, _ = popsim.simulate(pathlib.Path(trace))
        self.assertEqual(runtimes["predicted_runtime_ns"], 3_000_000_000)

    def test_what_is_not_a_path_is_refused_in_python_words(self):
        cases = (
            (b"x.prv", "traces are a path or a list of paths, not bytes"),
            ([], "no trace given: analyze takes a path or a list of paths"),
            ([3], "a trace is a path (str or pathlib.Path), not int"),
        )
        for given, message in cases:
            with self.assertRaises(popsim.Error) as caught:
                popsim.analyze(given)
            self.assertEqual(caught.exception.kind, "usage")
            self.assertEqual(str(caught.exception), message)
        with self.assertRaises(popsim.Error) as caught:
            popsim.whatif(synth("sweep", UNEVEN), latency=[])
        self.assertEqual(str(caught.exception), "latency=[] sweeps nothing: give at least one value")

    def test_a_message_holding_bytes_that_are_not_utf8(self):
        trace = synth("latin1", UNEVEN)
        with open(trace, "ab") as f:
            f.write(b"\xe9t\xe9:1:1\n")
        with self.assertRaises(popsim.Error) as caught:
            popsim.analyze(trace)
        self.assertEqual(caught.exception.kind, "bad_input")
        self.assertIn("\ufffdt\ufffd", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
