"""One run's results.json as DataFrames, with the same tables as a sweep's DIR/tables/
(docs/sweeps.md): the scalars of each app, GPU, device, link direction and arbiter (nested objects
dotted, e.g. `periodic.deadlines_missed`) and the per-VC lists as rows of link_vcs and
arbiter_vcs."""
import json
import os
import warnings

import pandas as pd

ELEMENTS = ("apps", "gpus", "devices", "links", "arbiters")
PER_VC = {"links": "link_vcs", "arbiters": "arbiter_vcs"}
SCHEMA = "pcie-arbsim.results/2"


def _scalars(obj, prefix=""):
    out = {}
    for key, value in obj.items():
        if isinstance(value, dict):
            out.update(_scalars(value, prefix + key + "."))
        elif not isinstance(value, list):
            # null (a figure with nothing to take it of) is NaN, and its column is there
            # even when it is null in every row, as in the sweep's tables.
            out[prefix + key] = float("nan") if value is None else value
    return out


def frame(rows):
    """A DataFrame of `rows` (booleans_with_gaps())."""
    return booleans_with_gaps(pd.DataFrame(rows))


def booleans_with_gaps(df):
    """`df` with each column of booleans and gaps (NaN: null, or an element without the key)
    as pandas' nullable "boolean" instead of object."""
    for col in df.columns:
        if df[col].dtype == object:
            present = df[col].dropna()
            if len(present) and all(isinstance(v, bool) for v in present):
                df[col] = df[col].astype("boolean")
    return df


def _per_vc(key, value):
    return isinstance(value, list) and (key.startswith("vc_") or key == "grants") and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)


def _vc_rows(element):
    lists = {k: v for k, v in element.items() if _per_vc(k, v)}
    n = max((len(v) for v in lists.values()), default=0)
    ident = {k: element[k] for k in ("name", "direction") if k in element}
    return [dict(ident, vc=vc, **{k: v[vc] for k, v in lists.items() if vc < len(v)}) for vc in range(n)]


def tables_of(results):
    """{table name: list of row dicts} of one results dict: points (one row), apps, gpus,
    devices, links, arbiters, link_vcs, arbiter_vcs."""
    top = {k: v for k, v in _scalars(results).items() if k != "schema"}
    tables = {"points": [top]}
    for name in ELEMENTS:
        elements = [e for e in results.get(name, []) if isinstance(e, dict)]
        tables[name] = [_scalars(e) for e in elements]
        if name in PER_VC:
            tables[PER_VC[name]] = [row for e in elements for row in _vc_rows(e)]
    return tables


class Run:
    """One run directory (`pcie-arbsim run --out DIR`): `results` (the dict), and `points`,
    `apps`, `gpus`, `devices`, `links`, `arbiters`, `link_vcs`, `arbiter_vcs` as DataFrames."""

    def __init__(self, directory, results):
        self.directory = directory
        self.results = results
        for name, rows in tables_of(results).items():
            setattr(self, name, frame(rows))

    def __repr__(self):
        return f"Run({self.directory!r}: {len(self.apps)} apps, {len(self.links)} link directions)"


def load_run(directory):
    """The Run in `directory` (it holds results.json). Raises FileNotFoundError or ValueError
    (not a results.json of pcie-arbsim)."""
    path = os.path.join(directory, "results.json")
    with open(path) as f:
        results = json.load(f)
    schema = str(results.get("schema", "")) if isinstance(results, dict) else ""
    if not schema.startswith("pcie-arbsim.results/"):
        raise ValueError(f"{path}: not a pcie-arbsim results.json (no 'schema': 'pcie-arbsim.results/...')")
    if schema == "pcie-arbsim.results/1":
        warnings.warn(f"{path}: schema 1 (an older pcie-arbsim): a figure with nothing to take it of is 0 there, "
                      "not null, and is averaged as a number", stacklevel=2)
    elif schema != SCHEMA:
        raise ValueError(f"{path}: schema {schema!r}, which this package does not know (it reads {SCHEMA}): "
                         "a newer pcie-arbsim wrote it")
    return Run(directory, results)
