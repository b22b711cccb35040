"""The standard figures of a sweep (`scripts/plot DIR`, docs/sweeps.md), each also a function
that draws on a matplotlib Axes of your own and returns it:

  throughput_vs(sweep, param)   mean throughput of each app against a swept parameter
                                (the band: min .. max over the other parameters)
  latency_vs(sweep, param)      the same for an app latency percentile (p99 by default), in us,
                                log scale
  In both, a point where an app's figure is null (it issued no copy, or completed none) is left
  out of its line, and its legend says at how many points it is drawn ("late (2 of 6 points)",
  "kern (no value)"); an app that issued copies and moved nothing is drawn at 0 Gb/s.
  vc_bars(sweep)                bytes per VC summed over every PCIe link direction, per point
                                (TCs reach VCs through the config's TC/VC map; a root
                                complex's memory port, eight VCs of one TC each whatever the
                                links' VCs, is left out)
  link_heatmap(sweep)           utilisation of every link direction (columns) at every point (rows)
"""
import os
import re

import matplotlib

matplotlib.use("Agg")  # files, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def _axes(ax, width=6.4, height=4.0):
    if ax is not None:
        return ax
    return plt.subplots(figsize=(width, height), constrained_layout=True)[1]


def _label(sweep, run_id):
    row = sweep.points[sweep.points.run == run_id].iloc[0]
    return run_id + ": " + ", ".join(f"{p}={row[p]}" for p in sweep.params) if sweep.params else run_id


UNSET = "(base config)"  # the label of a point that does not set a parameter (it read "nan")


def plottable(sweep, param):
    """Whether a completed point sets `param` (one only a failed point set has nothing to draw)."""
    ok = sweep.apps[sweep.apps.status == "ok"]
    return param in ok and not ok[param].isna().all()


def _legend_label(name, drawn, points):
    """An app's legend entry, saying at how many of its points it has a value to draw."""
    if drawn == points:
        return str(name)
    return f"{name} (no value)" if drawn == 0 else f"{name} ({drawn} of {points} points)"


def has_values(sweep, column):
    """Whether any completed point has a value of `column` (null: nothing to take it of)."""
    apps = sweep.apps[sweep.apps.status == "ok"]
    return column in apps and apps[column].notna().any()


def _against(sweep, param, column, scale, ylabel, title, ax):
    """`column` of each app against `param`; its null points (results.json: nothing to take
    it of) are left out of the app's line, and its legend says so."""
    if param not in sweep.params:
        raise ValueError(f"{param!r} is not a swept parameter of {sweep.directory} (those are {sweep.params})")
    apps = sweep.apps[sweep.apps.status == "ok"]
    if apps[param].isna().all():
        raise ValueError(f"{param!r} is set by no completed point of {sweep.directory}: nothing to plot against it")
    ax = _axes(ax)
    numeric = pd.api.types.is_numeric_dtype(apps[param]) and not apps[param].isna().any()
    if apps[param].isna().any():  # a point that does not set it (an explicit run) runs the base config's value
        apps = apps.assign(**{param: apps[param].astype(object).where(apps[param].notna(), UNSET)})
    order = sorted(apps[param].unique()) if numeric else list(dict.fromkeys(apps[param]))
    for name, rows in apps.groupby("name", sort=False):
        g = rows.groupby(param)[column].agg(["mean", "min", "max"]).reindex(order) * scale
        x = order if numeric else range(len(order))
        ax.plot(x, g["mean"], marker="o", label=_legend_label(name, int(rows[column].notna().sum()), len(rows)))
        ax.fill_between(x, g["min"], g["max"], alpha=0.15)
    if not numeric:
        labels = [str(v) for v in order]
        long = sum(len(t) for t in labels) > 50  # would overlap side by side
        ax.set_xticks(range(len(order)), labels, rotation=20 if long else 0, ha="right" if long else "center",
                      fontsize="small" if long else None)
    ax.set_xlabel(param)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(title="app", fontsize="small")
    return ax


def throughput_vs(sweep, param, ax=None):
    return _against(sweep, param, "throughput_gbps", 1.0, "throughput (Gb/s)",
                    f"App throughput against {param}", ax)


def latency_vs(sweep, param, percentile="p99_ns", ax=None):
    """Log scale: a latency-sensitive app and a bulk one differ by orders of magnitude. Points
    where an app completed no transfer are left out of its line."""
    ax = _against(sweep, param, percentile, 1e-3, f"{percentile[:-3]} latency (us)",
                  f"App {percentile[:-3]} latency against {param}", ax)
    ax.set_yscale("log")
    return ax


MEMORY_PORT = ("to_memory", "from_memory")  # results.json links[].direction of a memory port


def vc_bars(sweep, ax=None):
    """A memory port has eight VCs, one TC each, whatever the links' VCs: summed with the
    links it drew a "VC3" on 2-VC links and took its bytes from VC1."""
    vcs = sweep.link_vcs[(sweep.link_vcs.status == "ok") & ~sweep.link_vcs.direction.isin(MEMORY_PORT)]
    table = vcs.groupby(["run", "vc"]).vc_bytes.sum().unstack("vc").fillna(0) / 1e6
    table = table.loc[:, (table != 0).any()]
    labels = [_label(sweep, r) for r in table.index]
    width = 4.5 + 0.075 * max((len(t) for t in labels), default=0)  # room for the point labels
    ax = _axes(ax, width=width, height=max(3.0, 0.4 * len(table) + 1.5))
    left = pd.Series(0.0, index=table.index)
    for vc in table.columns:
        ax.barh(labels, table[vc], left=left, label=f"VC{vc}")
        left += table[vc]
    ax.invert_yaxis()
    ax.set_xlabel("bytes over all PCIe link directions (MB)")
    ax.set_title("Bytes per VC at each point")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars, not on one
    return ax


def link_heatmap(sweep, ax=None):
    links = sweep.links[sweep.links.status == "ok"].copy()
    links["link"] = links["name"] + " " + links["direction"]
    # dropna=False: a point whose statistics window is empty (utilization null) keeps its row,
    # drawn blank, rather than vanishing from the figure.
    table = links.pivot_table(index="run", columns="link", values="utilization", sort=False, dropna=False)
    labels = [_label(sweep, r) for r in table.index]
    width = 2.5 + 0.075 * max((len(t) for t in labels), default=0) + 0.35 * len(table.columns)
    ax = _axes(ax, width=max(6.4, width), height=max(3.0, 0.35 * len(table) + 2.5))
    image = ax.imshow(table.values, aspect="auto", vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(table.columns)), table.columns, rotation=60, ha="right", fontsize="small")
    ax.set_yticks(range(len(table.index)), labels, fontsize="small")
    ax.set_xlabel("link direction")
    ax.set_title("Link utilisation (busy time / run time)")
    ax.figure.colorbar(image, ax=ax, label="utilisation")
    return ax


def _file_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def left_out(sweep):
    """What every figure leaves out: a line for the points that did not complete, or ""."""
    bad = sweep.points[sweep.points.status != "ok"]
    if bad.empty:
        return ""
    statuses = ", ".join(f"{n} {s}" for s, n in bad.status.value_counts().items())
    return (f"{len(bad)} of {len(sweep.points)} points did not complete ({statuses}: {', '.join(bad.run)}); "
            "every figure leaves them out")


def standard_figures(sweep, out_dir, notes=None):
    """Draws every standard figure of `sweep` into `out_dir` as PNG; returns their paths.
    `notes` (a list) gets a line for each thing the figures leave out."""
    if sweep.ok.empty:
        raise ValueError(f"{sweep.directory}: no point completed; nothing to plot")
    notes = [] if notes is None else notes
    if left_out(sweep):
        notes.append(left_out(sweep))
    os.makedirs(out_dir, exist_ok=True)
    made = []

    def save(ax, name):
        path = os.path.join(out_dir, name)
        ax.figure.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(ax.figure)
        made.append(path)

    for param in sweep.params:
        if sweep.apps.empty or not plottable(sweep, param):
            continue
        for column, draw, name in (("throughput_gbps", throughput_vs, "throughput_vs"),
                                   ("p99_ns", latency_vs, "p99_latency_vs")):
            if has_values(sweep, column):
                save(draw(sweep, param), f"{name}_{_file_name(param)}.png")
            else:
                notes.append(f"{name}_{_file_name(param)}.png: no app has a {column} at any completed point "
                             "(no copy issued or completed): not drawn")
    if not sweep.link_vcs.empty:
        save(vc_bars(sweep), "vc_bytes.png")
    if not sweep.links.empty:
        ok = sweep.links[sweep.links.status == "ok"]
        if ok.utilization.notna().any():
            save(link_heatmap(sweep), "link_utilization.png")
        else:
            notes.append("link_utilization.png: no completed point has a statistics window "
                         "(utilization null everywhere): not drawn")
    return made
