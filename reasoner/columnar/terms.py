"""RDF terms in SQL: every column holds a term in its canonical N-Triples form (pyoxigraph's `str(term)`).

Two terms are the same term exactly when their strings are equal, so a SPARQL join is a SQL equi-join
and no dictionary is needed for the IRIs that rules compute (`IRI(CONCAT(STR(?line), "/state/…"))`).
One exception to the spelling, the same for every term: an IRI in the cast namespace is stored short,
`<~c0ffee/line/3>` for `<https://w3id.org/liuyao-kg/cast/c0ffee/line/3>` (`compact`, `expand`; no IRI begins with `~`,
a scheme begins with a letter). A cast's every node and minted IRI is one, and joins hash and compare about half
the characters (measured: the state rules' batch of 5,000 casts on one thread, medians of eight interleaved runs,
7.67 → 7.00 s; the same rows). The form is still one per term, so equality is
unchanged; STR() and IRI() read and write the full text (`iri_lex`, `iri_of`), and the engine expands its output.
The macros below give the SPARQL operators on that encoding; where SPARQL raises an error they return
NULL, which SQL's three-valued logic then treats as SPARQL treats an error (FILTER false, `||`/`&&`
tables alike).
"""
from __future__ import annotations

from liuyao_kg.namespaces import CAST as CAST_NS

XSD = "http://www.w3.org/2001/XMLSchema#"
INT_SUFFIX = f'"^^<{XSD}integer>'
BOOL_TRUE = (f'"true"^^<{XSD}boolean>', f'"1"^^<{XSD}boolean>')
BOOL_FALSE = (f'"false"^^<{XSD}boolean>', f'"0"^^<{XSD}boolean>')
#: Literal datatypes whose SPARQL operators the macros implement exactly (a batch holding a literal of
#: another datatype runs the rules that compute or compare on stored terms on pyoxigraph instead).
SAFE_DATATYPES = frozenset({XSD + "string", XSD + "integer", XSD + "boolean", XSD + "dateTime",
                            "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"})
#: datatypes nt_eq knows ('lang': any language tag)
KNOWN = (XSD + "string", XSD + "integer", XSD + "boolean", XSD + "dateTime", "lang")
#: an absolute IRI pyoxigraph's IRI() accepts (characters N-Triples forbids in IRIs excluded)
IRI_RE = r'[A-Za-z][A-Za-z0-9+.\-]*:([^\s<>"{}|^`\\%]|%[0-9A-Fa-f]{2})*'
#: the cast namespace (CAST_NS) in N-Triples, and its short form as stored (see the module's docstring)
LONG, SHORT = "<" + CAST_NS, "<~"


def compact(nt: str) -> str:
    """A term as stored (N-Triples, the cast namespace short)."""
    return SHORT + nt[len(LONG):] if nt.startswith(LONG) else nt


def expand(nt: str) -> str:
    """A stored term as N-Triples."""
    return LONG + nt[len(SHORT):] if nt.startswith(SHORT) else nt


def q(text: str) -> str:
    """A SQL string literal (single quotes doubled): how every constant enters generated SQL."""
    return "'" + text.replace("'", "''") + "'"


def _in(values) -> str:
    return "(" + ", ".join(q(v) for v in values) + ")"


#: a literal's lexical form by regular expression (nt_lex: the forms without a fast path)
_LEX_BY_RE = "nt_unesc(regexp_extract(t, '^\"(.*)\"(@[^\"]*|\\^\\^<[^>]*>)?$', 1))"

MACROS = [
    # the integer value of an xsd:integer literal, else NULL
    f"CREATE OR REPLACE MACRO nt_int(t) AS CASE WHEN suffix(t, {q(INT_SUFFIX)}) "
    f"THEN TRY_CAST(substr(t, 2, length(t) - {len(INT_SUFFIX) + 1}) AS BIGINT) END",
    f"CREATE OR REPLACE MACRO int_term(i) AS '\"' || CAST(i AS VARCHAR) || {q(INT_SUFFIX)}",
    f"CREATE OR REPLACE MACRO bool_term(b) AS CASE WHEN b THEN {q(BOOL_TRUE[0])} WHEN NOT b THEN {q(BOOL_FALSE[0])} END",
    # N-Triples string escapes are a subset of JSON's, so JSON decoding undoes them exactly
    "CREATE OR REPLACE MACRO nt_unesc(s) AS CASE WHEN contains(s, '\\') "
    "THEN json_extract_string(CAST('\"' || s || '\"' AS JSON), '$') ELSE s END",
    # a stored term in full, and a full term as stored
    f"CREATE OR REPLACE MACRO nt_expand(t) AS CASE WHEN prefix(t, {q(SHORT)}) THEN {q(LONG)} || substr(t, {len(SHORT) + 1}) ELSE t END",
    f"CREATE OR REPLACE MACRO nt_compact(t) AS CASE WHEN prefix(t, {q(LONG)}) THEN {q(SHORT)} || substr(t, {len(LONG) + 1}) ELSE t END",
    # STR() of an IRI (its full text), NULL for anything else
    f"CREATE OR REPLACE MACRO iri_lex(t) AS CASE WHEN prefix(t, {q(SHORT)}) THEN {q(CAST_NS)} || substr(t, {len(SHORT) + 1}, length(t) - {len(SHORT) + 1}) "
    "WHEN t[1] = '<' THEN substr(t, 2, length(t) - 2) END",
    # STR(): an IRI's text or a literal's lexical form; NULL (error) for a blank node
    # A simple literal and an xsd:integer (the usual operands) are cut out without the regular expression,
    # which cost ~5 µs a row, most of a rule that builds IRIs from positions; a term holding a line feed
    # (canonical N-Triples escapes it) still takes the expression, whose `.` stops there, so even a
    # malformed term decodes as before.
    "CREATE OR REPLACE MACRO nt_lex(t) AS CASE WHEN t[1] = '<' THEN iri_lex(t) "
    f"WHEN t[1] <> '\"' THEN NULL WHEN contains(t, chr(10)) THEN {_LEX_BY_RE} "
    "WHEN t[-1] = '\"' AND length(t) > 1 THEN nt_unesc(substr(t, 2, length(t) - 2)) "
    f"WHEN suffix(t, {q(INT_SUFFIX)}) AND length(t) > {len(INT_SUFFIX)} THEN nt_unesc(substr(t, 2, length(t) - {len(INT_SUFFIX) + 1})) "
    f"ELSE {_LEX_BY_RE} END",
    # the lexical form of a simple literal (xsd:string), else NULL
    "CREATE OR REPLACE MACRO nt_simple(t) AS CASE WHEN t[1] = '\"' AND t[-1] = '\"' "
    "THEN nt_unesc(substr(t, 2, length(t) - 2)) END",
    # the lexical form of a string literal, simple or language-tagged (CONCAT's argument), else NULL
    "CREATE OR REPLACE MACRO nt_strlex(t) AS CASE WHEN t[1] = '\"' AND t[-1] = '\"' "
    "THEN nt_unesc(substr(t, 2, length(t) - 2)) WHEN t[1] = '\"' AND regexp_full_match(t, '\"(.*)\"@[A-Za-z0-9-]+') "
    "THEN nt_unesc(regexp_extract(t, '^\"(.*)\"@[A-Za-z0-9-]+$', 1)) END",
    "CREATE OR REPLACE MACRO nt_dt(t) AS CASE WHEN t[1] <> '\"' THEN NULL WHEN t[-1] = '\"' THEN "
    f"{q(XSD + 'string')} WHEN t[-1] = '>' THEN regexp_extract(t, '\\^\\^<([^>]*)>$', 1) ELSE 'lang' END",
    f"CREATE OR REPLACE MACRO nt_bool(t) AS CASE WHEN t IN {_in(BOOL_TRUE)} THEN TRUE WHEN t IN {_in(BOOL_FALSE)} THEN FALSE END",
    # SPARQL's effective boolean value
    "CREATE OR REPLACE MACRO nt_ebv(t) AS CASE WHEN nt_bool(t) IS NOT NULL THEN nt_bool(t) "
    "WHEN nt_int(t) IS NOT NULL THEN nt_int(t) <> 0 WHEN t[1] = '\"' AND t[-1] = '\"' THEN length(t) > 2 END",
    # SPARQL `=` on two terms as pyoxigraph answers it: the same term; numbers and booleans by value;
    # two literals of different supported datatypes (or one tagged, one not) false; an unknown
    # datatype an error (NULL). Two xsd:dateTime literals compare by value there: rules that reach
    # this macro are flagged `ordered` and run on pyoxigraph while a batch holds a dateTime.
    "CREATE OR REPLACE MACRO nt_eq(a, b) AS CASE WHEN a = b THEN TRUE WHEN a[1] <> '\"' OR b[1] <> '\"' THEN FALSE "
    "WHEN nt_int(a) IS NOT NULL AND nt_int(b) IS NOT NULL THEN nt_int(a) = nt_int(b) "
    "WHEN nt_bool(a) IS NOT NULL AND nt_bool(b) IS NOT NULL THEN nt_bool(a) = nt_bool(b) "
    f"WHEN nt_dt(a) IN {_in(KNOWN)} AND nt_dt(b) IN {_in(KNOWN)} AND (nt_dt(a) <> nt_dt(b) "
    f"OR nt_dt(a) IN ({q(XSD + 'string')}, 'lang')) THEN FALSE END",
    f"CREATE OR REPLACE MACRO iri_of(s) AS CASE WHEN regexp_full_match(s, {q(IRI_RE)}) THEN (CASE WHEN prefix(s, {q(CAST_NS)}) "
    f"THEN {q(SHORT)} || substr(s, {len(CAST_NS) + 1}) ELSE '<' || s END) || '>' END",
    "CREATE OR REPLACE MACRO nt_iri(t) AS CASE WHEN t[1] = '<' THEN t WHEN t[1] = '\"' AND t[-1] = '\"' "
    "THEN iri_of(nt_simple(t)) END",
]


def install(con) -> None:
    for m in MACROS:
        con.execute(m)
