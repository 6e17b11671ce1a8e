"""School ZengShan (增刪卜易, standard convention, not in the seeds): the day clash read by strength.

A weak (休囚) static line clashed by the day is broken (日破), a strong (旺相) one moves (暗動); a moving
line clashed by the day is not scattered (動沖不散, its rejection of 動沖則散). Each is a state with its
school beside the defaults, which stay as the seeds have them (易冒: 日沖則動, 動沖則散).
"""
from __future__ import annotations

import liuyao_kg
from oracle import first_difference, normalize_production, oracle_chart
from samples import sample_casts


def _states(chart, pos):
    return {(s["term"], s["school"]) for s in chart["lines"][pos - 1]["states"]}


def test_weak_static_line_clashed_by_the_day_is_day_broken():
    chart = liuyao_kg.cast("777777", month="寅", day="甲午")
    line1 = _states(chart, 1)  # 甲子 water, static, clashed by the 午 day, 休 in a 寅 month
    assert chart["lines"][0]["strength"] == "休"
    assert ("日破", "ZengShan") in line1 and ("暗動", "ZengShan") not in line1
    assert ("暗動", None) in line1  # the default (易冒 日沖則動) is unchanged


def test_strong_static_line_clashed_by_the_day_moves_under_zengshan():
    chart = liuyao_kg.cast("777777", month="亥", day="甲午")  # 甲子 water 旺 in a 亥 month
    line1 = _states(chart, 1)
    assert chart["lines"][0]["strength"] == "旺"
    assert ("暗動", "ZengShan") in line1 and ("日破", "ZengShan") not in line1


def test_moving_line_clashed_by_the_day_is_not_scattered_under_zengshan():
    chart = liuyao_kg.cast("977777", month="亥", day="甲午")  # line 1 moves
    line1 = _states(chart, 1)
    assert ("動沖不散", "ZengShan") in line1
    assert ("沖散", None) in line1  # the default (易冒 動沖則散) is unchanged
    assert not any(t == "暗動" for t, _ in line1)


def test_the_oracle_agrees_on_the_zengshan_states():
    for values, month, day, _topic in sample_casts(30, seed=3):
        expected = oracle_chart(values, month, day)
        actual = normalize_production(liuyao_kg.cast(values, month=month, day=day))
        assert first_difference(expected, actual) is None, (values, month, day)
