"""Seed 000 (Li et al., IEEE CAL 2019): priority-based PCIe scheduling.

Two tenants' tasks share the Fig. 2 platform (gpu2 and gpu3 behind switch sw1: their
copies contend at the root complex's egress to sw1). Each repeats copy-then-execute for
0.3 s. Figure of merit: iterations in 0.3 s normalised to the task alone; system
throughput = the pair's sum. All 28 pairs of Table 1's workloads x 4 policies."""
import itertools
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harness import ROOT, Reproduction, read_vcd_states  # noqa: E402
from report_priority import render  # noqa: E402

# Table 1: (key, abbreviation, KB per iteration).
WORKLOADS = [("sc", "SC", 328.4), ("mm", "MM", 128), ("mt", "MT", 1024), ("aes", "AES", 65.2),
             ("fir", "FIR", 256.1), ("ks", "KS", 131.1), ("mp", "MP", 64), ("rl", "RL", 32)]
POLICIES = ["rr", "priority_s", "priority_l", "qos"]
SIZE = {k: kb for k, _, kb in WORKLOADS}
ABBR = {k: a for k, a, _ in WORKLOADS}
PAIR = os.path.join(ROOT, "configs", "scenarios", "seed000_pair.yaml")
SOLO = os.path.join(ROOT, "configs", "scenarios", "seed000_solo.yaml")
# Seed 000 §4 sets the QoS deadline at 3x the contention-free transfer time. With two
# tenants no transfer can take more than ~2x that here (the other task is at most as large,
# and RR halves the bandwidth at worst), so a 3x deadline is never at risk and QoOS never
# escalates: qos would equal priority_s exactly. We use 1.5x so deadlines bind and the
# mechanism is exercised; the report shows the observed worst-case ratio behind this.
PAPER_QOS_FACTOR = 3
QOS_FACTOR = 1.5


def solo_runs(r):
    spec = {"description": "seed 000 tasks alone", "base": SOLO,
            "product": {"apps.0.workload": [k for k, _, _ in WORKLOADS]}}
    res = r.sweep("solo", spec)
    out = {}
    for run in res.values():
        app = run["apps"][0]
        out[workload_of(app, run)] = {"iterations": app["iterations"], "t0_ns": app["p50_ns"]}
    return out


def workload_of(app, run):
    # The solo sweep varies apps.0.workload; the app's bytes per transfer identify it.
    per = app["bytes"] / max(app["transfers"], 1)
    return min(SIZE, key=lambda k: abs(SIZE[k] * 1024 - per))


def pairs():
    """(small, large) for the 28 pairs: the task with more data is the QoS task (task 2)."""
    for a, b in itertools.combinations([k for k, _, _ in WORKLOADS], 2):
        yield (a, b) if SIZE[a] < SIZE[b] else (b, a)


def pair_runs(r, solo):
    runs = []
    for small, large in pairs():
        deadline = QOS_FACTOR * solo[large]["t0_ns"]
        for pol in POLICIES:
            runs.append({"name": f"{small}-{large}-{pol}",
                         "set": [f"apps.0.workload={small}", f"apps.1.workload={large}",
                                 f"apps.1.deadline_ns={deadline:.0f}", f"driver.policy={pol}"]})
    return r.sweep("pairs", {"description": "seed 000: 28 pairs x 4 policies", "base": PAIR, "runs": runs})


def figures_of_merit(res, solo):
    """{(small, large): {policy: (norm1, norm2, met_rate)}}"""
    fom = {}
    for small, large in pairs():
        fom[(small, large)] = {}
        for pol in POLICIES:
            apps = res[f"{small}-{large}-{pol}"]["apps"]
            n1 = apps[0]["iterations"] / solo[small]["iterations"]
            n2 = apps[1]["iterations"] / solo[large]["iterations"]
            met, missed = apps[1].get("deadlines_met", 0), apps[1].get("deadlines_missed", 0)
            fom[(small, large)][pol] = (n1, n2, met / max(met + missed, 1))
    return fom


def mean_gain(fom, pol):
    return statistics.mean((v[pol][0] + v[pol][1]) / (v["rr"][0] + v["rr"][1]) - 1 for v in fom.values())


def task_gain(fom, pol, task):
    return statistics.mean(v[pol][task] / v["rr"][task] - 1 for v in fom.values())


def add_checks(r, fom):
    g = {p: mean_gain(fom, p) for p in POLICIES}
    pct = lambda x: f"{100 * x:+.1f} %"  # noqa: E731
    r.check("mean system-throughput gain of priority_s over rr", "+7.6 %", pct(g["priority_s"]),
            "between +2 % and +20 %", 0.02 <= g["priority_s"] <= 0.20)
    r.check("qos beats rr on average", "+5.3 %", pct(g["qos"]), "> 0", g["qos"] > 0)
    r.check("qos lies below priority_s", "5.3 % < 7.6 %", f"{pct(g['qos'])} < {pct(g['priority_s'])}",
            "strictly below", g["qos"] < g["priority_s"])
    r.check("priority_l below priority_s", "below RR (Fig. 5)", f"{pct(g['priority_l'])} < {pct(g['priority_s'])}",
            "strictly below", g["priority_l"] < g["priority_s"])
    t1, t2 = task_gain(fom, "priority_s", 0), task_gain(fom, "priority_s", 1)
    r.check("small task gains under priority_s (Fig. 6)", "+14.2 %", pct(t1), "> 0", t1 > 0)
    r.check("large task loses little under priority_s (Fig. 6)", "-1 %", pct(t2), "loss at most 5 %", t2 >= -0.05)
    met = {p: statistics.mean(v[p][2] for v in fom.values()) for p in ("rr", "qos")}
    r.check("QoS tasks meet their deadline at least as often under qos as under rr",
            "higher under QoS (§4)", f"qos {100 * met['qos']:.1f} % vs rr {100 * met['rr']:.1f} %",
            ">=", met["qos"] >= met["rr"])
    return g, t1, t2, met


def plot_fig5(r, fom):
    labels = [f"{ABBR[s]}-{ABBR[l]}" for s, l in fom]
    fig, ax = plt.subplots(figsize=(14, 4))
    w = 0.2
    for i, pol in enumerate(POLICIES):
        ys = [(v[pol][0] + v[pol][1]) / (v["rr"][0] + v["rr"][1]) for v in fom.values()]
        ax.bar([x + (i - 1.5) * w for x in range(len(labels))], ys, w, label=pol)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=60, fontsize=8)
    ax.set_ylabel("system throughput / RR")
    ax.set_ylim(0.8, 1.3)
    ax.set_title("Fig. 5 analogue: total throughput of each pair, normalised to RR")
    ax.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(r.path("fig5_system_throughput.png"), dpi=110)
    plt.close(fig)


def plot_fig6(r, fom):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    w = 0.35
    for t, name in ((0, "task 1 (smaller data)"), (1, "task 2 (larger data, QoS)")):
        ys = [1 + task_gain(fom, p, t) for p in POLICIES]
        ax.bar([x + (t - 0.5) * w for x in range(len(POLICIES))], ys, w, label=name)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_xticks(range(len(POLICIES)))
    ax.set_xticklabels(POLICIES)
    ax.set_ylabel("throughput / RR (mean of 28 pairs)")
    ax.set_ylim(0.7, 1.3)
    ax.set_title("Fig. 6 analogue: the two tasks of a pair")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(r.path("fig6_pair_tasks.png"), dpi=110)
    plt.close(fig)


STATE_COLORS = {0: "#dddddd", 1: "#4c72b0", 2: "#55a868", 3: "#c44e52"}
STATE_NAMES = {0: "idle", 1: "copy", 2: "compute", 3: "stalled"}


TIMELINE_US = 200


def timeline(r, small, large, window_us=TIMELINE_US):
    """GPU phases of one pair under each policy, from the runs' VCDs."""
    fig, axes = plt.subplots(len(POLICIES), 1, figsize=(11, 1.3 * len(POLICIES)), sharex=True)
    for ax, pol in zip(axes, POLICIES):
        out = r.run(f"timeline-{pol}", PAIR, [f"apps.0.workload={small}", f"apps.1.workload={large}",
                                              f"driver.policy={pol}"],
                    ["--sim-time", f"{window_us}us", "--vcd", r.path("runs", f"timeline-{pol}", "w.vcd")])
        states = read_vcd_states(os.path.join(out, "w.vcd"), ["gpu2.state", "gpu3.state"])
        for row, sig in enumerate(["gpu2.state", "gpu3.state"]):
            ch = states[sig] + [(window_us * 1e6, 0)]
            for (t0, v), (t1, _) in zip(ch, ch[1:]):
                ax.barh(row, (t1 - t0) / 1e6, left=t0 / 1e6, color=STATE_COLORS[v], height=0.8)
        ax.set_yticks([0, 1])
        ax.set_yticklabels([f"{ABBR[small]} (gpu2)", f"{ABBR[large]} (gpu3)"], fontsize=8)
        ax.set_ylabel(pol, rotation=0, ha="right", fontsize=9)
    axes[-1].set_xlabel("simulated time (us)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in STATE_COLORS.values()]
    fig.legend(handles, STATE_NAMES.values(), ncol=4, loc="upper center", fontsize=8)
    fig.tight_layout(rect=(0.03, 0, 1, 0.93))
    fig.savefig(r.path("timeline.png"), dpi=110)
    plt.close(fig)


def write_csvs(r, solo, fom):
    r.write_csv("solo.csv", ["workload", "iterations_alone", "transfer_ns_alone"],
                [[ABBR[k], solo[k]["iterations"], solo[k]["t0_ns"]] for k, _, _ in WORKLOADS])
    rows = []
    for (s, l), v in fom.items():
        for pol in POLICIES:
            n1, n2, met = v[pol]
            rows.append([ABBR[s], ABBR[l], pol, f"{n1:.4f}", f"{n2:.4f}", f"{n1 + n2:.4f}",
                         f"{(n1 + n2) / (v['rr'][0] + v['rr'][1]):.4f}", f"{met:.4f}"])
    r.write_csv("pairs.csv", ["task1", "task2", "policy", "norm1", "norm2", "system", "system_vs_rr",
                              "qos_deadline_met"], rows)


def main(out_dir):
    r = Reproduction("priority-scheduling", out_dir)
    solo = solo_runs(r)
    res = pair_runs(r, solo)
    fom = figures_of_merit(res, solo)
    g, t1, t2, met = add_checks(r, fom)
    write_csvs(r, solo, fom)
    plot_fig5(r, fom)
    plot_fig6(r, fom)
    best = max(fom, key=lambda k: (fom[k]["priority_s"][0] + fom[k]["priority_s"][1]) / sum(fom[k]["rr"][:2]))
    timeline(r, *best)
    extra = {"runs": len(res) + len(solo), "qos_factor": QOS_FACTOR, "paper_qos_factor": PAPER_QOS_FACTOR,
             "worst_ratio": worst_transfer_ratio(res, solo), "window_us": TIMELINE_US}
    return r.finish(render(r, solo, fom, g, t1, t2, met, best, ABBR, WORKLOADS, POLICIES, extra))


def worst_transfer_ratio(res, solo):
    """Longest QoS-task transfer over its contention-free time, over all pair runs."""
    return max(res[f"{s}-{l}-{p}"]["apps"][1]["max_ns"] / solo[l]["t0_ns"] for s, l in pairs() for p in POLICIES)
