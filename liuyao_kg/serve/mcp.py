"""`liuyao mcp`: casts, `why`, the questions and the named queries as tools for agents (the Model Context Protocol,
on the official `mcp` SDK's low-level server, over stdio; docs/mcp.md).

The tools go through what the JSON API goes through: `cast` and `why` are /api/cast and /api/why (Api.handle), so
a field is refused with the API's message and field name, and the chart is the API's; a named query binds its
parameters by queries.run, as `liuyao query` does. A refusal is a tool error (isError, the message naming the
field), never a crash of the server. Each tool's input schema, and the cast's and why's output schemas, are the
OpenAPI document's (serve/schemas.py): one description of the chart for the API, its generated clients and agents.
"""
from __future__ import annotations

import json
from functools import cached_property, partial
from urllib.parse import urlencode

import anyio
import mcp_types as types
from mcp.server import Server

from liuyao_kg.serve import schemas
from liuyao_kg.serve.api import CAST_FIELDS, Api
from liuyao_kg.version import __version__

#: a named query's tool is this prefix and its name (tool names stay within [A-Za-z0-9_-], as agents' APIs require)
QUERY_PREFIX = "query_"
#: the parameters why takes beside the cast fields
WHY_FIELDS = {"rule": {"type": "string", "description": "a judgment's rule: its short id (a judgment's `id` in "
                                                        "the cast's chart), IRI, or conclusion text (理不應得)"},
              "line": {"type": ["integer", "string"], "description": "a line position, 1 (bottom) … 6 (top): "
                                                                     "explain its states"}}
INSTRUCTIONS = ("Six-line (六爻 納甲) divination with citations to the classics. Cast with `cast` (a hexagram pair "
                "such as 節之中孚 or line values 787986, the month branch, the day stem-branch and the question's "
                "topic, e.g. 求財; `topics` lists the questions): it answers the reading in plain words and the chart "
                "as structured content. `why` traces a judgment (its rule id) or a line to rules, facts and passages. "
                "The query_* tools run the project's named SPARQL queries.")


class ToolError(Exception):
    """A refusal, said to the agent as a tool error: the message, and the argument it names (or None)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


def _self_contained(name: str) -> dict:
    """The component `name` with every schema it refers to under $defs: an MCP output schema stands alone."""
    text = json.dumps(schemas.components(), ensure_ascii=False).replace(schemas.REF, "#/$defs/")
    defs = json.loads(text)
    return {**defs[name], "$defs": defs}


def tools() -> list[types.Tool]:
    """cast, why, topics and one tool a named query (queries/*.rq), each with its input schema."""
    from liuyao_kg import queries

    read_only = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    cast_fields = (*CAST_FIELDS, "lang")
    why_input = schemas.cast_request(cast_fields)
    why_input["properties"].update(WHY_FIELDS)
    out = [
        types.Tool(name="cast", title="Cast and read a hexagram",
                   description="Load a cast, derive it, and read it: the reading in plain words in `lang` (the "
                               "verdict, its strongest reasons with their quotes, the use-god and its condition, the "
                               "first 應期 or what to add) as text, the chart (docs/json-output.md) as structured "
                               "content. Give spec (or coins), month and day (or date), and topic.",
                   input_schema=schemas.cast_request(cast_fields), output_schema=_self_contained("Chart"),
                   annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                     idempotent_hint=True, open_world_hint=False)),
        types.Tool(name="why", title="Why a judgment or a line state",
                   description="Trace a cast's judgments (or one, by `rule`; or one line's states, by `line`) back "
                               "to the rules, the chart facts they matched and the passages of the classics, as "
                               "`liuyao why --format json`.",
                   input_schema=why_input, output_schema=_self_contained("Why"),
                   annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                     idempotent_hint=True, open_world_hint=False)),
        types.Tool(name="topics", title="The questions",
                   description="The questions (占事) a cast's topic may name: the scheme's tree with labels (zh-Hant, "
                               "en, ko), synonyms, and the use-god each takes with its passage (`liuyao topics`); "
                               "the text in `lang`.",
                   input_schema={"type": "object", "properties": {"lang": schemas.field_schema("lang")},
                                 "additionalProperties": False},
                   annotations=read_only),
    ]
    for q in queries.catalogue().values():
        out.append(types.Tool(
            name=QUERY_PREFIX + q.name, title=f"query {q.name}",
            description=f"The named query {q.name} (queries/{q.name}.rq): {q.answers}",
            input_schema={"type": "object", "additionalProperties": False, "required": [p.name for p in q.params],
                          "properties": {p.name: _param_schema(p) for p in q.params}},
            annotations=read_only))
    return out


def _param_schema(p) -> dict:
    kind = {"integer": {"type": ["integer", "string"]}, "iri": {"type": "string", "format": "iri"}}
    return {**kind.get(p.kind, {"type": "string"}), "description": f"{p.kind}: {p.doc}" if p.doc else p.kind}


class Tools:
    """The tools' work over one knowledge graph: blocking calls, run off the event loop by the server."""

    def __init__(self, kg):
        self.kg = kg
        self.api = Api(kg)

    @cached_property
    def labels(self):
        from liuyao_kg.chart.i18n import labels

        return labels(self.kg)

    def call(self, name: str, args: dict) -> tuple[str, dict]:
        """(text, structured content) of a tool, or a ToolError."""
        if not isinstance(args, dict):
            raise ToolError("the arguments must be an object")
        if name == "cast":
            return self.cast(args)
        if name == "why":
            return self.why(args)
        if name == "topics":
            return self.topics(args)
        if name.startswith(QUERY_PREFIX):
            return self.query(name[len(QUERY_PREFIX):], args)
        raise ToolError(f"no tool {name!r}: cast, why, topics or {QUERY_PREFIX}<name> (tools/list lists them)")

    def _answer(self, response) -> dict:
        data = json.loads(response.body)
        if response.status != 200:  # the API's message (in `lang`), and the CLI's own where it differs
            detail = data.get("detail")
            raise ToolError(data["error"] + (f" ({detail})" if detail else ""), data.get("field"))
        return data

    def cast(self, args: dict) -> tuple[str, dict]:
        from liuyao_kg.chart.plain import plain_text

        _lang(args)
        body = json.dumps(args, ensure_ascii=False).encode("utf-8")
        chart = self._answer(self.api.handle("POST", "/api/cast", "", body, "application/json"))
        return "\n".join(plain_text(chart["reading"])) + "\n", chart

    def why(self, args: dict) -> tuple[str, dict]:
        _lang(args)
        for k, v in args.items():
            if not (isinstance(v, str) or (k == "line" and isinstance(v, int) and not isinstance(v, bool))
                    or (k == "school" and isinstance(v, list) and all(isinstance(x, str) for x in v))):
                raise ToolError(f"field {k} must be a string, got {json.dumps(v, ensure_ascii=False)}", k)
        trace = self._answer(self.api.handle("GET", "/api/why", urlencode(args, doseq=True), b""))
        return json.dumps(trace, ensure_ascii=False, indent=1), trace

    def topics(self, args: dict) -> tuple[str, dict]:
        from liuyao_kg.chart import i18n
        from liuyao_kg.rulebase.topics import topics, topics_text

        other = sorted(set(args) - {"lang"})
        if other:
            raise ToolError(f"topics takes only lang, got {', '.join(other)}", other[0])
        lang = i18n.check_lang(_lang(args))
        rows = topics(self.kg)
        return topics_text(rows, lang, i18n.labels(self.kg)), {"topics": rows}

    def query(self, name: str, args: dict) -> tuple[str, dict]:
        from liuyao_kg import queries

        try:
            rows = queries.run(self.kg, name, **args)
        except queries.QueryParameterError as e:
            raise ToolError(str(e)) from None
        return json.dumps(rows, ensure_ascii=False, indent=1), {"rows": rows}


def _lang(args: dict) -> str:
    """The BCP 47 tag of the `lang` asked for (zh-Hant when none), or a ToolError naming the four."""
    from liuyao_kg.chart import i18n

    lang = args.get("lang") or "zh-Hant"
    try:
        return i18n.tag(lang if isinstance(lang, str) else repr(lang))
    except ValueError as e:
        raise ToolError(str(e), "lang") from None


def server(kg) -> Server:
    """The MCP server over one knowledge graph."""
    work = Tools(kg)
    listed = tools()

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        from liuyao_kg.loaders.errors import CastInputError

        try:
            text, data = await anyio.to_thread.run_sync(partial(work.call, params.name, params.arguments or {}))
        except (ToolError, CastInputError) as e:
            message, field = (e.message, e.field) if isinstance(e, ToolError) else (str(e), e.field)
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)],
                                        structured_content={"error": message, "field": field}, is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data)

    return Server("liuyao-kg", version=__version__, title="liuyao-kg: six-line divination with citations",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(kg) -> None:
    """Serve the tools over stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    app = server(kg)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await app.run(read, write, app.create_initialization_options())

    anyio.run(main)
