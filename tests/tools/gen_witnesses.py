"""Generate tests/data/rule_witnesses.yaml: for every executable chapter rule, a real cast where it fires
and one (of a topic the rule applies to) where it does not.

    .venv/bin/python tests/tools/gen_witnesses.py [--seed 1] [--random 20000] [--targeted 4000] [--engine 30]

The search runs on the independent evaluators (tests/oracles/oracle.py derives the chart, tests/oracles/rule_oracle.py
evaluates conditions), so it is fast: a seeded uniform sample of the cast space (values = primary×changed
pair, month branch, day stem-branch, topic among the topics rules use, a year for a quarter of the casts),
then, for each rule still unfired (or still always-fired), a targeted search in the part of the space its
cast facts allow (本卦/之卦/宮/內/外/六沖/六合/獨發/無動/亂動 … fix the hexagram pair), then sweeps of all 4,096
line-value strings. Rules the fast chart still never fired (a state tests/oracles/oracle.py does not model, or a
rare cast) get `--engine` casts each derived by the real engine. A greedy set cover keeps few casts, which
the engine derives (in one-topic chunks) to check every witness; a witness it contradicts is reported and re-chosen
from the engine's judgments (`--no-verify` skips this). The rule base is read at run time from
ontology/chapters/*.yaml, so new and newly executable rules only need a re-run; a token rule_oracle does
not know raises (naming the rule).
"""
from __future__ import annotations

import argparse
import heapq
import random
import re
import sys
import time
from pathlib import Path

import yaml

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "oracles"))

from oracle import (  # noqa: E402
    BRANCH_ELEMENT, BRANCHES, CLASH, COMBINE, GENERATES, HARM, JIAZI, OVERCOMES, PALACE_OF, PUNISH, SELF_PUNISH,
    SIX_CLASH_HEX, SIX_COMBINE_HEX, BITS_TRIGRAM, bits_to_name, oracle_chart,
)
from rule_oracle import evaluate  # noqa: E402
from use_god_oracle import subjects_by_topic, use_god  # noqa: E402

from liuyao_kg.build import chapters as bc  # noqa: E402
from liuyao_kg.ontology import tables as T  # noqa: E402
from liuyao_kg.reasoner.conditions import strength_table  # noqa: E402

OUT = TESTS / "data" / "rule_witnesses.yaml"
REASONS = TESTS / "data" / "rule_witness_reasons.yaml"
TOPICS = [q[0] for q in T.QUESTIONS]
# whom the question concerns (占:妻 …): zh -> the questions whose use-god it chooses (tests/oracles/use_god_oracle.py)
_BY_TOPIC = subjects_by_topic()
SUBJECTS = {s[0]: {q for q, who in _BY_TOPIC.items() if s[0] in who} for s in T.SUBJECTS}
YEAR_SHARE = 0.25  # share of sampled casts that carry a year (太歲) pillar


# --- the fast chart: oracle_chart in the JSON shape rule_oracle reads --------------------------------

def _relations(endpoints):
    out = []
    for fa, a in endpoints:
        for fb, b in endpoints:
            if fa == fb:
                continue
            ea, eb = BRANCH_ELEMENT[a], BRANCH_ELEMENT[b]
            for ok, rel in ((GENERATES[ea] == eb, "生"), (OVERCOMES[ea] == eb, "克"), (a + b in CLASH, "沖"),
                            (a + b in COMBINE, "合"), (a + b in HARM, "害"),
                            (a + b in PUNISH or (a == b and a in SELF_PUNISH), "刑")):
                if ok:
                    out.append({"from": fa, "to": fb, "relation": rel})
    return out


def base_chart(values: str, month: str, day: str, year: str | None) -> dict:
    """The chart without the topic-dependent 用神 state."""
    o = oracle_chart(values, month, day)
    lines = []
    for ln, v in zip(o["lines"], values):
        d = dict(ln)
        d["value"] = int(v)
        d["states"] = [{"term": t, "school": s} for t, s in ln["states"]]
        for k in ("hidden", "hidden_palace"):  # the JSON shape gives the element of a hidden line too
            if d[k] is not None:
                d[k] = d[k] | {"element": BRANCH_ELEMENT[d[k]["branch"]]}
        lines.append(d)
    endpoints = [(f"line:{ln['position']}", ln["branch"]) for ln in lines]
    endpoints += [(f"change:{ln['position']}", ln["change"]["branch"]) for ln in lines if ln["change"]]
    endpoints += [("month", month), ("day", day[1])] + ([("year", year[1])] if year else [])
    states = [{"term": t, "lines": ls or []} for t, ls in o["states"]]
    counts = {}
    for ln in lines:
        counts.setdefault(ln["relative"], []).append(ln["position"])
    for rel, pos in counts.items():
        if len(pos) >= 2:
            states.append({"term": "兩現", "lines": pos, "relative": rel})
    if "六合" in o["primary"]["kind"]:
        hit = [ln["position"] for ln in lines if ({"世", "應"} & set(ln["roles"]))
               and (day[1] + ln["branch"] in CLASH or day[1] + ln["branch"] in HARM)]
        if hit:
            states.append({"term": "合處逢沖", "lines": hit})
    return {"primary": o["primary"], "changed": o["changed"], "month": o["month"], "day": o["day"],
            "year": {"stem": year[0], "branch": year[1], "element": BRANCH_ELEMENT[year[1]]} if year else None,
            "void": o["void"], "lines": lines, "relations": _relations(endpoints), "states": states}


def with_topic(chart: dict, topic: str, sex: str | None = None, birth: str | None = None,
               about: str | None = None) -> dict:
    pos, rel, _taken = use_god(chart, topic, sex=sex, about=about)
    states = [s for s in chart["states"] if s["term"] != "用神"]
    if pos:
        states.append({"term": "用神", "lines": pos} | ({"relative": rel} if rel else {}))
    return chart | {"states": states, "topic": topic, "sex": sex, "birth": birth, "about": about}


# --- the rule base -----------------------------------------------------------------------------------

class Rule:
    def __init__(self, stem, header, r):
        self.key = f"{stem}/{r['id']}"
        self.iri = bc.rule_iri(stem, r["id"])
        self.when = r["when"]
        self.table = strength_table(header, r)  # the strength table the rule reads (its work's, or its own)
        self.quote = r["quote"]
        topics = bc._topics(header, r)
        self.topics = list(TOPICS) if "any" in topics else [t for t in topics if t in TOPICS]
        self.reads_sex = "占:" in self.when
        self.reads_birth = "命" in self.when  # 臨命: the asker's birth branch (本命)
        said = set(re.findall(r"占:([^\s;)]+)", self.when)) - {"男", "女"}
        self.about = tuple(sorted(SUBJECTS)) if "*" in said else tuple(sorted(said & set(SUBJECTS)))
        self.cast_facts = [c.strip() for c in re.split(r"[;\n]", self.when)
                           if c.strip() and not c.strip().startswith("not ") and ":" in c and "=" not in c]


def executable_rules() -> list[Rule]:
    return [Rule(*x) for x in bc.load() if x[2].get("executable", True)]


def fires(rule: Rule, chart: dict) -> bool:
    try:
        return evaluate(rule.when, chart, rule.table)[0]
    except Exception as e:  # an unknown token (a new construct): say which rule, stop
        raise SystemExit(f"rule_oracle cannot evaluate {rule.key} ({rule.when!r}): {e!r}") from e


# --- the cast space ----------------------------------------------------------------------------------

def _space() -> list[dict]:
    """All 4096 value strings with their hexagram facts."""
    out = []
    for n in range(4096):
        values = "".join("6789"[(n >> (2 * i)) & 3] for i in range(6))
        pbits = tuple(1 if v in "79" else 0 for v in values)
        cbits = tuple(1 - b if v in "69" else b for b, v in zip(pbits, values))
        moving = sum(v in "69" for v in values)
        pname = bits_to_name(pbits)
        out.append({"values": values, "primary": pname, "changed": bits_to_name(cbits) if moving else None,
                    "moving": moving, "lower": BITS_TRIGRAM[pbits[:3]], "upper": BITS_TRIGRAM[pbits[3:]],
                    "palace": PALACE_OF[pname][0], "generation": PALACE_OF[pname][1]})
    return out


SPACE = _space()


def _fact_ok(fact: str, s: dict) -> bool:
    key, _, value = fact.partition(":")
    if key == "本卦":
        return s["primary"] == value
    if key == "之卦":
        return s["changed"] == value
    if key == "宮":
        return s["palace"] == value
    if key == "內":
        return s["lower"] == value
    if key == "外":
        return s["upper"] == value
    if key != "卦":
        return True
    p, c = s["primary"], s["changed"]
    return {
        "六沖": p in SIX_CLASH_HEX, "六合": p in SIX_COMBINE_HEX, "合處逢沖": p in SIX_COMBINE_HEX,
        "變六沖": c in SIX_CLASH_HEX, "變六合": c in SIX_COMBINE_HEX,
        "六沖變六合": p in SIX_CLASH_HEX and c in SIX_COMBINE_HEX, "六合變六沖": p in SIX_COMBINE_HEX and c in SIX_CLASH_HEX,
        "遊魂": s["generation"] == 6, "歸魂": s["generation"] == 7, "無動": s["moving"] == 0,
        "獨發": s["moving"] == 1, "獨靜": s["moving"] == 5, "亂動": s["moving"] >= 3,
    }.get(value, True)


def random_cast(rnd: random.Random, topics: list[str], values_pool=None, year_share=YEAR_SHARE, sex=False,
                birth=False, about=()) -> tuple:
    """(values, month, day, topic, year or None, sex or None, birth branch or None, about or None); a sex
    (占:男/女), a birth branch (臨命) and whom the question concerns (占:妻 …, drawn from `about`) only when
    the rule reads them."""
    values = rnd.choice(values_pool)["values"] if values_pool else "".join(rnd.choice("6789") for _ in range(6))
    year = rnd.choice(JIAZI) if rnd.random() < year_share else None
    cast = values, rnd.choice(BRANCHES), rnd.choice(JIAZI), rnd.choice(topics), year
    subject = None
    if about:
        fits = [a for a in about if cast[3] in SUBJECTS[a]]
        subject = rnd.choice(fits) if fits else None
    return cast + (rnd.choice("男女") if sex else None, rnd.choice(BRANCHES) if birth else None, subject)


class Charts:
    """Base charts cached by (values, month, day, year)."""

    def __init__(self):
        self.cache = {}

    def get(self, cast) -> dict:
        values, month, day, topic, year, sex, birth, about = cast
        key = (values, month, day, year)
        base = self.cache.get(key)
        if base is None:
            if len(self.cache) > 50000:
                self.cache.clear()
            base = self.cache[key] = base_chart(values, month, day, year)
        return with_topic(base, topic, sex, birth, about)


# --- search and cover --------------------------------------------------------------------------------

def search(rules: list[Rule], n_random: int, n_targeted: int, seed: int, sweeps: int = 3, log=print):
    rnd = random.Random(seed)
    charts = Charts()
    by_topic = {t: [i for i, r in enumerate(rules) if t in r.topics] for t in TOPICS}
    used_topics = [t for t in TOPICS if by_topic[t]]
    candidates: dict[tuple, frozenset] = {}

    def add(cast):
        if cast in candidates:
            return candidates[cast]
        chart = charts.get(cast)
        fired = frozenset(i for i in by_topic[cast[3]] if fires(rules[i], chart))
        candidates[cast] = fired
        return fired

    # fail fast on an unknown token: every rule once on one chart
    probe = charts.get(("787986", "寅", "辛亥", used_topics[0], "甲子", "男", "子", None))
    for r in rules:
        fires(r, probe)

    ever_fired, ever_quiet = set(), set()
    t0 = time.time()
    for k in range(n_random):
        cast = random_cast(rnd, used_topics)
        fired = add(cast)
        ever_fired |= fired
        ever_quiet.update(i for i in by_topic[cast[3]] if i not in fired)
        if (k + 1) % 5000 == 0:
            log(f"random {k + 1}: {len(ever_fired)} rules fired, {len(ever_quiet)} quiet, {time.time() - t0:.0f}s")

    for i, r in enumerate(rules):
        need_fire, need_quiet = i not in ever_fired, i not in ever_quiet
        if not (need_fire or need_quiet):
            continue
        pool = [s for s in SPACE if all(_fact_ok(f, s) for f in r.cast_facts)] if need_fire else None
        for _ in range(n_targeted):
            cast = random_cast(rnd, r.topics, pool or None, year_share=0.5, sex=r.reads_sex, birth=r.reads_birth, about=r.about)
            chart = charts.get(cast)
            hit = fires(r, chart)
            if hit and need_fire:
                ever_fired |= add(cast)
                need_fire = False
                pool = None
            elif not hit and need_quiet:
                add(cast)
                ever_quiet.add(i)
                need_quiet = False
            if not (need_fire or need_quiet):
                break
    # last resort for a rule never fired: every one of the 4,096 value strings its cast facts allow,
    # each with a fresh month, day, topic (and year), `sweeps` times
    for i, r in enumerate(rules):
        if i in ever_fired:
            continue
        pool = [s for s in SPACE if all(_fact_ok(f, s) for f in r.cast_facts)]
        for _ in range(sweeps):
            rnd.shuffle(pool)
            for s in pool:
                cast = random_cast(rnd, r.topics, [s], year_share=0.5, sex=r.reads_sex, birth=r.reads_birth, about=r.about)
                if fires(r, charts.get(cast)):
                    ever_fired |= add(cast)
                    break
            if i in ever_fired:
                break
    log(f"after targeted search: {len(ever_fired)} of {len(rules)} rules fired, {len(ever_quiet)} quiet; "
        f"{len(candidates)} candidate casts")
    return candidates, by_topic


def engine_search(rules: list[Rule], targets: set[int], per_rule: int, seed: int, log=print) -> dict[tuple, frozenset]:
    """For rules the fast chart never fired (a state or fact tests/oracles/oracle.py does not model, or a rare cast):
    casts from each rule's allowed part of the space, derived by the real engine. Returns the
    casts that fire a target, with every rule the engine fired on them."""
    rnd = random.Random(seed + 1)
    casts = []
    for i in sorted(targets):
        r = rules[i]
        pool = [s for s in SPACE if all(_fact_ok(f, s) for f in r.cast_facts)]
        casts += [random_cast(rnd, r.topics, pool or None, year_share=0.5, sex=r.reads_sex, birth=r.reads_birth, about=r.about) for _ in range(per_rule)]
    casts = list(dict.fromkeys(casts))
    t = time.time()
    got = derive(casts)
    index = {r.iri: i for i, r in enumerate(rules)}
    out = {}
    for c in casts:
        fired = frozenset(index[x] for x in got[c] if x in index)
        if fired & targets:
            out[c] = fired
    hit = set().union(*out.values()) & targets if out else set()
    log(f"engine search: {len(casts)} casts in {time.time() - t:.0f}s; {len(hit)} of {len(targets)} unfired rules fired")
    return out


def cover(rules, candidates, by_topic):
    """Greedy set cover of the requirements (rule, fires) and (rule, quiet), lazily re-scored."""
    applicable = {t: frozenset(v) for t, v in by_topic.items()}
    need_fire = set().union(*candidates.values()) if candidates else set()
    need_quiet = set()
    for cast, fired in candidates.items():
        need_quiet |= applicable[cast[3]] - fired

    def gain(cast, fired):
        return len(fired & need_fire) + len((applicable[cast[3]] - fired) & need_quiet)

    # ties broken by a stable key so the result is deterministic
    def key(c):
        return c[:4] + (c[4] or "", c[5] or "", c[6] or "", c[7] or "")

    heap = [(-gain(c, f), key(c), c) for c, f in candidates.items()]
    heapq.heapify(heap)
    chosen, fire_w, quiet_w = [], {}, {}
    while heap and (need_fire or need_quiet):
        _, _, cast = heapq.heappop(heap)
        fired = candidates[cast]
        g = gain(cast, fired)
        if g == 0:
            continue
        if heap and g < -heap[0][0]:
            heapq.heappush(heap, (-g, key(cast), cast))
            continue
        chosen.append(cast)
        for i in fired & need_fire:
            fire_w[i] = cast
        for i in (applicable[cast[3]] - fired) & need_quiet:
            quiet_w[i] = cast
        need_fire -= fired
        need_quiet -= applicable[cast[3]] - fired
    return chosen, fire_w, quiet_w


# --- verification with the real engine ---------------------------------------------------------------

def derive(casts: list[tuple]) -> dict[tuple, set[str]]:
    """Rules that fired per cast, derived by the real engine in one-topic chunks (as `liuyao load` does)."""
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.loaders.cast_input import make_cast_input
    from samples import add_in_chunks

    kg = KnowledgeGraph()
    iri = {}
    inputs = []
    for c in casts:
        values, month, day, topic, year, sex, birth, about = c
        extra = {k: v for k, v in (("sex", sex), ("about", about)) if v}
        ci = make_cast_input(values, month=month, day=day, topic=topic, year=year, birth=birth, **extra)
        iri[c] = ci.iri
        inputs.append(ci)
    add_in_chunks(kg, inputs)
    rows = kg.select("PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> "
                     "PREFIX prov: <http://www.w3.org/ns/prov#> "
                     "SELECT ?cast ?rule WHERE { ?j a lyo:Judgment ; lyo:judgmentOf ?cast ; prov:wasDerivedFrom ?rule }")
    fired = {v: set() for v in iri.values()}
    for r in rows:
        fired.setdefault(r["cast"], set()).add(r["rule"])
    return {c: fired[i] for c, i in iri.items()}


def reassign(rules, chosen, got, fire_w, quiet_w):
    """Witnesses from the engine's judgments on the chosen casts: keep each witness the engine confirms, else
    take another chosen cast where the engine fires (does not fire, for a topic of the rule) the rule."""
    fire_w, quiet_w = dict(fire_w), dict(quiet_w)
    for i, r in enumerate(rules):
        if i not in fire_w or r.iri not in got[fire_w[i]]:
            fire_w.pop(i, None)
            alt = [c for c in chosen if r.iri in got[c]]
            if alt:
                fire_w[i] = alt[0]
        if i in quiet_w and r.iri in got[quiet_w[i]]:
            del quiet_w[i]
            alt = [c for c in chosen if c[3] in r.topics and r.iri not in got[c]]
            if alt:
                quiet_w[i] = alt[0]
    return fire_w, quiet_w


# --- output ------------------------------------------------------------------------------------------

def _flow(d: dict) -> str:
    return yaml.safe_dump(d, allow_unicode=True, default_flow_style=True, sort_keys=False, width=10000).strip()


def write(rules, chosen, fire_w, quiet_w, args, path=OUT, reasons=None):
    reasons = reasons or {}
    order = sorted(chosen, key=lambda c: (c[3], c[0], c[1], c[2], c[4] or "", c[5] or "", c[6] or "", c[7] or ""))
    ids = {c: f"w{k + 1:03d}" for k, c in enumerate(order)}
    out = ["# GENERATED by tests/tools/gen_witnesses.py: do not edit by hand; re-run it when rules change.",
           "# casts: witness casts (values bottom-up, month branch, day stem-branch, topic, year or null; sex, birth",
           "# branch and about (whom the question concerns) only for rules reading 占:男/女, 臨命, 占:<subject>).",
           "# rules: per executable chapter rule (file stem/id) its condition and the witness casts where it",
           "# fires (fire) and where it does not (not_fire); a rule no search could fire (keep quiet) has",
           "# status never-fired-in-search (always-fired-in-search) and the reason from rule_witness_reasons.yaml.",
           "generator: " + _flow({"script": "tests/tools/gen_witnesses.py", "seed": args.seed, "random": args.random,
                                  "targeted": args.targeted, "sweeps": args.sweeps, "engine": args.engine}),
           "summary: " + _flow({"executable_rules": len(rules), "casts": len(order),
                                 "never_fired": sum(i not in fire_w for i in range(len(rules))),
                                 "always_fired": sum(i in fire_w and i not in quiet_w for i in range(len(rules)))}),
           "casts:"]
    for c in order:
        record = {"values": c[0], "month": c[1], "day": c[2], "topic": c[3], "year": c[4]}
        if c[5]:
            record["sex"] = c[5]
        if c[6]:
            record["birth"] = c[6]
        if c[7]:
            record["about"] = c[7]
        out.append(f"  {ids[c]}: " + _flow(record))
    out.append("rules:")
    for i, r in enumerate(rules):
        e = {"when": r.when} | ({"strength_table": r.table} if r.table != "EarthMonths" else {})
        if i in fire_w:
            e["fire"] = ids[fire_w[i]]
        if i in quiet_w:
            e["not_fire"] = ids[quiet_w[i]]
        if i not in fire_w:
            e["status"] = "never-fired-in-search"
        elif i not in quiet_w:
            e["status"] = "always-fired-in-search"
        if "status" in e and r.key in reasons:
            e["reason"] = reasons[r.key]
        out.append(f"  {r.key}: " + _flow(e))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return ids


def load_reasons(path=REASONS) -> dict[str, str]:
    """Why a rule could not be witnessed, written by hand after looking at it (kept across re-runs)."""
    if not path.exists():
        return {}
    return {k: v for k, v in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items() if v}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random", type=int, default=20000, help="casts sampled uniformly")
    ap.add_argument("--targeted", type=int, default=4000, help="tries per rule still unfired / always fired")
    ap.add_argument("--sweeps", type=int, default=3, help="full sweeps of the 4,096 value strings per unfired rule")
    ap.add_argument("--engine", type=int, default=30,
                    help="casts per still-unfired rule derived with the real engine (0: none)")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip deriving the chosen casts with the real engine (by default every witness is checked "
                         "there, and a witness the engine contradicts is re-chosen from the engine's judgments)")
    ap.add_argument("--verify", action="store_true", help=argparse.SUPPRESS)  # the default; kept for old commands
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rules = executable_rules()
    print(f"{len(rules)} executable rules", flush=True)
    def log(message):
        print(message, flush=True)

    candidates, by_topic = search(rules, args.random, args.targeted, args.seed, args.sweeps, log=log)
    fired = set().union(*candidates.values())
    targets = {i for i in range(len(rules)) if i not in fired}
    if targets and args.engine:
        candidates.update(engine_search(rules, targets, args.engine, args.seed, log=log))
    chosen, fire_w, quiet_w = cover(rules, candidates, by_topic)
    print(f"cover: {len(chosen)} casts; {len(fire_w)} rules with a firing witness, {len(quiet_w)} with a quiet one",
          flush=True)
    if not args.no_verify:
        t = time.time()
        got = derive(chosen)
        bad = []
        for i, r in enumerate(rules):
            if i in fire_w and r.iri not in got[fire_w[i]]:
                bad.append(f"{r.key}: engine does not fire on its fire witness {fire_w[i]}")
            if i in quiet_w and r.iri in got[quiet_w[i]]:
                bad.append(f"{r.key}: engine fires on its not-fire witness {quiet_w[i]}")
        print(f"verified with the engine in {time.time() - t:.0f}s: {len(bad)} disagreements between the fast chart "
              "and the engine (a state tests/oracles/oracle.py does not model, or a bug: the test's rule_oracle check on the "
              "engine's chart tells which)", flush=True)
        for b in bad[:40]:
            print("  " + b)
        if bad:
            fire_w, quiet_w = reassign(rules, chosen, got, fire_w, quiet_w)
            used = set(fire_w.values()) | set(quiet_w.values())
            chosen = [c for c in chosen if c in used]
            print(f"witnesses re-chosen from the engine's judgments: {len(chosen)} casts, "
                  f"{len(fire_w)} rules with a firing witness, {len(quiet_w)} with a quiet one", flush=True)
        # a rule the engine fired on every chosen cast of its topics (the fast chart wrongly thought some quiet):
        # derive more of the searched casts of those topics with the engine and take one where it is quiet
        loud = [i for i in fire_w if i not in quiet_w]
        if loud:
            topics = {t for i in loud for t in rules[i].topics}
            extra = [c for c in candidates if c[3] in topics and c not in got][:40 * len(loud)]
            more = derive(extra) if extra else {}
            for i in loud:
                quiet = next((c for c in extra if c[3] in rules[i].topics and rules[i].iri not in more[c]), None)
                if quiet is not None:
                    quiet_w[i] = quiet
                    if quiet not in chosen:
                        chosen.append(quiet)
            print(f"quiet witnesses from {len(extra)} more engine casts: {sum(i in quiet_w for i in loud)} of "
                  f"{len(loud)} rules the chosen casts always fired", flush=True)
    reasons = load_reasons()
    write(rules, chosen, fire_w, quiet_w, args, args.out, reasons)
    for i, r in enumerate(rules):
        if i not in fire_w or i not in quiet_w:
            what = "never fired" if i not in fire_w else "always fired"
            print(f"{what}: {r.key}  when: {r.when}  quote: {r.quote}"
                  + ("" if r.key in reasons else "  (NO REASON RECORDED)"))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
