"""The direction choice checked per BFS level on either device: every level
timed with push forced, pull forced and ``auto`` (the device synchronised
around each step), and the totals compared -- the issues' target is auto
never more than 10% slower than the better forced direction over
power-law and grid graphs.

    python3 benchmarks/direction.py --device gpu --kron 18 20 22 --grids 300 [--repeats 3]
"""
import argparse

import graphblast_py as gb
from cpu import level_rows  # the per-level table (benchmarks/cpu.py)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu")
    p.add_argument("--kron", type=int, nargs="*", default=[18, 20])
    p.add_argument("--grids", type=int, nargs="*", default=[300])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    gb.set_device(args.device)
    print(f"device {args.device} ({gb.backend.get(args.device).device_name()})")
    for spec in [f"kron:{s}" for s in args.kron] + [f"grid:{k}" for k in args.grids]:
        level_rows(spec, args.repeats, sync=gb.device.synchronize)


if __name__ == "__main__":
    main()
