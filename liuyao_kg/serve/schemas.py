"""JSON Schemas of what the API answers and takes: the chart, the reading, `why`, the rule catalogue, passages,
labels and errors (the OpenAPI document's components/schemas, and the MCP tools' input and output schemas).

The closed vocabularies (stems, branches, elements, relatives, spirits, stages, strengths, judgment groups,
timing units, languages) are read from the tables the charts are built from, so an enum cannot list a value
the code never gives, nor miss one it gives. Objects stay open to new keys (json-output.md: "fields may be
added, these are kept"): a generated client keeps parsing after a field is added. tests/serve/test_openapi.py
validates real answers against these schemas with every object closed (`closed`), so a key the code adds and
the schema does not describe fails there, not in a client.
"""
from __future__ import annotations

import copy
from functools import cache

REF = "#/components/schemas/"

#: the JSON type of each cast field the API takes; a field not named here is a string. `school` may be given
#: twice on the CLI (`--school` repeats), so it is a string or an array of strings.
FIELD_SCHEMAS: dict[str, dict] = {
    "spec": {"type": "string", "description": "the cast: 節之中孚, 節, 水澤節, 节, 787986 (values bottom-up) or "
                                              "單拆重交 notation (or give coins)", "examples": ["節之中孚"]},
    "coins": {"type": "string", "description": "six tosses of three coins, bottom line first: HHT,HTT,… or 字字背,…",
              "examples": ["HHT,HTT,TTT,HHH,HHT,HTT"]},
    "lines": {"type": "string", "description": "line values bottom-up (6–9), checked against a name pair"},
    "month": {"type": "string", "description": "month branch (寅) or stem-branch (丙寅)", "examples": ["寅"]},
    "day": {"type": "string", "description": "day stem-branch (辛亥)", "examples": ["辛亥"]},
    "year": {"type": "string", "description": "year stem-branch (壬午)"},
    "birth": {"type": "string", "description": "the asker's birth-year branch (本命)"},
    "sex": {"type": "string", "description": "the asker's sex: 男 or 女 (m / f)"},
    "date": {"type": "string", "description": "ISO date-time with zone, e.g. 2024-02-04T16:28+08:00 (instead of "
                                              "month and day)"},
    "day_boundary": {"type": "string", "enum": ["00:00", "23:00"], "description": "when a day starts"},
    "topic": {"type": "string", "description": "the question: 求財 婚姻 疾病 晴 雨 … (the topics tool or "
                                               "`liuyao topics` lists them)", "examples": ["求財"]},
    "about": {"type": "string", "description": "whom the question concerns: 父母 夫 妻 子 兄弟 朋友 …"},
    "use_god": {"type": "string", "description": "name the use-god yourself: a relative (妻財) or a line (1–6)"},
    "school": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
               "description": "where the works disagree, the school(s) to read by: 卜筮正宗 or 易冒, or a school of "
                              "the question's use-god"},
    "horizon": {"type": "string", "enum": ["日", "月", "年"], "description": "the timing's unit (default: the "
                                                                           "question's)"},
    "lang": {"type": "string", "enum": ["zh-Hant", "zh", "zh-Hans", "en", "ko"],
             "description": "the language of the reading in plain words (zh = zh-Hant)"},
}


def field_schema(name: str) -> dict:
    """The schema of one cast field (a string unless FIELD_SCHEMAS says otherwise)."""
    return copy.deepcopy(FIELD_SCHEMAS.get(name, {"type": "string"}))


def cast_request(fields) -> dict:
    """The object of cast fields a cast takes (the /api/cast body, the MCP cast tool's arguments)."""
    return {"type": "object", "properties": {k: field_schema(k) for k in fields}, "additionalProperties": False}


# -- small builders ------------------------------------------------------------------------------------------
def _ref(name: str) -> dict:
    return {"$ref": REF + name}


def _null(schema: dict) -> dict:
    """`schema` or null."""
    if "$ref" in schema or "enum" in schema or "oneOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    t = schema["type"]
    return {**schema, "type": [*(t if isinstance(t, list) else [t]), "null"]}


def _arr(items: dict) -> dict:
    return {"type": "array", "items": items}


def _obj(props: dict, required=None, description: str | None = None, title: str | None = None) -> dict:
    """An object whose keys are all required unless `required` names fewer; an object inside another has a
    `title`, which a generated client names its class by."""
    out = {"type": "object", "properties": props, "required": list(props if required is None else required)}
    if title:
        out["title"] = title
    if description:
        out["description"] = description
    return out


S, I, B, N = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "number"}
POSITION = {"type": "integer", "minimum": 1, "maximum": 6}


def _enum(values, description: str | None = None, title: str | None = None) -> dict:
    out = {"type": "string", "enum": list(dict.fromkeys(values))}
    if title:
        out["title"] = title
    if description:
        out["description"] = description
    return out


@cache
def _vocab() -> dict[str, dict]:
    from liuyao_kg.chart import ROLE_ORDER, reading
    from liuyao_kg.chart.i18n import LANGS, tag
    from liuyao_kg.ontology import tables

    return {
        "Stem": _enum(tables.STEMS, "a heavenly stem 天干"),
        "Branch": _enum(tables.BRANCHES, "an earthly branch 地支"),
        "Element": _enum(tables.ELEMENTS, "a phase 五行"),
        "Relative": _enum([zh for zh, *_ in tables.RELATIVES.values()], "a relative 六親"),
        "Spirit": _enum([zh for zh, *_ in tables.SPIRITS], "a spirit 六神"),
        "Stage": _enum([zh for zh, *_ in tables.STAGES], "a life stage 十二長生"),
        "Strength": _enum([zh for zh, *_ in tables.STRENGTHS], "seasonal strength 旺相休囚死"),
        "Trigram": _enum(tables.TRIGRAMS, "a trigram (a palace) 八卦"),
        "Generation": _enum([zh for zh, *_ in tables.GENERATIONS], "the hexagram's place in its palace 世"),
        "Role": _enum(ROLE_ORDER, "a line's role: 世 應 卦身 世身"),
        "Group": _enum(reading.GROUPS, "whom a judgment concerns, by its lines' roles (the use-god first)"),
        "Unit": _enum(reading.HORIZONS, "a timing unit: day, month, year"),
        "Lang": _enum([tag(lang) for lang in LANGS], "a BCP 47 language tag"),
    }


def _lang_text(description: str) -> dict:
    """{zh, en, ko}: a text in zh-Hant with its English and Korean (null where there is none)."""
    return _obj({"zh": S, "en": _null(S), "ko": _null(S)}, required=["zh"], description=description)


def components() -> dict[str, dict]:
    """Every named schema, for components/schemas."""
    v = _vocab()
    source = {"iri": _null(S), "urn": _null(S), "work": _null(S), "chapter": _null(S), "seed": _null(S),
              "quote": _null(S), "korean": _null(S), "note": _null(S), "gloss": _null(S), "start": _null(I), "end": _null(I),
              "editions": _null(_arr(_ref("Edition")))}
    edition = {"edition": S, "file": _null(S), "exact": _null(S), "start": _null(I), "end": _null(I),
               "method": _enum(["quoted", "exact", "folded", "tolerant", "none"], title="AlignmentMethod"), "score": N, "reason": _null(S)}
    pillar = {"stem": _null(_ref("Stem")), "branch": _ref("Branch"), "element": _ref("Element"),
              "relative": _ref("Relative")}
    hexagram = {"name": S, "palace": _ref("Trigram"), "palace_element": _ref("Element"),
                "generation": _ref("Generation"), "shi": POSITION, "ying": POSITION,
                "kind": _arr(_enum(["六沖", "六合", "遊魂", "歸魂"], title="HexagramKind")),
                "related": _null(_obj({k: _obj({"name": S, "iri": S}, title="RelatedHexagram")
                                       for k in ("nuclear", "opposite", "inverse")}, title="RelatedHexagrams",
                                      description="互卦 (nuclear), 錯卦 (opposite), 綜卦 (inverse): "
                                                  "lyo:nuclearHexagram, oppositeHexagram, inverseHexagram; null for "
                                                  "a store whose reference layer predates them"))}
    state = {"term": S, "school": _null(S), "rule": S, "source": _null(_ref("Source")), "lines": _arr(POSITION),
             "kind": S, "relative": _ref("Relative"), "stage": _ref("Stage"), "strength": _ref("Strength"),
             "chosen_by": _enum(["rule", "user"], title="ChosenBy"), "choices": _arr(S)}
    line_facts = {"position": POSITION, "stem": _ref("Stem"), "branch": _ref("Branch"), "element": _ref("Element"),
                  "relative": _ref("Relative"), "spirit": _null(_ref("Spirit")), "moving": B,
                  "roles": _arr(_ref("Role")), "stage_day": _null(_ref("Stage")), "stage_month": _null(_ref("Stage")),
                  "strength": _null(_ref("Strength"))}
    judgment = {"rule": S, "conclusion": _ref("LangText"), "polarity": _ref("Polarity"), "school": _null(S),
                "lines": _arr(POSITION), "source": _ref("Source"), "group": _ref("Group"),
                "id": {"type": "string", "description": "the rule's short id (/api/rules/{id}, why's rule)"}}
    factor = {"kind": S, "term": _ref("LangText"), "polarity": _ref("Side"), "school": _null(S),
              "other_line": _null(POSITION), "rule": S, "source": _ref("Source"), "iri": S, "standing": B,
              "outweighed_by": _arr(_obj({"factor": S, "precedence": S, "statement": S, "source": _null(S)},
                                         title="Outweighing"))}
    because = {"rule": S, "source": _ref("Source"), "lines": _arr(POSITION), "role": _ref("Side"), "factor": S,
               "term": _ref("LangText"), "standing": B, "judgment": _ref("LangText"),
               "loses_to": _arr(_obj({"factor": S, "precedence": S, "source": _null(S)}, title="LosesTo"))}
    rule_entry = {"id": S, "rule": S, "path": S, "conclusion": _ref("LangText"), "polarity": _ref("Polarity"),
                  "topics": _arr(S), "work": _ref("LangText"), "chapter": _null(S), "school": _null(S),
                  "executable": B, "condition": _null(S),
                  "passages": _arr(_obj({"id": S, "iri": S, "quote": _null(S), "korean": _null(S)}, title="RulePassage"))}
    side = {"id": S, "rule": S, "polarity": _ref("Polarity"), "quote": _null(S), "school": _null(S)}
    sentence = {"id": S, "iri": S, "this": B, "quote": _null(S), "korean": _null(S), "seed": _null(S),
                "paragraph": _null(I), "start": _null(I), "end": _null(I), "prefix": _null(S), "suffix": _null(S),
                "ko_prefix": _null(S), "ko_suffix": _null(S), "definition": _null(S)}
    why_line = {"facts": _obj({**line_facts, "states": _arr(S)}, required=[*line_facts, "states"], title="LineFacts"),
                "states": _arr(_ref("LineState"))}
    return {
        **v,
        "Polarity": _enum(["吉", "凶", "neutral"], "a judgment's polarity"),
        "Side": _enum(["for", "against"], "with the verdict (or the use-god) or against it"),
        "VerdictPolarity": _enum(["吉", "吉中有凶", "凶中有吉", "凶", "不成"], "the verdict 斷"),
        "LangText": _lang_text("a text in zh-Hant (zh), English (en) and Korean (ko)"),
        "Error": _obj({"error": S, "field": _null(S), "detail": S}, required=["error", "field"],
                      description="bad input: the CLI's message for the same input (in the request's `lang` where "
                                  "the API says it in another language, with the CLI's own as `detail`), and the "
                                  "field it names"),
        "Source": _obj(source, required=["iri", "quote"],
                       description="the passage a fact rests on: quote, work, chapter, seed file and offsets, "
                                   "or a note where it is a convention"),
        "Edition": _obj(edition, description="the passage in one edition (docs/corpus.md)"),
        "PassageEdition": _obj({**edition, "name": _obj({"zh": S, "en": S}, title="EditionName"), "prefix": _null(S),
                                "suffix": _null(S), "variants": _arr(_obj({
                                    "kind": _enum(["orthographic", "textual"], title="VariantKind"), "base": S,
                                    "reading": S, "offset": I}, title="Variant"))},
                               description="the passage in one loaded edition, with its context and 異文"),
        "Pillar": _obj(pillar, description="a pillar (month, day, year, hour): its stem, branch, phase, relative"),
        "Hexagram": _obj(hexagram),
        "LineState": _obj({**{k: state[k] for k in ("term", "school", "rule", "source", "lines", "stage", "strength")},
                           "conflicts": _arr(_ref("ConflictTaken"))},
                          required=["term", "school", "rule", "source"], description="a state of one line"),
        "CastState": _obj(state, required=["term", "school", "rule", "source", "lines"],
                          description="a state of the cast (六沖, 獨發, 兩現, 用神 …)"),
        "Line": _obj({**line_facts, "nayin": S, "value": {"type": "integer", "minimum": 6, "maximum": 9},
                      "hidden": _null(_obj({"stem": _ref("Stem"), "branch": _ref("Branch"),
                                            "element": _ref("Element"), "relative": _ref("Relative")},
                                           title="HiddenLine")),
                      "hidden_palace": _obj({"stem": _ref("Stem"), "branch": _ref("Branch"),
                                             "element": _ref("Element"), "relative": _ref("Relative")},
                                            title="PalaceLine"),
                      "change": _null(_obj({"stem": _ref("Stem"), "branch": _ref("Branch"),
                                            "element": _ref("Element"), "nayin": S, "relative": _ref("Relative")},
                                           title="ChangedLine")),
                      "states": _arr(_ref("LineState")), "shensha": _arr(S)},
                     description="a line, bottom (1) to top (6)"),
        "Relation": _obj({"from": S, "to": S, "relation": _enum(["生", "克", "沖", "合", "刑", "害"], title="RelationKind")},
                         description="a relation between two endpoints: line:N, change:N, month, day, year"),
        "Judgment": _obj(judgment, required=["rule", "conclusion", "polarity", "school", "lines", "source"],
                         description="a chapter rule that fired for the cast (`id` and `group` in the API's chart)"),
        "UseGod": _obj({"chosen_by": _enum(["rule", "user"], title="ChosenBy"), "lines": _arr(POSITION),
                        "relative": _null(_ref("Relative")), "school": _null(S),
                        "choices": _arr(_obj({"iri": S, "label": S, "school": _null(S),
                                              "helper": _null(_ref("Relative")), "source": _ref("Source")},
                                             title="UseGodChoice"))},
                       required=["chosen_by", "lines", "relative", "choices"],
                       description="how the use-god was chosen: by the question's rule (with its passage) or the user"),
        "Factor": _obj(factor, description="a factor of the use-god's condition (日克, 得令 …)"),
        "ConditionLine": _obj({"position": POSITION, "hidden": B, "read": B, "read_rule": _null(S),
                               "relative": _ref("Relative"), "stem": _ref("Stem"), "branch": _ref("Branch"),
                               "element": _ref("Element"), "factors": _arr(_ref("Factor"))},
                              description="a use-god line (or hidden line): whether it is read, and its factors"),
        "UseGodCondition": _obj({"relative": _null(_ref("Relative")), "lines": _arr(_ref("ConditionLine"))}),
        "Because": _obj(because, required=["rule", "source", "lines", "role"],
                        description="a reason of the verdict, strongest first: a factor (factor, term, standing) "
                                    "or a chapter judgment (judgment)"),
        "Verdict": _obj({"polarity": _null(_ref("VerdictPolarity")), "term": S, "favourable": B, "rule": S,
                         "label": _ref("LangText"), "source": _ref("Source"), "summary": _ref("LangText"),
                         "because": _arr(_ref("Because")), "reason": S, "reason_code": _ref("ReasonCode")},
                        required=["polarity", "because"],
                        description="the verdict; polarity null with a `reason` when the cast cannot be judged"),
        "ReasonCode": _obj({"code": _enum(["no_topic", "no_use_god_line", "no_rule", "no_dates"], title="ReasonCodeName"),
                            "topic": S, "picks": S}, required=["code"],
                           description="why there is no verdict, or no dates: a code the reader words in its "
                                       "language (liuyao_kg/chart/i18n.py REASONS), with its values"),
        "TimingCandidate": _obj({"rank": {"type": "integer", "minimum": 1}, "branch": _ref("Branch"),
                                 "unit": _ref("Unit"), "rule": S, "priority": I, "immediate": B,
                                 "lines": _arr(POSITION), "hidden": B, "source": _ref("Source"), "also": _arr(S),
                                 "dates": _arr({"type": "string", "format": "date"})},
                                description="a 應期 candidate, ranked; dates when the cast has a date"),
        "Reason": _obj({"text": S, "role": _ref("Side"), "quote": _null(S), "work": _null(S), "chapter": _null(S),
                        "note": _null(S), "passage": _null(S)},
                       description="one of the verdict's strongest reasons, in words, with its quote and passage id"),
        "Reading": _obj({"lang": _ref("Lang"), "verdict": _null(S), "favourable": _null(B),
                         "reasons": _arr(_ref("Reason")),
                         "use_god": _null(_obj({"text": S, "lines": _arr(POSITION)}, title="ReadingUseGod")),
                         "timing": _arr(_obj({"text": S, "branch": _ref("Branch"), "unit": _ref("Unit"),
                                              "dates": _arr({"type": "string", "format": "date"})},
                                             title="ReadingTime")),
                         "missing": _null(S)},
                        description="the reading in plain words in one language (liuyao_kg/chart/plain.py): the "
                                    "verdict, its strongest reasons, the use-god, the first 應期, or what to add"),
        "Chart": _obj({
            "cast": S, "topic": _null(S), "about": _null(S), "school": _null(S), "reading_school": _null(S),
            "time": _null(_obj({"month": _null(S), "day": _null(S)}, title="CastTime")), "notes": _arr(S),
            "use_god": _null(_ref("UseGod")), "primary": _ref("Hexagram"), "changed": _null(_ref("Hexagram")),
            "month": _null(_ref("Pillar")), "day": _null(_ref("Pillar")), "year": _null(_ref("Pillar")),
            "hour": _null(_ref("Pillar")), "sex": _null(_enum(["男", "女"], title="Sex")), "birth": _null(_ref("Branch")),
            "void": _arr(_ref("Branch")), "lines": {**_arr(_ref("Line")), "minItems": 6, "maxItems": 6},
            "relations": _arr(_ref("Relation")), "states": _arr(_ref("CastState")),
            "judgments": _arr(_ref("Judgment")), "verdict": _ref("Verdict"),
            "use_god_condition": _ref("UseGodCondition"), "timing": _arr(_ref("TimingCandidate")),
            "horizon": _ref("Unit"), "horizon_by": _enum(["user", "question", "default"], title="HorizonBy"), "timing_note": _null(S),
            "timing_note_code": _null(_ref("ReasonCode")),
            "note_codes": _arr(_enum(["no_month", "no_day"], title="NoteCode")),
            "reading": _ref("Reading"), "lang": _ref("Lang"),
            "words": {"type": "object", "additionalProperties": S,
                      "description": "zh-Hans only: each zh-Hant string of the chart in 简体 (OpenCC)"}},
            required=["cast", "topic", "about", "school", "reading_school", "time", "notes", "use_god", "primary",
                      "changed", "month", "day", "year", "hour", "sex", "birth", "void", "lines", "relations",
                      "states", "judgments", "verdict", "use_god_condition", "timing", "horizon", "horizon_by",
                      "timing_note"],
            description="the chart (docs/json-output.md, docs/reading.md); the API's adds each judgment's `id`, "
                        "and `reading` with its `lang`"),
        "Why": _obj({"cast": S, "primary": S, "changed": _null(S), "month": _null(S), "day": _null(S),
                     "rule": _null(S), "line": _null(_ref("WhyLine")),
                     "judgments": _arr(_obj({**{k: judgment[k] for k in ("rule", "conclusion", "polarity", "source",
                                                                         "id")},
                                             "condition": _null(S), "lines": _arr(_ref("WhyLine")),
                                             "conflicts": _arr(_ref("ConflictTaken"))},
                                            title="WhyJudgment"))},
                    description="the trace of `liuyao why --format json`: judgments (or one line's states) with the "
                                "facts they rest on and their passages"),
        "ConflictTaken": _obj({"conflict": S, "label": _ref("LangText"), "side": _ref("LangText"), "default": B,
                               "others": _arr(_ref("LangText"))},
                              description="`why`: a school conflict the rule takes a side in (docs/schools.md): the "
                                          "conflict's id and label, the side the rule holds, whether the reading "
                                          "follows it by default, the other sides"),
        "WhyLine": _obj(why_line, description="a line's chart facts and the states derived for it"),
        "Rule": _obj(rule_entry, description="a chapter rule: condition, conclusion, topics, work, passages"),
        "RuleDetail": _obj({**rule_entry, "sparql": _null(S), "non_executable_reason": _null(S),
                            "conflicts": _arr(_ref("Conflict"))},
                           description="one chapter rule with its compiled SPARQL and the rules it conflicts with"),
        "Rules": _obj({"count": {"type": "integer", "minimum": 0}, "rules": _arr(_ref("Rule")),
                       "facets": _obj({"works": _arr(S), "chapters": _arr({"type": "array", "items": S,
                                                                           "minItems": 2, "maxItems": 2}),
                                       "topics": _arr(S), "schools": _arr(S)}, title="Facets")},
                      description="the rules that pass every filter, and the values to filter by"),
        "Conflict": _obj({"condition": _null(S), "a": _obj(side, title="ConflictSide"),
                          "b": _obj(side, title="ConflictSide")},
                         description="two rules with the same condition and opposite polarity or another school"),
        "Sentence": _obj(sentence, description="a passage of a chapter, with its Korean and surrounding text"),
        "Passage": _obj({"passage": _ref("Sentence"), "work": S, "chapter": S,
                         "chapter_passages": _arr(_ref("Sentence")),
                         "rules": _arr(_obj({"id": S, "rule": S, "conclusion": _ref("LangText"),
                                             "polarity": _ref("Polarity")}, title="CitingRule")),
                         "editions": _arr(_ref("PassageEdition")),
                         "urn": _null(S), "same_place": _arr(S)},
                        description="a passage in its chapter and in every loaded edition, with the rules citing it"),
        "Labels": _obj({"terms": {"type": "object", "additionalProperties": _obj({"en": S, "ko": S}, required=[],
                                                                                 title="TermLabels")},
                        "schools": {"type": "object", "additionalProperties": _ref("LangText")},
                        "zh-Hans": {"type": "object", "additionalProperties": S,
                                    "description": "zh-Hant term or chapter name → its 简体, where OpenCC changes it"}},
                       description="translations: zh-Hant term → {en, ko}; school id → {zh, en, ko}; zh-Hant → zh-Hans"),
    }


def closed(schema):
    """A copy of `schema` with every object that lists its properties closed to other keys: the tests validate
    real answers against it, so a key the code gives and the schema does not describe is found."""
    if isinstance(schema, list):
        return [closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: closed(s) for k, s in schema.items()}
    if "properties" in schema and "additionalProperties" not in schema:
        out["additionalProperties"] = False
    return out
