"""python3 -m pcie_arbsim plot SWEEP_DIR [--out DIR]: the standard figures of a sweep
(pcie_arbsim.plot), by default into SWEEP_DIR/plots/. Exit 2 on a directory that is not a
sweep's output."""
import argparse
import os
import sys

from .plot import standard_figures
from .sweep import load_sweep


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scripts/plot", description="The standard figures of a pcie-arbsim sweep.")
    sub = parser.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="draw the standard figures of SWEEP_DIR")
    plot.add_argument("sweep_dir", help="the output directory of `pcie-arbsim sweep`")
    plot.add_argument("--out", help="where the PNGs go (default SWEEP_DIR/plots)")
    args = parser.parse_args(argv)
    try:
        sweep = load_sweep(args.sweep_dir)
        notes = []
        made = standard_figures(sweep, args.out or os.path.join(args.sweep_dir, "plots"), notes)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for path in made:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
