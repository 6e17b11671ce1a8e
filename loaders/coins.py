"""Coin tosses → line values: the three-coin method (以錢代蓍), and a seeded random cast for demos.

Convention (standard convention, not in the seeds; the coin method of the later manuals, e.g. 卜筮正宗):
a coin's inscribed face 字 counts 2 and its blank back 背 counts 3; three coins per line, bottom line first:
一背 (7, 單 young yang), 二背 (8, 拆 young yin), 三背 (9, 重 old yang, moving), 三字 (6, 交 old yin, moving).
In Latin letters H (heads) is the inscribed face 字 and T (tails) the back 背.
"""
from __future__ import annotations

import random

from .errors import BadLineValue

FACE = {"字": 2, "H": 2, "h": 2, "背": 3, "T": 3, "t": 3}
CONVENTION = "三錢法：字二背三（一背單、二背拆、三背重、三字交）— standard convention, not in the seeds"


def values_from_coins(text: str) -> str:
    """'HHT,HTT,…' or '字字背,…' (six groups of three, bottom-up) → line values '787986'."""
    groups = [g.strip() for g in str(text).replace("，", ",").replace(" ", ",").split(",") if g.strip()]
    if len(groups) != 6:
        raise BadLineValue(f"coins {text!r}: need six tosses of three coins, bottom line first, e.g. "
                           "HHT,HTT,TTT,HHH,HTH,THH (H = 字, T = 背)", field="coins", value=text)
    values = []
    for pos, g in enumerate(groups, 1):
        if len(g) != 3 or any(ch not in FACE for ch in g):
            raise BadLineValue(f"coins {g!r} at line {pos}: three coins, each H/字 (inscribed face) or T/背 (back)",
                               field="coins", value=text)
        values.append(sum(FACE[ch] for ch in g))
    return "".join(map(str, values))


def random_coins(seed: int | None = None) -> str:
    """Six tosses of three fair coins ('HHT,…'), reproducible for a given seed."""
    rng = random.Random(seed)
    return ",".join("".join(rng.choice("HT") for _ in range(3)) for _ in range(6))
