"""Generate ``ontology/conflicts.ttl``, the register of the schools' conflicts, from ``ontology/conflicts.yaml``.

    python -m liuyao_kg.build conflicts

Each conflict becomes ``lyr:Conflict_<id>`` (lyo:SchoolConflict) with its label, question, sides, default side,
the sources of the default and its reason; each side ``lyr:ConflictSide_<id>_<side>`` (lyo:ConflictSide) with its
claim, school, work, the rules that implement it (lyo:implementedBy) and the passages that state it
(lyo:citesSource). A passage that takes a side or argues against it gets lyo:supports / lyo:contradicts to the
side and to each rule that implements it. A side with a school and no ``rules`` list takes every rule and use-god
choice of the school, read from the rule base here, so the register follows the rules when they change (``--check``
says so). Every name is checked against the graph and passages.yaml: a typo fails the build, naming itself.
"""
from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import yaml

from liuyao_kg import namespaces as ns
from liuyao_kg.build.paths import ONTOLOGY
from liuyao_kg.build.reference import SCHOOLS, _lit
from liuyao_kg.ontology import LAYERS
from liuyao_kg.ontology import tables as T

SOURCE = ONTOLOGY / "conflicts.yaml"
OUTPUT = ONTOLOGY / "conflicts.ttl"
PASSAGES = ONTOLOGY / "passages.yaml"

#: the kinds of individual a school's lyo:school marks as implementing it (not its table entries)
IMPLEMENTER_TYPES = ("StateRule", "ReadingRule", "TimingRule", "ChapterRule", "UseGodChoice")

PREFIXES = [("lyo", ns.LYO), ("lyr", ns.LYR), ("lyrule", ns.LYRULE), ("lyp", ns.LYP),
            ("rdfs", "http://www.w3.org/2000/01/rdf-schema#")]


class ConflictError(ValueError):
    """conflicts.yaml names a school, rule, passage or side that does not exist, or misses a field."""


def schools() -> dict[str, tuple[str, str, str]]:
    """{school id without 'School': (zh, en, ko)} for every school of the reference tables."""
    rows = list(SCHOOLS) + list(T.SHENSHA_SCHOOLS) + list(T.USE_GOD_SCHOOLS) + list(T.READING_SCHOOLS)
    return {sid[len("School"):]: (zh, en, ko) for sid, zh, en, ko, *_ in rows}


def rule_base() -> tuple[set[str], dict[str, list[str]]]:
    """(every rule and use-god choice IRI, {school id: the IRIs that carry it, sorted}) of the rules and reference
    layers' source files (this file's own output left out)."""
    files = [f for graph, names in LAYERS if graph in (ns.GRAPH_RULES, ns.GRAPH_REFERENCE)
             for f in names if f != OUTPUT.name]
    store = ox.Store()
    for name in files:
        store.load(path=str(ONTOLOGY / name), format=ox.RdfFormat.TURTLE)
    types = " ".join(f"lyo:{t}" for t in IMPLEMENTER_TYPES)
    known = {str(r["r"].value) for r in store.query(
        ns.sparql_prologue() + f"SELECT DISTINCT ?r {{ VALUES ?t {{ {types} }} ?r a ?t }}")}
    by_school: dict[str, list[str]] = {}
    for r in store.query(ns.sparql_prologue() + f"SELECT ?r ?s {{ VALUES ?t {{ {types} }} ?r a ?t ; lyo:school ?s }}"):
        by_school.setdefault(r["s"].value[len(ns.LYR + "School"):], []).append(r["r"].value)
    return known, {s: sorted(v) for s, v in by_school.items()}


def passages() -> dict[str, bool]:
    """{passage id: whether it is quoted (not a convention)} of passages.yaml."""
    entries = yaml.safe_load(PASSAGES.read_text(encoding="utf-8"))["passages"]
    return {e["id"]: not e.get("convention") for e in entries}


def _rule_iri(name: str, known: set[str], where: str) -> str:
    for iri in (ns.LYRULE + name, ns.LYR + name):
        if iri in known:
            return iri
    raise ConflictError(f"{where}: no rule or use-god choice {name!r} in the rule base")


def _short(iri: str) -> str:
    for prefix, base in PREFIXES:
        if iri.startswith(base):
            return f"{prefix}:{iri[len(base):]}"
    return f"<{iri}>"


def _need(entry: dict, key: str, where: str):
    if not entry.get(key):
        raise ConflictError(f"{where}: missing {key!r}")
    return entry[key]


def register(data: dict | None = None) -> list[dict]:
    """The conflicts of conflicts.yaml, every name resolved and checked: [{iri, label, question, sides:
    [{iri, label, school, work, claim, rules, passages, supported_by, contradicted_by}], default, because, why}]."""
    data = data if data is not None else yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    school_labels, (known_rules, by_school), quoted = schools(), rule_base(), passages()
    works = {key: wid for key, (wid, *_rest) in T.WORKS.items()}

    def passage(pid: str, where: str, *, quote: bool = False) -> str:
        if pid not in quoted:
            raise ConflictError(f"{where}: no passage {pid!r} in passages.yaml")
        if quote and not quoted[pid]:
            raise ConflictError(f"{where}: {pid!r} is a convention; only a quoted passage supports or contradicts")
        return ns.LYP + pid

    out, seen = [], set()
    for c in _need(data, "conflicts", "conflicts.yaml"):
        cid = _need(c, "id", "a conflict")
        if cid in seen:
            raise ConflictError(f"conflict {cid}: listed twice")
        seen.add(cid)
        sides, side_ids = [], {}
        for s in _need(c, "sides", f"conflict {cid}"):
            where = f"conflict {cid}, side {s.get('id')}"
            sid = _need(s, "id", where)
            school = s.get("school")
            if school is not None and school not in school_labels:
                raise ConflictError(f"{where}: no school {school!r} (ontology/tables.py)")
            label = school_labels[school] if school else tuple(_need(s, "label", where)[k] for k in ("zh", "en", "ko"))
            if s.get("work") is not None and s["work"] not in works:
                raise ConflictError(f"{where}: no work {s['work']!r} (tables.WORKS)")
            if "rules" in s:
                rules = [_rule_iri(r, known_rules, where) for r in s["rules"]]
            elif school:
                rules = by_school.get(school, [])
            else:
                rules = []
            side = {"iri": f"{ns.LYR}ConflictSide_{cid}_{sid}", "id": sid, "label": label,
                    "school": school and ns.LYR + "School" + school,
                    "work": s.get("work") and ns.LYR + works[s["work"]],
                    "claim": {k: _need(s, "claim", where)[k] for k in ("zh", "en")}, "rules": rules,
                    "passages": [passage(p, where) for p in _need(s, "passages", where)],
                    "supported_by": [passage(p, where, quote=True) for p in s.get("supported_by", [])],
                    "contradicted_by": [passage(p, where, quote=True) for p in s.get("contradicted_by", [])]}
            side_ids[sid] = side["iri"]
            sides.append(side)
        if len(sides) < 2:
            raise ConflictError(f"conflict {cid}: a conflict has two sides or more")
        default = c.get("default")
        default = default if isinstance(default, list) else [default]
        for d in default:
            if d not in side_ids:
                raise ConflictError(f"conflict {cid}: default {d!r} is none of its sides ({', '.join(side_ids)})")
        out.append({"iri": f"{ns.LYR}Conflict_{cid}", "id": cid,
                    "label": tuple(_need(c, "label", f"conflict {cid}")[k] for k in ("zh", "en", "ko")),
                    "question": {k: _need(c, "question", f"conflict {cid}")[k] for k in ("zh", "en")},
                    "sides": sides, "default": [side_ids[d] for d in default],
                    "because": [passage(p, f"conflict {cid}") for p in _need(c, "because", f"conflict {cid}")],
                    "why": {k: _need(c, "why", f"conflict {cid}")[k] for k in ("zh", "en")}})
    return out


def _block(subject: str, pairs: list[tuple[str, list[str]]]) -> str:
    lines = [f"{p} {' , '.join(objs)}" for p, objs in pairs if objs]
    return f"\n{subject} " + " ;\n    ".join(lines) + " .\n"


def _labels(zh: str, en: str, ko: str) -> list[str]:
    return [_lit(zh, "zh-Hant"), _lit(en, "en"), _lit(ko, "ko")]


def turtle(conflicts: list[dict]) -> str:
    out = ["# Generated by `python -m liuyao_kg.build conflicts` from ontology/conflicts.yaml: do not edit.\n"]
    out += [f"@prefix {p}: <{iri}> .\n" for p, iri in PREFIXES]
    stances: dict[str, dict[str, list[str]]] = {}  # passage → {predicate: objects}, written after the register
    for c in conflicts:
        out.append(_block(_short(c["iri"]), [
            ("a", ["lyo:SchoolConflict"]), ("rdfs:label", _labels(*c["label"])),
            ("lyo:conflictQuestion", [_lit(c["question"]["zh"], "zh-Hant"), _lit(c["question"]["en"], "en")]),
            ("lyo:hasSide", [_short(s["iri"]) for s in c["sides"]]),
            ("lyo:defaultSide", [_short(d) for d in c["default"]]),
            ("lyo:defaultBecause", [_short(p) for p in c["because"]]),
            ("lyo:defaultReason", [_lit(c["why"]["zh"], "zh-Hant"), _lit(c["why"]["en"], "en")])]))
        for s in c["sides"]:
            out.append(_block(_short(s["iri"]), [
                ("a", ["lyo:ConflictSide"]), ("rdfs:label", _labels(*s["label"])),
                ("lyo:claim", [_lit(s["claim"]["zh"], "zh-Hant"), _lit(s["claim"]["en"], "en")]),
                ("lyo:sideSchool", [_short(s["school"])] if s["school"] else []),
                ("lyo:work", [_short(s["work"])] if s["work"] else []),
                ("lyo:implementedBy", [_short(r) for r in s["rules"]]),
                ("lyo:citesSource", [_short(p) for p in s["passages"]])]))
            for pred, key in (("lyo:supports", "supported_by"), ("lyo:contradicts", "contradicted_by")):
                for p in s[key]:
                    objs = stances.setdefault(p, {}).setdefault(pred, [])
                    for o in [s["iri"], *s["rules"]]:
                        if _short(o) not in objs:
                            objs.append(_short(o))
    for p in sorted(stances):
        out.append(_block(_short(p), sorted(stances[p].items(), reverse=True)))
    return "".join(out)


def outputs() -> dict[Path, bytes]:
    return {OUTPUT: turtle(register()).encode("utf-8")}
