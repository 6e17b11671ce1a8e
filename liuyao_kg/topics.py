"""`liuyao topics`: the question scheme read back from the graph (tree, labels, synonyms, use-god choices, sources)."""
from __future__ import annotations

from liuyao_kg import queries
from liuyao_kg.ontology.questions import tree_lines


def topics(kg) -> list[dict]:
    """One entry per question, in scheme order (each under its broader one), from the reference graph."""
    by_zh: dict[str, dict] = {}
    for r in queries.run(kg, "topics"):
        q = by_zh.setdefault(r["zh"], {
            "question": r["question"], "zh": r["zh"], "en": r["en"], "ko": r["ko"], "broader": r["broader"],
            "alt_labels": [], "source": {"iri": r["source"], "seed": r["seed"],
                                                                          "quote": r["quote"]}, "use_god": []})
        if r["alt"] and r["alt"] not in q["alt_labels"]:
            q["alt_labels"].append(r["alt"])
        if r["choice"] and all(c["iri"] != r["choice"] for c in q["use_god"]):
            q["use_god"].append({"iri": r["choice"], "label": r["choiceLabel"], "school": r["school"],
                                 "source": {"iri": r["choiceSource"], "quote": r["choiceQuote"], "note": r["choiceNote"]}})
    out = []
    for depth, zh in tree_lines():  # the scheme's order; a question missing from the graph is an error
        out.append(by_zh.pop(zh) | {"depth": depth})
    return out + list(by_zh.values())


def topics_text(rows: list[dict]) -> str:
    lines = []
    for q in rows:
        pad = "  " * q.get("depth", 0)
        alts = f"  ({' '.join(q['alt_labels'])})" if q["alt_labels"] else ""
        lines.append(f"{pad}{q['zh']}  {q['en']} / {q['ko']}{alts}")
        if q["source"]["quote"]:
            lines.append(f"{pad}    asked in: 「{q['source']['quote']}」")
        for c in q["use_god"]:
            src = c["source"]
            cite = f"「{src['quote']}」" if src["quote"] else f"({src['note']})"
            lines.append(f"{pad}    用神: {c['label']}" + (f" [school {c['school']}]" if c["school"] else "") + f" {cite}")
    return "\n".join(lines) + "\n"
