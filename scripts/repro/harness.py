"""Shared harness of every reproduction: running sweeps through the simulator, reading
their results, recording checks, writing checks.json and the report."""
import csv
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, asdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# ARBSIM_BIN overrides the simulator binary (e.g. a copy, while build/ is being rebuilt).
BINARY = os.environ.get("ARBSIM_BIN", os.path.join(ROOT, "build", "pcie-arbsim"))


@dataclass
class Check:
    claim: str
    paper: str
    ours: str
    tolerance: str
    passed: bool

    def as_json(self):
        d = asdict(self)
        d["pass"] = d.pop("passed")
        return d


class Reproduction:
    """Collects checks, CSVs and plots in one output directory."""

    def __init__(self, name, out_dir):
        self.name = name
        self.out = os.path.abspath(out_dir)
        os.makedirs(self.out, exist_ok=True)
        self.checks = []
        self.started = time.time()

    def path(self, *parts):
        return os.path.join(self.out, *parts)

    def check(self, claim, paper, ours, tolerance, passed):
        self.checks.append(Check(claim, paper, ours, tolerance, bool(passed)))

    def sweep(self, name, spec):
        """Writes a sweep spec (a dict) and runs it; returns {run id: results dict}."""
        spec_path = self.path(name + ".sweep.yaml")
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)  # JSON is YAML
        out = self.path("runs", name)
        cmd = [BINARY, "sweep", spec_path, "--out", out]
        print("$ " + " ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
        if rc != 0:
            sys.exit(f"sweep {name} failed (exit {rc}); see {out}")
        results = {}
        for run in os.listdir(os.path.join(out, "runs")):
            with open(os.path.join(out, "runs", run, "results.json")) as f:
                results[run] = json.load(f)
        return results

    def run(self, name, config, overrides, extra=()):
        """One `pcie-arbsim run`; returns its output directory."""
        out = self.path("runs", name)
        cmd = [BINARY, "run", config, "--out", out] + [a for o in overrides for a in ("-s", o)] + list(extra)
        print("$ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return out

    def write_csv(self, name, header, rows):
        with open(self.path(name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)

    def wall_seconds(self):
        return time.time() - self.started

    def finish(self, report_markdown):
        with open(self.path("checks.json"), "w") as f:
            json.dump([c.as_json() for c in self.checks], f, indent=2)
            f.write("\n")
        with open(self.path("report.md"), "w") as f:
            f.write(report_markdown)
        failed = [c for c in self.checks if not c.passed]
        for c in self.checks:
            print(("PASS " if c.passed else "FAIL ") + c.claim + ": paper " + c.paper + ", ours " + c.ours)
        print(f"{len(self.checks) - len(failed)} passed, {len(failed)} failed")
        print("report: " + self.path("report.md"))
        return 0 if not failed else 1

    def checks_table(self):
        lines = ["| claim | paper | ours | tolerance | pass |", "|---|---|---|---|---|"]
        for c in self.checks:
            lines.append(f"| {c.claim} | {c.paper} | {c.ours} | {c.tolerance} | {'yes' if c.passed else '**no**'} |")
        return "\n".join(lines)


def read_vcd_states(path, signals):
    """Value changes of integer signals in a VCD: {signal: [(time_ps, value)]}.
    `signals` are hierarchical names such as 'gpu2.state'."""
    ids, changes, scope = {}, {s: [] for s in signals}, []
    t = 0
    with open(path) as f:
        for line in f:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "$scope":
                scope.append(tok[2])
            elif tok[0] == "$upscope":
                scope.pop()
            elif tok[0] == "$var":
                name = ".".join(scope[1:] + [tok[4]])
                if name in changes:
                    ids[tok[3]] = name
            elif tok[0].startswith("#"):
                t = int(tok[0][1:])
            elif tok[0].startswith("b") and len(tok) == 2 and tok[1] in ids:
                changes[ids[tok[1]]].append((t, int(tok[0][1:], 2)))
    return changes
