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
sys.path.insert(0, os.path.join(ROOT, "python"))
import pcie_arbsim  # noqa: E402  (the repository's analysis package: sweeps read through it)
# ARBSIM_BIN overrides the simulator binary (e.g. a copy, while build/ is being rebuilt).
BINARY = os.environ.get("ARBSIM_BIN", os.path.join(ROOT, "build", "pcie-arbsim"))


@dataclass
class Check:
    """One claim of a paper against ours. A `number` check compares a published figure with
    ours within a stated tolerance: its verdict is "matches" or "differs", and a difference
    counts as explained only with a measured cause (`explanation`, which names the
    measurement). An `ordering` check compares an order or a sign the paper states: "holds"
    or "fails"."""
    claim: str
    kind: str
    paper: str
    ours: str
    tolerance: str
    verdict: str
    deviation: str = ""
    explanation: str = ""

    @property
    def ok(self):
        return self.verdict in ("matches", "holds") or (self.verdict == "differs" and bool(self.explanation))

    def label(self):
        if self.verdict == "differs":
            return "differs (explained)" if self.explanation else "**differs (unexplained)**"
        return self.verdict if self.ok else f"**{self.verdict}**"

    def as_json(self):
        d = asdict(self)
        d["ok"] = self.ok
        return d


class Reproduction:
    """Collects checks, CSVs and plots in one output directory."""

    def __init__(self, name, out_dir):
        self.name = name
        self.out = os.path.abspath(out_dir)
        os.makedirs(self.out, exist_ok=True)
        self.checks = []
        self.notes = []  # measured findings that do not explain a difference (shown in the report)
        self.started = time.time()

    def path(self, *parts):
        return os.path.join(self.out, *parts)

    def number(self, claim, paper, ours, tol, fmt="{:.2f}", unit="", rel=False):
        """A number check: `ours` matches `paper` within `tol` (absolute, in the numbers' own
        unit, or relative when `rel`). Returns the check, to explain() a difference."""
        dev = ours - paper
        within = abs(dev) <= (tol * abs(paper) if rel else tol)
        f = lambda x: fmt.format(x) + unit  # noqa: E731
        tolerance = f"±{100 * tol:g} %" if rel else "±" + fmt.format(tol).lstrip("+") + unit
        deviation = f(dev) + (f" ({100 * dev / paper:+.0f} %)" if paper else "")
        c = Check(claim, "number", f(paper), f(ours), tolerance, "matches" if within else "differs", deviation)
        self.checks.append(c)
        return c

    def within_factor(self, claim, paper, ours, factor, fmt="{:.2f}", unit=""):
        """A number check whose tolerance is a factor: `ours` within [paper / factor, paper x factor]."""
        f = lambda x: fmt.format(x) + unit  # noqa: E731
        within = paper / factor <= ours <= paper * factor
        c = Check(claim, "number", f(paper), f(ours), f"x{factor:g} (1/{factor:g} .. {factor:g} x)",
                  "matches" if within else "differs", f"x{ours / paper:.2f}")
        self.checks.append(c)
        return c

    def ordering(self, claim, paper, ours, holds):
        """An ordering (or sign) check: the order the paper states, and whether ours has it."""
        c = Check(claim, "ordering", paper, ours, "ordering", "holds" if holds else "fails")
        self.checks.append(c)
        return c

    @staticmethod
    def explain(check, measured_cause):
        """Attaches the measured cause of a number check's difference (only to one that differs)."""
        if check.verdict == "differs":
            check.explanation = measured_cause

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
        return pcie_arbsim.load_sweep(out).results()

    def run(self, name, config, overrides, extra=()):
        """One `pcie-arbsim run`; returns its output directory."""
        out = self.path("runs", name)
        cmd = [BINARY, "run", config, "--out", out] + [a for o in overrides for a in ("-s", o)] + list(extra)
        print("$ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return out

    def jobs(self, name, config, overrides):
        """One `pcie-arbsim jobs` (seed 001's job level); returns its results.json as a dict."""
        out = self.path("runs", name)
        cmd = [BINARY, "jobs", config, "--out", out] + [a for o in overrides for a in ("-s", o)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)

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
        bad = [c for c in self.checks if not c.ok]
        for c in self.checks:
            print(f"{c.label().replace('*', '').upper():24} {c.claim}: paper {c.paper}, ours {c.ours}")
        print(self.summary())
        print("report: " + self.path("report.md"))
        return 0 if not bad else 1

    def summary(self):
        """e.g. "9 checks: 3 numbers match, 2 differ (2 explained), 4 orderings hold"."""
        n = [c for c in self.checks if c.kind == "number"]
        o = [c for c in self.checks if c.kind == "ordering"]
        matches = sum(c.verdict == "matches" for c in n)
        explained = sum(c.verdict == "differs" and bool(c.explanation) for c in n)
        holds = sum(c.verdict == "holds" for c in o)
        return (f"{len(self.checks)} checks: {matches} of {len(n)} numbers match, {len(n) - matches} differ "
                f"({explained} explained by a measured cause, {len(n) - matches - explained} unexplained); "
                f"{holds} of {len(o)} orderings hold")

    def checks_table(self):
        lines = ["| claim | kind | paper | ours | deviation | tolerance | verdict |", "|---|---|---|---|---|---|---|"]
        for i, c in enumerate(self.checks, 1):
            verdict = c.label() + (f" ([{i}](#why-{i}))" if c.explanation else "")
            lines.append(f"| {c.claim} | {c.kind} | {c.paper} | {c.ours} | {c.deviation or '-'} | {c.tolerance} | {verdict} |")
        lines += ["", self.summary() + "."]
        why = [(i, c) for i, c in enumerate(self.checks, 1) if c.explanation]
        if why:
            lines += ["", "Measured causes of the differences:", ""]
            lines += [f"<a id=\"why-{i}\"></a>{i}. {c.claim}: {c.explanation}" for i, c in why]
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
