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


def apps_config(r, name, platform, method, apps):
    """Writes a config of batch apps; apps: (name, period_ns, steps), steps each a list of
    batches (lists of stream dicts) and a repeat count."""
    lines = [f"platform: {platform if os.path.isabs(platform) else os.path.join(PLATFORMS, platform)}", "apps:"]
    for app, period, steps in apps:
        lines += [f"  - name: {app}", "    type: batch", f"    method: {method}", "    count: 1",
                  f"    period_ns: {period}", "    program:"]
        for batches, repeat in steps:
            lines.append(f"      - repeat: {repeat}")
            lines.append("        batches:")
            for streams in batches:
                lines.append("          - streams: [" + ", ".join(stream_yaml(s) for s in streams) + "]")
    path = r.path(name + ".yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def program_config(r, name, platform, method, steps):
    """One batch app running `steps` once."""
    return apps_config(r, name, platform, method, [("b", 0, steps)])


def batch_config(r, name, platform, method, streams):
    """One batch; streams: (gpu, direction, bytes, kernel_ns)."""
    return program_config(r, name, platform, method, [([[
        {"gpu": g, "direction": d, "bytes": b, "kernel_ns": k} for g, d, b, k in streams]], 1)])


def run_app(r, name, config, extra=()):
    """Runs a config; returns its (only) app's results."""
    out = r.run(name, config, [], extra)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)["apps"][0]


def edf_schedulable(r, config):
    """Per method, whether `pcie-arbsim predict` finds the periodic batch apps schedulable
    by non-preemptive EDF (Jeffay et al.)."""
    out = r.path("predict")
    subprocess.run([BINARY, "predict", config, "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "predict.json")) as f:
        return {m: v["schedulable"] for m, v in json.load(f)["edf"].items()}

