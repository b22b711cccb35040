"""Seed 000 (Li et al., IEEE CAL 2019): priority-based PCIe scheduling.

Two tenants' tasks share the Fig. 2 platform (gpu2 and gpu3 behind switch sw1: their
copies contend at the root complex's egress to sw1). Each repeats copy-then-execute for
0.3 s. Figure of merit: iterations in 0.3 s normalised to the task alone; system
throughput = the pair's sum. All 28 pairs of Table 1's workloads x 4 policies."""
import itertools
import math
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
# The kernel-to-copy ratio is not in the paper, and the gains depend on it: the scale sweep
# multiplies every workload's kernel time by each factor (30 ms runs) to measure how.
SCALES = [0.125, 0.25, 0.35, 0.5, 0.7, 1, 2, 4, 8]
SCALE_POLICIES = ["rr", "priority_s", "qos"]
SCALE_SIM_NS = 30_000_000
PAPER = {"priority_s": 0.076, "qos": 0.053, "task1": 0.142, "task2": -0.01}
GAIN_TOL, TASK_TOL = 0.015, 0.03  # matches within 1.5 / 3 percentage points
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


def kernel_ns(workload):
    """The workload file's kernel time (configs/workloads/NAME.yaml)."""
    with open(os.path.join(ROOT, "configs", "workloads", workload + ".yaml")) as f:
        for line in f:
            if line.startswith("kernel_ns:"):
                return float(line.split(":")[1])
    raise ValueError(f"no kernel_ns in workload {workload}")


def solo_runs(r, name="solo", scale=None):
    """Each workload alone: iterations and contention-free transfer time; with `scale`, its
    kernel scaled and the run cut to SCALE_SIM_NS."""
    runs = []
    for k, _, _ in WORKLOADS:
        s = [f"apps.0.workload={k}"] + (scaled(0, k, scale) if scale else [])
        runs.append({"name": k, "set": s})
    res = r.sweep(name, {"description": "seed 000 tasks alone", "base": SOLO, "runs": runs})
    return {k: {"iterations": run["apps"][0]["iterations"], "t0_ns": run["apps"][0]["p50_ns"]}
            for k, run in res.items()}


def scaled(app, workload, scale):
    """Overrides that scale app `app`'s kernel and cut the run to SCALE_SIM_NS."""
    return [f"apps.{app}.kernel_ns={scale * kernel_ns(workload):.0f}", f"apps.{app}.duration_ns={SCALE_SIM_NS}",
            f"sim.time_ns={SCALE_SIM_NS}"]


def pairs():
    """(small, large) for the 28 pairs: the task with more data is the QoS task (task 2)."""
    for a, b in itertools.combinations([k for k, _, _ in WORKLOADS], 2):
        yield (a, b) if SIZE[a] < SIZE[b] else (b, a)


def pair_runs(r, solo, name="pairs", policies=POLICIES, scale=None):
    runs = []
    for small, large in pairs():
        deadline = QOS_FACTOR * solo[large]["t0_ns"]
        extra = scaled(0, small, scale) + scaled(1, large, scale) if scale else []
        for pol in policies:
            runs.append({"name": f"{small}-{large}-{pol}",
                         "set": [f"apps.0.workload={small}", f"apps.1.workload={large}",
                                 f"apps.1.deadline_ns={deadline:.0f}", f"driver.policy={pol}"] + extra})
    return r.sweep(name, {"description": f"seed 000: 28 pairs x {len(policies)} policies", "base": PAIR, "runs": runs})


def figures_of_merit(res, solo, policies=POLICIES):
    """{(small, large): {policy: (norm1, norm2, met_rate)}}"""
    fom = {}
    for small, large in pairs():
        fom[(small, large)] = {}
        for pol in policies:
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


def scale_sweep(r):
    """Mean gains of priority_s and qos over rr, and priority_s's per-task gains, for every
    kernel scale (the deadlines use each scale's own contention-free transfer time, which the
    kernel does not change). {scale: {...}}"""
    out = {}
    for sc in SCALES:
        tag = f"{sc:g}".replace(".", "p")
        solo = solo_runs(r, f"scale{tag}-solo", sc)
        fom = figures_of_merit(pair_runs(r, solo, f"scale{tag}-pairs", SCALE_POLICIES, sc), solo, SCALE_POLICIES)
        out[sc] = {"priority_s": mean_gain(fom, "priority_s"), "qos": mean_gain(fom, "qos"),
                   "task1": task_gain(fom, "priority_s", 0), "task2": task_gain(fom, "priority_s", 1)}
    return out


def crossing(sweep, key, target):
    """The kernel scales (log-interpolated) where sweep[.][key] crosses `target`; [] if never."""
    xs = sorted(sweep)
    found = []
    for a, b in zip(xs, xs[1:]):
        ya, yb = sweep[a][key] - target, sweep[b][key] - target
        if ya == 0 or ya * yb < 0:
            t = ya / (ya - yb) if ya != yb else 0.0
            found.append(math.exp(math.log(a) + t * (math.log(b) - math.log(a))))
    return found


def at_scale(sweep, key, scale):
    """sweep[.][key] log-interpolated at `scale`."""
    xs = sorted(sweep)
    for a, b in zip(xs, xs[1:]):
        if a <= scale <= b:
            t = (math.log(scale) - math.log(a)) / (math.log(b) - math.log(a))
            return sweep[a][key] + t * (sweep[b][key] - sweep[a][key])
    return sweep[xs[0] if scale < xs[0] else xs[-1]][key]


def explain_by_scale(r, check, sweep, key, label):
    """A difference is explained when the measured gain-vs-kernel-scale curve reaches the
    paper's figure: the scale where it does is the measured cause (the paper does not publish
    its kernel-to-copy ratios). When the curve never reaches it, nothing is explained."""
    if check.verdict == "matches":
        return
    where = crossing(sweep, key, PAPER[key])
    curve = ", ".join(f"x{s:g} {100 * sweep[s][key]:+.1f} %" for s in sorted(sweep))
    if where:
        there = "; ".join(f"at x{w:.2f} priority_s's mean gain is {100 * at_scale(sweep, 'priority_s', w):+.1f} %"
                          for w in where)
        r.explain(check, f"{label} depends on the kernel-to-copy ratio, which the paper does not give. Measured over "
                         f"kernel times x{min(sweep):g}..x{max(sweep):g} (30 ms runs: {curve}), it equals the paper's "
                         f"{100 * PAPER[key]:+.1f} % at kernel times x" + " and x".join(f"{w:.2f}" for w in where) +
                         f" ({there}; gain_vs_kernel_scale.png).")
    else:
        r.notes.append(f"{label}: over kernel times x{min(sweep):g}..x{max(sweep):g} (30 ms runs: {curve}) ours "
                       f"never reaches the paper's {100 * PAPER[key]:+.1f} %: the kernel-to-copy ratio does not "
                       "explain this difference.")


def add_checks(r, fom, sweep):
    g = {p: mean_gain(fom, p) for p in POLICIES}
    t1, t2 = task_gain(fom, "priority_s", 0), task_gain(fom, "priority_s", 1)
    ours = {"priority_s": g["priority_s"], "qos": g["qos"], "task1": t1, "task2": t2}
    claims = {"priority_s": ("mean system-throughput gain, priority_s over rr (Fig. 5)", GAIN_TOL),
              "qos": ("mean system-throughput gain, qos over rr (Fig. 5)", GAIN_TOL),
              "task1": ("task 1 (smaller) under priority_s vs rr (Fig. 6)", TASK_TOL),
              "task2": ("task 2 (larger) under priority_s vs rr (Fig. 6)", TASK_TOL)}
    for key, (claim, tol) in claims.items():
        c = r.number(claim, 100 * PAPER[key], 100 * ours[key], 100 * tol, "{:+.1f}", " %")
        explain_by_scale(r, c, sweep, key, claim)
    # At the kernel scale where priority_s's gain is the paper's, the other three figures are
    # predictions of the model, not fits: checked as numbers there.
    where = crossing(sweep, "priority_s", PAPER["priority_s"])
    if where:
        s_star = where[0]
        for key in ("qos", "task1", "task2"):
            claim, tol = claims[key]
            c = r.number(f"{claim}, at kernel times x{s_star:.2f} (where priority_s gains the paper's +7.6 %)",
                         100 * PAPER[key], 100 * at_scale(sweep, key, s_star), 100 * tol, "{:+.1f}", " %")
            explain_by_scale(r, c, sweep, key, claim)
    pct = lambda x: f"{100 * x:+.1f} %"  # noqa: E731
    r.ordering("priority_s achieves the highest system throughput of the four policies (Fig. 5)", "highest",
               ", ".join(f"{p} {pct(g[p])}" for p in POLICIES),
               g["priority_s"] >= max(g["qos"], g["priority_l"], 0.0))
    r.ordering("smallest data first beats largest data first (Fig. 5)", "priority_s > priority_l",
               f"{pct(g['priority_s'])} > {pct(g['priority_l'])}", g["priority_s"] > g["priority_l"])
    r.ordering("qos lies between rr and priority_s (Fig. 5)", "0 < +5.3 % < +7.6 %",
               f"0 < {pct(g['qos'])} < {pct(g['priority_s'])}", 0 < g["qos"] < g["priority_s"])
    l1, l2 = task_gain(fom, "priority_l", 0), task_gain(fom, "priority_l", 1)
    r.ordering("both tasks do worse under priority_l than under rr (Fig. 6)", "task 1 < 0, task 2 < 0",
               f"task 1 {pct(l1)}, task 2 {pct(l2)}", l1 < 0 and l2 < 0)
    q1, q2 = task_gain(fom, "qos", 0), task_gain(fom, "qos", 1)
    r.ordering("both tasks do better under qos than under rr (Fig. 6)", "task 1 > 0, task 2 > 0",
               f"task 1 {pct(q1)}, task 2 {pct(q2)}", q1 > 0 and q2 > 0)
    met = {p: statistics.mean(v[p][2] for v in fom.values()) for p in ("rr", "qos")}
    r.ordering("QoS tasks meet their deadline at least as often under qos as under rr (Fig. 6)",
               "qos >= rr", f"qos {100 * met['qos']:.1f} % vs rr {100 * met['rr']:.1f} %", met["qos"] >= met["rr"])
    return g, t1, t2, met


def plot_scale(r, sweep):
    xs = sorted(sweep)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for key, label, color in (("priority_s", "priority_s vs rr", "C0"), ("qos", "qos vs rr", "C1"),
                              ("task1", "task 1 under priority_s", "C2")):
        ax.plot(xs, [100 * sweep[x][key] for x in xs], "o-", color=color, label=label)
        ax.axhline(100 * PAPER[key], color=color, ls=":", lw=1)
    ax.axvline(1, color="k", lw=0.5)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("kernel times x (1 = configs/workloads/*.yaml)")
    ax.set_ylabel("mean gain over rr (%)")
    ax.set_title("Gain against the kernel-to-copy ratio (dotted: the paper's figures)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(r.path("gain_vs_kernel_scale.png"), dpi=110)
    plt.close(fig)


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
    sweep = scale_sweep(r)
    g, t1, t2, met = add_checks(r, fom, sweep)
    fidelity_checks(r, fom)
    write_csvs(r, solo, fom)
    r.write_csv("gain_vs_kernel_scale.csv", ["kernel_scale", "priority_s_gain", "qos_gain", "task1_gain", "task2_gain"],
                [[f"{s:g}"] + [f"{sweep[s][k]:.4f}" for k in ("priority_s", "qos", "task1", "task2")] for s in sorted(sweep)])
    plot_fig5(r, fom)
    plot_fig6(r, fom)
    plot_scale(r, sweep)
    best = max(fom, key=lambda k: (fom[k]["priority_s"][0] + fom[k]["priority_s"][1]) / sum(fom[k]["rr"][:2]))
    timeline(r, *best)
    extra = {"runs": len(res) + len(solo), "qos_factor": QOS_FACTOR, "paper_qos_factor": PAPER_QOS_FACTOR,
             "worst_ratio": worst_transfer_ratio(res, solo), "window_us": TIMELINE_US,
             "scale_runs": len(SCALES) * (len(WORKLOADS) + 28 * len(SCALE_POLICIES)), "sweep": sweep}
    return r.finish(render(r, solo, fom, g, t1, t2, met, best, ABBR, WORKLOADS, POLICIES, extra))


FIDELITY_TOL = 0.01  # the flow mode's gains within 1 point of the packet model's


class FlowFidelity:
    """The same sweeps at sim.fidelity: flow (runs named *-flow), through `r`."""

    def __init__(self, r):
        self.r = r

    def sweep(self, name, spec):
        for run in spec["runs"]:
            run["set"] = run["set"] + ["sim.fidelity=flow"]
        return self.r.sweep(name + "-flow", spec)


def figures(fom):
    """The figures the checks compare: mean gains over rr and per-task gains."""
    out = {f"gain {p}": mean_gain(fom, p) for p in POLICIES if p != "rr"}
    for p in ("priority_s", "priority_l", "qos"):
        for t in (0, 1):
            out[f"task {t + 1} {p}"] = task_gain(fom, p, t)
    return out


def fidelity_checks(r, fom):
    """Seed 000 in the flow fidelity (which follows VC arbitration and the policies' TC/VC
    maps, docs/architecture.md "Flow-level mode: arbitration"): every figure within 1 point
    of the packet model's, and the same order of the policies."""
    solo = solo_runs(FlowFidelity(r))
    flow_fom = figures_of_merit(pair_runs(FlowFidelity(r), solo), solo)
    packet, flow = figures(fom), figures(flow_fom)
    for key in packet:
        r.number(f"flow fidelity against the packet model: {key} over rr (issue 12: within 1 point)",
                 100 * packet[key], 100 * flow[key], 100 * FIDELITY_TOL, "{:+.1f}", " %")
    order = lambda f: sorted(POLICIES, key=lambda p: -mean_gain(f, p))  # noqa: E731
    r.ordering("flow fidelity: the policies in the packet model's order of system throughput", " > ".join(order(fom)),
               " > ".join(order(flow_fom)), order(fom) == order(flow_fom))
    return flow


def worst_transfer_ratio(res, solo):
    """Longest QoS-task transfer over its contention-free time, over all pair runs."""
    return max(res[f"{s}-{l}-{p}"]["apps"][1]["max_ns"] / solo[l]["t0_ns"] for s, l in pairs() for p in POLICIES)
