"""`liuyao eval CASES.yaml`: the reading against cases whose outcome a text records.

Each case: id, source {seed|corpus, quote}, cast {hexagram, changed, month, day, year, topic, about},
horizon (日 月 年: the unit the text's answer came in), outcome {polarity: 吉|凶, branch: the branch it came to
pass on}. Verdict agreement compares leaning (吉, 吉中有凶 favourable; 凶, 凶中有吉, 不成 not) with the outcome's
polarity. Timing hit@k: the outcome branch among the first k candidates; the random baseline for a case with n
distinct candidate branches is min(k, n)/12 (k branches drawn from the twelve), averaged like the hits.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from liuyao_kg.loaders.errors import CastInputError

FAVOURABLE = {"吉": True, "吉中有凶": True, "凶": False, "凶中有吉": False, "不成": False}


class EvalCaseError(CastInputError):
    """A case file is malformed (names the case and the field)."""


def load_cases(path) -> list[dict]:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise EvalCaseError(f"cannot read cases {path}: {e}") from None
    cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(cases, list) or not cases:
        raise EvalCaseError(f"{path}: expected a list of cases (or a mapping with `cases:`)")
    for i, c in enumerate(cases, 1):
        cid = c.get("id", f"#{i}") if isinstance(c, dict) else f"#{i}"
        if not isinstance(c, dict) or not isinstance(c.get("cast"), dict) or not isinstance(c.get("outcome"), dict):
            raise EvalCaseError(f"case {cid}: needs `cast` and `outcome` mappings")
        if not c.get("id"):
            raise EvalCaseError(f"case {cid}: needs an `id`")
        branch = c["outcome"].get("branch")
        if branch is not None and (not isinstance(branch, str) or len(branch) != 1 or branch not in "子丑寅卯辰巳午未申酉戌亥"):
            raise EvalCaseError(f"case {cid}: outcome branch {branch!r} is not one of the twelve branches")
        pol = c["outcome"].get("polarity")
        if pol is not None and pol not in ("吉", "凶"):
            raise EvalCaseError(f"case {cid}: outcome polarity {pol!r} must be 吉 or 凶")
        if c.get("horizon", "日") not in ("日", "月", "年"):
            raise EvalCaseError(f"case {cid}: horizon {c.get('horizon')!r} must be 日, 月 or 年")
    return cases


def evaluate(cases: list[dict], kg=None) -> dict:
    import liuyao_kg

    rows = []
    for c in cases:
        k = c["cast"]
        spec = str(k.get("hexagram", "")) + (f"之{k['changed']}" if k.get("changed") else "")
        try:
            ch = liuyao_kg.cast(spec, month=k.get("month"), day=k.get("day"), year=k.get("year"),
                                topic=k.get("topic"), about=k.get("about"), birth=k.get("birth"), kg=kg,
                                horizon=c.get("horizon", "日"))
        except CastInputError as e:
            raise EvalCaseError(f"case {c.get('id')}: {e}") from None
        v = ch["verdict"]["polarity"]
        out = c["outcome"]
        branches = [t["branch"] for t in ch["timing"]]
        row = {"id": c["id"], "verdict": v, "outcome": out.get("polarity"), "outcome_branch": out.get("branch"),
               "timing": branches[:3], "candidates": len(branches)}
        if out.get("polarity") and v:
            row["agree"] = FAVOURABLE[v] == (out["polarity"] == "吉")
        if out.get("branch"):
            row["rank"] = branches.index(out["branch"]) + 1 if out["branch"] in branches else None
            row["hit1"] = row["rank"] == 1
            row["hit3"] = row["rank"] is not None and row["rank"] <= 3
            row["random1"] = min(1, len(branches)) / 12
            row["random3"] = min(3, len(branches)) / 12
        rows.append(row)
    judged = [r for r in rows if "agree" in r]
    timed = [r for r in rows if "hit1" in r]

    def mean(key, rs):
        return round(sum(float(r[key]) for r in rs) / len(rs), 3) if rs else None
    return {"cases": len(rows), "verdict_cases": len(judged), "verdict_agreement": mean("agree", judged),
            "timing_cases": len(timed), "hit@1": mean("hit1", timed), "hit@3": mean("hit3", timed),
            "random@1": mean("random1", timed), "random@3": mean("random3", timed), "rows": rows}


def report_text(report: dict) -> str:
    out = [f"{'case':34} {'verdict':8} {'text':4} agree  timing (first 3)  text  rank"]
    for r in report["rows"]:
        out.append(f"{r['id']:34} {r['verdict'] or '—':8} {r['outcome'] or '—':4} {_yn(r.get('agree')):6} "
                   f"{'、'.join(r['timing']) or '—':16} {r['outcome_branch'] or '—':4} {r.get('rank') or '—'}")
    out.append(f"\nverdict agreement {report['verdict_agreement']} over {report['verdict_cases']} cases; timing "
               f"hit@1 {report['hit@1']} (random {report['random@1']}), hit@3 {report['hit@3']} "
               f"(random {report['random@3']}) over {report['timing_cases']} cases")
    return "\n".join(out) + "\n"


def _yn(x) -> str:
    return "—" if x is None else ("yes" if x else "no")
