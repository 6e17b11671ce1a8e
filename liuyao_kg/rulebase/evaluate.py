"""`liuyao eval FILE...`: the reading measured against cases whose outcome a book records.

The cast is given only the question (hexagrams, month, day, year, topic, about): never the recorded unit,
polarity, branch or the book's use-god, so the figures measure the reading and not the answer fed back to it.
Refusals are reported, and counted as wrong wherever a figure says so; every rate is printed with its counts
and beside a baseline (majority polarity; random branch min(k, n)/12, branch+unit min(k, n)/36).
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from pathlib import Path

import yaml

from liuyao_kg.chart.table import display_width, pad
from liuyao_kg.loaders.cast_input import normalise_school
from liuyao_kg.loaders.errors import CastInputError
from liuyao_kg.ontology import tables as T
from liuyao_kg.ontology.tables import BRANCHES

UNITS = ("日", "月", "年")
POLARITIES = ("吉", "凶")
RELATIVES = tuple(zh for zh, _id, _ko in T.RELATIVES.values())
#: the only inputs a cast gets from a case
CAST_FIELDS = ("month", "day", "year", "topic", "about")


class EvalCaseError(CastInputError):
    """A case file is malformed (names the case and the field)."""


# ---------------------------------------------------------------------------------------------------- loading

def load_cases(path, set_name: str | None = None) -> list[dict]:
    """The cases of one file, normalised: {id, set, spec, month, day, year, topic, about, question,
    outcome_polarity, outcome_branch, outcome_unit, source, book_use_god, book_use_god_line}. Reads a list
    of flat mappings (../shared/outcomes/buzheng_cases.yaml) or a mapping with `cases:` whose items hold
    `cast:` and `outcome:` (tests/data/eval_cases.yaml). `set` is the file's stem unless set_name is given."""
    path = Path(path)
    name = set_name or path.stem
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise EvalCaseError(f"cannot read cases {path}: {e}") from None
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise EvalCaseError(f"{path}: expected a list of cases (or a mapping with `cases:`)")
    out, seen = [], set()
    for i, c in enumerate(items, 1):
        if not isinstance(c, dict):
            raise EvalCaseError(f"{path}: case #{i}: expected a mapping, got {type(c).__name__}")
        cid = c.get("id")
        if not cid or not isinstance(cid, (str, int)):
            raise EvalCaseError(f"{path}: case #{i}: field `id` is missing")
        cid = str(cid)
        if cid in seen:
            raise EvalCaseError(f"{path}: case {cid}: field `id` repeats an earlier case")
        seen.add(cid)
        rec = _from_cast_format(c, cid) if "cast" in c or "outcome" in c else _from_flat_format(c, cid)
        rec["set"] = name
        out.append(rec)
    return out


def _fail(cid: str, field: str, what: str):
    raise EvalCaseError(f"case {cid}: {what} (field `{field}`)")


def _text(c: dict, key: str, cid: str, field: str, required: bool = False):
    v = c.get(key)
    if v is None or (isinstance(v, str) and not v.strip()):
        if required:
            _fail(cid, field, f"{field} is missing")
        return None
    if not isinstance(v, (str, int)) or isinstance(v, bool):
        _fail(cid, field, f"{field} {v!r} must be text")
    return str(v).strip()


def _outcome(cid: str, polarity, branch, unit, fields: tuple[str, str, str]) -> dict:
    if polarity is not None and polarity not in POLARITIES:
        _fail(cid, fields[0], f"outcome polarity {polarity!r} must be 吉, 凶 or null")
    if branch is not None and (not isinstance(branch, str) or len(branch) != 1 or branch not in BRANCHES):
        _fail(cid, fields[1], f"outcome branch {branch!r} is not one of the twelve branches {BRANCHES}")
    if unit is not None and unit not in UNITS:
        _fail(cid, fields[2], f"outcome unit {unit!r} must be 日, 月 or 年")
    return {"outcome_polarity": polarity, "outcome_branch": branch, "outcome_unit": unit}


def _from_flat_format(c: dict, cid: str) -> dict:
    yq = c.get("yingqi")
    if yq is None:
        branch = unit = None
    elif isinstance(yq, list) and len(yq) == 2:
        branch, unit = yq
        if unit is None:
            _fail(cid, "yingqi", f"outcome unit {unit!r} must be 日, 月 or 年")
    else:
        _fail(cid, "yingqi", f"yingqi {yq!r} must be [branch, unit]")
    rec = _outcome(cid, c.get("verdict"), branch, unit, ("verdict", "yingqi", "yingqi"))
    ug, line = c.get("use_god"), c.get("use_god_line")
    if ug is not None and ug not in RELATIVES:
        _fail(cid, "use_god", f"use_god {ug!r} must be one of {'、'.join(RELATIVES)}")
    if line is not None and (isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= 6):
        _fail(cid, "use_god_line", f"use_god_line {line!r} must be a line position 1–6")
    primary = _text(c, "primary", cid, "primary", required=True)
    changed = _text(c, "changed", cid, "changed")
    return {"id": cid, "set": None, "spec": primary + (f"之{changed}" if changed else ""),
            "month": _text(c, "month", cid, "month", required=True),
            "day": _text(c, "day", cid, "day", required=True),
            "year": _text(c, "year", cid, "year"), "topic": _text(c, "topic", cid, "topic"),
            "about": _text(c, "about", cid, "about"), "question": _text(c, "question", cid, "question"),
            **rec, "source": c.get("source"), "book_use_god": ug, "book_use_god_line": line}


def _from_cast_format(c: dict, cid: str) -> dict:
    k, out = c.get("cast"), c.get("outcome")
    if not isinstance(out, dict):
        _fail(cid, "outcome", "needs an `outcome` mapping {polarity, branch}")
    rec = _outcome(cid, out.get("polarity"), out.get("branch"), c.get("horizon"),
                   ("outcome.polarity", "outcome.branch", "horizon"))
    if not isinstance(k, dict):
        _fail(cid, "cast", "needs a `cast` mapping {hexagram, changed, month, day, ...}")
    primary = _text(k, "hexagram", cid, "cast.hexagram", required=True)
    changed = _text(k, "changed", cid, "cast.changed")
    src = c.get("source")
    if isinstance(src, dict):
        src = f"{src.get('seed') or src.get('corpus') or ''} 「{src.get('quote') or ''}」".strip()
    return {"id": cid, "set": None, "spec": primary + (f"之{changed}" if changed else ""),
            "month": _text(k, "month", cid, "cast.month", required=True),
            "day": _text(k, "day", cid, "cast.day", required=True),
            "year": _text(k, "year", cid, "cast.year"), "topic": _text(k, "topic", cid, "cast.topic"),
            "about": _text(k, "about", cid, "cast.about"), "question": _text(c, "question", cid, "question"),
            **rec, "source": src, "book_use_god": None, "book_use_god_line": None}


# ---------------------------------------------------------------------------------------------------- casting

RULE = "https://w3id.org/liuyao-kg/rule/"
LYO = "https://w3id.org/liuyao-kg/ontology#"


def graph_without(rules) -> object:
    """A new in-memory graph whose rule base lacks `rules` (local names, e.g. FactorSourceDamaged): an ablation.
    The store's engine then derives with the rules the store holds (liuyao_kg.reasoner.engines.build_engine)."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    kg = KnowledgeGraph()
    for name in rules:
        iri = name if name.startswith("http") else RULE + name
        if not kg.select(f"SELECT ?q WHERE {{ GRAPH ?g {{ <{iri}> <{LYO}sparqlConstruct> ?q }} }} LIMIT 1"):
            raise EvalCaseError(f"--without {name}: no such rule (its local name, as `liuyao query rules-catalogue` "
                                "lists them)")
        kg.update(f"DELETE WHERE {{ GRAPH ?g {{ <{iri}> ?p ?o }} }}")
    return kg


def evaluate(cases: list[dict], kg=None, without=(), school: str | None = None) -> dict:
    """Cast every case (one graph for all) from its question only, score each, and summarise. `without`: rules
    left out of the rule base (an ablation; a graph of its own); `school`: the school of the reading every case is
    read by (tables.READING_SCHOOLS; None: the default)."""
    import liuyao_kg

    if school is not None and normalise_school(school, None)[1] is None:
        raise EvalCaseError(f"--school {school}: name a school of the reading "
                            f"({', '.join(zh for _, zh, *_ in T.READING_SCHOOLS)})")
    kg = graph_without(without) if without else kg if kg is not None else liuyao_kg.default_graph()
    rows = []
    for c in cases:
        try:
            ch = liuyao_kg.cast(c["spec"], **{f: c.get(f) for f in CAST_FIELDS},
                                **({"school": school} if school else {}), kg=kg)
        except CastInputError as e:
            rows.append(score(c, error=str(e)))
        else:
            rows.append(score(c, chart=ch))
    report = build_report(rows)
    report["without"] = list(without)
    report["school"] = school
    return report


def score(case: dict, chart: dict | None = None, error: str | None = None) -> dict:
    """One case's row from its chart (or the cast's refusal): pure, no casting."""
    row = {k: case.get(k) for k in ("id", "set", "spec", "topic", "about", "outcome_polarity", "outcome_branch",
                                    "outcome_unit", "book_use_god", "book_use_god_line")}
    verdict = (chart or {}).get("verdict") or {}
    term = verdict.get("polarity")
    lean = verdict.get("favourable") if term else None  # the verdict term's lyo:favourable, as the chart gives it
    if error is not None:
        refused = {"stage": "cast", "reason": error}
    elif lean is None:
        refused = {"stage": "verdict", "reason": verdict.get("reason") or (f"verdict term {term!r} has no lean"
                                                                           if term else "no verdict")}
    else:
        refused = None
    pairs = _dedupe((t.get("branch"), t.get("unit")) for t in (chart or {}).get("timing") or [])
    branches = _dedupe(b for b, _ in pairs)
    ug = (chart or {}).get("use_god") or (chart or {}).get("use_god_condition") or {}
    ug_lines = [x["position"] if isinstance(x, dict) else x for x in ug.get("lines") or []]
    row.update(verdict=term, lean=lean, refused=refused, timing=[list(p) for p in pairs],
               use_god=ug.get("relative"), use_god_lines=ug_lines)
    pol, br, unit = case.get("outcome_polarity"), case.get("outcome_branch"), case.get("outcome_unit")
    row["agree"] = None if pol is None or lean is None else lean == (pol == "吉")
    if br is not None:
        row["rank"] = branches.index(br) + 1 if br in branches else None
        row["branch_candidates"] = len(branches)
        row["pair_candidates"] = len(pairs)
        row["hit1_branch"], row["hit3_branch"] = br in branches[:1], br in branches[:3]
        if unit is not None:
            row["hit1"], row["hit3"] = (br, unit) in pairs[:1], (br, unit) in pairs[:3]
    return row


def _dedupe(items) -> list:
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


# ---------------------------------------------------------------------------------------------------- metrics

def _rate(n: int, of: int) -> dict:
    return {"n": n, "of": of, "rate": round(n / of, 3) if of else None}


def _mean(xs) -> float | None:
    xs = list(xs)
    return round(sum(xs) / len(xs), 3) if xs else None


def summarise(rows: list[dict]) -> dict:
    """The figures over scored rows (pure). Refused = cast refused or verdict None."""
    judged = [r for r in rows if r["outcome_polarity"] is not None]
    answered = [r for r in judged if r["lean"] is not None]
    correct = sum(1 for r in answered if r["agree"])
    recall = {p: _rate(sum(1 for r in judged if r["outcome_polarity"] == p and r["agree"]),
                       sum(1 for r in judged if r["outcome_polarity"] == p)) for p in POLARITIES}
    both = all(recall[p]["of"] for p in POLARITIES)
    counts = Counter(r["outcome_polarity"] for r in judged)
    major = max(POLARITIES, key=lambda p: counts[p]) if judged else None

    timed = [r for r in rows if r["outcome_branch"] is not None]
    unit_timed = [r for r in timed if r["outcome_unit"] is not None]
    found = [r["rank"] for r in timed if r["rank"] is not None]
    refusals = [{"id": r["id"], "set": r["set"], **r["refused"]} for r in rows if r["refused"]]
    named = [r for r in rows if r["book_use_god"] is not None]
    named_line = [r for r in rows if r["book_use_god_line"] is not None]
    return {
        "cases": len(rows),
        "direction": {**_rate(correct, len(answered)), "refused": len(judged) - len(answered)},
        "direction_incl_refused": _rate(correct, len(judged)),
        "balanced_accuracy": {"rate": _mean(recall[p]["n"] / recall[p]["of"] for p in POLARITIES) if both else None,
                              "recall": recall},
        "majority_baseline": {"answer": major, **_rate(counts[major] if major else 0, len(judged)),
                              "balanced_accuracy": 0.5 if both else None},
        "timing": {
            "cases": len(timed),
            "no_candidates": sum(1 for r in timed if not r["branch_candidates"]),
            "branch_unit": {"cases": len(unit_timed),
                            "hit@1": _rate(sum(r["hit1"] for r in unit_timed), len(unit_timed)),
                            "hit@3": _rate(sum(r["hit3"] for r in unit_timed), len(unit_timed)),
                            "random@1": _mean(min(1, r["pair_candidates"]) / 36 for r in unit_timed),
                            "random@3": _mean(min(3, r["pair_candidates"]) / 36 for r in unit_timed)},
            "branch": {"cases": len(timed),
                       "hit@1": _rate(sum(r["hit1_branch"] for r in timed), len(timed)),
                       "hit@3": _rate(sum(r["hit3_branch"] for r in timed), len(timed)),
                       "random@1": _mean(min(1, r["branch_candidates"]) / 12 for r in timed),
                       "random@3": _mean(min(3, r["branch_candidates"]) / 12 for r in timed)},
            "rank": {"ranks": found, "median": statistics.median(found) if found else None,
                     "not_found": len(timed) - len(found)},
        },
        "refusals": {"count": len(refusals), "cast": sum(1 for x in refusals if x["stage"] == "cast"),
                     "verdict": sum(1 for x in refusals if x["stage"] == "verdict"), "cases": refusals},
        "use_god_agreement": {
            "relative": _rate(sum(1 for r in named if r["use_god"] == r["book_use_god"]), len(named)),
            "line": _rate(sum(1 for r in named_line if r["book_use_god_line"] in r["use_god_lines"]), len(named_line)),
            "refused": sum(1 for r in rows if r["refused"] and (r["book_use_god"] or r["book_use_god_line"])),
        },
    }


def topic_table(rows: list[dict]) -> list[dict]:
    """Per topic ("—" for none): cases, direction (refused excluded), hit@1/hit@3 (branch+unit), refused."""
    out = []
    topics = Counter(r["topic"] or "—" for r in rows)
    for t in sorted(topics, key=lambda t: -topics[t]):  # most cases first, then as they come
        s = summarise([r for r in rows if (r["topic"] or "—") == t])
        out.append({"topic": t, "cases": s["cases"], "direction": s["direction"],
                    "hit@1": s["timing"]["branch_unit"]["hit@1"], "hit@3": s["timing"]["branch_unit"]["hit@3"],
                    "refused": s["refusals"]["count"]})
    return out


def build_report(rows: list[dict]) -> dict:
    sets = _dedupe(r["set"] for r in rows)
    return {"rows": rows, "sets": {s: summarise([r for r in rows if r["set"] == s]) for s in sets},
            "all": summarise(rows), "topics": topic_table(rows)}


# ---------------------------------------------------------------------------------------------------- text

def _pad(s, width: int) -> str:
    return pad("—" if s is None or s == "" else str(s), width)


def _fmt(r: dict) -> str:
    return "—" if r["rate"] is None else f"{r['rate']:.3f} ({r['n']}/{r['of']})"


#: the report's words (zh-Hant; zh-Hans by OpenCC): headings, column heads, verdict words, the summary's labels
WORDS = {
    "left_out": {"zh": "略去之規則", "en": "rules left out", "ko": "제외한 규칙"},
    "set": {"zh": "== {name}：{n} 例 ==", "en": "== {name}: {n} cases ==", "ko": "== {name}: {n}건 =="},
    "case": {"zh": "例", "en": "case", "ko": "사례"},
    "topic": {"zh": "占事", "en": "topic", "ko": "점사"},
    "verdict": {"zh": "斷", "en": "verdict", "ko": "판단"},
    "outcome": {"zh": "應驗", "en": "outcome", "ko": "결과"},
    "agree": {"zh": "合", "en": "agree", "ko": "일치"},
    "timing": {"zh": "應期（前三）", "en": "timing (first 3)", "ko": "응기 (앞 셋)"},
    "recorded": {"zh": "所載", "en": "recorded", "ko": "기록"},
    "rank": {"zh": "名次", "en": "rank", "ko": "순위"},
    "yes": {"zh": "是", "en": "yes", "ko": "예"},
    "no": {"zh": "否", "en": "no", "ko": "아니오"},
    "refused": {"zh": "拒斷", "en": "refused", "ko": "판단 거부"},
    "none": {"zh": "無", "en": "none", "ko": "없음"},
    "summary": {"zh": "== 總計：{name} ==", "en": "== summary: {name} ==", "ko": "== 요약: {name} =="},
    "all": {"zh": "全部", "en": "all", "ko": "전체"},
    "by_topic": {"zh": "== 依占事（全部例集） ==", "en": "== by topic (all sets) ==", "ko": "== 점사별 (모든 사례 묶음) =="},
    "cases": {"zh": "例數", "en": "cases", "ko": "사례 수"},
    "direction": {"zh": "吉凶", "en": "direction", "ko": "길흉"},
    "hit1": {"zh": "首中（支+期）", "en": "hit@1 (br+unit)", "ko": "첫째 적중 (지+단위)"},
    "hit3": {"zh": "前三中（支+期）", "en": "hit@3 (br+unit)", "ko": "셋 안 적중 (지+단위)"},
    "s_cases": {"zh": "例數", "en": "cases", "ko": "사례 수"},
    "s_direction": {"zh": "吉凶", "en": "direction", "ko": "길흉"},
    "s_direction_line": {"zh": "{rate} 有斷者；拒斷 {refused} 不計", "en": "{rate} answered; {refused} refused left out",
                         "ko": "{rate} 판단한 것; 판단 거부 {refused} 제외"},
    "s_incl": {"zh": "吉凶（拒斷計為誤）", "en": "direction incl. refused", "ko": "길흉 (거부 포함)"},
    "s_balanced": {"zh": "平衡準確率", "en": "balanced accuracy", "ko": "균형 정확도"},
    "s_balanced_line": {"zh": "{rate}（召回 {recall}；拒斷計為誤）", "en": "{rate} (recall {recall}; refused = wrong)",
                        "ko": "{rate} (재현율 {recall}; 거부 = 오답)"},
    "one_absent": {"zh": "—（缺一吉凶）", "en": "— (one polarity absent)", "ko": "— (길흉 한쪽 없음)"},
    "s_majority": {"zh": "多數基準", "en": "majority baseline", "ko": "다수 기준선"},
    "s_majority_line": {"zh": "恆答{answer}：{rate}；平衡 {balanced}", "en": "always {answer}: {rate}; balanced {balanced}",
                        "ko": "늘 {answer}: {rate}; 균형 {balanced}"},
    "s_timing_unit": {"zh": "應期 支+期", "en": "timing branch+unit", "ko": "응기 지+단위"},
    "s_timing_branch": {"zh": "應期 支", "en": "timing branch", "ko": "응기 지"},
    "s_hits": {"zh": "首中 {h1} 隨機 {r1}；前三中 {h3} 隨機 {r3}", "en": "hit@1 {h1} random {r1}; hit@3 {h3} random {r3}",
               "ko": "첫째 적중 {h1} 무작위 {r1}; 셋 안 적중 {h3} 무작위 {r3}"},
    "s_rank": {"zh": "所應之支之名次", "en": "rank of the true branch", "ko": "실제 지의 순위"},
    "s_rank_line": {"zh": "中位 {median}，得 {found}；未得 {missing}（共 {of}，無候選 {empty}）；名次 {ranks}",
                    "en": "median {median} over {found} found; not found {missing} (of {of}, {empty} with no "
                          "candidates); ranks {ranks}",
                    "ko": "중앙값 {median}, 찾음 {found}; 못 찾음 {missing} (전체 {of}, 후보 없음 {empty}); 순위 {ranks}"},
    "s_use_god": {"zh": "用神相合", "en": "use-god agreement", "ko": "용신 일치"},
    "s_use_god_line": {"zh": "六親 {relative}；爻 {line}（書有所指者；其中拒斷 {refused}，計為不合）",
                       "en": "relative {relative}; line {line} (where the book names one; {refused} of those refused, "
                             "counted as disagreeing)",
                       "ko": "육친 {relative}; 효 {line} (책이 가리킨 것; 그중 거부 {refused}, 불일치로 셈)"},
    "s_refused": {"zh": "拒斷", "en": "refused", "ko": "판단 거부"},
    "s_refused_line": {"zh": "{count}（起卦 {cast}，斷 {verdict}）", "en": "{count} (cast {cast}, verdict {verdict})",
                       "ko": "{count} (괘 {cast}, 판단 {verdict})"},
    "stage_cast": {"zh": "起卦", "en": "cast", "ko": "괘"},
    "stage_verdict": {"zh": "斷", "en": "verdict", "ko": "판단"},
}


class _Say:
    """The report's words, terms and values in one language."""

    def __init__(self, lang: str, labels):
        from liuyao_kg.chart import i18n

        self.i18n = i18n
        self.w = i18n.Words(lang, labels)
        self.lang = self.w.lang

    def __call__(self, key: str, **values) -> str:
        return self.i18n.to_lang(WORDS[key][self.w.base], self.lang).format(**values)

    def term(self, zh) -> str | None:
        return None if zh is None else self.w.finish(self.w.t(zh))

    def polarity(self, zh) -> str | None:
        return None if zh is None else self.w.finish(self.i18n.polarity(zh, self.lang))

    def yn(self, x) -> str:
        return "—" if x is None else self("yes" if x else "no")

    def when(self, branch: str, unit: str | None) -> str:
        """子日 / Zi (子) day / 子일: a branch and its unit."""
        if not unit:
            return self.w.gz(branch)
        key = {"日": "day", "月": "month", "年": "year"}[unit]
        return self.w.finish(self.w.gz(branch) + self.i18n.word(key, self.lang))

    def reason(self, refused: dict) -> str:
        """A refusal's reason: a reading's refusal (i18n.REASONS) in this language; a cast's error as the CLI says it."""
        text = refused["reason"]
        if self.w.base == "en" or refused["stage"] != "verdict":
            return text
        for code, words in self.i18n.REASONS.items():
            pattern = re.escape(words["en"]).replace(r"\{topic\}", "(?P<topic>.+?)").replace(r"\{picks\}",
                                                                                            "(?P<picks>.*)")
            m = re.fullmatch(pattern, text)
            if m:
                return self.w.finish(words[self.w.base].format(**m.groupdict()))
        return text


def _table(heads: list[str], rows: list[list]) -> list[str]:
    """Columns as wide as their widest cell (by display width: CJK counts two)."""
    cells = [[_pad(v, 0).rstrip() for v in r] for r in rows]
    widths = [max([display_width(h)] + [display_width(r[i]) for r in cells]) for i, h in enumerate(heads)]
    return [" ".join(_pad(v, wd) for v, wd in zip(r, widths)).rstrip() for r in [heads, *cells]]


def report_text(report: dict, lang: str = "zh", labels=None) -> str:
    """The report in `lang` (zh, zh-Hans, en, ko): per set its cases, then the summaries and the table by topic. Topics,
    verdicts and branches are said in `lang` (`labels`: i18n.Labels, for en and ko)."""
    say = _Say(lang, labels)
    out = [f"{say('left_out')}{say.w.colon}{' '.join(report['without'])}\n"] if report.get("without") else []
    heads = [say(k) for k in ("case", "topic", "verdict", "outcome", "agree", "timing", "recorded", "rank")]
    for name in report["sets"]:
        rows = [r for r in report["rows"] if r["set"] == name]
        out.append(say("set", name=name, n=len(rows)))
        cells = []
        for r in rows:
            verdict = say.term(r["verdict"]) or (say("refused") if r["refused"] else None)
            rec = say.when(r["outcome_branch"], r["outcome_unit"]) if r["outcome_branch"] else None
            rank = r.get("rank") if r["outcome_branch"] is None or r.get("rank") else say("none")
            cells.append([r["id"], say.term(r["topic"]), verdict, say.polarity(r["outcome_polarity"]), say.yn(r["agree"]),
                          say.w.sep.join(say.when(b, u) for b, u in r["timing"][:3]), rec,
                          None if r["outcome_branch"] is None else rank])
        out += _table(heads, cells)
        out.append("")
    for name, s in [*report["sets"].items(), (say("all"), report["all"])]:
        out += [say("summary", name=name), *_summary_lines(s, say), ""]
    out.append(say("by_topic"))
    out += _table([say(k) for k in ("topic", "cases", "direction", "hit1", "hit3", "refused")],
                  [[say.term(t["topic"]) if t["topic"] != "—" else "—", t["cases"], _fmt(t["direction"]),
                    _fmt(t["hit@1"]), _fmt(t["hit@3"]), t["refused"]] for t in report["topics"]])
    return "\n".join(out) + "\n"


def _summary_lines(s: dict, say: _Say) -> list[str]:
    d, b, m, t = s["direction"], s["balanced_accuracy"], s["majority_baseline"], s["timing"]
    bu, br, rk, rf, ug = t["branch_unit"], t["branch"], t["rank"], s["refusals"], s["use_god_agreement"]
    rec = say.w.sep.join(f"{say.polarity(p)} {_fmt(b['recall'][p])}" for p in POLARITIES)
    rows = [
        ("s_cases", str(s["cases"])),
        ("s_direction", say("s_direction_line", rate=_fmt(d), refused=d["refused"])),
        ("s_incl", _fmt(s["direction_incl_refused"])),
        ("s_balanced", say("s_balanced_line", rate=say("one_absent") if b["rate"] is None else format(b["rate"], ".3f"),
                           recall=rec)),
        ("s_majority", say("s_majority_line", answer=say.polarity(m["answer"]) or "—", rate=_fmt(m),
                           balanced=m["balanced_accuracy"] if m["balanced_accuracy"] is not None else "—")),
        ("s_timing_unit", say("s_hits", h1=_fmt(bu["hit@1"]), r1=bu["random@1"], h3=_fmt(bu["hit@3"]),
                              r3=bu["random@3"])),
        ("s_timing_branch", say("s_hits", h1=_fmt(br["hit@1"]), r1=br["random@1"], h3=_fmt(br["hit@3"]),
                                r3=br["random@3"])),
        ("s_rank", say("s_rank_line", median=rk["median"] if rk["median"] is not None else "—", found=len(rk["ranks"]),
                       missing=rk["not_found"], of=t["cases"], empty=t["no_candidates"],
                       ranks=" ".join(map(str, rk["ranks"])) or "—")),
        ("s_use_god", say("s_use_god_line", relative=_fmt(ug["relative"]), line=_fmt(ug["line"]), refused=ug["refused"])),
        ("s_refused", say("s_refused_line", count=rf["count"], cast=rf["cast"], verdict=rf["verdict"])),
    ]
    width = max(display_width(say(k)) for k, _ in rows) + 2
    lines = [_pad(say(k), width) + v for k, v in rows]
    lines += [f"  {x['id']} [{say('stage_' + x['stage'])}] {say.reason(x)}" for x in rf["cases"]]
    return lines
