"""Chapter rules as SQL over a wide layout: the condition language's second back end (issue #12).

A chapter rule's CONSTRUCT is compiled from a short condition (reasoner/conditions.py). The generic translator
(translate.py) turns that CONSTRUCT into a chain of joins through the narrow key tables, one per token, planned
anew for every rule. Here the condition itself is compiled, into one SELECT over four tables built once per batch:

- `w_line`: a row per shown line of a cast (`?cast lyo:hasLine ?x`), a 0/1 column per line token some rule reads;
- `w_hidden`: a row per hidden line under a cast's line, a column per token as read on a hidden use-god (舍飛從伏);
- `w_cast`: a row per cast (`?cast a lyo:Cast`), a column per cast fact (卦:六沖, 占:男, a relation of 日 and 月, the
  month and day a rule needs);
- `w_rel(k, s, o)`: the relations between lines, and the hidden use-god's (flying line, hidden line) pairs (the
  extensions of kind `pair` and `pair1`, apart from `w_ext(k, s, o)`, the other kinds' rows the pivots read: a
  relation's EXISTS then scans a third of the rows).

No token's meaning is written twice. Each column is the extension of the very SPARQL pattern the condition
compiler writes for that token (`_Compiler.token`, `hidden_token`, `relation`, `cast`), a small CONSTRUCT the
generic translator turns into SQL and the engine evaluates once per batch (an *extension*). What this module adds
is only a condition's boolean structure: line patterns joined on their cast, `!token` and `not` as negation, the
two readings of a use-god that may be hidden as a UNION. Those patterns share no variable but `?cast`, the line
and the cast's pillars and hexagram (one each: the engine checks it per batch), so a condition holds exactly when
its extensions combine so. And a rule is compiled only when its stored CONSTRUCT is, to the character, what the
condition compiler makes of its stored condition (`lyo:condition`, `lyo:strengthTable`, its topics): the two
back ends cannot drift apart. Anything else raises `Unsupported`, and the rule keeps its generic SQL.
"""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field

import pyoxigraph as ox

from liuyao_kg.namespaces import LYO, PROV
from liuyao_kg.reasoner import conditions as C

from .terms import q
from .translate import Unsupported, table_id

EXT = "urn:liuyao-kg:wide#"
TOPIC = LYO + "topic"
_JUDGMENT = re.compile(r'BIND\(IRI\(CONCAT\(STR\(\?cast\), "/judgment/([^"]+)"\)\) AS \?j\)')
_VALUES = re.compile(r"VALUES \?topic \{ ([^}]*) \}")
#: the table a kind's extensions are columns of (pairs stay rows, of w_rel)
TABLES = {"line": "w_line", "hidden": "w_hidden", "cast": "w_cast"}
#: the kinds whose extensions stay rows, and their table (the other kinds' rows go to w_ext, which the pivots read)
PAIR_KINDS = ("pair", "pair1")
PAIRS = "w_rel"


def rows_table(kind: str) -> str:
    """The table an extension's rows are written to."""
    return PAIRS if kind in PAIR_KINDS else "w_ext"


#: each kind's SPARQL domain: the node `?wx` ranges over (a pattern binding it and ?cast)
_DOMAIN = {
    "line": "?cast lyo:hasLine ?wx .",
    "hidden": "?cast lyo:hasLine ?wl . ?wl lyo:hasHidden ?wx .",
    "cast": "?cast a lyo:Cast .",
}
#: at most one value a subject: the patterns of two clauses share the variables these bind (conditions._Compiler:
#: ?day ?month ?year, ?hexT ?lowT ?upT, ?innerEl ?outerEl), so a condition is its clauses' conjunction only then
FUNCTIONAL = (LYO + "hasDay", LYO + "hasMonth", LYO + "hasYear", LYO + "primaryHexagram", LYO + "lowerTrigram",
              LYO + "upperTrigram", LYO + "element")


@dataclass(frozen=True)
class Extension:
    """A pattern's solutions as rows of w_ext (w_rel for a pair): `(?wx, id, ?cast)`, or `(?wx, id, ?wy)` for a pair."""

    kind: str
    body: str

    @property
    def construct(self) -> str:
        obj = "?wy" if self.kind == "pair" else "?cast"  # line, hidden, pair1: (node, cast); cast: (cast, cast)
        subj = "?cast" if self.kind == "cast" else "?wx"
        return f"CONSTRUCT {{ {subj} <{self.iri}> {obj} . }}\nWHERE {{\n  {self.body}\n}}"

    @functools.cached_property
    def iri(self) -> str:
        return EXT + self.kind + "-" + hashlib.sha1(self.body.encode()).hexdigest()[:16]

    @functools.cached_property
    def tid(self) -> str:
        return table_id(("p", self.iri))


@dataclass
class WideRule:
    """A chapter rule compiled: the SELECT of its solutions (rows of w_sol), and the extensions it reads."""

    select: str
    extensions: frozenset = field(default_factory=frozenset)


#: line patterns a compiled condition may bind (the package's conditions bind at most 4)
MAX_LINES = 6
#: w_sol: a compiled rule's solutions (rule IRI, cast, judgment IRI, matched lines), N-Triples terms
SOLUTION_COLUMNS = ["r", "cs", "j"] + [f"m{i}" for i in range(MAX_LINES)]


def judgment_sql(table_of) -> list[str]:
    """The statements adding the triples of w_sol's judgments to `new` (the template compile_rule writes:
    `?j a lyo:Judgment ; lyo:judgmentOf ?cast ; lyo:inCast ?cast ; lyo:matchedLine ?L… ; prov:wasDerivedFrom ?rule`).
    `table_of(key)` is a key's table id."""
    k = {name: q(table_of(key)) for name, key in (
        ("type", ("t", LYO + "Judgment")), ("of", ("p", LYO + "judgmentOf")), ("in", ("p", LYO + "inCast")),
        ("rule", ("p", PROV + "wasDerivedFrom")), ("line", ("p", LYO + "matchedLine")))}
    out = [f"INSERT INTO new SELECT DISTINCT {k['type']}, j, NULL FROM w_sol",
           f"INSERT INTO new SELECT DISTINCT {k['of']}, j, cs FROM w_sol",
           f"INSERT INTO new SELECT DISTINCT {k['in']}, j, cs FROM w_sol",
           f"INSERT INTO new SELECT DISTINCT {k['rule']}, j, r FROM w_sol"]
    lines = " UNION ".join(f"SELECT j, m{i} AS m FROM w_sol WHERE m{i} IS NOT NULL" for i in range(MAX_LINES))
    return out + [f"INSERT INTO new SELECT {k['line']}, j, m FROM ({lines}) AS ml"]


def chapter_conditions(rule_quads) -> dict[str, tuple[str, str | None]]:
    """{rule IRI: (condition, strength table or None)} of the chapter rules in the rules layer's quads."""
    cond, table = {}, {}
    for qd in rule_quads:
        p = qd.predicate.value
        if p == LYO + "condition":
            cond[qd.subject.value] = qd.object.value
        elif p == LYO + "strengthTable":
            table[qd.subject.value] = qd.object.value.rsplit("School", 1)[-1]
    return {iri: (text, table.get(iri)) for iri, text in cond.items()}


class WideCompiler:
    """Compiles conditions; collects the extensions they read (shared between rules: one column each)."""

    def __init__(self):
        self.extensions: dict[str, Extension] = {}
        #: the topics rules are scoped to, a 0/1 column of w_cast each (`?cast lyo:topic "…"`)
        self.topics: set[str] = set()

    def _ext(self, kind: str, body: str) -> Extension:
        e = Extension(kind, " ".join(body.split()))
        self.extensions.setdefault(e.iri, e)
        return e

    def line_token(self, tok: str, table: str) -> Extension:
        return self._ext("line", f"{_DOMAIN['line']} {C._Compiler(table).token('?wx', tok)}")

    def hidden_token(self, tok: str, table: str) -> Extension | None:
        pat = C._Compiler(table).hidden_token("?wx", tok)
        return None if pat is None else self._ext("hidden", f"{_DOMAIN['hidden']} {pat}")

    def cast_fact(self, body: str) -> Extension:
        return self._ext("cast", f"{_DOMAIN['cast']} {body}")

    def usegod_shown(self) -> Extension:
        # conditions._Compiler.line, the shown branch of a use-god pattern: the line is a use-god's, and that
        # use-god is not hidden under it
        return self._ext("line", f"{_DOMAIN['line']} ?ug a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves ?wx . "
                                 f"FILTER NOT EXISTS {{ ?wx lyo:hasHidden ?h0 . ?ug lyo:hiddenUseGod ?h0 . }}")

    def usegod_hidden(self) -> Extension:
        # …and its hidden branch: (the flying line, the hidden use-god under it)
        return self._ext("pair", "?cast lyo:hasLine ?wx . ?ug a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves ?wx ; "
                                 "lyo:hiddenUseGod ?wy . ?wx lyo:hasHidden ?wy .")

    def relation(self, r: C.RelClause, subjects: set[str]) -> tuple[Extension, list[tuple[str, str]]]:
        """The relation's extension and the (role, name) of its ?wx, ?wy: ("N", a) the line a matched,
        ("S", a) the line or hidden line a use-god pattern a reads (conditions._Compiler.endpoint)."""
        ends = []
        for end in (r.left, r.right):
            if end in ("日", "月", "年", "內", "外"):
                continue
            base = end[1:] if end[:1] in ("變", "伏") else end
            role = "S" if end[:1] != "伏" and base in subjects else "N"
            if (role, base) not in ends:
                ends.append((role, base))
        if len(ends) > 2:
            raise Unsupported("a relation of more than two line variables")
        variables = dict(zip(ends, ("?wx", "?wy")))
        names = {base: v for (role, base), v in variables.items() if role == "S"}
        names.update({base: v for (role, base), v in variables.items() if role == "N"})
        subj = {base: v for (role, base), v in variables.items() if role == "S"}
        body = C._Compiler().relation(r, names, subj)
        domains, hidden = [], 0  # ?wl1, ?wl2: never a name the condition compiler mints
        for (role, _base), v in variables.items():
            if role == "N":
                domains.append(f"?cast lyo:hasLine {v} .")
            else:
                hidden += 1
                line = f"?wl{hidden}"
                domains.append(f"{{ ?cast lyo:hasLine {v} . }} UNION {{ ?cast lyo:hasLine {line} . {line} lyo:hasHidden {v} . }}")
        if not variables:
            return self.cast_fact(body), []
        # rows of w_rel: (node, node) for two line variables, (node, cast) for one
        ext = self._ext("pair" if len(variables) == 2 else "pair1", " ".join(domains) + " " + body)
        return ext, ends

    # --- a rule ---------------------------------------------------------------------------------

    def compile(self, rule_iri: str, construct: str, condition: str, table: str | None,
                topics: frozenset[str] | None) -> WideRule:
        cond = C.parse(condition)
        table = table or "EarthMonths"
        m = _JUDGMENT.search(construct)
        if not m:
            raise Unsupported("not a chapter rule's CONSTRUCT (no judgment IRI)")
        vm = _VALUES.search(construct)
        listed = re.findall(r'"([^"]*)"', vm.group(1)) if vm else []
        if set(listed) != set(topics or ()):
            raise Unsupported("the CONSTRUCT's topics are not the rule's")
        if C.compile_rule(condition, iri_path=m.group(1), topics=listed, strength_table=table) != construct:
            raise Unsupported("the stored CONSTRUCT is not what the condition compiles to")
        return _RuleSQL(self, table).build(rule_iri, cond, m.group(1), topics)


class _RuleSQL:
    def __init__(self, comp: WideCompiler, table: str):
        self.comp, self.table = comp, table
        self.used: set[Extension] = set()
        self.n = 0
        self.joins: list[str] = []
        self.where: list[str] = []

    def alias(self, stem: str) -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def col(self, alias: str, ext: Extension, want: bool) -> str:
        self.used.add(ext)
        return f"{alias}.{_column(ext)} = {1 if want else 0}"

    def tokens(self, alias: str, clause: C.LineClause) -> str:
        """A plain line pattern's tokens as tests of the w_line row `alias`."""
        return " AND ".join(self.col(alias, self.comp.line_token(tok, self.table), not neg) for neg, tok in clause.tokens)

    def candidates(self, clause: C.LineClause) -> str:
        """SQL of a use-god pattern's solutions (cid, l, u): l the line it matches, u the line its tokens read,
        the hidden line under l when the use-god is hidden (舍飛從伏, conditions._Compiler.line)."""
        rest = [(neg, tok) for neg, tok in clause.tokens if tok != "用神"]
        s = self.alias("s")
        shown = [self.col(s, self.comp.usegod_shown(), True)]
        shown += [self.col(s, self.comp.line_token(tok, self.table), not neg) for neg, tok in rest]
        parts = [f"SELECT {s}.cid AS cid, {s}.x AS l, {s}.x AS u FROM w_line {s} WHERE {' AND '.join(shown)}"]
        p, f, h = self.alias("p"), self.alias("f"), self.alias("h")
        pair = self.comp.usegod_hidden()
        self.used.add(pair)
        hidden = [f"{p}.k = {q(pair.tid)}"]
        possible = True
        for neg, tok in rest:
            if tok == "絕處逢生":  # read on the flying line (conditions._Compiler.line)
                hidden.append(self.col(f, self.comp.line_token(tok, self.table), not neg))
                continue
            ext = self.comp.hidden_token(tok, self.table)
            if ext is None:
                possible = possible and neg  # a token a hidden line cannot have: `!tok` holds, `tok` never
            else:
                hidden.append(self.col(h, ext, not neg))
        if possible:
            parts.append(f"SELECT {f}.cid AS cid, {f}.x AS l, {h}.x AS u FROM {PAIRS} {p} JOIN w_line {f} ON {f}.x = {p}.s "
                         f"JOIN w_hidden {h} ON {h}.x = {p}.o AND {h}.cid = {f}.cid WHERE {' AND '.join(hidden)}")
        return " UNION ALL ".join(parts)

    def relation(self, r: C.RelClause, cols: dict[tuple[str, str], str], subjects: set[str], negated: bool) -> None:
        ext, ends = self.comp.relation(r, subjects)
        self.used.add(ext)
        if ext.kind == "cast":
            self.where.append(self.col("c", ext, not negated))
            return
        s = cols[ends[0]]
        o = cols[ends[1]] if len(ends) == 2 else "c.cs"
        a = self.alias("r")
        test = f"EXISTS (SELECT 1 FROM {PAIRS} {a} WHERE {a}.k = {q(ext.tid)} AND {a}.s = {s} AND {a}.o = {o})"
        self.where.append(f"NOT {test}" if negated else test)

    def build(self, rule_iri: str, cond: C.Condition, path: str, topics) -> WideRule:
        subjects = {c.name for c in cond.clauses if isinstance(c, C.LineClause) and C.reads_hidden(c)}
        cols: dict[tuple[str, str], str] = {}
        lines = []
        month, day = C.time_needs(cond)
        for need, prop in ((month, "hasMonth"), (day, "hasDay")):
            if need:
                self.where.append(self.col("c", self.comp.cast_fact(f"?cast lyo:{prop} ?wl0 ."), True))
        for c in cond.clauses:
            if isinstance(c, C.LineClause):
                a = self.alias("m")
                if c.name in subjects:
                    sql = self.candidates(c)
                    self.joins.append(f"JOIN ({sql}) {a} ON {a}.cid = c.cid")
                    cols[("N", c.name)], cols[("S", c.name)] = f"{a}.l", f"{a}.u"
                else:  # a line row itself, its tokens in the join (no derived table to plan)
                    self.joins.append(f"JOIN w_line {a} ON {a}.cid = c.cid AND {self.tokens(a, c)}")
                    cols[("N", c.name)] = cols[("S", c.name)] = f"{a}.x"
                lines.append(cols[("N", c.name)])
        for c in cond.clauses:
            if isinstance(c, C.RelClause):
                self.relation(c, cols, subjects, False)
            elif isinstance(c, C.CastClause):
                self.where.append(self.col("c", self.comp.cast_fact(C._Compiler().cast(c)), True))
            elif isinstance(c, C.NotClause):
                inner = c.inner
                if isinstance(inner, C.LineClause) and not C.reads_hidden(inner):
                    a = self.alias("n")
                    self.where.append(f"NOT EXISTS (SELECT 1 FROM w_line {a} WHERE {a}.cid = c.cid AND {self.tokens(a, inner)})")
                elif isinstance(inner, C.LineClause):
                    sql = self.candidates(inner)
                    a = self.alias("n")
                    self.where.append(f"NOT EXISTS (SELECT 1 FROM ({sql}) {a} WHERE {a}.cid = c.cid)")
                elif isinstance(inner, C.RelClause):
                    self.relation(inner, cols, subjects, True)
                else:
                    self.where.append(self.col("c", self.comp.cast_fact(C._Compiler().cast(inner)), False))
        if topics is not None:  # VALUES ?topic { … } ?cast lyo:topic ?topic
            self.comp.topics |= set(topics)
            self.where.insert(0, "(" + " OR ".join(f"c.{topic_column(t)} = 1" for t in sorted(topics)) + ")")
        if len(lines) > MAX_LINES:
            raise Unsupported(f"more than {MAX_LINES} line patterns")
        j = f"substr(c.cs, 1, length(c.cs) - 1) || {q('/judgment/' + path + '>')}"
        select = ", ".join([q(f"<{rule_iri}>"), "c.cs", j] + lines + ["NULL"] * (MAX_LINES - len(lines)))
        where = f" WHERE {' AND '.join(self.where)}" if self.where else ""
        # no DISTINCT: w_sol's rows become triples through `new`, made a set once per key (ColumnarEngine._apply);
        # a hash aggregate per rule cost ~0.4 ms of its ~3.7 (one SELECT at a time, 5,000 casts)
        sql = f"SELECT {select} FROM w_cast c {' '.join(self.joins)}{where}"
        return WideRule(sql, frozenset(self.used))


def _column(ext: Extension) -> str:
    return "e_" + ext.tid[2:]


def compile_rules(rules, conditions: dict[str, tuple[str, str | None]]) -> tuple[dict[str, WideRule], dict[str, str], WideCompiler]:
    """({rule IRI: WideRule}, {rule IRI: why it keeps its generic SQL}, the compiler holding the extensions)
    for the chapter rules with a stored condition."""
    comp = WideCompiler()
    out, refused = {}, {}
    for r in rules:
        if not r.chapter or r.iri not in conditions:
            continue
        text, table = conditions[r.iri]
        try:
            out[r.iri] = comp.compile(r.iri, r.construct, text, table, r.topics)
        except (Unsupported, C.ConditionError) as e:
            refused[r.iri] = str(e)
    used = set().union(*(w.extensions for w in out.values())) if out else set()
    comp.extensions = {e.iri: e for e in sorted(used, key=lambda e: e.iri)}
    return out, refused, comp


def topic_column(topic: str) -> str:
    return "tp_" + hashlib.sha1(topic.encode()).hexdigest()[:12]


def pivot_sql(kind: str, extensions: list[Extension], source: dict[str, str], topics: list[str] = ()) -> str:
    """The statement filling a wide table from w_ext: a 0/1 column per extension of the kind (w_cast: and per
    topic). w_cast numbers the casts (`cid`), which the other two tables and the rules join on.

    `source` names the key tables of the domain: `hasLine`, `hasHidden`, `type` (the class lyo:Cast), `topic`."""
    flags = "".join(f", max(CASE WHEN e.k = {q(x.tid)} THEN 1 ELSE 0 END)" for x in extensions)
    keys = ", ".join(q(x.tid) for x in extensions) or "''"
    if kind == "line":
        return (f"INSERT INTO w_line SELECT c.cid, h.o{flags} FROM {source['hasLine']} h JOIN w_cast c ON c.cs = h.s "
                f"LEFT JOIN w_ext e ON e.s = h.o AND e.k IN ({keys}) GROUP BY c.cid, h.o")
    if kind == "hidden":
        return (f"INSERT INTO w_hidden SELECT c.cid, d.o{flags} FROM {source['hasLine']} h JOIN w_cast c ON c.cs = h.s "
                f"JOIN {source['hasHidden']} d ON d.s = h.o LEFT JOIN w_ext e ON e.s = d.o AND e.k IN ({keys}) "
                f"GROUP BY c.cid, d.o")
    # a cast's topic flags from its own grouped topic rows (a cast has few), joined once per cast
    topic_flags = "".join(f", max(CASE WHEN tp.o = {q(str(ox.Literal(t)))} THEN 1 ELSE 0 END) AS t{i}"
                          for i, t in enumerate(topics))
    return (f"INSERT INTO w_cast SELECT row_number() OVER (), t.s{flags}"
            f"{''.join(f', coalesce(max(tq.t{i}), 0)' for i in range(len(topics)))} "
            f"FROM {source['type']} t LEFT JOIN w_ext e ON e.s = t.s AND e.k IN ({keys}) "
            f"LEFT JOIN (SELECT tp.s AS s{topic_flags} FROM {source['topic']} tp GROUP BY tp.s) tq ON tq.s = t.s "
            f"GROUP BY t.s")


def table_columns(kind: str, extensions: list[Extension], topics: list[str] = ()) -> tuple[list[str], list[str], list[str]]:
    """(integer columns, text columns, 0/1 columns) of a wide table."""
    texts = ["cs"] if kind == "cast" else ["x"]
    flags = [_column(e) for e in extensions] + ([topic_column(t) for t in topics] if kind == "cast" else [])
    return ["cid"], texts, flags


SOURCE_KEYS = {"hasLine": ("p", LYO + "hasLine"), "hasHidden": ("p", LYO + "hasHidden"), "type": ("t", LYO + "Cast"),
               "topic": ("p", TOPIC)}

__all__ = ["EXT", "Extension", "FUNCTIONAL", "MAX_LINES", "PAIR_KINDS", "PAIRS", "SOLUTION_COLUMNS", "rows_table", "judgment_sql", "SOURCE_KEYS", "TABLES", "WideCompiler", "WideRule", "chapter_conditions",
           "compile_rules", "pivot_sql", "table_columns", "topic_column"]
