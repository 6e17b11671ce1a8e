"""Coverage of the chapter rule base: per work and chapter, rules encoded, executable, and not (with reasons)."""
from __future__ import annotations

from collections import Counter

from liuyao_kg import queries


def coverage(kg) -> dict:
    rows = queries.run(kg, "rules-coverage")
    reasons = Counter(r["reason"] for r in queries.run(kg, "rules-not-executable"))
    chapters = [{"work": r["work"], "chapter": r["chapter"], "rules": r["rules"],
                 "executable": r["executable"], "not_executable": r["notExecutable"]} for r in rows]
    total = {k: sum(c[k] for c in chapters) for k in ("rules", "executable", "not_executable")}
    return {"total": total, "chapters": chapters,
            "not_executable_reasons": [{"reason": k, "rules": v} for k, v in reasons.most_common()]}


#: the column heads and words of `liuyao rules coverage` (zh-Hant; zh-Hans by OpenCC)
HEADS = {
    "work": {"zh": "典籍", "en": "work", "ko": "문헌"},
    "chapter": {"zh": "章", "en": "chapter", "ko": "장"},
    "rules": {"zh": "規則", "en": "rules", "ko": "규칙"},
    "exec": {"zh": "可執行", "en": "exec", "ko": "실행"},
    "not": {"zh": "不可", "en": "not", "ko": "불가"},
    "total": {"zh": "合計", "en": "total", "ko": "합계"},
    "why": {"zh": "何以不可執行（多者居先；規則庫之英文註）", "en": "why not executable (most common first)",
            "ko": "실행할 수 없는 까닭 (많은 순; 규칙 기반의 영문 주석)"},
}


def coverage_text(report: dict, *, width: int | None = None, lang: str = "zh", labels=None) -> str:
    """The coverage as two terminal tables (liuyao_kg.chart.table: CJK by display width, cut to `width`), headed in
    `lang`, the works and chapters named in it (`labels`: i18n.Labels, for en and ko). The reasons a rule is not
    executable are the rule base's own notes, written in English only: kept as written."""
    from liuyao_kg.chart import i18n
    from liuyao_kg.chart.table import table

    w = i18n.Words(lang, labels)
    h = {k: w.finish(v[w.base]) for k, v in HEADS.items()}
    t = report["total"]
    # en: a chapter's characters with their pinyin, its punctuation ASCII, and the terms its English label leaves bare
    # ("the 妻財 hidden under a 兄弟") glossed in turn
    name = (lambda zh: w.prose(w.prose(zh))) if w.base == "en" else w.t
    rows = [{h["work"]: w.finish(name(c["work"])), h["chapter"]: w.finish(name(c["chapter"])), h["rules"]: c["rules"],
             h["exec"]: c["executable"], h["not"]: c["not_executable"]} for c in report["chapters"]]
    rows.append({h["work"]: h["total"], h["chapter"]: "", h["rules"]: t["rules"], h["exec"]: t["executable"],
                 h["not"]: t["not_executable"]})
    reasons = [{h["rules"]: r["rules"], h["why"]: r["reason"]} for r in report["not_executable_reasons"][:25]]
    return table(rows, width=width) + "\n" + table(reasons, width=width)


def dependency_graph(kg, fmt: str = "graphml") -> str:
    """The engine's rule dependency graph (rule → rule when one reads what the other writes), as GraphML or DOT."""
    import io

    import networkx as nx

    g = nx.DiGraph()
    from liuyao_kg.load import engine_for

    plan = engine_for(kg).plan
    for i, stratum in enumerate(plan.strata):
        for rule in stratum:
            g.add_node(rule, stratum=i, recursive=plan.recursive[i])
    for a, b, data in plan.graph.edges(data=True):
        g.add_edge(a, b, keys=" ".join(sorted(set(data["keys"]))), negated=bool(data["negated"]))
    if fmt == "dot":
        lines = ["digraph rules {"]
        for n, d in g.nodes(data=True):
            lines.append(f'  "{n}" [stratum={d["stratum"]}];')
        for a, b, d in g.edges(data=True):
            style = ' [style=dashed]' if d["negated"] else ""
            lines.append(f'  "{a}" -> "{b}"{style};')
        lines.append("}")
        return "\n".join(lines) + "\n"
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue().decode("utf-8")
