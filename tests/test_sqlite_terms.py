"""sqlite_terms' Python functions give exactly what terms.py's DuckDB macros give (the SQLite back end).

Differential: every macro is evaluated in DuckDB (`terms.install`) and, through a sqlite3 connection,
in Python (`sqlite_terms.install`), on a corpus of terms in pyoxigraph's canonical N-Triples form plus
hand-made edge cases (empty and one-character strings, raw newlines, bad escapes). Results must be equal
and of the same kind: NULL/None, BOOLEAN/bool (SQLite hands a bool back as 1/0), BIGINT/int,
VARCHAR/str; where DuckDB raises, SQLite must raise too. Also the DuckDB built-ins SQLite lacks:
strpos, error, any_value, arg_max, arg_min.
"""
from __future__ import annotations

import random
import re
import sqlite3

import duckdb
import pyoxigraph as ox
import pytest

from liuyao_kg.reasoner.columnar import sqlite_terms, terms

XSD = terms.XSD
INT = ox.NamedNode(XSD + "integer")
BOOLEAN = ox.NamedNode(XSD + "boolean")

#: what each macro returns in DuckDB
BOOLEAN_RESULT = {"nt_bool", "nt_ebv", "nt_eq"}
ONE_ARG_ON_TERMS = ["nt_int", "nt_unesc", "nt_lex", "nt_simple", "nt_strlex", "nt_dt", "nt_bool", "nt_ebv", "nt_iri",
                    "iri_lex", "nt_compact", "nt_expand"]
#: the macros that decode escapes, so that DuckDB raises on a malformed one ("Malformed JSON")
DECODING = {"nt_unesc", "nt_lex", "nt_simple", "nt_strlex", "nt_iri"}


def lit(value, datatype=None, language=None) -> str:
    if datatype is not None:
        return str(ox.Literal(value, datatype=datatype))
    if language is not None:
        return str(ox.Literal(value, language=language))
    return str(ox.Literal(value))


def int_lit(lexical: str) -> str:
    return lit(lexical, INT)


IRI_STRINGS = ["http://a/b", "not an iri", "a:b", "http://a/<b>", "http://a/%zz", "http://a/%41", "urn:x", "",
               "https://w3id.org/liuyao-kg/cast/x/line/1", "http://例え/身命", "http://a/b c", "http://a/\tb",
               "http://a/\x0bb", "http://a/\x0cb", "http://a/\u00a0b", "http://a/\u2003b", "x:y\n", "x:\n",
               "1http://a", ":x", "h:", "a+b-c.d:x", "http://a/{b}", "http://a/|", "http://a/^", "http://a/`",
               "http://a/\\", 'http://a/"', "http://a/%4", "http://a/%4g", "http://a/%", "mailto:x@y",
               "https://w3id.org/liuyao-kg/cast/", "https://w3id.org/liuyao-kg/cast", "~x:y"]

CANONICAL = [
    "<http://a/b>", "<https://w3id.org/liuyao-kg/cast/x/line/1>", str(ox.NamedNode("http://例え/身命")),
    str(ox.BlankNode("b0")),
    lit("a"), lit(""), lit('with "quote" and \\ backslash'), lit("tab\tnewline\n"), lit("身命"), lit("emoji 😀"),
    lit("cr\r bs\b ff\f nul\x00 del\x7f us\x1f"), lit('""'), lit("\\u0041 is not an escape"),
    lit("x", language="en"), lit("x", language="zh-Hant"), '"x"@zh-Hant', lit('say "hi"\n', language="en"),
    lit("a", language="en-US"),
    *(int_lit(v) for v in ["0", "-5", "+7", "007", "1.5", "99999999999999999999", " 7", "7 ", "1e3", "0x10",
                           "1_000", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "",
                           "abc", "-0", "- 1", "\u0661"]),
    lit(True), lit(False), lit("1", BOOLEAN), lit("0", BOOLEAN), lit("TRUE", BOOLEAN), lit("yes", BOOLEAN),
    lit("2024-03-05T10:00:00+08:00", ox.NamedNode(XSD + "dateTime")),
    lit("1.50", ox.NamedNode(XSD + "decimal")), lit("1.5E0", ox.NamedNode(XSD + "double")), lit(2.5),
    lit("x", ox.NamedNode("http://example.org/dt")), lit("x", ox.NamedNode(XSD + "string")),
    *(lit(s) for s in IRI_STRINGS),
]

#: not canonical N-Triples, but every macro must still give what DuckDB gives on them
EDGE = [
    "", "<", '"', "<>", '""', "x", "_:", terms.INT_SUFFIX, "x" + terms.INT_SUFFIX, '"' + terms.INT_SUFFIX,
    '"a"@', '"a"^^<', '"a"^^<>', '"a', 'a"', '"a"@en"@fr', '"a"^^<b>c"^^<d>', '"a\nb"', '"a"\n',
    '"x"^^<http://e/dt>\n', '"5"^^<http://www.w3.org/2001/XMLSchema#integer>\n', "'single'", '"a"@en-',
    '"a"@-', '"a>', '"tab\tin"@en', '"@en"', '"x"^^<a>b>', '<http://a/b', 'http://a/b>', '"<http://a/b>"',
    '"\\u00e9"', '"\\uD83D\\uDE00"', '"a\\/b"', '"\\"\\\\"@en', '"a\\"b"^^<http://e/dt>',
    # the cast namespace as stored (terms.compact), and near it
    "<~x/line/1>", "<~>", "<~", "<~x", "~x>", "<https://w3id.org/liuyao-kg/cast/>", "<https://w3id.org/liuyao-kg/cast",
    "<https://w3id.org/liuyao-kg/castx>", '"<~x>"', "_:~x",
]
#: strings with a backslash that JSON cannot decode: DuckDB's CAST(... AS JSON) raises
MALFORMED = ['"bad \\x escape"', '"lone \\ud83d surrogate"', '"\\ude00"', '"short \\u12"', '"raw " quote \\n"',
             '"raw\ttab \\n"', '"ends in \\"', '"\\U00000041"', '"\\ud800\\ud800"', '"x"@en\\q',
             '"^^<http://www.w3.org/2001/XMLSchema#integer>😀>\\u0041']  # (DuckDB's message: cut UTF-8)

TERMS = [None, *dict.fromkeys(CANONICAL + EDGE + MALFORMED)]


@pytest.fixture(scope="module")
def duck():
    con = duckdb.connect()
    con.execute("SET threads = 1")  # the aggregates' ties: rows in input order
    terms.install(con)
    yield con
    con.close()


@pytest.fixture()
def lite():
    con = sqlite3.connect(":memory:")
    installed = sqlite_terms.install(con)
    yield con, installed
    con.close()


def duck_batch(duck, fn: str, columns: list[list], types: str = "VARCHAR") -> list:
    """`fn(col0[i], col1[i], …)` in DuckDB for every i, in one statement."""
    n = len(columns[0])
    lists = ", ".join(f"?::{types}[] AS c{k}" for k in range(len(columns)))
    args = ", ".join(f"c{k}[i]" for k in range(len(columns)))
    rows = duck.execute(f"SELECT i, {fn}({args}) FROM (SELECT {lists}) AS p, range(1, {n + 1}) AS r(i) ORDER BY i",
                        columns).fetchall()
    assert [i for i, _ in rows] == list(range(1, n + 1))
    return [v for _, v in rows]


def duck_one(duck, fn: str, *args, cast: str = "VARCHAR"):
    """('ok', value) or ('raises', message) for one call in DuckDB."""
    placeholders = ", ".join(f"?::{cast}" for _ in args)
    try:
        return "ok", duck.execute(f"SELECT {fn}({placeholders})", list(args)).fetchone()[0]
    except duckdb.Error as e:
        return "raises", str(e)
    except UnicodeDecodeError:
        # DuckDB raised, but its message quotes the input cut inside a UTF-8 sequence, which Python's
        # client cannot decode; TRY() confirms that the call failed
        assert duck.execute(f"SELECT TRY({fn}({placeholders})) IS NULL", list(args)).fetchone()[0]
        return "raises", None


def lite_one(lite, fn: str, *args):
    """('ok', value) or ('raises', exception recorded by the install) for one call through SQLite."""
    con, installed = lite
    installed.last_error = None
    try:
        return "ok", con.execute(f"SELECT {fn}({', '.join('?' for _ in args)})", args).fetchone()[0]
    except sqlite3.OperationalError:
        return "raises", installed.last_error


def same_kind(fn: str, duck_value, mine, via_sqlite: bool) -> bool:
    """Equal, and of the kind the macro returns (bool: 1/0 through SQLite)."""
    if duck_value is None or mine is None:
        return duck_value is None and mine is None
    if fn in BOOLEAN_RESULT:
        assert type(duck_value) is bool
        if via_sqlite:
            return type(mine) is int and mine in (0, 1) and bool(mine) == duck_value
        return type(mine) is bool and mine == duck_value
    return type(mine) is type(duck_value) and mine == duck_value


def assert_agree(fn: str, args_list: list[tuple], duck_values: list, lite) -> None:
    py = getattr(sqlite_terms, fn)
    con, _ = lite
    sql = f"SELECT {fn}({', '.join('?' for _ in args_list[0])})"
    bad = []
    for args, d in zip(args_list, duck_values):
        direct = py(*args)
        (through,) = con.execute(sql, args).fetchone()
        if not (same_kind(fn, d, direct, False) and same_kind(fn, d, through, True)):
            bad.append((args, d, direct, through))
    assert not bad, f"{fn} disagrees with DuckDB on {len(bad)} inputs, e.g. {bad[:5]}"


# --- one-argument macros on terms -------------------------------------------------------------------


@pytest.mark.parametrize("fn", sorted(set(ONE_ARG_ON_TERMS) - DECODING))
def test_each_non_decoding_macro_agrees_with_duckdb_on_every_term(duck, lite, fn):
    assert_agree(fn, [(t,) for t in TERMS], duck_batch(duck, fn, [TERMS]), lite)


@pytest.mark.parametrize("fn", sorted(DECODING))
def test_each_decoding_macro_agrees_with_duckdb_on_every_term_and_raises_where_it_raises(duck, lite, fn):
    py = getattr(sqlite_terms, fn)
    raised = 0
    for t in TERMS:
        d_kind, d = duck_one(duck, fn, t)
        m_kind, m = lite_one(lite, fn, t)
        assert m_kind == d_kind, (fn, t, d, m)
        if d_kind == "raises":
            raised += 1
            assert d is None or "Malformed JSON" in d, d
            assert isinstance(m, sqlite_terms.MalformedTermError), (fn, t, m)
            with pytest.raises(sqlite_terms.MalformedTermError):
                py(t)
        else:
            assert same_kind(fn, d, m, True), (fn, t, d, m)
            assert same_kind(fn, d, py(t), False), (fn, t, d, py(t))
    # nt_unesc decodes the whole term (which then holds a bad escape); the others only what they extract
    assert raised >= (len(MALFORMED) if fn == "nt_unesc" else 1)


def test_nt_unesc_agrees_with_duckdb_on_raw_strings_with_and_without_backslashes(duck, lite):
    strings = [None, "", "plain", "a\\nb", "\\\\", "\\/", "\\b\\f\\r\\t", "\\u0000", "\\u00E9\\u00e9",
               "\\ud83d\\ude00", "é \\\" 身", "raw \"quote\" no backslash", "raw\ttab no backslash",
               "\\", "a\\", "\\x", "\\u004G", "\\ud83d", "\\ud83d\\u0041", "a\\n\x01", "a\\n\x7f",
               'a"b\\n', "\\n\" ", "\\uFFFF\\uFEFF\\u2028"]
    for s in strings:
        d_kind, d = duck_one(duck, "nt_unesc", s)
        m_kind, m = lite_one(lite, "nt_unesc", s)
        assert (m_kind, m if m_kind == "ok" else type(m)) == (
            d_kind, d if d_kind == "ok" else sqlite_terms.MalformedTermError), s


def test_nt_int_agrees_with_duckdb_try_cast_on_every_lexical_form_duckdb_accepts_or_refuses(duck, lite):
    """TRY_CAST(… AS BIGINT): signs, spaces, '_', hex/binary, decimals rounded, exponents, int64 range."""
    curated = ["0", "-5", "+7", "007", "1.5", "2.5", "-2.5", "1.4999", ".5", "1.", ".", "+", "-", "", " ",
               " 7", "7 ", "\t7\n", "\x0b7", "7\x00", "- 7", "-\n", "+ ", "1e3", "1E3", "1e+2", "1e-1", "5e-1",
               "149e-2", "9e-9", "0.7e-1", "1.5e0", "1e", "e1", "4e ", "4e1 ", "1.e2", "1_000", "1__0", "_1",
               "1_", "1.0_0", "0x10", "0X1f", "0x1_F", "0x", "0xg", "-0x10", "+0x10", "0x7fffffffffffffff",
               "0x8000000000000000", "0b101", "0B11", "0b", "0o7", "9223372036854775807",
               "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999",
               "9223372036854775807.4", "9223372036854775807.5", "1e18", "1e19", "1e32767", "1e32768",
               "1e-32768", "0" * 40 + "1", "1" + "0" * 30 + "e-30", "inf", "nan", "\u0661\u0662", "\u00a07",
               "1 2", "+-1", "--1", "1.2.3"]
    rnd = random.Random(20240305)
    alphabet = "0123456789" * 3 + "+-._eE xXbB\tafF\n"
    fuzz = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(3000)]
    for _ in range(1000):
        digits = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 21)))
        frac = rnd.choice(["", ".", "." + "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 22)))])
        exp = rnd.choice(["", "e" + str(rnd.randint(-25, 25)), "e-" + str(rnd.randint(0, 40000))])
        fuzz.append(rnd.choice(["", "-", "+", " "]) + digits + frac + exp)
    literals = [int_lit(s) for s in dict.fromkeys(curated + fuzz)]
    assert_agree("nt_int", [(t,) for t in literals], duck_batch(duck, "nt_int", [literals]), lite)
    accepted = sum(v is not None for v in duck_batch(duck, "nt_int", [literals]))
    assert 0 < accepted < len(literals)  # the corpus holds both kinds


# --- two-argument and value-to-term macros ----------------------------------------------------------


def test_nt_eq_agrees_with_the_duckdb_macro_on_every_pair(duck, lite):
    pairs = [(a, b) for a in TERMS for b in TERMS]
    values = duck_batch(duck, "nt_eq", [[a for a, _ in pairs], [b for _, b in pairs]])
    assert_agree("nt_eq", pairs, values, lite)
    assert {True, False, None} <= set(values)


def test_int_term_agrees_with_duckdb_on_integers_doubles_and_null(duck, lite):
    for value, cast in [(0, "BIGINT"), (-3, "BIGINT"), (2 ** 62, "BIGINT"), (2 ** 63 - 1, "BIGINT"),
                        (-2 ** 63, "BIGINT"), (None, "BIGINT"), (1.0, "DOUBLE"), (0.1, "DOUBLE"),
                        (1e16, "DOUBLE"), (1e-5, "DOUBLE"), (-0.0, "DOUBLE"), (float("inf"), "DOUBLE")]:
        d_kind, d = duck_one(duck, "int_term", value, cast=cast)
        m_kind, m = lite_one(lite, "int_term", value)
        assert (d_kind, m_kind) == ("ok", "ok") and m == d == sqlite_terms.int_term(value), (value, d, m)
    assert sqlite_terms.nt_int(sqlite_terms.int_term(2 ** 62)) == 2 ** 62


def test_bool_term_agrees_with_duckdb_on_true_false_null_and_sqlite_integers(duck, lite):
    for value, cast in [(True, "BOOLEAN"), (False, "BOOLEAN"), (None, "BOOLEAN"), (1, "INTEGER"),
                        (0, "INTEGER"), (2, "INTEGER"), (-1, "INTEGER")]:
        d_kind, d = duck_one(duck, "bool_term", value, cast=cast)
        m_kind, m = lite_one(lite, "bool_term", value)
        assert (d_kind, m_kind) == ("ok", "ok") and m == d == sqlite_terms.bool_term(value), (value, d, m)
    assert sqlite_terms.nt_bool(sqlite_terms.bool_term(True)) is True


def test_iri_of_agrees_with_duckdb_on_strings_that_are_or_look_like_iris(duck, lite):
    strings = [None, *IRI_STRINGS]
    values = duck_batch(duck, "iri_of", [strings])
    assert_agree("iri_of", [(s,) for s in strings], values, lite)
    assert values[strings.index("http://a/%41")] == "<http://a/%41>"
    assert values[strings.index("http://a/%zz")] is None


def test_results_have_the_macros_python_types_when_called_directly():
    assert sqlite_terms.nt_eq('"1"^^<' + XSD + 'integer>', '"+1"^^<' + XSD + 'integer>') is True
    assert sqlite_terms.nt_eq("<http://a/b>", None) is False  # a non-literal side: FALSE even beside NULL
    # NULL falls through every WHEN of nt_dt to its ELSE 'lang', so NULL = "a" is FALSE, not NULL
    assert sqlite_terms.nt_dt(None) == "lang"
    assert sqlite_terms.nt_eq('"a"', None) is False and sqlite_terms.nt_eq(None, None) is False
    assert sqlite_terms.nt_eq(None, lit("x", ox.NamedNode("http://example.org/dt"))) is None
    assert sqlite_terms.nt_ebv(lit("")) is False and sqlite_terms.nt_ebv(int_lit("3")) is True
    assert type(sqlite_terms.nt_int(int_lit("+7"))) is int
    assert sqlite_terms.nt_lex("<") == "<" and sqlite_terms.nt_simple('"') == '"'  # substr's negative length
    assert sqlite_terms.nt_dt('"a>') == ""  # regexp_extract without a match: '' not NULL
    assert sqlite_terms.nt_dt('"a"^^<') == "lang"


# --- DuckDB built-ins -------------------------------------------------------------------------------


def test_strpos_agrees_with_duckdb_strpos(duck, lite):
    pairs = [(a, b) for a in [None, "", "abc", "😀abc", "aXbX", "身命身", '"a"@en']
             for b in [None, "", "a", "b", "X", "命", "😀", "z", "@", "abc", "abcd"]]
    values = duck_batch(duck, "strpos", [[a for a, _ in pairs], [b for _, b in pairs]])
    assert_agree("strpos", pairs, values, lite)


def test_error_raises_term_order_error_recorded_by_install_and_error_of_null_is_null(duck, lite):
    con, installed = lite
    with pytest.raises(sqlite3.OperationalError):
        con.execute("SELECT error('terms the SQL does not order')").fetchall()
    assert isinstance(installed.last_error, sqlite_terms.TermOrderError)
    assert str(installed.last_error) == "terms the SQL does not order"
    assert installed.take_refusal() is True and installed.last_error is None
    assert installed.take_refusal() is False
    with pytest.raises(duckdb.InvalidInputException, match="boom"):
        duck.execute("SELECT error('boom')").fetchall()
    with pytest.raises(sqlite_terms.TermOrderError, match="boom"):
        sqlite_terms.error("boom")
    assert duck.execute("SELECT error(NULL::VARCHAR)").fetchone()[0] is None
    assert con.execute("SELECT error(NULL)").fetchone()[0] is None
    # a branch not taken is not evaluated, though error() is registered deterministic
    assert con.execute("SELECT CASE WHEN x = 1 THEN 'ok' ELSE error('never') END FROM (SELECT 1 AS x)").fetchall() \
        == [("ok",)]
    assert installed.last_error is None


def test_a_malformed_escape_is_recorded_but_is_not_a_refusal(lite):
    con, installed = lite
    with pytest.raises(sqlite3.OperationalError):
        con.execute("SELECT nt_lex(?)", ['"bad \\x"']).fetchall()
    assert isinstance(installed.last_error, sqlite_terms.MalformedTermError)
    assert installed.take_refusal() is False


def test_a_malformed_escape_is_recorded_each_time_it_is_met_though_results_are_cached(lite):
    con, installed = lite
    for _ in range(2):
        installed.last_error = None
        with pytest.raises(sqlite3.OperationalError):
            con.execute("SELECT nt_lex(?)", ['"bad \\x"']).fetchall()
        assert isinstance(installed.last_error, sqlite_terms.MalformedTermError)


ROW_SETS = {
    "a tie on the largest y": [("a", 1), ("b", 3), ("c", 3), ("d", 2)],
    "a tie on the smallest y": [("p", 1), ("q", 1), ("r", 1)],
    "all NULL": [(None, None), (None, None)],
    "NULL y and NULL x": [("x", None), (None, 5), ("y", 4), (None, 0)],
    "x without y": [("z", None)],
    "y without x": [(None, 1), (None, 2)],
    "one row": [("only", 7)],
    "int64 extremes": [("lo", -2 ** 63), ("hi", 2 ** 63 - 1), ("mid", 0)],
    "no rows": [],
    "equal values": [(None, 1), ("v", 2), ("v", 1)],
}


@pytest.mark.parametrize("name", ROW_SETS)
def test_aggregates_agree_with_duckdb_any_value_arg_max_and_arg_min(duck, lite, name):
    rows = ROW_SETS[name]
    xs, ys = [x for x, _ in rows], [y for _, y in rows]
    d_max, d_min, d_any = duck.execute(
        "SELECT arg_max(x, y), arg_min(x, y), any_value(x) FROM "
        "(SELECT unnest(?::VARCHAR[]) AS x, unnest(?::BIGINT[]) AS y)", [xs, ys]).fetchone()
    con, _ = lite
    con.execute("CREATE TABLE r (x TEXT, y INTEGER)")
    con.executemany("INSERT INTO r VALUES (?, ?)", rows)
    m_max, m_min, m_any = con.execute("SELECT arg_max(x, y), arg_min(x, y), any_value(x) FROM r").fetchone()
    assert (m_max, m_min) == (d_max, d_min)
    non_null = [x for x in xs if x is not None]
    assert m_any == (non_null[0] if non_null else None)  # the first non-NULL value
    if len(set(non_null)) <= 1:
        assert m_any == d_any


def test_ties_go_to_the_first_row_as_in_duckdb_on_one_thread(duck, lite):
    con, _ = lite
    con.execute("CREATE TABLE r (x TEXT, y INTEGER)")
    con.executemany("INSERT INTO r VALUES (?, ?)", [("b", 3), ("a", 3), ("c", 1), ("d", 1)])
    assert con.execute("SELECT arg_max(x, y), arg_min(x, y) FROM r").fetchone() == ("b", "c")
    assert duck.execute("SELECT arg_max(x, y), arg_min(x, y) FROM (VALUES ('b', 3), ('a', 3), ('c', 1), ('d', 1)) "
                        "AS t(x, y)").fetchone() == ("b", "c")


def test_the_generated_max_pattern_runs_alike_and_refuses_non_integers_alike(duck, lite):
    """translate.py's MAX/MIN: arg_max over nt_int when every term is an integer, else error()."""
    con, installed = lite
    sql = ("SELECT g, (CASE WHEN COUNT(o) = COUNT(nt_int(o)) THEN arg_max(o, nt_int(o)) "
           "ELSE error('terms the SQL does not order') END) AS m, "
           "(CASE WHEN COUNT(o) = COUNT(nt_int(o)) THEN arg_min(o, nt_int(o)) "
           "ELSE error('terms the SQL does not order') END) AS n FROM {t} GROUP BY g ORDER BY g")
    good = [("g1", int_lit("3")), ("g1", int_lit("-10")), ("g1", int_lit("+12")), ("g2", int_lit("0")),
            ("g2", None), ("g3", None)]
    con.execute("CREATE TABLE good (g TEXT, o TEXT)")
    con.executemany("INSERT INTO good VALUES (?, ?)", good)
    duck.execute("CREATE OR REPLACE TEMP TABLE good (g VARCHAR, o VARCHAR)")
    duck.executemany("INSERT INTO good VALUES (?, ?)", good)
    expected = duck.execute(sql.format(t="good")).fetchall()
    assert con.execute(sql.format(t="good")).fetchall() == expected
    assert expected[0][1:] == (int_lit("+12"), int_lit("-10")) and expected[2][1:] == (None, None)
    bad = good + [("g2", lit("x"))]
    con.execute("CREATE TABLE bad (g TEXT, o TEXT)")
    con.executemany("INSERT INTO bad VALUES (?, ?)", bad)
    duck.execute("CREATE OR REPLACE TEMP TABLE bad (g VARCHAR, o VARCHAR)")
    duck.executemany("INSERT INTO bad VALUES (?, ?)", bad)
    with pytest.raises(duckdb.InvalidInputException, match="terms the SQL does not order"):
        duck.execute(sql.format(t="bad")).fetchall()
    installed.last_error = None
    with pytest.raises(sqlite3.OperationalError):
        con.execute(sql.format(t="bad")).fetchall()
    assert installed.take_refusal() is True


def test_install_registers_every_macro_of_terms_py_with_its_arity(lite):
    declared = {m.group(1): len(m.group(2).split(","))
                for m in (re.match(r"CREATE OR REPLACE MACRO (\w+)\(([^)]*)\)", s) for s in terms.MACROS)}
    assert declared == {name: n for name, (n, _) in sqlite_terms.FUNCTIONS.items() if name in declared}
    assert set(declared) | {"strpos", "error"} == set(sqlite_terms.FUNCTIONS)
    con, _ = lite
    names = {r[0] for r in con.execute("SELECT name FROM pragma_function_list").fetchall()}
    assert set(sqlite_terms.FUNCTIONS) | set(sqlite_terms.AGGREGATES) <= names


def test_the_substr_helper_agrees_with_duckdb_substr_on_every_offset_and_length_sign(duck):
    """The macros call substr(t, 2, length(t) - k), a negative length on short strings ('<' → '<')."""
    rnd = random.Random(7)
    cases = [("".join(rnd.choice("ab😀身c") for _ in range(rnd.randint(0, 6))), rnd.randint(-8, 8),
              rnd.randint(-8, 8)) for _ in range(3000)]
    rows = duck.execute("SELECT i, substr(s[i], o[i], l[i]) FROM (SELECT ?::VARCHAR[] s, ?::BIGINT[] o, ?::BIGINT[] l) "
                        f"AS p, range(1, {len(cases) + 1}) AS r(i) ORDER BY i",
                        [[s for s, _, _ in cases], [o for _, o, _ in cases], [n for _, _, n in cases]]).fetchall()
    bad = [(c, d) for c, (_, d) in zip(cases, rows) if sqlite_terms._substr(*c) != d]
    assert not bad, bad[:5]


PIECES = ['"', '"', "<", ">", "@", "^^", "^^<", "en", "-", "a", "身", "😀", " ", "\t", "\n", "\\", "\\n", '\\"',
          "\\u0041", "\\ud83d", "%41", "%z", ":", "http", "x:", "{", "|", terms.INT_SUFFIX, '"^^<' + XSD + "boolean>",
          "true", "1", "+", "0", "_:b"]


def random_terms(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 7))) for _ in range(n)]


def test_every_macro_agrees_with_duckdb_on_random_strings_of_term_pieces(duck, lite):
    batch = random_terms(1, 2500)
    for fn in sorted(set(ONE_ARG_ON_TERMS) - DECODING) + ["iri_of"]:
        assert_agree(fn, [(t,) for t in batch], duck_batch(duck, fn, [batch]), lite)
    firsts, seconds = random_terms(2, 2500), random_terms(3, 2500)
    assert_agree("nt_eq", list(zip(firsts, seconds)), duck_batch(duck, "nt_eq", [firsts, seconds]), lite)
    for t in random_terms(4, 150):
        for fn in sorted(DECODING):
            d_kind, d = duck_one(duck, fn, t)
            m_kind, m = lite_one(lite, fn, t)
            assert m_kind == d_kind, (fn, t, d, m)
            assert same_kind(fn, d, m, True) if d_kind == "ok" else isinstance(m, sqlite_terms.MalformedTermError)
