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


def coverage_text(report: dict, *, width: int | None = None) -> str:
    """The coverage as two terminal tables (liuyao_kg.chart.table: CJK by display width, cut to `width`)."""
    from liuyao_kg.chart.table import table

    t = report["total"]
    rows = [{"work": c["work"], "chapter": c["chapter"], "rules": c["rules"], "exec": c["executable"],
             "not": c["not_executable"]} for c in report["chapters"]]
    rows.append({"work": "total", "chapter": "", "rules": t["rules"], "exec": t["executable"],
                 "not": t["not_executable"]})
    reasons = [{"rules": r["rules"], "why not executable (most common first)": r["reason"]}
               for r in report["not_executable_reasons"][:25]]
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
