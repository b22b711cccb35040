"""scripts/reproduce NAME [--out DIR]: the reproductions of the seeds' published results."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import aimd_partitioning  # noqa: E402
import batch_method  # noqa: E402
import gpu_virtualization  # noqa: E402
import host_gpu_copy  # noqa: E402
import mig_bandwidth  # noqa: E402
import mig_scheduling  # noqa: E402
import priority_scheduling  # noqa: E402

REPRODUCTIONS = {
    "priority-scheduling": priority_scheduling.main,  # seed 000
    "batch-method": batch_method.main,  # seed 002
    "gpu-virtualization": gpu_virtualization.main,  # seed 004
    "host-gpu-copy": host_gpu_copy.main,  # issue 11: copy engines against measured cudaMemcpy curves
    "mig-bandwidth": mig_bandwidth.main,  # seed 001 §3: MIG instances sharing one link, alpha of Eq. 1
    "mig-scheduling": mig_scheduling.main,  # seed 001 §4-5: the PCIe-aware MIG job scheduler
    "aimd-partitioning": aimd_partitioning.main,  # seed 003: AIMD control of SM and PCIe shares
}


def main():
    p = argparse.ArgumentParser(prog="scripts/reproduce", description=__doc__)
    p.add_argument("name", nargs="?", help="one of: " + ", ".join(REPRODUCTIONS))
    p.add_argument("--out", help="output directory (default runs/repro-NAME)")
    p.add_argument("--list", action="store_true", help="list the reproductions")
    a = p.parse_args()
    if a.list or not a.name:
        print("\n".join(REPRODUCTIONS))
        return 0 if a.list else 2
    if a.name not in REPRODUCTIONS:
        print(f"unknown reproduction '{a.name}'; known: {', '.join(REPRODUCTIONS)}", file=sys.stderr)
        return 2
    return REPRODUCTIONS[a.name](a.out or os.path.join("runs", "repro-" + a.name))


if __name__ == "__main__":
    sys.exit(main())
