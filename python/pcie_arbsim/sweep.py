"""A sweep's output directory (`pcie-arbsim sweep --out DIR`) as DataFrames: its tidy tables
(DIR/tables/*.csv, one row per point and app, link direction, arbiter, ...; docs/sweeps.md)
and summary.csv, with the swept parameters named."""
import os

import pandas as pd

from .results import booleans_with_gaps, load_run

TABLES = ("points", "apps", "gpus", "devices", "links", "link_vcs", "arbiters", "arbiter_vcs")


class Sweep:
    """`params`: the swept parameters (dotted config keys, columns of every table);
    `points`, `apps`, `gpus`, `devices`, `links`, `link_vcs`, `arbiters`, `arbiter_vcs`, `summary`:
    DataFrames. `ok` is the points that completed."""

    def __init__(self, directory):
        self.directory = directory
        tables = os.path.join(directory, "tables")
        if not os.path.isdir(tables):
            raise FileNotFoundError(f"{directory}: no tables/ (not the output directory of `pcie-arbsim sweep`, "
                                    "or one written before the tidy tables)")
        for name in TABLES:
            # Strings stay strings where a column mixes them (a policy name); numbers parse.
            setattr(self, name, booleans_with_gaps(pd.read_csv(os.path.join(tables, name + ".csv"))))
        self.summary = pd.read_csv(os.path.join(directory, "summary.csv"))
        cols = list(self.points.columns)
        end = cols.index("config_hash") if "config_hash" in cols else len(cols)
        self.params = cols[2:end]  # run, status, then the swept parameters

    @property
    def ok(self):
        return self.points[self.points.status == "ok"]

    def run(self, run_id):
        """The Run of one point (its results.json with everything the tables leave out)."""
        return load_run(os.path.join(self.directory, "runs", run_id))

    def results(self):
        """{run id: results dict} of every completed point."""
        return {r: self.run(r).results for r in self.ok.run}

    def __repr__(self):
        return (f"Sweep({self.directory!r}: {len(self.points)} points, {len(self.ok)} ok, "
                f"params {self.params})")


def load_sweep(directory):
    """The Sweep in `directory`. Raises FileNotFoundError when it is not a sweep's output."""
    return Sweep(directory)
