"""The JSON API of `liuyao serve` (/api/…): casts, rules, passages and `why` for apps and the web reader.

Every answer is JSON; every error is ``{"error": message, "field": …}`` with the message the CLI prints for
the same input (a cast's CastInputError, a query's parameter error), and a 4xx status. /api/cast and /api/why take
`lang` (zh-Hant, zh-Hans, en, ko): a cast's refusal is then said in it (serve/messages.py), the CLI's English
message kept as `detail`, and /api/cast's chart carries the reading in plain words in it (`reading`). The routes
and their parameters are described by the OpenAPI document at /api/openapi.json (`openapi()`), which a test checks
against the routes themselves. The API reads and casts through one KnowledgeGraph; nothing here parses RDF.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import parse_qs, unquote

from liuyao_kg.version import __version__
from liuyao_kg.namespaces import LYP, LYRULE

#: the cast fields /api/cast takes: the CLI's cast options, by the same names (`--day-boundary` → day_boundary);
#: each a string but `school`, which may also be a list (the CLI's repeated --school)
CAST_FIELDS = ("spec", "lines", "coins", "month", "day", "year", "birth", "sex", "date", "day_boundary", "topic",
               "about", "use_god", "school", "horizon")
#: /api/cast and /api/why also take `lang`: the reading's and the messages' language (zh-Hant when not given)
DEFAULT_LANG = "zh-Hant"
#: the timing's units (the CLI's --horizon choices)
HORIZONS = ("日", "月", "年")
RULE_FILTERS = ("topic", "work", "chapter", "term", "school", "polarity", "executable")


@dataclass
class Response:
    status: int
    body: bytes
    media: str = "application/json"


class ApiError(Exception):
    """A refusal: `message` in the asker's language; `detail`, when given, the CLI's own (English) message."""

    def __init__(self, status: int, message: str, field: str | None = None, detail: str | None = None):
        super().__init__(message)
        self.status, self.message, self.field, self.detail = status, message, field, detail

    def body(self) -> dict:
        return {"error": self.message, "field": self.field, **({"detail": self.detail} if self.detail else {})}


def _json(data, status: int = 200) -> Response:
    return Response(status, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def _one(params: dict, key: str) -> str | None:
    v = params.get(key)
    return v[-1] if isinstance(v, list) else v


def _cast_params(params: dict) -> dict:
    """Query parameters as cast fields: the last of each, but every `school` given (school=易冒&school=…)."""
    return {k: (v if k == "school" and len(v) > 1 else v[-1]) for k, v in params.items()}


class Api:
    """Routes /api/… over one knowledge graph (the store `liuyao serve` serves)."""

    def __init__(self, kg):
        self.kg = kg
        self._lock = threading.Lock()  # deriving a cast writes the store and fills the engine's caches

    # -- catalogues, read once ------------------------------------------------------------------
    @cached_property
    def rules(self) -> list[dict]:
        from liuyao_kg import queries
        from liuyao_kg.chart.render import short_id

        out: dict[str, dict] = {}
        for r in queries.run(self.kg, "rules-catalogue"):
            entry = out.setdefault(r["rule"], {
                "id": short_id(r["rule"]), "rule": r["rule"], "path": r["rule"][len(LYRULE):],
                "conclusion": {"zh": r["zh"], "en": r["en"], "ko": r["ko"]}, "polarity": r["polarity"],
                "topics": [],
                "work": {"zh": r["work"], "en": r["workEn"], "ko": r["workKo"]}, "chapter": r["chapter"],
                "school": r["school"], "executable": r["executable"], "condition": r["condition"], "passages": []})
            if r["topic"] and r["topic"] not in entry["topics"]:
                entry["topics"].append(r["topic"])
            if r["passage"] and all(p["id"] != r["passage"][len(LYP):] for p in entry["passages"]):
                entry["passages"].append({"id": r["passage"][len(LYP):], "iri": r["passage"], "quote": r["quote"],
                                          "korean": r["korean"]})
        return list(out.values())

    @cached_property
    def labels(self) -> dict:
        """{zh-Hant term: {en, ko}} and {school id: {zh, en, ko}}: the reader translates chart terms with them."""
        from liuyao_kg.chart.i18n import labels

        return labels(self.kg).as_dict()

    @cached_property
    def conflicts(self) -> list[dict]:
        from liuyao_kg import queries
        from liuyao_kg.chart.render import short_id

        return [{"condition": r["condition"],
                 "a": {"id": short_id(r["ruleA"]), "rule": r["ruleA"], "polarity": r["polarityA"],
                       "quote": r["quoteA"], "school": r["schoolA"]},
                 "b": {"id": short_id(r["ruleB"]), "rule": r["ruleB"], "polarity": r["polarityB"],
                       "quote": r["quoteB"], "school": r["schoolB"]}}
                for r in queries.run(self.kg, "rules-conflicting")]

    # -- dispatch --------------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: str, body: bytes, content_type: str = "") -> Response:
        from liuyao_kg.loaders.errors import CastInputError
        from liuyao_kg.queries import QueryParameterError

        try:
            params = parse_qs(query, keep_blank_values=True)
            route = path[len("/api"):].rstrip("/") or "/"
            if route == "/openapi.json" and method == "GET":
                return _json(openapi())
            if route == "/context.jsonld" and method == "GET":
                from liuyao_kg.chart.rdf import context

                return Response(200, json.dumps(context(), ensure_ascii=False, indent=1).encode(), "application/ld+json")
            if route == "/cast":
                if method == "POST":
                    return _json(self.cast(self._body(body, content_type)))
                if method == "GET":
                    return _json(self.cast(_cast_params(params)))
                raise ApiError(405, "use POST /api/cast with a JSON body (or GET with the same fields as parameters)")
            if method != "GET":
                raise ApiError(405, f"{method} {path}: only GET (POST for /api/cast)")
            if route == "/rules":
                return _json(self.find_rules({k: _one(params, k) for k in params}))
            if route == "/labels":
                return _json(self.labels)
            if route == "/conflicts":
                return _json(self.conflicts)
            if route.startswith("/rules/"):
                return _json(self.rule(unquote(route[len("/rules/"):])))
            if route.startswith("/passages/"):
                return _json(self.passage(unquote(route[len("/passages/"):])))
            if route == "/why":
                return _json(self.why(_cast_params(params)))
            raise ApiError(404, f"no such API resource {path}; see /api/openapi.json")
        except ApiError as e:
            return _json(e.body(), e.status)
        except CastInputError as e:
            return _json({"error": str(e), "field": e.field}, 400)
        except QueryParameterError as e:
            return _json({"error": str(e), "field": None}, 400)

    @staticmethod
    def _body(body: bytes, content_type: str) -> dict:
        if content_type.split(";")[0].strip().lower() not in ("application/json", ""):
            raise ApiError(415, f"unsupported Content-Type {content_type!r}: send application/json")
        try:
            data = json.loads(body.decode("utf-8") or "{}")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ApiError(400, f"the body is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the body must be a JSON object of cast fields: " + ", ".join(CAST_FIELDS))
        return data

    # -- resources -------------------------------------------------------------------------------
    @staticmethod
    def _lang(fields: dict) -> str:
        """The request's `lang` (zh-Hant when not given; "zh" is zh-Hant) as i18n names it, or a 400 naming the four."""
        from liuyao_kg.chart import i18n

        given = fields.get("lang")
        if given in (None, ""):
            return i18n.check_lang(DEFAULT_LANG)
        try:
            return i18n.check_lang(given) if isinstance(given, str) else i18n.check_lang(repr(given))
        except ValueError as e:
            raise ApiError(400, str(e), "lang") from None

    def _chart(self, fields: dict, lang: str, extra: tuple[str, ...] = ()) -> dict:
        """Validate the cast fields (refusals in `lang`) and cast; `extra` fields (why's rule, line) are the caller's."""
        import liuyao_kg
        from liuyao_kg.loaders.coins import values_from_coins
        from liuyao_kg.loaders.errors import CastInputError
        from liuyao_kg.chart import i18n
        from liuyao_kg.serve import messages

        fields = {k: v for k, v in fields.items() if k not in ("lang", *extra)}
        unknown = sorted(set(fields) - set(CAST_FIELDS))
        if unknown:
            raise ApiError(400, messages.api_error("unknown_field", lang, names=", ".join(unknown),
                                                   fields=", ".join((*CAST_FIELDS, "lang", *extra))), unknown[0])
        for k, v in fields.items():
            many = k == "school" and isinstance(v, list) and all(isinstance(x, str) for x in v)
            if v is not None and not isinstance(v, str) and not many:
                raise ApiError(400, messages.api_error("not_strings" if k == "school" else "not_string", lang, name=k,
                                                       value=json.dumps(v, ensure_ascii=False)), k)
        fields = {k: v for k, v in fields.items() if v not in (None, "", [])}
        if fields.get("horizon") not in (None, *HORIZONS):
            raise ApiError(400, messages.api_error("horizon", lang, value=fields["horizon"]), "horizon")
        coins = fields.pop("coins", None)
        if coins and fields.get("spec"):
            raise ApiError(400, messages.api_error("spec_and_coins", lang), "coins")
        try:
            spec = values_from_coins(coins) if coins else fields.pop("spec", None)
            fields.pop("spec", None)
            with self._lock:
                return liuyao_kg.cast(spec, kg=self.kg, **fields)
        except CastInputError as e:
            said = messages.cast_error(e, lang)
            raise ApiError(400, said, e.field, None if i18n.base(lang) == "en" else str(e)) from None

    def cast(self, fields: dict) -> dict:
        """The chart of docs/json-output.md, each judgment with its short rule id, and `reading`: the reading in plain
        words in `lang` (chart/plain.py), what the web reader opens with."""
        from liuyao_kg.chart import i18n
        from liuyao_kg.chart.plain import plain_reading
        from liuyao_kg.chart.render import short_id

        lang = self._lang(fields)
        chart = self._chart(fields, lang)
        for j in chart["judgments"]:
            j["id"] = short_id(j["rule"])
        with self._lock:  # the labels are read from the store once, at the first reading that needs them
            chart["reading"] = plain_reading(chart, lang, i18n.labels(self.kg))
            if lang == "zh-Hans":
                chart["words"] = self._simplified_words(chart)
        chart["lang"] = i18n.tag(lang)
        return chart

    def _simplified_words(self, chart: dict) -> dict[str, str]:
        """{zh-Hant string: zh-Hans} for every string of the chart (and every school's name) that OpenCC changes, the
        classics' quotes and the Korean aside: the chart keeps its zh-Hant values (they are also its identifiers:
        roles, groups, terms), and a reader shows them in 简体 through this map."""
        from liuyao_kg.chart import i18n

        found: set[str] = {e["zh"] for e in self.labels["schools"].values()}

        def walk(value, key=None):
            if isinstance(value, str):
                if key not in i18n.QUOTED and key not in ("korean", "ko", "en", "iri", "rule", "cast") \
                        and not value.startswith("http"):
                    found.add(value)
            elif isinstance(value, list):
                for v in value:
                    walk(v, key)
            elif isinstance(value, dict):
                for k, v in value.items():
                    walk(v, k)

        walk({k: v for k, v in chart.items() if k != "reading"})
        return {zh: hans for zh in sorted(found) if (hans := i18n.simplified(zh)) != zh}

    def why(self, fields: dict) -> dict:
        from liuyao_kg.chart.why import why_data
        from liuyao_kg.serve import messages

        lang = self._lang(fields)
        line = fields.get("line")
        if line not in (None, ""):
            try:
                line = int(line)
            except (TypeError, ValueError):
                raise ApiError(400, messages.api_error("line", lang, value=line), "line") from None
            if not 1 <= line <= 6:
                raise ApiError(400, messages.api_error("line", lang, value=line), "line")
        else:
            line = None
        chart = self._chart(fields, lang, extra=("rule", "line"))
        return why_data(self.kg, chart, line=line, rule=fields.get("rule") or None)

    def find_rules(self, filters: dict) -> dict:
        unknown = sorted(set(filters) - set(RULE_FILTERS))
        if unknown:
            raise ApiError(400, f"unknown filter(s) {', '.join(unknown)}; filters: {', '.join(RULE_FILTERS)}", unknown[0])
        f = {k: v for k, v in filters.items() if v not in (None, "")}
        out = []
        for r in self.rules:
            if "topic" in f and f["topic"] not in r["topics"]:
                continue
            if "work" in f and f["work"] not in r["work"].values():
                continue
            if "chapter" in f and f["chapter"] != r["chapter"]:
                continue
            if "school" in f and f["school"] != r["school"]:
                continue
            if "polarity" in f and f["polarity"] != r["polarity"]:
                continue
            if "executable" in f and str(r["executable"]).lower() != f["executable"].lower():
                continue
            if "term" in f:
                text = " ".join([r["condition"] or "", *[v or "" for v in r["conclusion"].values()],
                                 *[p["quote"] or "" for p in r["passages"]]])
                if f["term"] not in text:
                    continue
            out.append(r)
        facets = {"works": sorted({r["work"]["zh"] for r in self.rules if r["work"]["zh"]}),
                  "chapters": sorted({(r["work"]["zh"], r["chapter"]) for r in self.rules if r["chapter"]}),
                  "topics": sorted({t for r in self.rules for t in r["topics"]}),
                  "schools": sorted({r["school"] for r in self.rules if r["school"]})}
        return {"count": len(out), "rules": out, "facets": facets}

    def rule(self, key: str) -> dict:
        from liuyao_kg import queries

        found = [r for r in self.rules if key in (r["id"], r["path"], r["rule"])]
        if not found:
            raise ApiError(404, f"no chapter rule {key!r} (give its short id, its path under rule/, or its IRI)", "id")
        if len(found) > 1:
            raise ApiError(409, f"rule id {key!r} names {len(found)} rules: use the path, one of "
                                f"{', '.join(r['path'] for r in found)}", "id")
        rule = dict(found[0])
        cond = queries.run(self.kg, "rule-condition", rule=rule["rule"])
        rule["sparql"] = cond[0]["sparql"] if cond else None
        rule["non_executable_reason"] = cond[0]["reason"] if cond else None
        rule["conflicts"] = [c for c in self.conflicts if rule["rule"] in (c["a"]["rule"], c["b"]["rule"])]
        return rule

    def cited(self, text: str) -> list[dict]:
        """The passages a URN cites (queries/passage-by-urn.rq), the package's first; 404 naming what is wrong
        with a malformed URN or one that cites nothing in this store."""
        from liuyao_kg.corpus import urn

        try:
            rows = urn.resolve(self.kg, text)
        except urn.UrnError as e:
            raise ApiError(404, str(e), "urn") from None
        if not rows:
            raise ApiError(404, urn.not_found(text), "urn")
        return rows

    def passage(self, key: str) -> dict:
        from liuyao_kg import queries
        from liuyao_kg.corpus import urn

        cited = self.cited(key) if urn.is_urn(key) else None  # a URN: the passage it cites
        iri = cited[0]["passage"] if cited else key if key.startswith(LYP) else LYP + key
        rows = queries.run(self.kg, "passage-in-chapter", passage=iri)
        citation = queries.run(self.kg, "passage-urn", passage=iri)
        place = {"urn": citation[0]["urn"] if citation else None,
                 "same_place": [r["other"] for r in citation if r["other"]]}
        if not rows and cited:  # a sentence of an added edition outside any titled chapter
            c = cited[0]
            this = {"id": iri[len(LYP):], "iri": iri, "this": True, "quote": c["quote"], "korean": None,
                    "seed": c["file"], "paragraph": None, "start": c["start"], "end": c["end"], "prefix": None,
                    "suffix": None, "ko_prefix": None, "ko_suffix": None, "definition": None}
            return {"passage": this, "work": c["work"], "chapter": c["chapter"] or "", "chapter_passages": [this],
                    "rules": [], "editions": self.editions(iri), **place}
        if not rows:
            raise ApiError(404, f"no passage {key!r} with a work and chapter (give its id after passage/, "
                                f"or its URN)", "id")
        seen: dict[str, dict] = {}
        for r in rows:
            seen.setdefault(r["other"], {
                "id": r["other"][len(LYP):], "iri": r["other"], "this": r["this"], "quote": r["quote"],
                "korean": r["korean"], "seed": r["seed"], "paragraph": r["paragraph"], "start": r["start"],
                "end": r["end"],
                "prefix": r["prefix"], "suffix": r["suffix"], "ko_prefix": r["koPrefix"], "ko_suffix": r["koSuffix"],
                "definition": r["definition"]})
        sentences = list(seen.values())
        this = next(s for s in sentences if s["this"])
        citing = [{"id": r["id"], "rule": r["rule"], "conclusion": r["conclusion"], "polarity": r["polarity"]}
                  for r in self.rules if any(p["iri"] == iri for p in r["passages"])]
        return {"passage": this, "work": rows[0]["work"], "chapter": rows[0]["chapter"],
                "chapter_passages": sentences, "rules": citing, "editions": self.editions(iri), **place}

    def editions(self, iri: str) -> list[dict]:
        """The passage in every loaded edition where it is anchored (queries/passage-editions.rq): the edition it
        was quoted from first (method "quoted"), then each edition `liuyao corpus add` aligned it to."""
        from liuyao_kg import queries

        out: dict[tuple, dict] = {}
        for r in queries.run(self.kg, "passage-editions", passage=iri):
            e = out.setdefault((r["edition"], r["method"]), {
                "edition": r["edition"], "name": {"zh": r["name"], "en": r["nameEn"]}, "file": r["file"],
                "exact": r["exact"], "prefix": r["prefix"], "suffix": r["suffix"], "start": r["start"], "end": r["end"],
                "method": r["method"], "score": float(r["score"]), "reason": r["reason"], "variants": []})
            if r["variantKind"] is not None:
                e["variants"].append({"kind": r["variantKind"], "base": r["baseReading"], "reading": r["editionReading"],
                                      "offset": r["quoteOffset"]})
        return list(out.values())


def openapi() -> dict:
    """The OpenAPI 3.1 description of the routes above, with the schema of every answer and error
    (liuyao_kg/serve/schemas.py; tests/serve/test_openapi.py validates real answers against them)."""
    from liuyao_kg.serve import schemas

    s = {"type": "string"}
    ref = lambda name: {"$ref": schemas.REF + name}  # noqa: E731
    q = lambda name, desc, required=False: {"name": name, "in": "query", "required": required, "schema": s,  # noqa: E731
                                            "description": desc}
    p = lambda name, desc: {"name": name, "in": "path", "required": True, "schema": s, "description": desc}  # noqa: E731
    err = lambda desc: {"description": desc + ": {error, field}, the CLI's message",  # noqa: E731
                        "content": {"application/json": {"schema": ref("Error")}}}
    bad, unknown = err("bad input"), err("no such resource")
    ok = lambda desc, schema: {"description": desc, "content": {"application/json": {"schema": schema}}}  # noqa: E731
    field = lambda k: {k2: v for k2, v in schemas.field_schema(k).items() if k2 in ("enum", "description")}  # noqa: E731
    cast_params = [{"name": k, "in": "query", "required": False, "schema": {"type": "string", **(
        {"enum": field(k)["enum"]} if "enum" in field(k) else {})},
        "description": field(k).get("description") or f"as the CLI's --{k.replace('_', '-')}"}
        for k in (*CAST_FIELDS, "lang")]
    return {
        "openapi": "3.1.0",
        "info": {"title": "liuyao-kg JSON API", "version": __version__,
                 "description": "Casts, chapter rules, passages and their provenance (docs/api.md)."},
        "paths": {
            "/api/cast": {
                "post": {"summary": "Load a cast, derive it, return its chart (docs/json-output.md)",
                         "operationId": "castPost",
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": schemas.cast_request((*CAST_FIELDS, "lang"))}}},
                         "responses": {"200": ok("the chart; each judgment with its short rule id", ref("Chart")),
                                       "400": bad, "415": err("not JSON")}},
                "get": {"summary": "The same as POST, fields as query parameters (shareable addresses)",
                        "operationId": "castGet", "parameters": cast_params,
                        "responses": {"200": ok("the chart", ref("Chart")), "400": bad}}},
            "/api/rules": {"get": {"summary": "Chapter rules, filtered", "operationId": "rules",
                                   "parameters": [q("topic", "a topic, e.g. 求財"), q("work", "a work (易冒, Yi Mao)"),
                                                  q("chapter", "a chapter, e.g. 遇時章"),
                                                  q("term", "text in the condition, conclusion or quote"),
                                                  q("school", "a school id, e.g. YiMao"), q("polarity", "吉, 凶 or neutral"),
                                                  q("executable", "true or false")],
                                   "responses": {"200": ok("{count, rules, facets}", ref("Rules")), "400": bad}}},
            "/api/rules/{id}": {"get": {"summary": "One chapter rule with condition, SPARQL, passages and conflicts",
                                        "operationId": "rule",
                                        "parameters": [p("id", "short id, path under rule/, or IRI")],
                                        "responses": {"200": ok("the rule", ref("RuleDetail")), "404": unknown,
                                                      "409": err("a short id of several rules")}}},
            "/api/conflicts": {"get": {"summary": "Rules with the same condition and opposite polarity or school",
                                       "operationId": "conflicts",
                                       "responses": {"200": ok("pairs side by side",
                                                               {"type": "array", "items": ref("Conflict")})}}},
            "/api/passages/{id}": {"get": {"summary": "A passage in its chapter: every passage of the chapter in text "
                                                      "order, with Korean and surrounding text, the rules citing it, "
                                                      "and the passage in every loaded edition",
                                           "operationId": "passage",
                                           "description": "`editions`: one entry per edition where the passage is "
                                                          "anchored, the one it was quoted from first (method "
                                                          "`quoted`), then each edition added by `liuyao corpus add`: "
                                                          "`edition` (IRI), `name` {zh, en}, `file`, `exact` (the "
                                                          "edition's own text), `prefix`, `suffix`, `start`, `end` "
                                                          "(character offsets in the file), `method` (quoted, exact, "
                                                          "folded, tolerant, none), `score`, `reason` (why it was not "
                                                          "found, else null) and `variants` (異文: {kind "
                                                          "orthographic|textual, base, reading, offset in the quote}). "
                                                          "`urn`: the passage's citation (docs/citation.md); "
                                                          "`same_place`: the other passages quoting the same "
                                                          "characters. The id may be a URN (also at /urn/{urn}); "
                                                          "a malformed URN or one citing nothing here is a 404.",
                                           "parameters": [p("id", "the passage id after passage/, or its URN "
                                                                  "(urn:liuyao:…, docs/citation.md)")],
                                           "responses": {"200": ok("the passage in context and in every loaded edition",
                                                                   ref("Passage")), "404": unknown}}},
            "/api/why": {"get": {"summary": "Trace judgments or a line's states to rules, facts and passages",
                                 "operationId": "why",
                                 "parameters": [*cast_params, q("rule", "short id, IRI or conclusion text"),
                                                q("line", "a line position 1–6")],
                                 "responses": {"200": ok("as `liuyao why --format json`", ref("Why")), "400": bad}}},
            "/api/labels": {"get": {"summary": "Translations of chart terms (zh-Hant → en, ko) and school names",
                                    "operationId": "labels",
                                    "responses": {"200": ok("{terms, schools}", ref("Labels"))}}},
            "/api/context.jsonld": {"get": {"summary": "The JSON-LD context of --format json-ld",
                                            "operationId": "context",
                                            "responses": {"200": {"description": "the context", "content": {
                                                "application/ld+json": {"schema": {"type": "object"}}}}}}},
            "/api/openapi.json": {"get": {"summary": "This document", "operationId": "openapi",
                                          "responses": {"200": ok("OpenAPI 3.1", {"type": "object"})}}},
        },
        "components": {"schemas": schemas.components()},
    }
