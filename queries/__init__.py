"""Named SPARQL queries (`*.rq` beside this module), parsed once, with parameters bound safely.

Each file starts with a header of `#` comment lines:

    # answers: what the query answers, one line
    # answers@zh-Hant: the same in zh-Hant (zh-Hans is converted from it)
    # answers@ko: the same in Korean
    # param cast: iri — the cast to read
    # param position: integer — a line position, 1 (bottom) … 6 (top)

Parameters are SPARQL variables of the same name, projected by the query. They are bound through the
store's own binding mechanism (pyoxigraph `substitutions`, SEP-0007), never by pasting text into the query,
so a value can only ever be a value. Kinds: iri, integer, string, and state (a state class, given
as its local name or its zh-Hant term, e.g. "MonthBroken" or "月破").

On a remote endpoint (`liuyao_kg.store.remote`) the same values arrive as a VALUES block at the start of the
WHERE group, which is joined with the top-level patterns and filters, not pushed into nested groups: so a
parameter is used in the top-level group (its patterns, its FILTERs, or OPTIONALs), never only inside a
UNION branch or a subquery (see rules-by-school.rq). A boolean computed by a query is cast explicitly
(`xsd:boolean(EXISTS { … })`), and an ORDER BY is total wherever the chart keeps only the first row.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from liuyao_kg.namespaces import LYO, sparql_prologue
from liuyao_kg.pools import ForkSafePool

_HEADER = re.compile(r"^#\s*(answers|param)\s*(\w*)\s*:\s*(.*)$")
#: `# answers@zh-Hant: …`, `# answers@ko: …`: what the query answers in another language (`liuyao query --list`)
_ANSWERS_IN = re.compile(r"^#\s*answers@([\w-]+)\s*:\s*(.*)$")
#: the languages besides English every query's header says what it answers in (zh-Hans is converted from zh-Hant)
ANSWER_LANGS = ("zh-Hant", "ko")
KINDS = {"iri", "integer", "string", "state"}


class QueryParameterError(ValueError):
    """A query was run with a missing, unknown or malformed parameter. `code` and `values` name the problem for the
    messages in other languages (liuyao_kg.serve.messages.ERRORS)."""

    def __init__(self, message: str, *, code: str | None = None, **values) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    doc: str


@dataclass(frozen=True)
class NamedQuery:
    name: str
    answers: str  # in English
    params: tuple[Param, ...]
    text: str  # with the shared PREFIX prologue
    answers_in: tuple[tuple[str, str], ...] = ()  # (language tag, what it answers), from `# answers@TAG:` lines

    def description(self, tag: str) -> str:
        """What the query answers in the language `tag` ("en", "zh-Hant", "ko")."""
        return self.answers if tag == "en" else dict(self.answers_in)[tag]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise QueryParameterError(f"query {self.name!r} has no parameter {name!r} (parameters: {known})",
                                  code="no_param", query=self.name, name=name, known=known)


def _parse(name: str, source: str) -> NamedQuery:
    answers, params, answers_in = "", [], {}
    for line in source.splitlines():
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        translated = _ANSWERS_IN.match(line)
        if translated:
            answers_in[translated.group(1)] = translated.group(2).strip()
            continue
        m = _HEADER.match(line)
        if not m:
            continue
        what, pname, rest = m.groups()
        if what == "answers":
            answers = rest.strip()
        else:
            kind, _, doc = rest.partition("—")
            kind = kind.strip()
            if kind not in KINDS:
                raise ValueError(f"{name}.rq: parameter {pname} has unknown kind {kind!r}")
            params.append(Param(pname, kind, doc.strip()))
    if not answers:
        raise ValueError(f"{name}.rq has no '# answers:' header")
    missing = [tag for tag in ANSWER_LANGS if not answers_in.get(tag)]
    if missing:
        raise ValueError(f"{name}.rq says what it answers in English only: add "
                         + ", ".join(f"'# answers@{tag}: …'" for tag in missing) + " below its '# answers:' line")
    return NamedQuery(name, answers, tuple(params), sparql_prologue() + source,
                      tuple((tag, answers_in[tag]) for tag in ANSWER_LANGS))


@cache
def catalogue() -> dict[str, NamedQuery]:
    """Every named query shipped with the package, by name."""
    out = {}
    for entry in sorted(resources.files(__package__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".rq"):
            name = entry.name[:-3]
            out[name] = _parse(name, entry.read_text(encoding="utf-8"))
    return out


def get(name: str) -> NamedQuery:
    try:
        return catalogue()[name]
    except KeyError:
        raise QueryParameterError(
            f"no query named {name!r}; known: {', '.join(sorted(catalogue()))}", code="no_query", name=name,
            known=", ".join(sorted(catalogue()))) from None


def coerce(query: NamedQuery, values: dict[str, object]) -> dict[str, tuple[str, object]]:
    """Check parameters against the header; return name → (kind, python value)."""
    out = {}
    for key, value in values.items():
        p = query.param(key)
        if isinstance(value, str) and _CONTROL.search(value):
            ch = _CONTROL.search(value).group()
            raise QueryParameterError(f"parameter {key} holds the control character {ch!r} "
                                      f"(a newline, NUL …): not allowed in a parameter, got {_short(value)}",
                                      code="control_char", name=key)
        if p.kind == "integer":
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise QueryParameterError(f"parameter {key} must be an integer, got {_short(value)}",
                                          code="not_integer", name=key, value=_short(value)) from None
        elif p.kind == "iri":
            value = str(value)
            if not re.match(r"^[a-z][a-z0-9+.-]*:[^\s<>\"{}|\\^`]*$", value, re.I):
                raise QueryParameterError(f"parameter {key} must be an absolute IRI, got {_short(value)}",
                                          code="not_iri", name=key, value=_short(value))
            try:
                import pyoxigraph as ox

                ox.NamedNode(value)
            except ValueError as e:
                raise QueryParameterError(f"parameter {key} is not a valid IRI ({e}): {_short(value)}",
                                          code="not_iri", name=key, value=_short(value)) from None
        elif p.kind == "state":
            value = _state_class(str(value))
        else:
            value = str(value)
        out[key] = (p.kind, value)
    missing = [p.name for p in query.params if p.name not in values]
    if missing:
        raise QueryParameterError(f"query {query.name!r} needs parameter(s): {', '.join(missing)}",
                                  code="missing_params", query=query.name, names=", ".join(missing))
    return out


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"


def _state_class(value: str) -> str:
    from liuyao_kg.ontology.vocab import state_class_by_term

    if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", value):
        return LYO + value
    iri = state_class_by_term(value)
    if iri is None:
        raise QueryParameterError(f"unknown state {_short(value)}", code="unknown_state", value=_short(value))
    return iri


def bindings(query: NamedQuery, values: dict[str, object]):
    """pyoxigraph terms for the parameters, checked against the query's header."""
    import pyoxigraph as ox

    out = {}
    for key, (kind, value) in coerce(query, values).items():
        if kind in ("iri", "state"):
            out[key] = ox.NamedNode(value)
        elif kind == "integer":
            out[key] = ox.Literal(str(value), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
        else:
            out[key] = ox.Literal(value)
    return out


def run(kg, name: str, **params) -> list[dict]:
    """Run the named query on a KnowledgeGraph with safely bound parameters."""
    query = get(name)
    return kg.select(query.text, bindings(query, params))


def run_many(kg, calls: list[tuple[str, dict]]) -> list[list[dict]]:
    """The answers of several named queries, [(name, params)] in order: at once on a store that evaluates reads in
    parallel (`kg.parallel_reads` threads: the embedded store, as pyoxigraph evaluates without the GIL), else one
    after another. Every parameter is checked before any query runs."""
    prepared = [(get(name), params) for name, params in calls]
    bound = [(q.text, bindings(q, params)) for q, params in prepared]
    threads = getattr(kg, "parallel_reads", 1)
    if threads < 2 or len(bound) < 2:
        return [kg.select(text, b) for text, b in bound]
    return list(_POOL.get(threads).map(lambda tb: kg.select(*tb), bound))


_POOL = ForkSafePool("liuyao-queries")


class Answers:
    """Named queries answered together (`run_many`), then read one by one, as `run` would answer them.

    `ask(name, **params)` returns the answer prepared for exactly that query and those parameters, and runs
    any other query then (`run`): what the chart and the reading need is asked at once, and each part reads
    its own answer where it is put together."""

    def __init__(self, kg, calls: list[tuple[str, dict]]):
        self.kg = kg
        self._answers = {_call_key(n, p): rows for (n, p), rows in zip(calls, run_many(kg, calls))}

    def ask(self, name: str, **params) -> list[dict]:
        rows = self._answers.get(_call_key(name, params))
        return run(self.kg, name, **params) if rows is None else rows


def _call_key(name: str, params: dict) -> tuple:
    return name, tuple(sorted((k, repr(v)) for k, v in params.items()))
