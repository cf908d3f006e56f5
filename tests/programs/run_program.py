# tests/programs/run_program.py: runs one example program in this process, the same way on our quadrants
# and on the real quadrants 1.3.3, so that their final states can be compared.
#
#   python tests/programs/run_program.py PROGRAM.py OUT.npz [--arch cpu] [--threads N] [--fast-math 0|1]
#
# The programs are left as their authors wrote them (only `qd.` for `ti.` and no GUI), so what must be
# the same on both sides is set from here, before the program runs:
#   - qd.init() is wrapped: the arch is forced (the examples ask for ti.gpu/ti.cuda, which falls back to
#     the CPU where there is no GPU on 1.3.3, but not on every build), and --threads / --fast-math are
#     added when given, and --random-seed (the perturbations scripts/programs_check.py --calibrate measures);
#   - Python's and numpy's host-side random generators are seeded (regression.py, minimization.py draw
#     their data with random.random());
#   - QD_PROGRAM_OUT names the .npz each program writes its final state to.
# Runs with only the standard library and numpy on top of quadrants, since 1.3.3's venv has nothing else.
import argparse
import os
import random
import runpy
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description="Run one example program and save its final state.")
    parser.add_argument("program", help="path of the program (.py)")
    parser.add_argument("out", help="the .npz the program writes its final state to")
    parser.add_argument("--arch", default="cpu", choices=["cpu", "cuda"], help="arch every qd.init() gets")
    parser.add_argument("--threads", type=int, default=None, help="cpu_max_num_threads for qd.init()")
    parser.add_argument("--fast-math", type=int, default=None, choices=[0, 1], help="fast_math for qd.init()")
    parser.add_argument("--random-seed", type=int, default=None, help="random_seed for qd.init()")
    args = parser.parse_args()

    import quadrants

    original_init = quadrants.init

    def init(*init_args, **kwargs):
        kwargs["arch"] = getattr(quadrants, args.arch)
        if args.threads is not None:
            kwargs["cpu_max_num_threads"] = args.threads
        if args.fast_math is not None:
            kwargs["fast_math"] = bool(args.fast_math)
        if args.random_seed is not None:
            kwargs["random_seed"] = args.random_seed
        return original_init(*init_args, **kwargs)

    quadrants.init = init
    random.seed(0)
    np.random.seed(0)
    program = os.path.abspath(args.program)
    os.environ["QD_PROGRAM_OUT"] = os.path.abspath(args.out)
    sys.path.insert(0, os.path.dirname(program))  # for `from patterns import taichi_logo`
    sys.argv = [program]
    runpy.run_path(program, run_name="__main__")
    sys.stdout.flush()
    if not os.path.exists(args.out):
        sys.exit(f"run_program.py: {args.program} finished without writing {args.out}")


if __name__ == "__main__":
    main()
