"""Helpers shared by the seed 002 reproductions: batch-app configs, runs and predictions."""
import json
import os
import subprocess

from harness import BINARY, ROOT

PLATFORMS = os.path.join(ROOT, "configs", "platforms")
METHODS = ["batch", "bandwidth_allocation", "time_division"]


def stream_yaml(s):
    """A stream as a YAML flow map; s: dict of its keys."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in s.items()) + "}"


def program_config(r, name, platform, method, steps):
    """Writes a config with one batch app running `steps`: each a list of batches (lists of
    stream dicts) and a repeat count."""
    lines = [f"platform: {platform if os.path.isabs(platform) else os.path.join(PLATFORMS, platform)}",
             "apps:", "  - name: b", "    type: batch", f"    method: {method}", "    count: 1", "    program:"]
    for batches, repeat in steps:
        lines.append(f"      - repeat: {repeat}")
        lines.append("        batches:")
        for streams in batches:
            lines.append("          - streams: [" + ", ".join(stream_yaml(s) for s in streams) + "]")
    path = r.path(name + ".yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def batch_config(r, name, platform, method, streams):
    """One batch; streams: (gpu, direction, bytes, kernel_ns)."""
    return program_config(r, name, platform, method, [([[
        {"gpu": g, "direction": d, "bytes": b, "kernel_ns": k} for g, d, b, k in streams]], 1)])


def run_app(r, name, config, extra=()):
    """Runs a config; returns its (only) app's results."""
    out = r.run(name, config, [], extra)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)["apps"][0]


def predicted_program_ms(config):
    """predictBatchLatency summed over a program, per method, via `pcie-arbsim predict`."""
    out = subprocess.run([BINARY, "predict", config], check=True, capture_output=True, text=True).stdout
    ms = {}
    for line in out.splitlines():
        tok = line.split()
        if len(tok) == 4 and tok[1] == "program":
            ms[tok[0]] = float(tok[2]) / 1e3
    return ms
