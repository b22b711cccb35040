"""pcie_arbsim: a run or a sweep of the pcie-arbsim simulator as pandas DataFrames, the
simulator run from Python, and the standard figures (docs/tutorial.md, docs/sweeps.md).

Importable with Debian's /usr/bin/python3 (pandas and matplotlib from python3-pandas and
python3-matplotlib): put the repository's python/ directory on sys.path or PYTHONPATH.

    import pcie_arbsim as pa
    sw = pa.load_sweep("runs/policies")          # DIR of `pcie-arbsim sweep`
    sw.apps.groupby("driver.policy").throughput_gbps.mean()
    run = pa.run("configs/default.yaml", "out", overrides=["sim.seed=2"])
    run.links[["name", "direction", "utilization"]]
"""
from .results import Run, load_run, tables_of
from .sweep import Sweep, load_sweep
from .runner import SimulatorError, binary, run, sweep

__all__ = ["Run", "Sweep", "SimulatorError", "binary", "load_run", "load_sweep", "run", "sweep", "tables_of"]
