"""Seed 002 §4.2, Table 1: the two applications (domain decomposition, wafer inspection) on
both platforms of §4.1, under the three bandwidth-distribution methods."""
import os

from batch_common import METHODS, PLATFORMS, apps_config, edf_schedulable, program_config, run_app

NEHALEM, SANDY = "seed002_nehalem_tyan.yaml", "seed002_sandybridge_k10.yaml"
NAMES = {NEHALEM: "nehalem", SANDY: "sandybridge"}
ORDER = "batch < time division < bandwidth allocation"

# ---- Domain decomposition ------------------------------------------------------------------
# §4.2: scatter 3.69 GB to 2 GPUs; 100 x [boundary kernel 1 ms; in parallel: exchange 295.2 MB
# boundaries, internal kernel 23 ms]; gather. Each loop body is two batch operations (the
# boundary kernels, then the exchange with the internal kernels: a stream is a copy *then* a
# kernel, so the parallel kernel is a kernel-only stream of the same batch).
# Assumptions (the paper does not say): the GPUs are gpu0 and gpu2, in different PCIe domains
# on both platforms (so the exchange is staged through host memory: §3.2 special case 2);
# the input and output live in cpu0's memory; the output is as large as the input; each GPU
# sends 295.2 MB to the other.
DD_GPUS = ("gpu0", "gpu2")
PAPER_DD = {NEHALEM: {"batch": 20.03, "bandwidth_allocation": 25.59, "time_division": 23.10},
            SANDY: {"batch": 3.18, "bandwidth_allocation": 25.19, "time_division": 6.43}}


DD_TOL = 0.10     # Table 1's times, measured on real machines: matches within 10 %
WAFER_TOL = 0.10  # Table 1's largest images: matches within 10 %


def explain_by_counter_run(r, check, paper, counter, tol, unit):
    """A difference is explained by a counter-run only when that run (one stated change to
    the set-up) lands within the tolerance of the paper's figure. counter: (value, what changed)."""
    if check.verdict != "differs" or not counter:
        return
    value, what = counter
    if abs(value - paper) <= tol * paper:
        r.explain(check, f"measured: with {what}, ours is {value:.2f}{unit}, within {100 * tol:g} % of the paper's "
                         f"{paper}{unit}; the platform file encodes the other reading.")
    else:
        r.notes.append(f"{check.claim}: with {what}, ours is {value:.2f}{unit}, still not within {100 * tol:g} % "
                       f"of the paper's {paper}{unit}.")


# Table 2's single-GPU effective rates (GB/s, the platform files' [T2]): H2D, D2H.
T2_RATES = {NEHALEM: (6.03, 4.39), SANDY: (11.68, 11.10)}


def dd_paper_scaling_note(r, made):
    """The paper's own Table 1 and Table 2 figures set side by side (arithmetic, no run), with
    ours (`made`: {platform name: {method: (simulated s, predicted s)}})."""
    ratio = {m: PAPER_DD[NEHALEM][m] / PAPER_DD[SANDY][m] for m in METHODS}
    h2d, d2h = (T2_RATES[SANDY][k] / T2_RATES[NEHALEM][k] for k in (0, 1))
    ours = [made[NAMES[p]]["bandwidth_allocation"][0] for p in (NEHALEM, SANDY)]
    r.notes.append(
        "domain decomposition, bandwidth_allocation (Table 1), the paper's own figures side by side: its "
        f"Nehalem / Sandy Bridge times are {PAPER_DD[NEHALEM]['bandwidth_allocation']} / "
        f"{PAPER_DD[SANDY]['bandwidth_allocation']} s ({ratio['bandwidth_allocation']:.3f}x), where its batch times "
        f"differ {ratio['batch']:.1f}x and its time-division times {ratio['time_division']:.1f}x, and Table 2's "
        f"single-GPU rates are {h2d:.1f}x (H2D) and {d2h:.1f}x (D2H) higher on Sandy Bridge. Ours follow the "
        f"rates ({ours[0]:.2f} / {ours[1]:.2f} s, {ours[0] / ours[1]:.1f}x), so the two differences have opposite "
        f"signs: to land both within {100 * DD_TOL:g} %, the two platforms' times would have to be within "
        f"{ratio['bandwidth_allocation'] * (1 - DD_TOL) / (1 + DD_TOL):.2f}-"
        f"{ratio['bandwidth_allocation'] * (1 + DD_TOL) / (1 - DD_TOL):.2f}x of each other.")


def dd_counter_runs(r, platform, name):
    """Nehalem only: the programs again without cpu0's memory-write cap (the other reading of
    §4.1's [S4], without_write_cap()). {method: (seconds, what changed)}."""
    if platform != NEHALEM:
        return {}
    out = {}
    for m in METHODS:
        cfg = program_config(r, f"dd-{name}-nocap-{m}", without_write_cap(r), m, dd_steps(100))
        app = run_app(r, f"dd-{name}-nocap-{m}", cfg, ["--fidelity", "flow"])["batch"]
        out[m] = (app["program_ns"] / 1e9, "cpu0's 4.39 GB/s memory-write cap removed (§4.1's other reading)")
    return out


def dd_steps(iterations):
    a, b = DD_GPUS
    scatter = [{"gpu": g, "host": "cpu0", "direction": "h2d", "bytes": "1845MB"} for g in DD_GPUS]
    gather = [{"gpu": g, "host": "cpu0", "direction": "d2h", "bytes": "1845MB"} for g in DD_GPUS]
    boundary = [{"gpu": g, "kernel_ns": 1e6} for g in DD_GPUS]
    exchange = [{"gpu": a, "peer": b, "bytes": "295.2MB"}, {"gpu": b, "peer": a, "bytes": "295.2MB"}] + \
               [{"gpu": g, "kernel_ns": 23e6} for g in DD_GPUS]
    return [([scatter], 1), ([boundary, exchange], iterations), ([gather], 1)]


def exchange_steps():
    return [(dd_steps(1)[1][0][1:], 1)]


def domain_decomposition(r):
    """Full programs in the flow-level mode (200 batches moving 66 GB: minutes per run at packet
    level), and the exchange batch, the part the staging adds, at packet level."""
    rows, checks = [], {}
    for platform, paper in PAPER_DD.items():
        name = NAMES[platform]
        made = {}
        for m in METHODS:
            cfg = program_config(r, f"dd-{name}-{m}", platform, m, dd_steps(100))
            app = run_app(r, f"dd-{name}-{m}", cfg, ["--fidelity", "flow"])["batch"]
            made[m] = (app["program_ns"] / 1e9, app["program_predicted_ns"] / 1e9)
            ex = run_app(r, f"dd-exchange-{name}-{m}", program_config(r, f"dd-exchange-{name}-{m}", platform, m,
                                                                     exchange_steps()))
            gaps = [s["stage_gap_ns"] for s in ex["batch"]["streams"] if "peer" in s]
            rows.append([name, m, f"{made[m][0]:.2f}", f"{made[m][1]:.2f}", paper[m],
                         f"{ex['batch']['predicted_ns'] / 1e6:.2f}", f"{ex['max_ns'] / 1e6:.2f}",
                         f"{min(gaps) / 1e3:.1f}"])
        checks[name] = made
        counter = dd_counter_runs(r, platform, name)
        for m in ("batch", "time_division", "bandwidth_allocation"):
            c = r.number(f"domain decomposition ({name}), {m}: execution time (Table 1)", paper[m], made[m][0],
                         DD_TOL, "{:.2f}", " s", rel=True)
            explain_by_counter_run(r, c, paper[m], counter.get(m), DD_TOL, " s")
        r.ordering(f"domain decomposition ({name}): {ORDER} (Table 1)",
                   " < ".join(f"{paper[m]} s" for m in ("batch", "time_division", "bandwidth_allocation")),
                   " < ".join(f"{made[m][0]:.2f} s" for m in ("batch", "time_division", "bandwidth_allocation")),
                   made["batch"][0] < made["time_division"][0] < made["bandwidth_allocation"][0])
    dd_paper_scaling_note(r, checks)
    worst_flow = max(abs(float(x[2]) - float(x[3])) / float(x[2]) for x in rows)
    r.ordering("domain decomposition: simulated programs (flow-level) vs predicted, within the paper's 3.6 %",
               "<= 3.6 % (§4.3)", f"worst {100 * worst_flow:.2f} %", worst_flow <= 0.036)
    worst_ex = max(abs(float(x[5]) - float(x[6])) / float(x[6]) for x in rows)
    r.ordering("domain decomposition: exchange batch with staged copies, predicted vs packet-level simulated",
               "<= 3.6 % (§4.3)", f"worst {100 * worst_ex:.2f} %", worst_ex <= 0.036)
    first = min(float(x[7]) for x in rows)
    r.ordering("staged GPU-to-GPU copies: the GPU->CPU stage begins first (§3.2, special case 2)",
               "GPU->CPU begins first", f"CPU->GPU starts >= {first:.1f} us after", first > 0)
    r.write_csv("domain_decomposition.csv", ["platform", "method", "simulated_s", "predicted_s", "paper_s",
                                             "exchange_predicted_ms", "exchange_simulated_ms",
                                             "stage_gap_us"], rows)
    return rows


# ---- Wafer inspection ----------------------------------------------------------------------
# An image arrives in main memory (cpu0's) every 25 ms and is split 40/10/10/40 % over GPUs
# 0-3; a report of the image's size goes back to main memory. Two periodic tasks of period
# 25 ms, each a batch app: the H2D batch (copy + scan) and the D2H batch (report); their
# execution times are the predicted batch latencies (predictBatchLatency), and
# `pcie-arbsim predict` checks them with the non-preemptive EDF test of Jeffay et al. [4]
# (models/batch/edf_test.h). Deadlines are the 25 ms periods, so every report lands
# within two periods (50 ms), inside the 60 ms requirement. Bandwidth allocation reserves
# for the eight transfers of both tasks.
WAFER_SPLIT = [0.4, 0.1, 0.1, 0.4]
WAFER_PERIOD_NS = 25e6
PAPER_WAFER = {NEHALEM: {"batch": 82.46, "bandwidth_allocation": 59.28, "time_division": 60.24},
               SANDY: {"batch": 156.77, "bandwidth_allocation": 128.10, "time_division": 112.58}}
PAPER_WAFER_ORDER = {NEHALEM: ("batch", "time_division", "bandwidth_allocation"),
                     SANDY: ("batch", "bandwidth_allocation", "time_division")}


def wafer_apps(image_mb, balanced):
    """balanced: every GPU scans for image / 10 GB/s (the split balances kernel times); else
    each scans its part at 10 GB/s (§2.4's per-GPU scan rate)."""
    parts = [f * image_mb for f in WAFER_SPLIT]
    kernel = [image_mb * 1e5 if balanced else p * 1e5 for p in parts]
    h2d = [{"gpu": f"gpu{i}", "host": "cpu0", "direction": "h2d", "bytes": f"{p:.6f}MB", "kernel_ns": kernel[i]}
           for i, p in enumerate(parts)]
    d2h = [{"gpu": f"gpu{i}", "host": "cpu0", "direction": "d2h", "bytes": f"{p:.6f}MB"} for i, p in enumerate(parts)]
    return [("images", WAFER_PERIOD_NS, [([h2d], 1)]), ("reports", WAFER_PERIOD_NS, [([d2h], 1)])]


def wafer_max_image(r, platform, balanced=False):
    """Largest image (MB) each method schedules: bisection on the EDF verdict."""
    best = {}
    for m in METHODS:
        lo, hi = 1.0, 1000.0
        for _ in range(20):
            mid = (lo + hi) / 2
            ok = edf_schedulable(r, apps_config(r, "wafer-predict", platform, m, wafer_apps(mid, balanced)))
            (lo, hi) = (mid, hi) if ok[m] else (lo, mid)
        best[m] = lo
    return best


def without_write_cap(r):
    """The Nehalem platform as it read §4.1's [S4] before: no memory write cap."""
    with open(os.path.join(PLATFORMS, NEHALEM)) as f:
        text = f.read().replace("write_GBps: 4.39, ", "")
    path = r.path("nehalem-no-write-cap.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def wafer(r):
    rows = []
    other = {NEHALEM: [], SANDY: []}  # the other readings: (label, {method: MB})
    for platform, label in [(NEHALEM, "balanced kernels"), (SANDY, "balanced kernels"),
                            (without_write_cap(r), "per part, no memory write cap")]:
        best = wafer_max_image(r, platform, balanced=label.startswith("balanced"))
        key = SANDY if platform == SANDY else NEHALEM
        other[key].append((label, best))
    for platform, paper in PAPER_WAFER.items():
        best = wafer_max_image(r, platform)
        name = NAMES[platform]
        rows += [[name, "per part (used)", m, f"{best[m]:.2f}", paper[m]] for m in METHODS]
        for m in METHODS:
            c = r.number(f"wafer inspection ({name}), {m}: largest image (Table 1)", paper[m], best[m], WAFER_TOL,
                         "{:.2f}", " MB", rel=True)
            for label, alt in other[platform]:
                explain_by_counter_run(r, c, paper[m], (alt[m], f"the {label} reading"), WAFER_TOL, " MB")
        order = PAPER_WAFER_ORDER[platform]
        r.ordering(f"wafer inspection ({name}): " + " > ".join(order) + " (Table 1)",
                   " > ".join(f"{paper[m]} MB" for m in order), " > ".join(f"{best[m]:.1f} MB" for m in order),
                   best[order[0]] > best[order[1]] > best[order[2]])
    for key, readings in other.items():
        for label, best in readings:
            rows += [[NAMES[key], label, m, f"{best[m]:.2f}", PAPER_WAFER[key][m]] for m in METHODS]
    r.write_csv("wafer.csv", ["platform", "reading", "method", "max_image_MB", "paper_MB"], rows)
    return rows


def report_lines(dd_rows, wafer_rows):
    lines = ["## Table 1, domain decomposition: execution time", "",
             "Scatter 3.69 GB from cpu0's memory to gpu0 and gpu2, 100 x [1 ms boundary kernels; exchange of",
             "295.2 MB each way with 23 ms internal kernels], gather 3.69 GB. gpu0 and gpu2 are in different PCIe",
             "domains on both platforms, so each exchange copy is staged through the source GPU's socket memory",
             "(§3.2 special case 2: 4 MiB chunks through two buffers; the CPU->GPU stage of a chunk starts when it",
             "has landed). Programs run in the flow-level mode. The exchange batch also runs alone at packet level",
             "(for bandwidth allocation then reserving for its own two copies only), as a check of the staging.", "",
             "| platform | method | ours simulated (s) | ours predicted (s) | paper (s) | exchange predicted (ms) "
             "| exchange packet-level (ms) | CPU->GPU stage starts after (us) |", "|---|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in dd_rows]
    lines += ["", "Where ours differ from the paper's (what we know of the causes; the checks above say which difference a",
              "measurement explains):", "",
              "* Sandy Bridge, batch method and time division: within 2 % and 7 %. The exchange overlaps both",
              "  directions and both stages at the K10s' ~11.1-12 GB/s (28.1 ms per exchange, hidden under the 23 ms",
              "  kernel but for 5 ms); time division moves one staged copy at a time (52.6 ms).",
              "* Nehalem, batch method and time division: each C2050 has one DMA engine, so the two staged copies",
              "  share engines and are merged (§3.2 special case 1): 153.5 ms per exchange for both methods, and the",
              "  batch method gains only on the scatter and gather (2 % overall; paper 15 %). The paper's times are",
              "  20 % and 35 % above ours; its Nehalem transfer paths for this application are not published.",
              "* Bandwidth allocation: ours reserves a static equal share of every link for each of the",
              "  application's six transfers (scatter x2, exchange x2, gather x2), as many as three per link",
              "  direction here. The result depends on nothing else, and the paper does not say what it reserved",
              "  for: ours is 55 % above the paper's on Nehalem (cpu0's 4.39 GB/s memory-write cap split three",
              "  ways) and 75 % below on Sandy Bridge, where the paper's 25.19 s implies about 2.5 GB/s per transfer,",
              "  a fifth of a link. The order of the three methods is the paper's on both platforms.", "",
              "## Table 1, wafer inspection: largest image each method schedules", "",
              "Every 25 ms an image in cpu0's memory is split 40/10/10/40 % over GPUs 0-3 and a report of the same",
              "size returns to it. Two periodic tasks of period 25 ms, each a batch app (the H2D batch, the D2H",
              "batch), with their predicted batch latencies (predictBatchLatency) as execution times, checked by",
              "`pcie-arbsim predict` with the non-preemptive EDF test of Jeffay et al. (models/batch/edf_test.h;",
              "with equal periods it comes down to utilisation <= 1). Deadlines are the periods, so every report",
              "lands within 50 ms < 60 ms. The largest image is found by bisection. The rows marked *used* are",
              "checked; the others show how much two readings of the paper move the figures.", "",
              "| platform | reading | method | ours (MB) | paper (MB) |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in wafer_rows]
    lines += ["", "* *per part*: each GPU scans its part at 10 GB/s (§2.4's per-GPU rate); *balanced kernels*: every",
              "  GPU scans for image / 10 GB/s (\"the image is split ... in order to balance the kernel execution",
              "  times\"). Neither reading matches all six figures; per part is closer on Nehalem.",
              "* The Nehalem platform caps DMA writes into a socket's memory at 4.39 GB/s, reading §4.1's \"the",
              "  aggregate D2H bandwidth lines up with the bandwidth of the local GPUs\" literally. Without that",
              "  cap bandwidth allocation schedules the larger image than time division (the paper's two differ",
              "  by 1.6 %, so the order of that pair hangs on such details); with it the order is the paper's.",
              "* Our batch-method images are 14 % below (Nehalem) and 35 % above (Sandy Bridge) the paper's; the",
              "  cause is not known. Table 2's transfers, which fix the platforms' rates, are predicted within",
              "  0.3 %, so the rates alone do not explain it; the paper does not show its EDF calculation.",
              ""]
    return lines
