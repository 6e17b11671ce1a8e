"""Firing rates of chapter rules on a seeded uniform sample, by the independent evaluators.

    .venv/bin/python tests/tools/firing_rates.py [--n 700] [--seed 1] [--rules STEM/ID …] [--presence]
    .venv/bin/python tests/tools/firing_rates.py --compare OLD_rule_oracle.py   # rules whose firings moved

Why: a rule that fires on most casts of its topics (a condition that only asks for a relative or a role to
be present) says little; the rate, measured, finds them. `--compare` evaluates every rule with a second
copy of tests/oracles/rule_oracle.py (e.g. `git show 6d15b63:tests/oracles/rule_oracle.py > /tmp/old.py`) on the same
casts and lists the rules whose firings differ, with how many firings each gained or lost. Casts are drawn
as gen_witnesses draws them (values, month, day, a topic of the rule), charts by tests/oracles/oracle.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "oracles"))
sys.path.insert(0, str(TESTS / "tools"))

from gen_witnesses import Charts, executable_rules, random_cast  # noqa: E402
from rule_oracle import evaluate  # noqa: E402


def _load(path: str):
    spec = importlib.util.spec_from_file_location("other_rule_oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=700, help="casts per rule (drawn among the rule's topics)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", nargs="*", help="only these rules (file stem/id)")
    ap.add_argument("--presence", action="store_true", help="only rules whose condition binds lines by relative or role alone")
    ap.add_argument("--compare", help="a second rule_oracle.py: list the rules whose firings differ")
    ap.add_argument("--min-rate", type=float, default=0.0, help="print only rules firing at least this share")
    args = ap.parse_args(argv)
    other = _load(args.compare) if args.compare else None
    charts = Charts()
    rules = [r for r in executable_rules() if not args.rules or r.key in args.rules]
    if args.presence:
        bare = {"父母", "兄弟", "妻財", "官鬼", "子孫", "世", "應", "卦身", "世身"}
        rules = [r for r in rules if all("=" in c and set(c.partition("=")[2].split()) <= bare
                                         for c in r.when.split(";") if c.strip())]
    for r in rules:
        rnd = random.Random(f"{args.seed}/{r.key}")
        fired = moved_in = moved_out = 0
        for _ in range(args.n):
            cast = random_cast(rnd, r.topics, sex=r.reads_sex, birth=r.reads_birth, about=r.about)
            chart = charts.get(cast)
            now = evaluate(r.when, chart, r.table)[0]
            fired += now
            if other is not None:
                try:
                    before = other.evaluate(r.when, chart)[0]
                except Exception:  # the other evaluator does not know a token: count as a change
                    before = not now
                moved_in += now and not before
                moved_out += before and not now
        rate = fired / args.n
        if other is not None:
            if moved_in or moved_out:
                print(f"{r.key}\t{rate:.2f}\t+{moved_in}\t-{moved_out}\t{r.when}")
        elif rate >= args.min_rate:
            print(f"{r.key}\t{rate:.2f}\t{r.when}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
