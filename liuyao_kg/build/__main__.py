"""`python -m liuyao_kg.build [--check] [--list] [STEP ...]` (see liuyao_kg.build)."""
from __future__ import annotations

import argparse
import sys

from liuyao_kg.build import STEPS, run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m liuyao_kg.build",
                                 description="Regenerate every generated file of the package, in order.")
    ap.add_argument("steps", nargs="*", metavar="STEP", help=f"only these: {', '.join(s.name for s in STEPS)}")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if any generated file is stale")
    ap.add_argument("--list", action="store_true", help="print the steps and what each makes")
    args = ap.parse_args(argv)
    if args.list:
        for s in STEPS:
            print(f"{s.name:10} {s.makes}")
        return 0
    try:
        return run(args.steps or None, check=args.check)
    except ValueError as exc:
        print(f"python -m liuyao_kg.build: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
