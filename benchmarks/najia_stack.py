"""najia (PyPI `najia`, 2.0.1): the chart layer of the same casts, in our normalised shape.

`Najia.compile` needs a calendar date (it converts it to pillars itself); the casts here are given
by their pillars, so `chart` runs the chart part of `compile` on najia's own functions —
`set_shi_yao` (世應 by 尋世訣), `palace` (認宮訣), `get_najia` (納甲), `get_qin6` (六親), `get_god6`
(六神 from the day stem), `Najia._hidden` (伏神) and `Najia._transform` (the changed hexagram) — exactly
as `compile` calls them, without the date conversion. najia writes simplified characters; they are
mapped to the traditional ones we use.
"""
from __future__ import annotations

import logging

_T = str.maketrans({"兑": "兌", "离": "離", "孙": "孫", "财": "財", "龙": "龍", "陈": "陳", "为": "為",
                    "归": "歸", "游": "遊", "冲": "沖"})
_CODE = {7: 1, 8: 2, 9: 3, 6: 4}  # najia's params: 1 少陽 2 少陰 3 老陽 4 老陰


def _quiet() -> None:
    # najia logs at INFO from basicConfig on import and calls logger.debug in its inner loops
    logging.getLogger("najia").setLevel(logging.WARNING)
    logging.getLogger("najia.utils").setLevel(logging.WARNING)
    logging.getLogger("najia.najia").setLevel(logging.WARNING)


def chart(values: str, day_gz: str) -> dict:
    """Palace, per line (stem-branch, 六親, 六神, 世/應, 伏神) and changed-line 六親, from najia."""
    from najia import const
    from najia.najia import Najia
    from najia.utils import get_god6, get_najia, get_qin6, palace, set_shi_yao

    params = [_CODE[int(v)] for v in values]
    mark = "".join(str(p % 2) for p in params)
    shi, ying, _ = set_shi_yao(mark)
    gong = palace(mark, shi)
    gz = get_najia(mark)
    qin6 = [get_qin6(const.XING5[int(const.GUA5[gong])], const.ZHI5[const.ZHIS.index(x[1])]) for x in gz]
    god6 = get_god6(day_gz)
    hide = Najia._hidden(gong, qin6)
    bian = Najia._transform(params=params, gong=gong)
    hidden = {}
    if hide:
        hgz = get_najia(hide["mark"])
        hidden = {i + 1: (hgz[i], hide["qin6"][i].translate(_T)) for i in hide["seat"]}
    return {
        "palace": const.GUAS[gong].translate(_T),
        "shi": shi, "ying": ying,
        "lines": [{"gz": gz[i], "relative": qin6[i].translate(_T), "spirit": god6[i].translate(_T),
                   "hidden": hidden.get(i + 1),
                   "change_relative": bian["qin6"][i].translate(_T) if bian and params[i] > 2 else None}
                  for i in range(6)],
    }


def ours(chart_json: dict) -> dict:
    """The same fields from a liuyao-kg chart (docs/json-output.md)."""
    p = chart_json["primary"]
    lines = sorted(chart_json["lines"], key=lambda ln: ln["position"])
    return {
        "palace": p["palace"], "shi": p["shi"], "ying": p["ying"],
        "lines": [{"gz": ln["stem"] + ln["branch"], "relative": ln["relative"], "spirit": ln["spirit"],
                   "hidden": (ln["hidden"]["stem"] + ln["hidden"]["branch"], ln["hidden"]["relative"])
                   if ln.get("hidden") else None,
                   "change_relative": ln["change"]["relative"] if ln.get("change") else None}
                  for ln in lines],
    }


def differences(a: dict, b: dict) -> list[str]:
    """Field paths where najia (a) and ours (b) differ."""
    out = [k for k in ("palace", "shi", "ying") if a[k] != b[k]]
    for i, (x, y) in enumerate(zip(a["lines"], b["lines"]), 1):
        out += [f"line{i}.{k}: najia {x[k]!r} ours {y[k]!r}" for k in x if x[k] != y[k]]
    return out


_quiet()
