"""Seed 001 §3 and §5.2 (MIG instances sharing one GPU's PCIe link): an A100-PCIe on a Gen4 x16
root port. Fig. 1: 1g, 2g and 3g instances copying host-to-device at once get the same
throughput whatever their size. Fig. 2: PCIe-bound inference jobs (Bloom560m-like, ~30 % of
the link each) on 1..7 1g instances: per-job throughput and total link use against the job
count. Eq. 1: alpha_j fitted by linear regression on the simulated profiling runs, against the
paper's 1.25 (Bloom560m) and 1.07 (Bloom7b1). Mechanism and model: docs/gpu-sharing.md,
"MIG instances"."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harness import Reproduction  # noqa: E402

NS = range(1, 8)
MIB = 1 << 20
COPY_BYTES = 64 * MIB       # Fig. 1: one long H2D copy per instance (the paper's copies 5 GB in a loop)
LAYER_BYTES = 8 * MIB       # Fig. 2: a job loads a layer's weights, then computes on them ...
LAYERS = 8                  # ... layer after layer (ZeRO-Inference, §3.2)
# A job's PCIe demand as a share of PCIe_max. Bloom560m: "approximately 30 %" (§3.2; Fig. 2's
# knee past four jobs agrees; Table 2's 5.7 GB/s would be 19 % of 30.08 GB/s). Bloom7b1:
# Table 2's 17.65 GB/s of §5.1's 30.08 GB/s.
JOBS = {"bloom560m": {"share": 0.30, "alpha": 1.25}, "bloom7b1": {"share": 17.65 / 30.08, "alpha": 1.07}}
STARTS = ("staggered", "aligned")

PLATFORM = """platform:
  name: a100-pcie-mig
  description: an A100-PCIe-40GB on a Gen4 x16 root port (seed 001 §5.1), split into MIG instances
  defaults: {link: {gen: 4, width: 16}}
  nodes:
    - {name: cpu0, type: root_complex}
    - {name: gpu0, type: gpu, mig: %s}
  links:
    - {up: cpu0, down: gpu0}
apps:
"""


def copy_app(name, instance, h2d, iterations=1, kernel_ns=0):
    return (f"  - {{name: {name}, type: copy_exec, gpu: gpu0/mig{instance}, h2d_bytes: {h2d}, "
            f"kernel_ns: {kernel_ns}, iterations: {iterations}}}\n")


def rate(a):
    return a["bytes"] / (a["last_done_ns"] - a["first_issue_ns"])  # B/ns = GB/s


def write(r, name, text):
    with open(r.path(name), "w") as f:
        f.write(text)
    return name


def fig1(r):
    """1g + 2g + 3g copying at once; each alone; the counter-run with 16 tags per engine."""
    base = PLATFORM % "[1g.5gb, 2g.10gb, 3g.20gb]"
    write(r, "fig1.yaml", base + "".join(copy_app(f"i{i}", i, COPY_BYTES) for i in range(3)))
    write(r, "alone.yaml", base + copy_app("i0", 0, COPY_BYTES))
    write(r, "max.yaml", (PLATFORM % ("[" + ", ".join(["1g"] * 7) + "]")) +
          "".join(copy_app(f"i{i}", i, COPY_BYTES) for i in range(7)))
    res = {}
    for cfg in ("fig1", "alone", "max"):
        runs = [{"name": f"{cfg}-{f}", "set": [f"sim.fidelity={f}"]} for f in ("packet", "flow")]
        if cfg != "max":
            runs.append({"name": f"{cfg}-tags4", "set": ["platform.nodes.gpu0.tags=4"]})
        res.update(r.sweep(cfg, {"description": "mig-bandwidth " + cfg, "base": cfg + ".yaml", "runs": runs}))
    return res


def job_timing(share, pcie_max, alone_rate):
    """Kernel time that makes a job's demand alone `share` of PCIe_max: D = w / (w / R1 + t)."""
    demand = share * pcie_max
    return LAYER_BYTES / demand - LAYER_BYTES / alone_rate, demand


def fig2(r, pcie_max, alone_rate):
    """Jobs on n 1g instances, aligned (all start at 0) or staggered (job i at i/n of a layer)."""
    res = {}
    for n in NS:
        base = PLATFORM % ("[" + ", ".join(["1g"] * 7) + "]")
        write(r, f"jobs{n}.yaml", base + "".join(copy_app(f"j{i}", i, LAYER_BYTES, LAYERS, 1) for i in range(n)))
        runs = []
        for job, p in JOBS.items():
            t, _ = job_timing(p["share"], pcie_max, alone_rate)
            layer = LAYER_BYTES / alone_rate + t
            for start in STARTS:
                for fid in ("flow", "packet"):
                    sets = [f"sim.fidelity={fid}"]
                    for i in range(n):
                        offset = i * layer / n if start == "staggered" else 0
                        sets += [f"apps.j{i}.kernel_ns={t:.0f}", f"apps.j{i}.start_ns={offset:.0f}"]
                    runs.append({"name": f"{job}-{start}-{fid}", "set": sets})
        got = r.sweep(f"jobs{n}", {"description": f"mig-bandwidth jobs n={n}", "base": f"jobs{n}.yaml", "runs": runs})
        res.update({(n,) + tuple(k.split("-")): v for k, v in got.items()})
    return res


def runtimes(res):
    """Each job's runtime (first issue to last completion), ns."""
    return [a["last_done_ns"] - a["first_issue_ns"] for a in res["apps"]]


def slowdowns(jobs, job, start, fid):
    """[(n, mean runtime(n) / base_runtime, link use GB/s)] (Eq. 1's left-hand side)."""
    base = runtimes(jobs[(1, job, start, fid)])[0]
    out = []
    for n in NS:
        res = jobs[(n, job, start, fid)]
        rt = runtimes(res)
        span = max(a["last_done_ns"] for a in res["apps"]) - min(a["first_issue_ns"] for a in res["apps"])
        out.append((n, sum(rt) / len(rt) / base, sum(a["bytes"] for a in res["apps"]) / span))
    return out


def fit_alpha(share, curve):
    """Eq. 1 through the origin: slowdown = alpha x demand / (PCIe_max / n), least squares."""
    xs = [share * n for n, _, _ in curve]
    ys = [s for _, s, _ in curve]
    return sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)


def check_fig1(r, f1):
    share = {k: [rate(a) for a in f1[k]["apps"]] for k in ("fig1-packet", "fig1-flow")}
    for fid in ("packet", "flow"):
        got = share[f"fig1-{fid}"]
        mean = sum(got) / 3
        for name, g in zip(("1g.5gb", "2g.10gb", "3g.20gb"), got):
            r.number(f"Fig. 1 ({fid}): {name} copy throughput against the three instances' mean (equal split)",
                     mean, g, 0.02, "{:.3f}", " GB/s", rel=True)
    alone = rate(f1["alone-packet"]["apps"][0])
    pcie_max = sum(rate(a) for a in f1["max-packet"]["apps"])
    got = share["fig1-packet"]
    r.ordering("Fig. 1: three instances copying at once each get less than one alone (contention exists)",
               "each < alone", f"{max(got):.2f} vs {alone:.2f} GB/s", max(got) < 0.5 * alone)
    t4 = [rate(a) for a in f1["fig1-tags4"]["apps"]]
    a4 = rate(f1["alone-tags4"]["apps"][0])
    r.ordering("mechanism counter-run, 4 reads in flight per engine: the link is no longer full and each "
               "instance moves what it moves alone (the split comes from equal reads in flight on a full link)",
               "each = alone (±1 %)", f"{min(t4):.2f}..{max(t4):.2f} vs {a4:.2f} GB/s",
               all(abs(x - a4) <= 0.01 * a4 for x in t4))
    return alone, pcie_max


def check_fig2(r, jobs, pcie_max):
    curves = {(j, s, f): slowdowns(jobs, j, s, f) for j in JOBS for s in STARTS for f in ("flow", "packet")
              if (1, j, s, f) in jobs}
    st = curves[("bloom560m", "staggered", "packet")]
    r.ordering("Fig. 2a (Bloom560m, staggered): per-job throughput flat up to 3 jobs (within 3 %), falling past 4",
               "flat to 3, lower at 5-7", ", ".join(f"n={n}: {1 / s:.2f}" for n, s, _ in st),
               all(s <= 1.03 for n, s, _ in st if n <= 3) and all(s > 1.1 for n, s, _ in st if n >= 5))
    uses = [u for _, _, u in st]
    r.ordering("Fig. 2b (Bloom560m, staggered): total link use rises with the job count", "rising",
               ", ".join(f"{u:.1f}" for u in uses) + " GB/s", all(b > a for a, b in zip(uses, uses[1:])))
    r.number("Fig. 2b (Bloom560m, staggered): link use with 7 jobs against PCIe_max (saturated; the last "
             "layer's compute ends the run with the link idle)", pcie_max, uses[-1], 0.05, "{:.2f}", " GB/s", rel=True)
    alphas = {}
    for job, p in JOBS.items():
        fit = {s: fit_alpha(p["share"], curves[(job, s, "packet")]) for s in STARTS}
        alphas[job] = fit
        c = r.number(f"Eq. 1: alpha of {job} fitted on simulated profiling runs (n = 1..7, staggered starts)",
                     p["alpha"], fit["staggered"], 0.10, "{:.3f}", "", rel=True)
        # Explained only where the counter-run brackets the paper's value; else it stays unexplained.
        if fit["staggered"] <= p["alpha"] <= fit["aligned"]:
            r.explain(c, f"alpha measures how the jobs' loads line up, not the link alone: the counter-run with all "
                         f"jobs starting together (their loads collide every layer) fits alpha = {fit['aligned']:.3f}; "
                         f"staggered starts, whose loads interleave until the link is full, fit {fit['staggered']:.3f}. "
                         f"The paper's {p['alpha']} lies between the two: real jobs are partly aligned.")
    r.ordering("Eq. 1: the lighter job (Bloom560m) has the larger alpha, as in the paper (1.25 > 1.07)",
               "alpha(560m) > alpha(7b1)",
               f"aligned {alphas['bloom560m']['aligned']:.3f} vs {alphas['bloom7b1']['aligned']:.3f}",
               alphas["bloom560m"]["aligned"] > alphas["bloom7b1"]["aligned"])
    for start in STARTS:
        worst = max(abs(b - a) / a for job in JOBS for n in NS
                    for a, b in zip(runtimes(jobs[(n, job, start, "packet")]), runtimes(jobs[(n, job, start, "flow")])))
        c = r.number(f"flow against packet fidelity: worst job runtime difference, {start} profiling runs", 0.0,
                     100 * worst, 3.0, "{:.2f}", " %")
        cause = drift_cause(jobs)
        if cause:
            r.explain(c, cause)
    return curves, alphas


def drift_cause(jobs):
    """Why aligned jobs differ between fidelities: the spread of their end times at n = 7. None
    where the measurement does not show it (the flow's jobs not ending together, or the packet
    model's not drifting apart by ten times as much)."""
    spread = {f: (lambda ends: max(ends) - min(ends))([a["last_done_ns"] for a in jobs[(7, "bloom560m", "aligned", f)]["apps"]])
              for f in ("packet", "flow")}
    if not spread["packet"] > 10 * spread["flow"]:
        return None
    return ("identical jobs started together are a tie the two fidelities break differently: the flow mode splits "
            "the link exactly, so the seven Bloom560m jobs stay locked in step and end together (spread of their "
            f"end times {spread['flow'] / 1e3:.1f} us); in the packet model equal shares end a few TLPs apart, the "
            "first job to finish a load starts the next one alone on the link, and the jobs drift apart (spread "
            f"{spread['packet'] / 1e3:.1f} us), so their loads collide less. Staggered starts, where no tie exists, "
            "agree.")


def plot(r, f1, curves, pcie_max):
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    ax = axes[0]
    names = ["1g.5gb", "2g.10gb", "3g.20gb"]
    ax.bar([x - 0.2 for x in range(3)], [rate(a) for a in f1["fig1-packet"]["apps"]], 0.4, label="together")
    ax.bar([x + 0.2 for x in range(3)], [rate(f1["alone-packet"]["apps"][0])] * 3, 0.4, label="alone")
    ax.set_xticks(range(3), names)
    ax.set_ylabel("H2D copy throughput (GB/s)")
    ax.set_title("Fig. 1: copies on three MIG instances")
    ax.legend(fontsize=8)
    for ax, what in ((axes[1], "throughput"), (axes[2], "use")):
        for (job, s, f), cur in sorted(curves.items()):
            if f != "packet":
                continue
            ys = [1 / sd for _, sd, _ in cur] if what == "throughput" else [u for _, _, u in cur]
            ax.plot([n for n, _, _ in cur], ys, "-o" if s == "staggered" else "--s", ms=3, label=f"{job}, {s}")
        ax.set_xlabel("jobs (1g instances)")
    axes[1].set_ylabel("per-job throughput (1 = alone)")
    axes[1].set_title("Fig. 2a: PCIe-bound jobs")
    axes[2].axhline(pcie_max, ls=":", color="grey", label=f"PCIe_max {pcie_max:.1f} GB/s")
    axes[2].set_ylabel("link use (GB/s)")
    axes[2].set_title("Fig. 2b: total PCIe bandwidth use")
    for ax in axes[1:]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(r.path("mig_bandwidth.png"), dpi=110)
    plt.close(fig)


def report(r, alone, pcie_max, demand, curves, alphas):
    rows = ["| jobs | " + " | ".join(f"{j} {s}" for j in JOBS for s in STARTS) + " |", "|---" * 5 + "|"]
    for i, n in enumerate(NS):
        rows.append(f"| {n} | " + " | ".join(f"{curves[(j, s, 'packet')][i][1]:.3f}" for j in JOBS for s in STARTS)
                    + " |")
    return "\n".join([
        "# MIG instances sharing one PCIe link (seed 001 §3, §5.2)", "",
        "An A100-PCIe on a Gen4 x16 root port (§5.1), MPS 256 (completions of 256 B), MRRS 512. Each MIG",
        "instance copies with its own copy engine (256 reads in flight); the host memory completes reads in",
        "arrival order. Mechanism of the equal split: docs/gpu-sharing.md, \"MIG instances\".", "",
        f"- One instance alone: {alone:.2f} GB/s (its engine's tags limit it); seven at once (PCIe_max): "
        f"{pcie_max:.2f} GB/s, the link's CplD payload rate. The paper's PCIe_max is 30.08 GB/s.",
        f"- Fig. 2's jobs: {LAYERS} layers of {LAYER_BYTES // MIB} MiB loaded then computed on; the kernel time sets "
        "each job's demand alone to its share of PCIe_max: " +
        ", ".join(f"{j} {100 * JOBS[j]['share']:.0f} % ({demand[j]:.2f} GB/s)" for j in JOBS) + ".",
        "- Starts: *staggered* (job i starts i/n of a layer late, so loads interleave) and *aligned* (all at 0).",
        "", "![mig](mig_bandwidth.png)", "", r.checks_table(), "",
        "## Notes", "", *[f"- {n}" for n in r.notes],
        "- Table 2 gives Bloom560m 5.7 GB/s, 19 % of 30.08 GB/s, while §3.2 says ~30 % and Fig. 2 saturates",
        "  past four jobs (30 %); the runs use 30 %.",
        "- Job compute time depends on the instance size in the paper; here every job runs on a 1g instance,",
        "  so it does not enter.", "",
        "## Slowdown runtime(n) / runtime(1), packet fidelity", "", *rows, "",
        "Alpha (Eq. 1, least squares through the origin over n = 1..7): " +
        "; ".join(f"{j} staggered {a['staggered']:.3f}, aligned {a['aligned']:.3f}" for j, a in alphas.items()) + ".",
        "", f"Simulated in {r.wall_seconds():.0f} s of wall time.", ""])


def main(out_dir):
    r = Reproduction("mig-bandwidth", out_dir)
    f1 = fig1(r)
    alone, pcie_max = check_fig1(r, f1)
    jobs = fig2(r, pcie_max, alone)
    curves, alphas = check_fig2(r, jobs, pcie_max)
    plot(r, f1, curves, pcie_max)
    demand = {j: job_timing(p["share"], pcie_max, alone)[1] for j, p in JOBS.items()}
    r.write_csv("fig1.csv", ["run", "instance", "throughput_GBps"],
                [[k, a["gpu"], f"{rate(a):.4f}"] for k, v in sorted(f1.items()) for a in v["apps"]])
    r.write_csv("slowdown.csv", ["job", "start", "fidelity", "n", "slowdown", "link_use_GBps"],
                [[j, s, f, n, f"{sd:.5f}", f"{u:.4f}"] for (j, s, f), cur in sorted(curves.items())
                 for n, sd, u in cur])
    return r.finish(report(r, alone, pcie_max, demand, curves, alphas))
