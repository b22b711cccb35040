"""Seed 004 (process-level GPU sharing, "GPU virtualization"): N = 1..8 SPMD processes on one
Tesla C2070-class GPU with and without the sharing layer (PS-1 and PS-2), simulated through
the fabric and the SM dispatcher, against the execution model's Eq. 1-7 and the speedups of
Eq. 8-9, with phase times profiled from single-process runs as the paper does (§5)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harness import Reproduction  # noqa: E402

NS = range(1, 9)
# Assumed (the paper publishes no values): a process's GPU initialisation and a context switch.
INIT_NS, CTX_NS = 20e6, 0.5e6
# The two validation profiles of §5 (Table 3) and the partly-overlapping EP(M30).
PROFILES = {
    "ci": {"label": "compute-intensive (EP(M24)-like, grid 1)", "h2d_bytes": "1MiB", "d2h_bytes": "1MiB",
           "kernel_ns": 10e6, "blocks": 1},
    "ioi": {"label": "I/O-intensive (VecMult-like, grid 16K)", "h2d_bytes": "16MiB", "d2h_bytes": "8MiB",
            "kernel_ns": 0.5e6, "blocks": 16384},
    "ep30": {"label": "compute-intensive, grid 4 (EP(M30)-like)", "h2d_bytes": "1MiB", "d2h_bytes": "1MiB",
             "kernel_ns": 10e6, "blocks": 4},
}
MODES = {"none": ["apps.p.sharing=none", f"apps.p.init_ns={INIT_NS:g}", f"apps.p.ctx_switch_ns={CTX_NS:g}"],
         "ps1": ["apps.p.sharing=streams", "apps.p.order=ps1"],
         "ps2": ["apps.p.sharing=streams", "apps.p.order=ps2"]}
# §5: "an average model deviation of 0.42% for EP(M24) and 4.76% for VecMult".
PAPER_DEVIATION = {"ci": 0.42, "ioi": 4.76}

BASE = """platform:
  name: tesla-c2070
  description: one Fermi GPU (14 SMs, 16 concurrent kernels, seed 004 §5) on a PCIe 2.0 x16 root port
  defaults: {link: {gen: 2, width: 16}}
  nodes:
    - {name: cpu0, type: root_complex}
    - {name: gpu0, type: gpu, sms: 14, max_concurrent_kernels: 16}
  links:
    - {up: cpu0, down: gpu0}
apps:
  - {name: p, type: spmd, gpu: gpu0, processes: 1, h2d_bytes: 1MiB, d2h_bytes: 1MiB, kernel_ns: 1ms}
"""


def profile_set(name):
    p = PROFILES[name]
    return [f"apps.p.h2d_bytes={p['h2d_bytes']}", f"apps.p.d2h_bytes={p['d2h_bytes']}",
            f"apps.p.kernel_ns={p['kernel_ns']:g}", f"apps.p.blocks={p['blocks']}"]


def runs():
    out = []
    for prof in PROFILES:
        # Profiling (§5): each phase of one process alone.
        ps = profile_set(prof)
        out += [{"name": f"{prof}-phase-in", "set": ps + ["apps.p.d2h_bytes=0", "apps.p.kernel_ns=0"]},
                {"name": f"{prof}-phase-comp", "set": ps + ["apps.p.h2d_bytes=0", "apps.p.d2h_bytes=0"]},
                {"name": f"{prof}-phase-out", "set": ps + ["apps.p.h2d_bytes=0", "apps.p.kernel_ns=0"]}]
        modes = ["ps1"] if prof == "ep30" else list(MODES)
        out += [{"name": f"{prof}-{m}-{n}", "set": ps + MODES[m] + [f"apps.p.processes={n}"]} for m in modes for n in NS]
        if prof != "ep30":
            out += [{"name": f"{prof}-{m}-8-flow", "set": ps + MODES[m] + ["apps.p.processes=8", "sim.fidelity=flow"]}
                    for m in MODES]
    return out


def equations(t, n, mode, prof):
    """Eq. 1 (none), Eq. 2/4 (PS-1), Eq. 3 (C-I, PS-2) or Eq. 7 (I/O-I, PS-2), in ns."""
    if mode == "none":
        return n * (t["init"] + t["in"] + t["comp"] + t["out"]) + (n - 1) * t["ctx"]
    if mode == "ps1":
        return n * (t["in"] + t["out"]) + t["comp"]
    if prof == "ioi":
        return n * max(t["in"], t["out"]) + t["comp"] + min(t["in"], t["out"])
    return t["in"] + n * t["comp"] + t["out"]


def simulate(r):
    with open(r.path("base.yaml"), "w") as f:
        f.write(BASE)
    res = r.sweep("spmd", {"description": "seed 004 SPMD processes", "base": "base.yaml", "runs": runs()})
    total = {k: v["apps"][0]["spmd"]["total_ns"] for k, v in res.items()}
    turn = {k: v["apps"][0]["spmd"]["turnaround_ns"] for k, v in res.items()}
    phases = {p: {"in": total[f"{p}-phase-in"], "comp": total[f"{p}-phase-comp"], "out": total[f"{p}-phase-out"],
                  "init": INIT_NS, "ctx": CTX_NS} for p in PROFILES}
    return total, turn, phases


def deviation(total, phases, prof, mode):
    devs = [abs(total[f"{prof}-{mode}-{n}"] / equations(phases[prof], n, mode, prof) - 1) for n in NS]
    return 100 * sum(devs) / len(devs), 100 * max(devs)


def check(r, total, phases):
    eq_name = {"none": "Eq. 1", "ps1": "Eq. 2", "ps2": "Eq. 3"}
    for prof in ("ci", "ioi"):
        t = phases[prof]
        for mode in MODES:
            eq = equations(t, 8, mode, prof) / 1e6
            name = "Eq. 7" if (prof == "ioi" and mode == "ps2") else ("Eq. 4" if prof == "ioi" and mode == "ps1"
                                                                    else eq_name[mode])
            r.number(f"{PROFILES[prof]['label']}, {mode}, N = 8: total vs {name}", eq, total[f"{prof}-{mode}-8"] / 1e6,
                     0.03, "{:.2f}", " ms", rel=True)
            flow = total[f"{prof}-{mode}-8-flow"] / 1e6
            r.number(f"{PROFILES[prof]['label']}, {mode}, N = 8: flow fidelity vs packet", total[f"{prof}-{mode}-8"] / 1e6,
                     flow, 0.03, "{:.2f}", " ms", rel=True)
    for prof, mode, eqs in (("ci", "ps1", "Eq. 8"), ("ioi", "ps2", "Eq. 9")):
        t = phases[prof]
        s_eq = equations(t, 8, "none", prof) / equations(t, 8, mode, prof)
        s_sim = total[f"{prof}-none-8"] / total[f"{prof}-{mode}-8"]
        r.number(f"{PROFILES[prof]['label']}: speedup at N = 8 vs {eqs}", s_eq, s_sim, 0.03, "{:.2f}", "x", rel=True)
    for prof, mode in (("ci", "ps1"), ("ioi", "ps2")):
        mean, worst = deviation(total, phases, prof, mode)
        r.number(f"{PROFILES[prof]['label']}, {mode}: mean |simulated / model - 1| over N = 1..8 (the paper "
                 f"measured {PAPER_DEVIATION[prof]} % on its GPU, §5)", 0.0, mean, 3.0, "{:.2f}", " %")
    ci, ioi = (total["ci-ps1-8"], total["ci-ps2-8"]), (total["ioi-ps1-8"], total["ioi-ps2-8"])
    r.ordering("C-I kernels: PS-1 beats PS-2 (Eq. 2 < Eq. 3, §4.2)", "PS-1 < PS-2",
               f"{ci[0] / 1e6:.2f} < {ci[1] / 1e6:.2f} ms", ci[0] < ci[1])
    r.ordering("I/O-I kernels: PS-2 beats PS-1 (Eq. 7 < Eq. 4, §4.2)", "PS-2 < PS-1",
               f"{ioi[1] / 1e6:.2f} < {ioi[0] / 1e6:.2f} ms", ioi[1] < ioi[0])
    t = phases["ep30"]
    over = [n for n in NS if total[f"ep30-ps1-{n}"] > 1.03 * equations(t, n, "ps1", "ep30")]
    r.ordering("grid 4 on 14 SMs (EP(M30)): complete overlap (Eq. 2) up to 3 processes, partial beyond (§5)",
               "sim = Eq. 2 for N <= 3, above it for N >= 4", f"above Eq. 2 by > 3 % at N = {over}", over == list(range(4, 9)))


def plot(r, total, turn, phases):
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for ax, prof in zip(axes, PROFILES):
        modes = ["ps1"] if prof == "ep30" else list(MODES)
        for i, m in enumerate(modes):
            ax.plot(list(NS), [total[f"{prof}-{m}-{n}"] / 1e6 for n in NS], "o", color=f"C{i}", label=f"simulated {m}")
            ax.plot(list(NS), [equations(phases[prof], n, m, prof) / 1e6 for n in NS], "-", color=f"C{i}",
                    label=f"model {m}")
        ax.set_xlabel("processes N")
        ax.set_ylabel("total time (ms)")
        ax.set_title(PROFILES[prof]["label"], fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(r.path("total_vs_processes.png"), dpi=110)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, prof in zip(axes, ("ioi", "ci")):
        for m, label in (("none", "without sharing"), ("ps2" if prof == "ioi" else "ps1", "with sharing")):
            ax.plot(list(NS), [sum(turn[f"{prof}-{m}-{n}"]) / n / 1e6 for n in NS], "-o", label=label)
        ax.set_xlabel("processes N")
        ax.set_ylabel("mean process turnaround (ms)")
        ax.set_title(PROFILES[prof]["label"] + " (Figs. 14-15)", fontsize=9)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(r.path("turnaround.png"), dpi=110)
    plt.close(fig)


def report(r, total, phases):
    rows = ["| profile | mode | N | simulated ms | model ms | deviation |", "|---|---|---|---|---|---|"]
    for prof in PROFILES:
        for m in (["ps1"] if prof == "ep30" else MODES):
            for n in NS:
                s, e = total[f"{prof}-{m}-{n}"] / 1e6, equations(phases[prof], n, m, prof) / 1e6
                rows.append(f"| {prof} | {m} | {n} | {s:.3f} | {e:.3f} | {100 * (s / e - 1):+.2f} % |")
    ph = ["| profile | T_data_in ms | T_comp ms | T_data_out ms |", "|---|---|---|---|"]
    ph += [f"| {PROFILES[p]['label']} | {t['in'] / 1e6:.3f} | {t['comp'] / 1e6:.3f} | {t['out'] / 1e6:.3f} |"
           for p, t in phases.items()]
    return "\n".join([
        "# Seed 004: process-level GPU sharing against its execution model", "",
        "N = 1..8 processes of an SPMD program (copy in, kernel, copy out) on one Tesla C2070-class GPU (14 SMs,",
        "16 concurrent kernels, PCIe 2.0 x16), simulated at packet level through the fabric and the SM block",
        "dispatcher: without the sharing layer (each process its own context, T_init = "
        f"{INIT_NS / 1e6:g} ms, T_ctx_switch = {CTX_NS / 1e6:g} ms,",
        "assumed: the paper publishes none) and with it (one context, a stream per process, PS-1 or PS-2 through a",
        "single hardware queue: docs/gpu-sharing.md). The phase times are profiled from one process alone, as in §5:",
        "", *ph, "",
        "The model's numbers are seed 004's Eq. 1-7 of those phases. The profiles are ours, chosen to be",
        "compute-intensive and I/O-intensive as the paper's EP and VecMult are (their sizes are not published).", "",
        "![totals](total_vs_processes.png)", "", "![turnaround](turnaround.png)", "",
        r.checks_table(), "",
        "Where the simulation departs from the equations, and why:", "",
        "- I/O-intensive, PS-2: Eq. 7 takes the two copy directions as independent. In the fabric the copies in",
        "  are device reads whose MRds share the upstream direction with the copies out's MWrs (up to 4.4 % of",
        "  it, `Spmd.IoIntensivePs2IsEquation7PlusTheReadRequestsShare`); here T_data_out < T_data_in, so the",
        "  slower copies out stay hidden behind the copies in (deviation in the table below).",
        "- Grid 4 on 14 SMs (EP(M30)): three kernels fill 12 SMs; from the fourth on, blocks wait for SMs, so",
        "  the kernels overlap only partly: two waves of blocks for N = 4..7, three for N = 8 (32 blocks on 14",
        "  SMs), and the total rises above Eq. 2's complete overlap (the reason §5 validates with a grid of 1).",
        "",
        "## All runs", "", *rows, "",
        f"Simulated in {r.wall_seconds():.0f} s of wall time.", ""])


def main(out_dir):
    r = Reproduction("gpu-virtualization", out_dir)
    total, turn, phases = simulate(r)
    check(r, total, phases)
    plot(r, total, turn, phases)
    r.write_csv("totals.csv", ["profile", "mode", "processes", "simulated_ns", "model_ns"],
                [[p, m, n, f"{total[f'{p}-{m}-{n}']:.3f}", f"{equations(phases[p], n, m, p):.3f}"]
                 for p in PROFILES for m in (["ps1"] if p == "ep30" else MODES) for n in NS])
    r.write_csv("phases.csv", ["profile", "data_in_ns", "comp_ns", "data_out_ns"],
                [[p, f"{t['in']:.3f}", f"{t['comp']:.3f}", f"{t['out']:.3f}"] for p, t in phases.items()])
    return r.finish(report(r, total, phases))
