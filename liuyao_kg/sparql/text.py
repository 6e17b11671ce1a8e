"""SPARQL query text read as tokens: where its WHERE group is, and an IRI parameter written into it as a term.

Shared by the endpoint (`remote.prepare`: parameters as a VALUES block), the update guard and the embedded
store (`KnowledgeGraph.select`: `inline_iris`). A lexer, not a parser: comments, strings and IRIs are single
tokens, so nothing inside them is ever taken for a variable or a brace.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

import pyoxigraph as ox

LEX = re.compile(r'''
    (?P<comment>\#[^\n]*)
  | (?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'
               |"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<iri><[^<>"{}|^`\\\s]*>)
  | (?P<var>[?$][A-Za-z0-9_\u00b7\u00c0-\uffff]+)
  | (?P<word>[A-Za-z_][A-Za-z0-9_-]*)
  | (?P<brace>\{)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<other>[^\s])
''', re.X | re.S)
VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: $ would also match before a final newline


def where_group(text: str) -> tuple[int, int, bool]:
    """(where the dataset clause goes, offset just inside the WHERE group's '{', the query has FROM)."""
    seen_select = False
    depth = 0
    last_word: tuple[str, int] | None = None
    has_from = False
    for m in LEX.finditer(text):
        kind = m.lastgroup
        if kind in ("comment", "string", "iri", "var"):
            last_word = None
            continue
        if kind == "word":
            w = m.group().upper()
            if w in ("SELECT", "ASK"):  # the forms `select` runs; a CONSTRUCT template is not a WHERE group
                seen_select = True
            elif seen_select and depth == 0 and w == "FROM":
                has_from = True
            last_word = (w, m.start())
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif kind == "brace" and seen_select and depth == 0:
            at = last_word[1] if last_word and last_word[0] == "WHERE" else m.start()
            return at, m.end(), has_from
        last_word = None
    raise ValueError("no WHERE group found in the query")


def inline_iris(text: str, bindings: Mapping[str, object]) -> tuple[str, dict] | None:
    """The query with each IRI parameter written as that IRI wherever its variable stands in the WHERE group,
    and bound once at the group's end (`BIND(<iri> AS ?v)`) so the projection, ORDER BY and GROUP BY still read
    it; with the parameters left (literals) to bind by substitution. None when no IRI parameter occurs in it.

    Why: pyoxigraph plans a query before it substitutes, so a substituted `?cast` looks unbound to its planner,
    which then starts from a pattern such as `?f a lyo:ConditionFactor` and reads that class's members in every
    stored cast: a chart's queries grew with the store (benchmarks/chart_scaling.py). Written as an IRI the
    value is visible. This is SEP-0007's substitution itself (the variable replaced by the value), done on tokens
    (the BIND at the group's end, where it joins what the patterns found: at its start it made pyoxigraph plan worse):
    the value is `str(ox.NamedNode)`, an IRI pyoxigraph has validated (no `>`, quote, brace or space can be in it),
    so it cannot become query syntax. Queries where replacing could change the meaning are left to substitution
    (None is returned for them): a WHERE group with a subquery, or one binding the variable itself (`AS ?v`, a
    VALUES block of it); and a form other than SELECT or ASK."""
    iris = {k: v for k, v in bindings.items() if isinstance(v, ox.NamedNode)}
    if not iris:
        return None
    plan = _plan(text, tuple(sorted(iris)))
    if plan is None:
        return None
    pieces, slots, used = plan
    out = [pieces[0]]
    for name, piece in zip(slots, pieces[1:]):
        out.append(str(iris[name]) if name else "".join(f" BIND({iris[n]} AS ?{n})" for n in used))
        out.append(piece)
    return "".join(out), {k: v for k, v in bindings.items() if k not in iris}


@lru_cache(maxsize=512)
def _plan(text: str, names: tuple[str, ...]) -> tuple[list[str], list[str], tuple[str, ...]] | None:
    """The text cut where a value goes: pieces and, between them, the parameter's name (or "" for the BINDs at
    the end of the WHERE group); the parameters the query names. Cached: the named queries are a few texts."""
    try:
        _, inside, _ = where_group(text)
    except ValueError:
        return None
    tokens = list(LEX.finditer(text))
    used = tuple(n for n in names if any(m.lastgroup == "var" and m.group()[1:] == n for m in tokens))
    if not used:
        return None
    cuts: list[tuple[int, int, str]] = []
    depth, previous, values_head = 1, None, False
    for m in tokens:
        if m.start() < inside or m.lastgroup == "comment":
            continue
        kind, value = m.lastgroup, m.group()
        if kind == "brace":
            depth += 1
            values_head = False
        elif kind == "other" and value == "}":
            depth -= 1
            if depth == 0:  # the end of the WHERE group: what follows (ORDER BY …) reads the BIND
                cuts.append((m.start(), m.start(), ""))
                break
        elif kind == "word" and value.upper() == "SELECT":
            return None
        elif kind == "word" and value.upper() == "VALUES":
            values_head = True  # the variables up to its `{`
        elif kind == "var" and value[1:] in used:
            if values_head or (previous is not None and previous.upper() == "AS"):
                return None
            cuts.append((m.start(), m.end(), value[1:]))
        previous = value if kind == "word" else None
    pieces, slots, at = [], [], 0
    for start, end, name in cuts:
        pieces.append(text[at:start])
        slots.append(name)
        at = end
    pieces.append(text[at:])
    return pieces, slots, used
