"""SPARQL's operators and functions on native terms, with pyoxigraph's semantics (spareval's `equals`,
`partial_cmp`, effective boolean value, CONCAT, STRAFTER, IRI, arithmetic on xsd:integer as i64).

An error is `None`, as an unbound variable is: a FILTER keeps a solution only for `True`, a BIND leaves its
variable unbound, `&&` / `||` / `!` follow the three-valued tables of SPARQL 1.1 §17.2. The compiled rules call
these where a construct cannot be decided while compiling (terms' kinds are known only at run time).
"""
from __future__ import annotations

import math
import re
import struct
from decimal import Decimal, localcontext

import pyoxigraph as ox

from liuyao_kg.namespaces import CAST
from liuyao_kg.reasoner.native.terms import (
    FALSE, RDF_LANG_STRING, TRUE, XSD, XSD_BOOLEAN, XSD_DECIMAL, XSD_DOUBLE, XSD_FLOAT, XSD_INTEGER, XSD_STRING, BNode,
)

# kinds of terms, as spareval's ExpressionTerm tells them apart (TEMPORAL: its date, time and duration kinds)
IRI, BLANK, LANG, STRING, BOOLEAN, INTEGER, DECIMAL, FLOAT, DOUBLE, OTHER, TEMPORAL = range(11)
_TEMPORAL = frozenset(XSD + t for t in ("dateTime", "dateTimeStamp", "date", "time", "duration", "dayTimeDuration",
                                        "yearMonthDuration", "gYear", "gYearMonth", "gMonth", "gDay", "gMonthDay"))


class NotNative(Exception):
    """A case the native code does not decide as pyoxigraph would (two dates by value, MIN of a number and a
    string): the engine evaluates that rule on pyoxigraph for the cast instead."""
_NUMERIC = frozenset((INTEGER, DECIMAL, FLOAT, DOUBLE))
_I64 = (-(1 << 63), (1 << 63) - 1)
_INTEGER_LEX = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
_DECIMAL_LEX = re.compile(r"-?[0-9]+(?:\.[0-9]+)?\Z")
_DOUBLE_LEX = re.compile(r"(?:-?[0-9]+(?:\.[0-9]+)?(?:E-?[0-9]+)?|INF|-INF|NaN)\Z")
_BY_DATATYPE = {XSD_STRING: STRING, XSD_BOOLEAN: BOOLEAN, XSD_INTEGER: INTEGER, XSD_DECIMAL: DECIMAL,
                XSD_FLOAT: FLOAT, XSD_DOUBLE: DOUBLE}


def kind(t) -> int:
    """The ExpressionTerm kind of a (bound) term; a numeric literal of no valid value is OTHER, as in spareval."""
    if type(t) is str:
        return IRI
    if type(t) is tuple:
        if len(t) == 3:
            return LANG
        k = _BY_DATATYPE.get(t[1], OTHER)
        if k is OTHER:
            return TEMPORAL if t[1] in _TEMPORAL else OTHER
        if k is INTEGER:
            if not _INTEGER_LEX.match(t[0]) or not _I64[0] <= int(t[0]) <= _I64[1]:
                return OTHER
        elif k is DECIMAL:
            return DECIMAL if _DECIMAL_LEX.match(t[0]) else OTHER
        elif k is FLOAT or k is DOUBLE:
            return k if _DOUBLE_LEX.match(t[0]) else OTHER
        elif k is BOOLEAN:
            return BOOLEAN if t[0] in ("true", "false") else OTHER
        return k
    if isinstance(t, BNode):
        return BLANK
    raise TypeError(f"not a native term: {t!r}")


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _value(k: int, t):
    lex = t[0]
    if k is INTEGER:
        return int(lex)
    if k is DECIMAL:
        return Decimal(lex)
    v = float(lex.replace("INF", "inf"))
    return _f32(v) if k is FLOAT else v


def _promote(ka: int, va, kb: int, vb):
    """Both numbers in the type SPARQL's numeric promotion gives the pair (xsd:integer < decimal < float < double)."""
    top = max(ka, kb)  # INTEGER < DECIMAL < FLOAT < DOUBLE, as the kinds are numbered
    if top is DOUBLE:
        return top, float(va), float(vb)
    if top is FLOAT:
        return top, _f32(float(va)), _f32(float(vb))
    if top is DECIMAL:
        return top, Decimal(va), Decimal(vb)
    return top, va, vb


def equals(a, b):
    """`=` (RDFterm-equal, numbers and booleans by value): True, False, or None for an error."""
    if a is None or b is None:
        return None
    ka = kind(a)
    if ka is IRI or ka is BLANK or ka is LANG:
        return a == b
    kb = kind(b)
    if ka is OTHER:
        if kb is OTHER and a == b:
            return True
        return False if kb in (IRI, BLANK, LANG) else None
    if kb is OTHER:
        return None
    if ka is TEMPORAL or kb is TEMPORAL:
        if ka is kb and a[1] == b[1]:
            if a[0] == b[0]:
                return True
            raise NotNative("two dates or durations compared by value")
        return False if ka is not kb else None
    if ka is STRING or ka is BOOLEAN:
        return a[0] == b[0] if kb is ka else False
    if kb in _NUMERIC:  # ka is numeric
        _, va, vb = _promote(ka, _value(ka, a), kb, _value(kb, b))
        return va == vb
    return False


def not_equals(a, b):
    r = equals(a, b)
    return None if r is None else not r


def compare(a, b):
    """`<`'s comparison (spareval's partial_cmp): -1, 0, 1, or None where the terms are not comparable."""
    if a is None or b is None:
        return None
    if a == b:
        return 0
    ka, kb = kind(a), kind(b)
    if ka is STRING:
        return (a[0] > b[0]) - (a[0] < b[0]) if kb is STRING else None
    if ka is LANG:
        if kb is LANG and a[2] == b[2]:
            return (a[0] > b[0]) - (a[0] < b[0])
        return None
    if ka in _NUMERIC and kb in _NUMERIC:
        _, va, vb = _promote(ka, _value(ka, a), kb, _value(kb, b))
        if va != va or vb != vb:  # NaN
            return None
        return (va > vb) - (va < vb)
    if ka is TEMPORAL and kb is TEMPORAL:
        raise NotNative("two dates or durations ordered")
    return None


def less(a, b):
    c = compare(a, b)
    return None if c is None else c < 0


def greater(a, b):
    c = compare(a, b)
    return None if c is None else c > 0


def less_eq(a, b):
    c = compare(a, b)
    return None if c is None else c <= 0


def greater_eq(a, b):
    c = compare(a, b)
    return None if c is None else c >= 0


def one_of(a, options):
    """`a IN (…)`: True at the first equal option, else None if some comparison erred, else False."""
    if a is None:
        return None
    error = False
    for o in options:
        r = equals(a, o)
        if r is True:
            return True
        if r is None:
            error = True
    return None if error else False


def ebv(t):
    """The effective boolean value of a term (None: an error)."""
    if t is None:
        return None
    k = kind(t)
    if k is BOOLEAN:
        return t[0] == "true"
    if k is STRING:
        return t[0] != ""
    if k in _NUMERIC:
        v = _value(k, t)
        return v == v and v != 0
    return None


def boolean(b):
    """A truth value as an xsd:boolean term (None stays an error)."""
    return None if b is None else (TRUE if b else FALSE)


def and_(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def or_(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def not_(a):
    return None if a is None else not a


def str_(t):
    """STR(): an IRI's text or a literal's lexical form, as a simple literal."""
    if type(t) is str:
        return (t, XSD_STRING)
    if type(t) is tuple:
        return (t[0], XSD_STRING)
    return None


def _string_and_language(t):
    if type(t) is tuple:
        if len(t) == 3:
            return t[0], t[2]
        if t[1] == XSD_STRING:
            return t[0], None
    return None


def concat(*args):
    """CONCAT(): of string literals only; the language tag kept when every argument has the same one."""
    parts = []
    language = ...
    for a in args:
        sl = _string_and_language(a)
        if sl is None:
            return None
        parts.append(sl[0])
        if language is ...:
            language = sl[1]
        elif language != sl[1]:
            language = None
    text = "".join(parts)
    if language is not ... and language is not None:
        return (text, RDF_LANG_STRING, language)
    return (text, XSD_STRING)


def _compatible(a, b):
    sa, sb = _string_and_language(a), _string_and_language(b)
    if sa is None or sb is None:
        return None
    if sb[1] is not None and sa[1] != sb[1]:
        return None
    return sa[0], sb[0], sa[1]


def _split_at(a, b, after: bool):
    """STRAFTER() / STRBEFORE(): the text after / before the first occurrence of b (argument-compatible
    strings, the language of a kept), else ""."""
    c = _compatible(a, b)
    if c is None:
        return None
    text, sep, language = c
    i = text.find(sep)
    if i < 0:
        return ("", XSD_STRING)
    part = text[i + len(sep):] if after else text[:i]
    return (part, RDF_LANG_STRING, language) if language is not None else (part, XSD_STRING)


def strafter(a, b):
    return _split_at(a, b, True)


def strbefore(a, b):
    return _split_at(a, b, False)


_IRI_CACHE: dict[str, str | None] = {}


def iri(t):
    """IRI(): an IRI as is, a simple literal parsed as an absolute IRI (no base), anything else an error."""
    if type(t) is str:
        return t
    if type(t) is tuple and len(t) == 2 and t[1] == XSD_STRING:
        return valid_iri(t[0])
    return None


def valid_iri(text: str):
    """`text` if it parses as an absolute IRI (pyoxigraph's own parser decides), else None."""
    try:
        ox.NamedNode(text)
    except ValueError:
        return None
    return text


def _numeric(t):
    if t is None:
        return None
    k = kind(t)
    if k not in _NUMERIC:
        return None
    return k, _value(k, t)


#: spareval's xsd:decimal: an i128 of 10^-18 units
_DECIMAL_MAX = Decimal("170141183460469231731.687303715884105727")


def _number(k: int, v):
    """A numeric result as the term pyoxigraph writes (an out-of-range integer is an error)."""
    if k is INTEGER:
        if not _I64[0] <= v <= _I64[1]:
            return None  # spareval's xsd:integer is an i64: an overflow is an error
        return (str(v), XSD_INTEGER)
    if k is DECIMAL:
        if v.as_tuple().exponent < -18 or abs(v) > _DECIMAL_MAX:
            raise NotNative("a decimal past spareval's 18 fractional digits or its range")
        return (format(v.normalize(), "f") if v else "0", XSD_DECIMAL)
    from liuyao_kg.reasoner.native.terms import _stored

    dt = XSD_DOUBLE if k is DOUBLE else XSD_FLOAT
    text = "NaN" if v != v else ("INF" if v > 0 else "-INF") if math.isinf(v) else repr(v)
    return _stored(text, dt, None)  # the value as pyoxigraph writes it


def _arith(a, b, op):
    na, nb = _numeric(a), _numeric(b)
    if na is None or nb is None:
        return None
    k, va, vb = _promote(na[0], na[1], nb[0], nb[1])
    if op == "/":
        if k is INTEGER:
            k, va, vb = DECIMAL, Decimal(va), Decimal(vb)
        if k is DECIMAL:
            if vb == 0:
                return None
            with localcontext() as ctx:
                ctx.prec = 80
                return _number(k, va / vb)
        if vb == 0:
            return _number(k, math.copysign(math.inf, va) * math.copysign(1, vb) if va else math.nan)
        return _number(k, _f32(va / vb) if k is FLOAT else va / vb)
    with localcontext() as ctx:
        ctx.prec = 80
        r = va + vb if op == "+" else va - vb if op == "-" else va * vb
    return _number(k, _f32(r) if k is FLOAT else r)


def add(a, b):
    return _arith(a, b, "+")


def subtract(a, b):
    return _arith(a, b, "-")


def multiply(a, b):
    return _arith(a, b, "*")


def divide(a, b):
    return _arith(a, b, "/")


def order(a, b) -> int:
    """ORDER BY's order (spareval's cmp_terms), as MIN and MAX use it: blank nodes < IRIs < literals; literals by
    `compare`. An unbound value or two literals `compare` cannot order are NotNative."""
    if a is None or b is None:
        raise NotNative("MIN or MAX of an unbound value")
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return (ra > rb) - (ra < rb)
    if ra < 3:
        return (a > b) - (a < b)
    c = compare(a, b)
    if c is None:
        raise NotNative("MIN or MAX of literals SPARQL does not order")
    return c


def _rank(t) -> int:
    if isinstance(t, BNode):
        return 1
    return 2 if type(t) is str else 3


def count(n: int):
    return (str(n), XSD_INTEGER)


def negate(a):
    n = _numeric(a)
    return None if n is None else _number(n[0], -n[1])


def plus(a):
    n = _numeric(a)
    return None if n is None else _number(n[0], n[1])


def coalesce(*args):
    for a in args:
        if a is not None:
            return a
    return None


def to_boolean(t):
    """xsd:boolean(t): a boolean as is, a number as whether it is not zero (NaN: false), a simple literal "true",
    "1", "false" or "0"; anything else an error."""
    if t is None:
        return None
    k = kind(t)
    if k is BOOLEAN:
        return t
    if k in _NUMERIC:
        v = _value(k, t)
        return TRUE if v == v and v != 0 else FALSE
    if k is STRING:
        return TRUE if t[0] in ("true", "1") else FALSE if t[0] in ("false", "0") else None
    return None


def lang(t):
    """LANG(): a literal's language tag as a simple literal ("" for none); an error for an IRI or blank node."""
    if type(t) is tuple:
        return (t[2], XSD_STRING) if len(t) == 3 else ("", XSD_STRING)
    return None


def _tag_matches(tag: str, language_range: str) -> bool:
    """RFC 4647 basic filtering, as spareval's LANGMATCHES: subtag by subtag, ignoring case."""
    if language_range == "*":
        return tag != ""
    tags = tag.split("-")
    for i, r in enumerate(language_range.split("-")):
        if i >= len(tags) or r.lower() != tags[i].lower():
            return False
    return True


def langmatches(tag, language_range):
    """LANGMATCHES(tag, range) of two simple literals: True, False, None (an error)."""
    if not (type(tag) is tuple and len(tag) == 2 and tag[1] == XSD_STRING):
        return None
    if not (type(language_range) is tuple and len(language_range) == 2 and language_range[1] == XSD_STRING):
        return None
    return _tag_matches(tag[0], language_range[0])


def strends(a, b):
    """STRENDS(): of argument-compatible strings, True or False; else an error."""
    c = _compatible(a, b)
    if c is None:
        return None
    return c[0].endswith(c[1])


def order_cmp(a, b) -> int:
    """ORDER BY's comparison of two values (spareval's cmp_terms): unbound < blank nodes (all equal) < IRIs (by
    text) < literals (by value where SPARQL compares them, else by lexical form, datatype, language)."""
    if a is None or b is None:
        return (a is not None) - (b is not None)
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return (ra > rb) - (ra < rb)
    if ra == 1:
        return 0
    if ra == 2:
        return (a > b) - (a < b)
    c = compare(a, b)
    if c is None:
        ka = (a[0], a[1], a[2] if len(a) == 3 else "")
        kb = (b[0], b[1], b[2] if len(b) == 3 else "")
        return (ka > kb) - (ka < kb)
    return c


# ---- what the generated code calls for its fast paths ---------------------------------------------------------

_E = ()
_TRUE, _FALSE = TRUE, FALSE
_XSD_STRING = XSD_STRING
#: an aggregate that has seen no value yet
_NOTHING = object()


def _lex(t):
    """STR(t)'s text: an IRI's, a literal's lexical form; None for a blank node or an error."""
    if type(t) is str:
        return t
    if type(t) is tuple:
        return t[0]
    return None


def _after(text, sep):
    """STRAFTER on texts (simple literals), None propagating."""
    if text is None or sep is None:
        return None
    i = text.find(sep)
    return "" if i < 0 else text[i + len(sep):]


def _cat(*parts):
    """CONCAT on texts (simple literals), None propagating."""
    for p in parts:
        if p is None:
            return None
    return "".join(parts)


def valid_iri_of(text):
    return None if text is None else valid_iri(text)


def _group(rows, key_cols: tuple, val_cols: tuple) -> dict:
    """A sub-select's rows by the values of the columns it is joined on."""
    out: dict = {}
    for row in rows:
        out.setdefault(tuple(row[i] for i in key_cols), []).append(tuple(row[i] for i in val_cols))
    return out


def _min_of(current, value):
    """MIN's accumulator, as spareval's: the first value, then any that orders before (an error orders first)."""
    if current is _NOTHING or order(value, current) < 0:
        return value
    return current


def _max_of(current, value):
    if current is _NOTHING or order(value, current) > 0:
        return value
    return current


def _lang_in(t, language_range: str):
    """LANGMATCHES(LANG(t), range) for a constant range (lower case, neither "" nor "*")."""
    if type(t) is not tuple:
        return None  # LANG of an IRI, a blank node or unbound: an error
    if len(t) != 3:
        return False
    tag = t[2].lower()
    return tag == language_range or (tag.startswith(language_range) and tag[len(language_range)] == "-")


def _star(index, start, p, forward: bool) -> list:
    """The nodes `start p* ?x` reaches (forward, on `sp`) or that reach it (`?x p* start`, on `po`): start first,
    then breadth first, each once."""
    seen = {start}
    out = [start]
    for x in out:
        for y in index.get((x, p) if forward else (p, x), _E):
            if y not in seen:
                seen.add(y)
                out.append(y)
    return out


def _opt_step(index, start, p, forward: bool) -> list:
    """The nodes of `start p? ?x` (forward) or `?x p? start`: start itself, then its neighbours, each once."""
    out = [start]
    for y in index.get((start, p) if forward else (p, start), _E):
        if y not in out:
            out.append(y)
    return out


def _layers_only(*values) -> bool:
    """Whether no value is a node of a cast (an IRI under the casts' namespace): a helper that reads forward from
    such values alone (`sp`, `spo`) reads the layers and the reference only, which no cast changes, so its answer
    may be kept for every cast (the compiled queries' memos)."""
    for v in values:
        if type(v) is str and v.startswith(CAST):
            return False
    return True


def _column_keys(values) -> list | None:
    """Sort keys for one ORDER BY column that order as `order_cmp` does, or None where the column mixes literals of
    kinds `order_cmp` orders by its lexical fallback (no total order a key could give): unbound < blank nodes (all
    equal) < IRIs (by text) < literals, these all strings, all integers, all booleans or all of one language."""
    keys = []
    seen = None
    for t in values:
        if t is None:
            keys.append((0,))
        elif type(t) is str:
            keys.append((2, t))
        elif type(t) is tuple:
            k = kind(t)
            if k is LANG:
                k = t[2]
            elif k is not STRING and k is not INTEGER and k is not BOOLEAN:
                return None
            if seen is None:
                seen = k
            elif seen != k:
                return None
            keys.append((3, int(t[0]) if k is INTEGER else t[0]))
        else:
            keys.append((1,))
    return keys


def _rows(rows: list, descending: tuple | None, distinct: bool) -> list:
    """A SELECT's solutions: rows [(projected values, ORDER BY keys)] sorted (stable) when `descending` (a flag per
    key) is given, else rows of projected values; then duplicates dropped, the first kept, with DISTINCT. Sorted a
    column at a time, last first, by keys (`_column_keys`), or by `order_cmp` where a column has none."""
    if descending is not None:
        columns = [_column_keys(c) for c in zip(*(r[1] for r in rows))]
        if None in columns:
            from functools import cmp_to_key

            def cmp(a, b):
                for x, y, desc in zip(a[1], b[1], descending):
                    c = order_cmp(x, y)
                    if c:
                        return -c if desc else c
                return 0

            rows.sort(key=cmp_to_key(cmp))
            rows = [r[0] for r in rows]
        else:
            order = list(range(len(rows)))
            for keys, desc in reversed(list(zip(columns, descending))):
                order.sort(key=keys.__getitem__, reverse=desc)  # reverse keeps ties in order: a stable sort
            rows = [rows[i][0] for i in order]
    if distinct:
        rows = list(dict.fromkeys(rows))
    return rows


#: what compiled.py imports
GENERATED_NAMES = ("_E", "_TRUE", "_FALSE", "_XSD_STRING", "_NOTHING", "_lex", "_after", "_cat", "_group", "_min_of",
                   "_max_of", "BNode", "equals", "not_equals", "less", "greater", "less_eq", "greater_eq", "one_of",
                   "ebv", "boolean", "and_", "or_", "not_", "str_", "concat", "strafter", "strbefore", "iri",
                   "valid_iri", "valid_iri_of", "add", "subtract", "multiply", "divide", "negate", "plus", "coalesce",
                   "count", "NotNative", "to_boolean", "lang", "langmatches", "strends", "_lang_in", "_star",
                   "_opt_step", "_rows", "_layers_only")
