"""The chart of a cast as the stable JSON shape (docs/json-output.md), read from the graph by named queries."""
from __future__ import annotations

from collections import defaultdict

from liuyao_kg import queries
from liuyao_kg.chart.reading import READING_QUERIES, add_reading

ROLE_ORDER = ["世", "應", "卦身", "世身"]
KIND_GENERATIONS = {"遊魂", "歸魂"}


def _hexagram(row: dict) -> dict:
    kind = []
    if row["sixClash"]:
        kind.append("六沖")
    if row["sixCombine"]:
        kind.append("六合")
    if row["generation"] in KIND_GENERATIONS:
        kind.append(row["generation"])
    return {"name": row["name"], "palace": row["palace"], "palace_element": row["palaceElement"],
            "generation": row["generation"], "shi": row["shi"], "ying": row["ying"], "kind": kind,
            "related": _related(row)}


#: the derived hexagrams, 互 錯 綜 (lyo:nuclearHexagram …): the chart's keys, named as queries/chart-hexagrams.rq's columns
RELATED = ("nuclear", "opposite", "inverse")


def _related(row: dict) -> dict | None:
    """互, 錯 and 綜 of a hexagram, each {"name", "iri"}; None from a store whose reference layer predates them."""
    if any(row[key] is None for key in RELATED):
        return None
    return {key: {"name": row[key + "Name"], "iri": row[key]} for key in RELATED}


def _source(row: dict) -> dict | None:
    if row.get("source") is None:
        return None
    if row.get("quote") is None:
        return {"iri": row["source"], "seed": None, "quote": None, "note": row.get("note")}
    return {"iri": row["source"], "seed": row["seed"], "quote": row["quote"]}


#: the named queries of one cast a chart reads (with the reading's, READING_QUERIES, and `judgment-editions`)
CHART_QUERIES = ("cast-judgments", "cast-states", "chart-lines", "chart-use-god", "chart-relations", "chart-pillars",
                 "chart-hexagrams", "chart-question", "chart-roles")


#: every named query `chart` asks (the native back end compiles these: liuyao_kg/build/native.py)
NATIVE_QUERIES = (*CHART_QUERIES, *READING_QUERIES, "judgment-editions")


def chart(kg, cast_iri: str, horizon: str | None = None, *, reading: bool = True, answers=None) -> dict:
    """Assemble the chart dict of a cast already derived in `kg`, with its reading (liuyao_kg.chart.reading) unless
    `reading=False` (what benchmarks/reading.py compares). `answers`: an object with `ask(name, **params)` answering
    the named queries (as `queries.Answers`: the native ones, `queries.native`) instead of `kg`'s store."""
    p = {"cast": cast_iri}
    if answers is None:
        # every query the chart (and its reading) reads, asked at once: on the embedded store they run in parallel
        names = list(CHART_QUERIES) + (list(READING_QUERIES) if reading else [])
        answers = queries.Answers(kg, [(n, p) for n in names] + [("judgment-editions", {"judged": cast_iri})])
    ask = answers.ask
    hex_rows = ask("chart-hexagrams", **p)
    hexes = {r["which"]: _hexagram(r) for r in hex_rows}
    sex = next((r["sex"] for r in hex_rows if r["sex"]), None)
    birth = next((r["birth"] for r in hex_rows if r["birth"]), None)
    pillars: dict[str, dict] = {}
    void: list[str] = []
    for r in ask("chart-pillars", **p):
        entry = {"stem": r["stem"], "branch": r["branch"], "element": r["element"], "relative": r["relative"]}
        pillars.setdefault(r["which"], entry)
        if r["which"] == "day" and r["void"] and r["void"] not in void:
            void.append(r["void"])
    month = pillars.get("month")
    if month is not None:
        month = {k: month[k] for k in ("branch", "element", "relative")} | {"stem": month["stem"]}
    roles = defaultdict(list)
    for r in ask("chart-roles", **p):
        roles[r["position"]].append(r["role"])
    lines: dict[int, dict] = {}
    for r in ask("chart-lines", **p):
        pos = r["position"]
        line = lines.setdefault(pos, {"position": pos, "value": r["value"], "change": None, "hidden": None,
                                      "hidden_palace": None})
        facts = {"stem": r["stem"], "branch": r["branch"], "element": r["element"], "nayin": r["nayin"],
                 "relative": r["relative"]}
        if r["kind"] == "line":
            line.update(facts)
            line.update({"spirit": r["spirit"], "moving": r["moving"],
                         "roles": sorted(roles.get(pos, []), key=ROLE_ORDER.index),
                         "stage_day": r["stageDay"], "stage_month": r["stageMonth"], "strength": r["strength"],
                         "states": []})
        elif r["kind"] == "change":
            line["change"] = facts
        else:
            line[r["kind"]] = {k: facts[k] for k in ("stem", "branch", "element", "relative")}
    relations = [
        {"from": _endpoint(r["from"], r["fromPos"]), "to": _endpoint(r["to"], r["toPos"]), "relation": r["relation"]}
        for r in ask("chart-relations", **p)
    ]
    relations.sort(key=lambda x: (x["from"], x["to"], x["relation"]))
    cast_states: dict[str, dict] = {}
    line_states: dict[tuple, dict] = {}
    shensha: dict[int, set] = defaultdict(set)
    for r in ask("cast-states", **p):
        base = {"term": r["term"], "school": r["school"], "rule": r["rule"], "source": _source(r)}
        if r["variant"]:
            base["kind"] = r["variant"]
        if r["subjectPos"] is not None:  # a line state
            key = (r["subjectPos"], r["state"])
            value = {k: r[k] for k in ("stage", "strength") if r[k]}
            st = line_states.setdefault(key, base | value)
            if r["shensha"]:
                name = r["term"] + (f"/{r['school']}" if r["school"] else "")
                shensha[r["subjectPos"]].add(name)
            if r["involvedPos"] is not None:
                st.setdefault("lines", [])
                if r["involvedPos"] not in st["lines"]:
                    st["lines"].append(r["involvedPos"])
        else:
            st = cast_states.setdefault(r["state"], base | {"lines": []})
            if r["relative"]:
                st["relative"] = r["relative"]
            if r["involvedPos"] is not None and r["involvedPos"] not in st["lines"]:
                st["lines"].append(r["involvedPos"])
    for (pos, _), st in sorted(line_states.items(), key=lambda kv: (kv[0][0], kv[1]["term"], kv[1]["school"] or "")):
        lines[pos]["states"].append(st)
    for pos, line in lines.items():  # 神煞 carried by the line, in the condition language's syntax (NAME[/School])
        line["shensha"] = sorted(shensha.get(pos, ()))
    judgments: dict[str, dict] = {}
    for r in ask("cast-judgments", **p):
        j = judgments.setdefault(r["judgment"], {
            "rule": r["rule"], "conclusion": {"zh": r["zh"], "en": r["en"], "ko": r["ko"]},
            "polarity": r["polarity"], "school": r["school"], "lines": [],
            "source": {"iri": r["passage"], "work": r["work"], "chapter": r["chapter"], "seed": r["seed"],
                       "quote": r["quote"], "korean": r["korean"], "start": r["start"], "end": r["end"],
                       "urn": r["urn"]}})
        if r["position"] is not None and r["position"] not in j["lines"]:
            j["lines"].append(r["position"])
    if judgments:  # the passage of each judgment in every loaded edition (docs/corpus.md)
        where: dict[str, list] = defaultdict(list)
        for r in ask("judgment-editions", judged=cast_iri):
            where[r["passage"]].append({k: r[k] for k in ("edition", "file", "exact", "start", "end", "method",
                                                          "reason")} | {"score": float(r["score"])})
        for j in judgments.values():
            j["source"]["editions"] = where.get(j["source"]["iri"], [])
    question = next(iter(ask("chart-question", **p)), {})
    use_god = _use_god(ask, p, cast_states.get(next((k for k in cast_states if k.endswith("/state/UseGod")), ""), None))
    time = None if month is None and pillars.get("day") is None else {
        "month": None if month is None else (month["stem"] or "") + month["branch"],
        "day": None if pillars.get("day") is None else pillars["day"]["stem"] + pillars["day"]["branch"]}
    out = {
        "cast": cast_iri,
        "topic": question.get("topic"),
        "about": question.get("about"),
        "school": question.get("school"),
        "reading_school": question.get("readingSchool") or None,
        "time": time,
        "notes": _time_notes(month, pillars.get("day")),
        "note_codes": [code for code, given in (("no_month", month), ("no_day", pillars.get("day"))) if given is None],
        "use_god": use_god,
        "primary": hexes.get("primary"),
        "changed": hexes.get("changed"),
        "month": month,
        "day": pillars.get("day"),
        "year": pillars.get("year"),
        "hour": pillars.get("hour"),
        "sex": sex,
        "birth": birth,
        "void": void,
        "lines": [lines[i] for i in sorted(lines)],
        "relations": relations,
        "states": sorted(cast_states.values(), key=lambda s: (s["term"], s.get("kind") or "", s.get("relative") or "")),
        "judgments": sorted(judgments.values(), key=lambda j: j["rule"]),
    }
    if not reading:
        return out
    # the timing's unit: the user's, else the question's (卜筮正宗 遠應年月，近應日時; reference data), else 日
    return add_reading(ask, out, horizon or question.get("unit") or "日", horizon_by="user" if horizon else
                       "question" if question.get("unit") else "default")


def _use_god(ask, p: dict, state: dict | None) -> dict | None:
    """How the use-god was chosen: by the user (--use-god), or by which choice of the question (and its passage)."""
    rows = ask("chart-use-god", **p)
    if not rows:
        return None
    if any(r["userChoice"] is not None for r in rows):
        out = {"chosen_by": "user", "choices": []}
    else:
        out = {"chosen_by": "rule", "choices": [
            {"iri": r["choice"], "label": r["label"], "school": r["school"], "helper": r["helper"],
             "source": {"iri": r["source"], "seed": r["seed"], "quote": r["quote"], "note": r["note"],
                        "gloss": r["gloss"]}} for r in rows]}
        out["school"] = next((c["school"] for c in out["choices"] if c["school"]), None)
    out["lines"] = [] if state is None else state["lines"]
    out["relative"] = None if state is None else state.get("relative")
    if state is not None:  # the state itself names the choice that selected it
        state["chosen_by"] = out["chosen_by"]
        state["choices"] = [c["iri"] for c in out["choices"]]
    return out


def _time_notes(month, day) -> list[str]:
    """What a cast without a month or a day does not compute, said in the chart rather than guessed."""
    notes = []
    if month is None:
        notes.append("no month given: 月建, 月破, 月合, 旺相休囚 and the month's life stages are not computed, "
                     "and no rule reading the month fires")
    if day is None:
        notes.append("no day given: 旬空, 日沖, 暗動, 日合, 日墓, the day's life stages, the six spirits (by the day "
                     "stem) and 神煞 are not computed, and no rule reading the day fires")
    return notes


def _endpoint(kind: str, pos) -> str:
    return f"{kind}:{pos}" if kind in ("line", "change") else kind


def native_chart(engine, cast, horizon: str | None = None, *, reading: bool = True) -> tuple[dict, list]:
    """A new cast's chart (and reading) by the native back end alone: derived by `engine` (a NativeEngine), its chart
    assembled from the compiled named queries (liuyao_kg.queries.native) on the cast's index, no store involved.
    `cast`: a CastInput or the cast's asserted quads. Returns (the chart dict, the inferred quads)."""
    from liuyao_kg.queries.native import answers_for

    if hasattr(cast, "iri") and hasattr(cast, "values"):  # a CastInput
        from liuyao_kg.loaders.rdf import cast_quads

        quads = cast_quads(cast)
    else:
        quads = list(cast)
    if not quads:
        raise ValueError("native_chart: no asserted quads")
    inferred, index = engine.derive_cast(quads)
    out = chart(None, quads[0].graph_name.value, horizon, reading=reading,
                answers=answers_for(engine, index))
    return out, inferred
