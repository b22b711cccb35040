"""Running the simulator from Python: one config (`run`) or a sweep spec (`sweep`), with the
binary found as ARBSIM_BIN, else this repository's build/pcie-arbsim, else `pcie-arbsim` on
PATH."""
import os
import shutil
import subprocess

from .results import load_run
from .sweep import load_sweep

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class SimulatorError(RuntimeError):
    """The simulator exited non-zero: `code` (2 bad input, 1 model error, 3 outputs not
    written; docs/config.md) and `stderr`."""

    def __init__(self, cmd, code, stderr):
        super().__init__(f"{' '.join(cmd)}: exit {code}: {stderr.strip()}")
        self.code = code
        self.stderr = stderr


def binary():
    """The pcie-arbsim binary this package runs."""
    if os.environ.get("ARBSIM_BIN"):
        return os.environ["ARBSIM_BIN"]
    built = os.path.join(ROOT, "build", "pcie-arbsim")
    if os.access(built, os.X_OK):
        return built
    found = shutil.which("pcie-arbsim")
    if not found:
        raise FileNotFoundError("pcie-arbsim not found: set ARBSIM_BIN, build this repository "
                                "(scripts/build) or put it on PATH")
    return found


def _call(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SimulatorError(cmd, done.returncode, done.stderr)
    return done


def run(config, out, overrides=(), extra=()):
    """`pcie-arbsim run CONFIG --out OUT -s ...`; returns its Run. `overrides`: dotted.key=value
    strings; `extra`: further arguments (e.g. ["--fidelity", "flow"])."""
    cmd = [binary(), "run", config, "--out", out] + [a for o in overrides for a in ("-s", o)] + list(extra)
    _call(cmd)
    return load_run(out)


def sweep(spec, out, jobs=None, extra=()):
    """`pcie-arbsim sweep SPEC --out OUT`; returns its Sweep (a failed point raises
    SimulatorError with the sweep's report)."""
    cmd = [binary(), "sweep", spec, "--out", out] + (["-j", str(jobs)] if jobs else []) + list(extra)
    _call(cmd)
    return load_sweep(out)
