"""Rules that never fire: draw casts uniformly from the whole cast space, derive them, list the silent rules.

The space is every primary×changed pair (the 4,096 strings of line values 6/7/8/9), 12 month branches,
60 day stem-branches and the questions of tables.QUESTIONS; a sample is deterministic given its seed. The casts
are derived in memory, in batches, in a store of their own; the named query `rules-never-fired` then lists
the executable chapter rules without a judgment. A rule that stays silent on a large sample is either rare
or wrongly encoded: read its condition beside its quote.
"""
from __future__ import annotations

import random

from liuyao_kg import queries

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
STEMS = "甲乙丙丁戊己庚辛壬癸"
JIAZI = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]
BATCH = 50  # casts derived together (the reference engine's batch: reasoner.engines.REGISTRY)


def sample_space(n: int, seed: int, *, years: bool = False) -> list[tuple]:
    """n casts (values bottom-up, month branch, day stem-branch, topic[, year stem-branch]) drawn uniformly,
    with replacement. Without `years` the casts carry no year pillar (rules reading 年 cannot fire)."""
    from liuyao_kg.loaders.cast_input import TOPIC_NAMES

    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        cast = ("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI),
                rnd.choice(TOPIC_NAMES))
        out.append(cast + (rnd.choice(JIAZI),) if years else cast)
    return out


def never_fired(n: int, seed: int = 0, *, years: bool = False, batch: int = BATCH, progress=None) -> dict:
    """Derive a sample of n casts and report the executable chapter rules that fired on none of them."""
    from liuyao_kg.load import add_casts
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.store.embedded import KnowledgeGraph

    if n < 1:
        raise ValueError("the sample needs at least one cast")
    casts = sample_space(n, seed, years=years)
    kg = KnowledgeGraph()
    distinct = set()
    for i in range(0, len(casts), batch):
        quads = []
        for values, month, day, topic, *year in casts[i:i + batch]:
            ci = make_cast_input(values, month=month, day=day, topic=topic, year=year[0] if year else None)
            if ci.iri not in distinct:
                distinct.add(ci.iri)
                quads += cast_quads(ci)
        add_casts(kg, quads)
        if progress:
            progress(min(i + batch, len(casts)), len(casts))
    rows = queries.run(kg, "rules-never-fired")
    executable = queries.run(kg, "rules-coverage")
    kg.close()
    return {"sample": n, "seed": seed, "years": years, "distinct_casts": len(distinct),
            "executable_rules": sum(r["executable"] for r in executable),
            "never_fired": [{"rule": r["rule"], "work": r["work"], "chapter": r["chapter"], "topics": r["topics"].split(),
                             "condition": r["condition"], "quote": r["quote"]} for r in rows]}


#: the words of `liuyao rules never-fired` (zh-Hant; zh-Hans by OpenCC)
WORDS = {
    "head": {"zh": "可執行之規則 {executable} 條，於 {sample} 卦（種子 {seed}，相異 {distinct}）中 {n} 條未發",
             "en": "{n} of {executable} executable rules never fired on {sample} casts (seed {seed}, {distinct} distinct",
             "ko": "실행 가능한 규칙 {executable}개 중 {n}개가 {sample}괘 (시드 {seed}, 서로 다른 {distinct}괘) 에서 "
                   "발동하지 않았습니다"},
    "with_year": {"zh": "；有年", "en": ", with a year)", "ko": "; 연 있음"},
    "no_year": {"zh": "；無年柱：讀年之規則不能發", "en": "; no year pillar: rules reading the year cannot fire)",
                "ko": "; 연주 없음: 연을 읽는 규칙은 발동할 수 없습니다"},
    "when": {"zh": "條件", "en": "when", "ko": "조건"},
    "quote": {"zh": "原文", "en": "quote", "ko": "원문"},
    "derived": {"zh": "已推導 {done}/{n}", "en": "derived {done}/{n}", "ko": "도출 {done}/{n}"},
}


def say(key: str, lang: str = "zh", **values) -> str:
    from liuyao_kg.chart import i18n

    return i18n.to_lang(WORDS[key][i18n.base(i18n.check_lang(lang))], lang).format(**values)


def never_fired_text(report: dict, lang: str = "zh", labels=None) -> str:
    """The silent rules in `lang`: each with its work and chapter (named in `lang`; `labels`: i18n.Labels), its
    condition in the rule base's notation and its quote as the classic has it."""
    from liuyao_kg.chart import i18n

    w = i18n.Words(lang, labels)
    name = (lambda zh: w.prose(w.prose(zh))) if w.base == "en" else w.t  # as `rules coverage` names them
    head = say("head", lang, n=len(report["never_fired"]), executable=report["executable_rules"],
               sample=report["sample"], seed=report["seed"], distinct=report["distinct_casts"])
    out = [head + (say("with_year", lang) if report.get("years") else say("no_year", lang))]
    for r in report["never_fired"]:
        rid = r["rule"].split("/ch/", 1)[-1]
        topics = w.sep.join(w.finish(w.t(t)) if w.base != "en" else w.term(t) for t in r["topics"])
        out.append(f"\n{rid}  [{w.finish(name(r['work']))} {w.finish(name(r['chapter']))}; {topics}]")
        out.append(f"  {say('when', lang)}{w.colon}`{r['condition']}`")
        out.append(f"  {say('quote', lang)}{w.colon}「{r['quote']}」")
    return "\n".join(out) + "\n"
