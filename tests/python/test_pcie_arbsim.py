"""Tests of python/pcie_arbsim (issue 15), run by ctest with ARBSIM_BIN set: the simulator run
from Python, a run and a sweep loaded as DataFrames, and the standard figures.

The sweep's tidy tables are written by the C++ sweep (apps/cli/sweep_tables.cpp) and the
run's by this package from results.json (pcie_arbsim/results.py): two implementations of the
same flattening, checked against each other, and against invariants of the results (a link
direction's bytes are the sum of its per-VC bytes; every app of every point has its row)."""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import pandas as pd  # noqa: E402

import pcie_arbsim as pa  # noqa: E402
from pcie_arbsim import plot, trace  # noqa: E402

BASE = f"""platform: {ROOT}/configs/platforms/seed000_fig2.yaml
sim: {{log_level: warn, time_ns: 100000}}
apps:
  - {{name: big, type: stream, gpu: gpu0, size: {{fixed: 256KiB}}, count: 6}}
  - {{name: small, type: stream, gpu: gpu2, size: {{fixed: 16KiB}}, count: 20}}
"""
SPEC = """base: base.yaml
product:
  sim.seed: [1, 2]
  driver.policy: [rr, priority_s]
"""


class Fixture(unittest.TestCase):
    """A sweep of SPEC over BASE, run once for the class."""
    BASE, SPEC, JOBS = BASE, SPEC, 2

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="arbsim_py_")
        for name, text in (("base.yaml", cls.BASE), ("spec.yaml", cls.SPEC)):
            with open(os.path.join(cls.dir, name), "w") as f:
                f.write(text)
        cls.sweep = pa.sweep(os.path.join(cls.dir, "spec.yaml"), os.path.join(cls.dir, "sweep"), jobs=cls.JOBS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)


class SweepTables(Fixture):
    def test_params_are_the_swept_keys_in_spec_order(self):
        self.assertEqual(self.sweep.params, ["sim.seed", "driver.policy"])
        self.assertEqual(len(self.sweep.points), 4)
        self.assertEqual(list(self.sweep.ok.run), ["r0001", "r0002", "r0003", "r0004"])

    def test_every_app_of_every_point_has_one_row(self):
        apps = self.sweep.apps
        self.assertEqual(len(apps), 4 * 2)
        self.assertEqual(sorted(apps.groupby("run").name.apply(sorted).tolist()), [["big", "small"]] * 4)

    def test_a_groupby_over_a_parameter_is_one_line(self):
        means = self.sweep.apps.groupby(["driver.policy", "name"]).throughput_gbps.mean()
        self.assertEqual(set(means.index.get_level_values(0)), {"rr", "priority_s"})
        self.assertTrue((means > 0).all())

    def test_link_bytes_are_the_sum_of_their_vc_bytes(self):
        per_vc = self.sweep.link_vcs.groupby(["run", "name", "direction"]).vc_bytes.sum()
        links = self.sweep.links.set_index(["run", "name", "direction"]).bytes
        pd.testing.assert_series_equal(per_vc.sort_index(), links.sort_index(), check_names=False)

    def test_the_sweep_tables_equal_this_package_reading_each_results_json(self):
        for run_id in self.sweep.ok.run:
            run = self.sweep.run(run_id)
            for table in ("apps", "gpus", "links", "arbiters", "link_vcs", "arbiter_vcs"):
                ours = getattr(self.sweep, table)
                ours = ours[ours.run == run_id].drop(columns=["run", "status"] + self.sweep.params)
                theirs = getattr(run, table)
                self.assertEqual(list(ours.columns), list(theirs.columns), table)
                pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs, check_dtype=False,
                                              obj=f"{run_id} {table}")

    def test_the_points_table_holds_each_runs_scalars(self):
        for run_id, row in self.sweep.points.set_index("run").iterrows():
            results = self.sweep.run(run_id).results
            self.assertEqual(row["config_hash"], results["config_hash"])
            self.assertAlmostEqual(row["makespan_ns"], results["makespan_ns"])
            self.assertEqual(row["run_checks.conservation"], results["run_checks"]["conservation"])


class Running(Fixture):
    def test_run_returns_the_run_it_wrote(self):
        out = os.path.join(self.dir, "one")
        run = pa.run(os.path.join(self.dir, "base.yaml"), out, overrides=["sim.seed=5"])
        self.assertEqual(run.results["seed"], 5)
        self.assertEqual(list(run.apps.name), ["big", "small"])
        self.assertEqual(len(run.points), 1)

    def test_bad_input_raises_with_the_simulators_exit_code(self):
        with self.assertRaises(pa.SimulatorError) as caught:
            pa.run(os.path.join(self.dir, "base.yaml"), os.path.join(self.dir, "bad"), overrides=["sim.sede=5"])
        self.assertEqual(caught.exception.code, 2)
        self.assertIn("sim.sede", caught.exception.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad", "results.json")))

    def test_loading_what_is_not_a_sweep_says_so(self):
        with self.assertRaises(FileNotFoundError):
            pa.load_sweep(self.dir)


class Figures(Fixture):
    def test_standard_figures_are_pngs_one_pair_per_parameter(self):
        out = os.path.join(self.dir, "plots")
        made = plot.standard_figures(self.sweep, out)
        names = sorted(os.path.basename(p) for p in made)
        self.assertEqual(names, sorted(["throughput_vs_sim.seed.png", "p99_latency_vs_sim.seed.png",
                                        "throughput_vs_driver.policy.png", "p99_latency_vs_driver.policy.png",
                                        "vc_bytes.png", "link_utilization.png"]))
        for p in made:
            with open(p, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", p)

    def _with_policy(self, where, value):
        import copy
        sw = copy.copy(self.sweep)
        sw.apps = sw.apps.copy()
        sw.apps.loc[where(sw.apps), "driver.policy"] = value
        return sw

    def test_a_point_that_does_not_set_a_parameter_is_labelled(self):
        # An explicit run that does not set a swept key runs the base config's value: its
        # category read "nan".
        sw = self._with_policy(lambda a: a.run == "r0004", float("nan"))
        labels = [t.get_text() for t in plot.throughput_vs(sw, "driver.policy").get_xticklabels()]
        self.assertIn(plot.UNSET, labels)
        self.assertNotIn("nan", labels)

    def test_a_parameter_no_completed_point_sets_has_no_figure(self):
        # Set only by points that failed: an empty figure with a legend was drawn.
        sw = self._with_policy(lambda a: a.run == a.run, float("nan"))
        self.assertFalse(plot.plottable(sw, "driver.policy"))
        with self.assertRaises(ValueError):
            plot.throughput_vs(sw, "driver.policy")

    def test_a_point_with_no_utilization_keeps_its_heatmap_row(self):
        # An empty statistics window (a warm-up outlasting the traffic) makes a point's link
        # utilizations null: its row was dropped from the heatmap without a word.
        import copy
        sw = copy.copy(self.sweep)
        sw.links = sw.links.copy()
        first = sw.links.run.iloc[0]
        sw.links.loc[sw.links.run == first, "utilization"] = float("nan")
        rows = plot.link_heatmap(sw).get_yticklabels()
        self.assertEqual(len(rows), sw.links[sw.links.status == "ok"].run.nunique())
        sw.links["utilization"] = float("nan")
        notes = []
        made = plot.standard_figures(sw, os.path.join(self.dir, "no_util"), notes)
        self.assertNotIn("link_utilization.png", [os.path.basename(p) for p in made])
        self.assertTrue(any(n.startswith("link_utilization.png: no completed point") for n in notes), notes)

    def test_vc_bars_leave_out_the_memory_ports(self):
        # Its bars are the PCIe link directions' VC bytes: a memory port's entries are per TC.
        ax = plot.vc_bars(self.sweep)
        links = self.sweep.link_vcs[~self.sweep.link_vcs.direction.isin(["to_memory", "from_memory"])]
        drawn = sum(p.get_width() for p in ax.patches)
        self.assertAlmostEqual(drawn, links.vc_bytes.sum() / 1e6, places=3)
        self.assertLess(drawn, self.sweep.link_vcs.vc_bytes.sum() / 1e6)

    def test_axes_are_labelled_with_the_parameter_and_unit(self):
        ax = plot.throughput_vs(self.sweep, "driver.policy")
        self.assertEqual(ax.get_xlabel(), "driver.policy")
        self.assertEqual(ax.get_ylabel(), "throughput (Gb/s)")
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["rr", "priority_s"])
        # The line is the mean over seeds of each app's throughput at each policy.
        big = self.sweep.apps[self.sweep.apps.name == "big"]
        expected = [big[big["driver.policy"] == p].throughput_gbps.mean() for p in ("rr", "priority_s")]
        line = next(l for l in ax.get_lines() if l.get_label() == "big")
        self.assertEqual(list(line.get_ydata()), expected)
        ax = plot.latency_vs(self.sweep, "sim.seed")
        self.assertEqual(ax.get_ylabel(), "p99 latency (us)")
        with self.assertRaises(ValueError):
            plot.throughput_vs(self.sweep, "sim.time_ns")

    def test_scripts_plot_draws_them_and_refuses_a_non_sweep(self):
        done = subprocess.run([os.path.join(ROOT, "scripts", "plot"), os.path.join(self.dir, "sweep")],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(done.stdout.split()), 6)
        bad = subprocess.run([os.path.join(ROOT, "scripts", "plot"), self.dir], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertTrue(bad.stderr.startswith("error: "), bad.stderr)


NULLS_BASE = f"""platform: {ROOT}/configs/platforms/seed000_fig2.yaml
sim: {{log_level: error, time_ns: 100000}}
apps:
  - {{name: a, type: stream, gpu: gpu0, size: {{fixed: 64KiB}}, count: 3}}
  - {{name: late, type: stream, gpu: gpu1, size: {{fixed: 64KiB}}, count: 3}}
  - {{name: kern, type: periodic, gpu: gpu3, period_ns: 20000, kernel_ns: 5000, count: 3}}
"""
NULLS_SPEC = """base: base.yaml
product:
  apps.late.start_ns: [0, 200000]
"""


class NullFigures(Fixture):
    """A figure with nothing to take it of is null in results.json (schema 2): `late` starts
    after the 100 us run at its second point, `kern` has kernels and no copies. The tables keep
    its column (NaN), the plots leave it out and say so, and the package knows the schema."""
    BASE, SPEC, JOBS = NULLS_BASE, NULLS_SPEC, 1

    def app(self, run, name):
        apps = self.sweep.apps
        return apps[(apps.run == run) & (apps.name == name)].iloc[0]

    def test_null_figures_are_nan_in_float_columns(self):
        for col in ("throughput_gbps", "p50_ns", "p99_ns", "first_issue_ns", "last_done_ns"):
            self.assertTrue(pd.api.types.is_float_dtype(self.sweep.apps[col]), col)
            self.assertTrue(pd.isna(self.app("r0002", "late")[col]), col)
        self.assertGreater(self.app("r0001", "late").throughput_gbps, 0)
        self.assertTrue(pd.isna(self.app("r0001", "kern").throughput_gbps))  # kernels only: no data rate
        self.assertTrue(pd.isna(self.app("r0001", "kern").p99_ns))

    def test_a_column_null_in_every_row_is_kept(self):
        # It was left out: run.apps[["name", "p99_ns"]] raised KeyError on a run where no app
        # completed a copy, and apps.csv had no p99_ns column for a sweep of such runs.
        run = pa.load_run(os.path.join(self.dir, "sweep", "runs", "r0002"))
        results = dict(run.results, apps=[a for a in run.results["apps"] if a["name"] == "kern"])
        kern = pa.results.Run(run.directory, results).apps
        self.assertTrue(kern.p99_ns.isna().all())
        self.assertTrue(pd.api.types.is_float_dtype(kern.p99_ns))
        d = os.path.join(self.dir, "kern_only")
        os.makedirs(d)
        with open(os.path.join(d, "base.yaml"), "w") as f:
            f.write(NULLS_BASE.split("  - {name: a,")[0] + NULLS_BASE.split("\n")[-2] + "\n")
        with open(os.path.join(d, "spec.yaml"), "w") as f:
            f.write("base: base.yaml\nproduct:\n  sim.seed: [1]\n")
        sweep = pa.sweep(os.path.join(d, "spec.yaml"), os.path.join(d, "sweep"), jobs=1)
        self.assertEqual(list(sweep.apps.name), ["kern"])
        self.assertTrue(sweep.apps.p99_ns.isna().all())

    def test_the_legend_says_where_an_app_has_no_value(self):
        labels = [l.get_label() for l in plot.latency_vs(self.sweep, "apps.late.start_ns").get_lines()]
        self.assertEqual(labels, ["a", "late (1 of 2 points)", "kern (no value)"])
        labels = [l.get_label() for l in plot.throughput_vs(self.sweep, "apps.late.start_ns").get_lines()]
        self.assertEqual(labels, ["a", "late (1 of 2 points)", "kern (no value)"])

    def test_points_that_did_not_complete_are_named(self):
        sw = copy.copy(self.sweep)
        sw.points = sw.points.copy()
        sw.points.loc[sw.points.run == "r0002", "status"] = "timeout"
        self.assertEqual(plot.left_out(sw), "1 of 2 points did not complete (1 timeout: r0002); every figure leaves "
                                            "them out")
        self.assertEqual(plot.left_out(self.sweep), "")

    def test_unknown_schemas_are_refused_and_schema_1_warned_of(self):
        src = os.path.join(self.dir, "sweep", "runs", "r0001", "results.json")
        with open(src) as f:
            results = json.load(f)
        self.assertEqual(results["schema"], pa.results.SCHEMA)
        for schema in ("pcie-arbsim.results/1", "pcie-arbsim.results/99"):
            d = os.path.join(self.dir, schema.replace("/", "_"))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "results.json"), "w") as f:
                json.dump(dict(results, schema=schema), f)
            if schema.endswith("/1"):
                with self.assertWarns(UserWarning):
                    pa.load_run(d)
            else:
                with self.assertRaises(ValueError):
                    pa.load_run(d)


class TraceFile(unittest.TestCase):
    """`run --trace` writes valid trace-event JSON (issue 16): checked with Debian's python3,
    and the checker itself rejects what the format forbids."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="arbsim_trace_")
        cls.path = os.path.join(cls.dir, "trace.json")
        pa.run(os.path.join(ROOT, "configs", "default.yaml"), os.path.join(cls.dir, "run"),
               extra=["--sim-time", "150us", "--trace", cls.path, "--trace-window", "100us:120us"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_the_trace_is_valid_trace_event_json(self):
        events = trace.load_trace(self.path)
        phases = {e["ph"] for e in events}
        self.assertTrue({"M", "X", "C", "s"} <= phases, phases)
        self.assertTrue(any(e["ph"] == "X" and e.get("cat") == "wait" for e in events))

    def test_the_checker_rejects_what_the_format_forbids(self):
        with open(self.path) as f:
            good = json.load(f)
        tlps = [i for i, e in enumerate(good["traceEvents"]) if e.get("cat") == "tlp"]
        cases = {
            "phase": lambda ev: ev[tlps[0]].update(ph="Q"),
            "dur": lambda ev: ev[tlps[0]].pop("dur"),
            "overlap": lambda ev: ev[tlps[1]].update(ts=ev[tlps[0]]["ts"], pid=ev[tlps[0]]["pid"]),
            "flow": lambda ev: ev.insert(0, {"ph": "t", "id": 999999, "cat": "transfer", "name": "x", "pid": 1,
                                             "tid": 0, "ts": 0}),
        }
        for name, spoil in cases.items():
            doc = json.loads(json.dumps(good))
            spoil(doc["traceEvents"])
            bad = os.path.join(self.dir, f"bad_{name}.json")
            with open(bad, "w") as f:
                json.dump(doc, f)
            with self.assertRaises(ValueError, msg=name):
                trace.load_trace(bad)

    def test_the_timeline_is_drawn(self):
        out = os.path.join(self.dir, "timeline.png")
        ax = trace.timeline(self.path, out, processes=["sw0->rc0"], t0_us=100, t1_us=101)
        self.assertEqual(ax.get_xlabel(), "simulated time (us)")
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
