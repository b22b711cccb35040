#!/usr/bin/python3
"""tests/repro/reproduction_matches.py NAME FILE... --binary B: runs `scripts/reproduce NAME`
with binary B into a temporary directory and checks that it exits 0 (every check matches,
holds or differs with a measured cause) and that each FILE is byte-identical to the one
committed under docs/reproductions/NAME/ (the simulator is deterministic, so a changed
number is a changed model: re-run the reproduction and commit its outputs with the change)."""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("name")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--binary", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, ARBSIM_BIN=a.binary)
        rc = subprocess.call(["/usr/bin/python3", os.path.join(ROOT, "scripts", "repro", "main.py"), a.name,
                              "--out", out], env=env, stdout=subprocess.DEVNULL)
        if rc != 0:
            print(f"scripts/reproduce {a.name} exited {rc}")
            return 1
        bad = [f for f in a.files
               if not filecmp.cmp(os.path.join(out, f), os.path.join(ROOT, "docs", "reproductions", a.name, f),
                                  shallow=False)]
    for f in bad:
        print(f"{f} differs from docs/reproductions/{a.name}/{f}")
    print(f"{a.name}: {len(a.files) - len(bad)} of {len(a.files)} files identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
