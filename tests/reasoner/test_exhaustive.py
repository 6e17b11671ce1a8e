"""Exhaustive comparison of liuyao_kg.cast with the independent oracle (tests/oracles/oracle.py).

(a) all 64x64 primary/changed pairs (parametrized by primary: 64 cases of 64 casts each);
(b) every day stem-branch (60) for 六神 and 旬空 on a fixed hexagram;
(c) every month branch (12) for 月破 and strength on a fixed hexagram.
Run with:  pytest -m exhaustive tests/reasoner/test_exhaustive.py
"""
import pytest

import liuyao_kg
from liuyao_kg.load import derive_with
from oracle import (
    BRANCHES, JIAZI, KING_WEN, first_difference, normalize_production, oracle_chart, values_for_pair,
)

pytestmark = pytest.mark.exhaustive

MAX_REPORTED = 5
_STATES_ONLY = None


def _cast(values, month, day):
    """The states of a cast, derived by the state rules alone (the chapter rules' judgments are
    tested in test_chapter_rules.py; leaving them out here keeps 4,096 casts fast)."""
    global _STATES_ONLY
    if _STATES_ONLY is None:
        from liuyao_kg.store.embedded import KnowledgeGraph

        _STATES_ONLY = derive_with(KnowledgeGraph(), chapter_rules=False)
    return liuyao_kg.cast("".join(map(str, values)), month=month, day=day, kg=_STATES_ONLY)


def _check(values, month, day, label, only=None):
    """First difference between oracle and production (None when equal). `only` restricts the
    comparison to some top-level keys and/or line fields: {"top": [...], "line": [...]}."""
    expected = oracle_chart(values, month, day)
    try:
        actual = normalize_production(_cast(values, month, day))
    except pytest.skip.Exception:
        raise
    except Exception as exc:  # an engine crash is a failure of this pair, not of the whole run
        return f"{label} ({''.join(map(str, values))}, month {month}, day {day}): cast raised {exc!r}"
    if only is not None:
        expected = _restrict(expected, only)
        actual = _restrict(actual, only)
    diff = first_difference(expected, actual)
    if diff:
        return f"{label} ({''.join(map(str, values))}, month {month}, day {day}): {diff}"
    return None


def _restrict(chart, only):
    out = {k: chart[k] for k in only.get("top", [])}
    if only.get("line"):
        out["lines"] = [{f: ln.get(f, "<missing>") for f in only["line"]} for ln in chart["lines"]]
    terms = only.get("terms")
    if terms:
        for ln in out.get("lines", []):
            if "states" in ln:
                ln["states"] = [s for s in ln["states"] if s[0] in terms]
    return out


def _assert_no_failures(failures, total):
    failures = [f for f in failures if f]
    if failures:
        shown = "\n  ".join(failures[:MAX_REPORTED])
        more = f"\n  … and {len(failures) - MAX_REPORTED} more" if len(failures) > MAX_REPORTED else ""
        pytest.fail(f"{len(failures)}/{total} casts differ from the oracle:\n  {shown}{more}", pytrace=False)


@pytest.mark.parametrize("primary", KING_WEN, ids=[f"kw{n:02d}" for n in range(1, 65)])
def test_all_pairs(primary):
    p_index = KING_WEN.index(primary)
    failures = []
    for c_index, changed in enumerate(KING_WEN):
        i = p_index * 64 + c_index
        month = BRANCHES[i % 12]
        day = JIAZI[(i * 7) % 60]
        values = values_for_pair(primary, changed)
        label = f"{primary}之{changed}" if changed != primary else f"{primary} (static)"
        failures.append(_check(values, month, day, label))
    _assert_no_failures(failures, 64)


FIXED_DAY_HEX = values_for_pair("節", "中孚")   # 坎 palace, one moving line (line 6)
FIXED_MONTH_HEX = values_for_pair("否", "臨")   # 乾 palace, five moving lines


def test_every_day_spirits_and_void():
    failures = []
    for day in JIAZI:
        failures.append(_check(FIXED_DAY_HEX, "寅", day, f"節之中孚 day {day}",
                               only={"top": ["void", "day"], "line": ["spirit", "states"],
                                     "terms": {"旬空", "化空"}}))
    _assert_no_failures(failures, 60)


def test_every_month_broken_and_strength():
    failures = []
    for month in BRANCHES:
        failures.append(_check(FIXED_MONTH_HEX, month, "甲子", f"否之臨 month {month}",
                               only={"top": ["month"], "line": ["strength", "stage_month", "states"],
                                     "terms": {"月破", "化破", "月合"}}))
    _assert_no_failures(failures, 12)
