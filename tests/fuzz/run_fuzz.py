#!/usr/bin/python3
"""Run-level fuzzing (issue 9): random small *valid* configs - trees of root complexes,
switches and GPUs with random links, arbiters, credits, policies, apps and fidelity - each
run by the simulator under a time limit. A run must exit 0 and its results.json must hold
the invariants below; anything else (a crash, a hang, a model error, a broken invariant) is
a finding, saved with its config under OUT/findings/. Configs are written as JSON, which is
YAML. Deterministic for a given --seed.

    /usr/bin/python3 tests/fuzz/run_fuzz.py --binary build/pcie-arbsim --count 200 --seed 1
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

GENS = [1, 2, 3, 4, 5]
WIDTHS = [1, 2, 4, 8, 16]


def arbiter(rng, n):
    """An arbiter over n requesters (VCs, or a port's requesters)."""
    kind = rng.choice(["rr", "rr", "strict", "wrr"])
    a = {"type": kind}
    if kind == "wrr":
        if rng.random() < 0.5:
            a["weights"] = [rng.randint(0, 4) for _ in range(n)]
            if sum(a["weights"]) == 0:
                a["weights"][0] = 1
        else:
            a["phases"] = [rng.randrange(n) for _ in range(rng.randint(1, 8))]
    if rng.random() < 0.3:
        a["starvation_threshold"] = rng.randint(1, 20)
    return a


def slots(name, nodes, links):
    """Requesters at an egress of node `name` (the topology's rule, docs/arbiters.md): a GPU's
    completer and copy engines; a switch's ports; a root complex's ports, its memory port and
    one host DMA engine per GPU of its tree (here: all GPUs)."""
    node = next(n for n in nodes if n["name"] == name)
    if node["type"] == "gpu":
        return 1 + node["copy_engines"]
    ports = sum(1 for l in links if name in (l["up"], l["down"]))
    if node["type"] == "root_complex":
        return ports + 1 + max(1, sum(1 for n in nodes if n["type"] == "gpu"))
    return ports


def tc_map(rng, vcs):
    """A valid vc_tcs: every TC on one VC, TC0 on VC0."""
    groups = [[0]] + [[] for _ in range(vcs - 1)]
    for tc in range(1, 8):
        groups[rng.randrange(vcs)].append(tc)
    return groups


def platform(rng):
    nodes, links, gpus = [], [], []
    sockets = 2 if rng.random() < 0.2 else 1
    rcs = [f"rc{i}" for i in range(sockets)]
    for rc in rcs:
        nodes.append({"name": rc, "type": "root_complex", "latency_ns": rng.choice([0, 50, 120]),
                      "voq": rng.random() < 0.5,
                      "memory": {"bandwidth_GBps": rng.choice([8, 20, 50, 200]),
                                 "read_latency_ns": rng.choice([100, 400])}})
    if sockets == 2:
        links.append({"up": "rc0", "down": "rc1", "kind": "raw",
                      "bandwidth_up_GBps": rng.choice([5, 12]), "bandwidth_down_GBps": rng.choice([5, 12])})
    parents = list(rcs)
    for s in range(rng.randint(0, 3)):
        name = f"sw{s}"
        nodes.append({"name": name, "type": rng.choice(["switch", "switch", "io_hub"]),
                      "latency_ns": rng.choice([0, 50, 110, 150]),
                      "forwarding": rng.choice(["cut_through", "store_and_forward"]), "voq": rng.random() < 0.5})
        links.append({"up": rng.choice(parents), "down": name})
        parents.append(name)
    for g in range(rng.randint(1, 5)):
        name = f"gpu{g}"
        node = {"name": name, "type": "gpu", "copy_engines": rng.randint(1, 3)}
        if rng.random() < 0.3:
            node["h2d_mode"] = rng.choice(["read", "push"])
        nodes.append(node)
        links.append({"up": rng.choice(parents), "down": name})
        gpus.append(name)
    mps = rng.choice([128, 256, 512])
    for l in links:
        if l.get("kind") == "raw":
            continue
        l["gen"] = rng.choice(GENS)
        l["width"] = rng.choice(WIDTHS)
        l["latency_ns"] = rng.choice([0, 20, 100])
        l["vcs"] = rng.choice([1, 1, 2, 4, 8])
        if rng.random() < 0.4:
            l["credits"] = {"ph": rng.randint(1, 64), "pd": rng.randint(mps // 16, 256),
                            "nph": rng.randint(1, 64)}
        if rng.random() < 0.2:
            l["max_up_GBps"] = round(rng.uniform(0.5, 20), 2)
        if rng.random() < 0.3:
            l["arbitration_up"] = {"vc_arbiter": arbiter(rng, l["vcs"]),
                                   "port_arbiter": arbiter(rng, slots(l["down"], nodes, links))}
        if rng.random() < 0.2:
            l["arbitration_down"] = {"port_arbiter": arbiter(rng, slots(l["up"], nodes, links))}
        if rng.random() < 0.3 and l["vcs"] > 1:
            l["vc_tcs"] = tc_map(rng, l["vcs"])
        if rng.random() < 0.2:
            l["fc_latency_ns"] = rng.choice([0, 50, 500])
        if rng.random() < 0.1:
            l["ecrc"] = True
    for n in nodes:  # node-level port arbitration (its VC arbiter stays rr: link VC counts differ)
        if n["type"] != "gpu" and rng.random() < 0.2:
            n["arbitration"] = {"port_arbiter": arbiter(rng, slots(n["name"], nodes, links))}
    p = {"name": "fuzz", "mps": mps, "mrrs": rng.choice([128, 256, 512, 1024]),
         "completion": rng.choice(["mps", "rcb"]), "h2d_mode": rng.choice(["read", "push"]),
         "dllp_model": rng.choice(["pcie-bench", "lane-scaled", "none"]),
         "arbitration": {"vc_arbiter": {"type": rng.choice(["rr", "strict"])},
                         "port_arbiter": {"type": rng.choice(["rr", "strict"])}},
         "nodes": nodes, "links": links}
    return p, gpus, rcs


def size(rng):
    return rng.choice([1, 100, 4096, 65536, 300000, 1048576])


def app(rng, i, gpus, rcs):
    kind = rng.choice(["copy_exec", "stream", "stream", "peer", "batch"])
    if kind == "peer" and len(gpus) < 2:
        kind = "stream"
    gpu = rng.choice(gpus)
    a = {"name": f"a{i}", "type": kind, "tc": rng.randint(0, 7)}
    if kind in ("copy_exec", "stream") and rng.random() < 0.2:
        a["host"] = rng.choice(rcs)
    if rng.random() < 0.15 and kind != "batch":
        a["deadline_ns"] = rng.choice([5000, 100000])
    if kind == "copy_exec":
        a.update({"gpu": gpu, "h2d_bytes": size(rng), "kernel_ns": rng.choice([0, 1000, 20000]),
                  "iterations": rng.randint(1, 4)})
        if rng.random() < 0.5:
            a["d2h_bytes"] = size(rng)
    elif kind in ("stream", "peer"):
        a.update({"gpu": gpu, "count": rng.randint(1, 6), "depth": rng.randint(1, 4)})
        if kind == "peer":
            a["peer"] = rng.choice([g for g in gpus if g != gpu])
        else:
            a["direction"] = rng.choice(["h2d", "d2h"])
        if rng.random() < 0.3:
            lo = size(rng)
            a["size"] = {"min": lo, "max": lo + rng.choice([0, 1000, 100000])}
        else:
            a["size"] = {"fixed": size(rng)}
        if rng.random() < 0.3:
            a["rate_GBps"] = rng.choice([0.5, 2, 10])
    else:
        streams = []
        for _ in range(rng.randint(1, 3)):
            s = {"gpu": rng.choice(gpus), "kernel_ns": rng.choice([0, 5000])}
            if s["kernel_ns"] == 0 or rng.random() < 0.7:
                s["bytes"] = size(rng)
                s["direction"] = rng.choice(["h2d", "d2h"])
            streams.append(s)
        a.update({"streams": streams, "count": rng.randint(1, 3),
                  "method": rng.choice(["batch", "bandwidth_allocation", "time_division"])})
        if rng.random() < 0.3:
            a["period_ns"] = rng.choice([50000, 200000])
        a.pop("tc")
    if rng.random() < 0.2:
        a["start_ns"] = rng.choice([0, 5000])
    return a


def make_config(rng):
    p, gpus, rcs = platform(rng)
    fidelity = rng.choice(["packet", "packet", "flow"])
    policies = ["static", "rr"] if fidelity == "flow" else ["static", "static", "rr", "priority_s", "priority_l", "qos"]
    cfg = {"platform": p, "driver": {"policy": rng.choice(policies)},
           "sim": {"seed": rng.randint(0, 1000), "fidelity": fidelity, "log_level": "warn"},
           "apps": [app(rng, i, gpus, rcs) for i in range(rng.randint(1, 4))]}
    if rng.random() < 0.5:
        cfg["sim"]["time_ns"] = rng.choice([1000, 50000, 500000])
    if cfg["driver"]["policy"] != "static" and rng.random() < 0.3:
        x = rng.randint(1, 16)  # drawn for rr too, so the configs after it stay as they were
        if cfg["driver"]["policy"] != "rr":  # rr sets no strict arbiter: the key is refused there
            cfg["driver"]["starvation_threshold"] = x
    # Keys added later draw from their own generator, so the configs above stay as they were.
    side = random.Random(cfg["sim"]["seed"] * 7919 + len(cfg["apps"]))
    for n in p["nodes"]:
        if n["type"] == "gpu" and side.random() < 0.3:
            n["copy_submit_ns"] = side.choice([500, 8000])
        if n["type"] == "gpu" and side.random() < 0.2:
            n["sms"] = side.choice([1, 14, 108])
    if side.random() < 0.25:
        gpu = side.choice([n["name"] for n in p["nodes"] if n["type"] == "gpu"])
        spmd = {"name": "spmd", "type": "spmd", "gpu": gpu, "processes": side.randint(1, 6),
               "h2d_bytes": side.choice([0, 4096, 300000]), "d2h_bytes": side.choice([0, 4096, 65536]),
               "kernel_ns": side.choice([1000, 50000]), "blocks": side.choice([0, 1, 4, 5000])}
        # A block under 1 ns is refused (kernel_ns / waves): at most kernel_ns waves on its SMs.
        sms = next(n.get("sms", 108) for n in p["nodes"] if n["name"] == gpu)
        spmd["blocks"] = min(spmd["blocks"], spmd["kernel_ns"] * sms)
        if side.random() < 0.6:
            spmd.update(sharing="streams", order=side.choice(["ps1", "ps2"]),
                       queues=side.choice(["single", "per_stream"]))
        else:
            spmd.update(init_ns=side.choice([0, 2000]), ctx_switch_ns=side.choice([0, 500]))
        cfg["apps"].append(spmd)
    if side.random() < 0.2:
        gpu = side.choice([n["name"] for n in p["nodes"] if n["type"] == "gpu"])
        for k in range(2):
            cfg["apps"].append({"name": f"task{k}", "type": "periodic", "gpu": gpu, "priority": k,
                                "period_ns": side.choice([20000, 100000]), "deadline_ns": side.choice([5000, 50000]),
                                "h2d_bytes": side.choice([0, 8192]), "kernel_ns": side.choice([1000, 30000]),
                                "blocks": side.choice([0, 3, 200]), "count": side.randint(1, 20)})
        if side.random() < 0.7:
            cfg["driver"]["share_control"] = {"kind": "aimd", "acts_on": side.choice(["sm", "pcie"])}
    if side.random() < 0.2:
        mig_tree(side, cfg)
    return cfg


def mig_tree(rng, cfg):
    """A tree of its own: a root complex and a GPU split into MIG instances, with copies on some."""
    profiles = rng.choice([["1g"] * 7, ["1g.5gb", "2g.10gb", "3g.20gb"], ["7g"], ["3g", "4g"]])
    p = cfg["platform"]
    p["nodes"] += [{"name": "mrc", "type": "root_complex"},
                   {"name": "mgpu", "type": "gpu", "h2d_mode": "read", "mig": profiles,
                    "copy_engines": rng.choice([1, 2])}]
    p["links"].append({"up": "mrc", "down": "mgpu", "gen": rng.choice([3, 4]), "width": 16})
    for k in range(rng.randint(1, 3)):
        a = {"name": f"mig{k}", "type": "copy_exec", "gpu": f"mgpu/mig{rng.randrange(len(profiles))}",
             "h2d_bytes": rng.choice([4096, 65536, 1 << 20]), "kernel_ns": rng.choice([0, 2000]),
             "iterations": rng.randint(1, 3), "start_ns": rng.choice([0, 1000])}
        if rng.random() < 0.5:
            a["d2h_bytes"] = rng.choice([4096, 300000])
        cfg["apps"].append(a)


def check(results, cfg):
    """The invariants every results.json must hold; returns what is broken."""
    bad = []
    for l in results["links"]:
        if not 0 <= l["utilization"] <= 1:
            bad.append(f"link {l['name']} {l['direction']} utilization {l['utilization']}")
    for k in ("duplicate_bytes", "ordering_violations"):
        if results[k] != 0:
            bad.append(f"{k} = {results[k]}")
    if results["bytes_delivered"] > results["bytes_injected"]:
        bad.append("more bytes delivered than injected")
    for g in results["gpus"]:
        total = g["copy_ns"] + g["compute_ns"] + g["stalled_ns"] + g["idle_ns"]
        if abs(total - results["sim_time_ns"]) > 1e-3 * max(1.0, results["sim_time_ns"]) + 0.01:
            bad.append(f"gpu {g['name']} states add up to {total}, not {results['sim_time_ns']}")
    if "time_ns" not in cfg["sim"] and results["transfers_open"] != 0:
        bad.append(f"{results['transfers_open']} transfers open after running to completion")
    return bad


def run_one(binary, cfg, work, timeout):
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    out = os.path.join(work, "out")
    try:
        p = subprocess.run([binary, "run", path, "--out", out], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", f"no result after {timeout} s"
    if p.returncode == 2:
        return "rejected", p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    if p.returncode != 0:
        return "failed", f"exit {p.returncode}: " + (p.stderr.strip().splitlines() or [""])[-1]
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    bad = check(results, cfg)
    return ("failed", "; ".join(bad)) if bad else ("ok", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default=None, help="keep findings here (default: a temporary directory)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = args.out or tempfile.mkdtemp(prefix="run_fuzz_")
    os.makedirs(out, exist_ok=True)
    tally = {"ok": 0, "rejected": 0, "failed": 0, "hang": 0}
    findings = []
    for i in range(args.count):
        cfg = make_config(rng)
        work = tempfile.mkdtemp(prefix="case_", dir=out)
        verdict, why = run_one(args.binary, cfg, work, args.timeout)
        tally[verdict] += 1
        if verdict in ("failed", "hang"):
            keep = os.path.join(out, "findings", f"case{i:05d}")
            shutil.copytree(work, keep)
            findings.append(f"case {i}: {verdict}: {why} ({keep}/config.json)")
        elif verdict == "rejected":
            findings.append(f"case {i}: rejected (the generator made an invalid config): {why}")
        shutil.rmtree(work, ignore_errors=True)
    print(f"run_fuzz: seed {args.seed}, {args.count} configs: {tally['ok']} ok, {tally['rejected']} rejected, "
          f"{tally['failed']} failed, {tally['hang']} hung")
    for f in findings:
        print("  " + f)
    if not args.out:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if tally["failed"] or tally["hang"] or tally["rejected"] else 0


if __name__ == "__main__":
    sys.exit(main())
