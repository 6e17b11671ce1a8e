"""Fold Chinese characters so that orthographic variants compare equal (為 = 爲 = 为), and nothing else.

The fold maps every character to OpenCC's simplified form (its TSCharacters table, shipped by the
opencc-python-reimplemented package: the maintained, sourced traditional → simplified character
table; a hand-made table would miss characters) and then through `variants.yaml` (異體字 OpenCC does
not merge, each with its source). Where OpenCC gives several simplified candidates, the first is
taken: they are then all one form for matching. Only Han characters take part in matching;
punctuation and markup are dropped (`han_only`).
"""
from __future__ import annotations

from functools import cache
from importlib import resources

import yaml


@cache
def table() -> dict[str, str]:
    """char → folded char, for every character that folds to another."""
    out: dict[str, str] = {}
    data = resources.files("opencc").joinpath("dictionary/TSCharacters.txt").read_text(encoding="utf-8")
    for line in data.splitlines():
        src, _, dst = line.partition("\t")
        if len(src) == 1 and dst:
            first = dst.split()[0]
            if first != src:
                out[src] = first
    for e in supplement():
        out[e["char"]] = out.get(e["fold"], e["fold"])
    return out


@cache
def supplement() -> list[dict]:
    """The curated entries of variants.yaml."""
    data = yaml.safe_load(resources.files(__package__).joinpath("variants.yaml").read_text(encoding="utf-8"))
    return data["variants"]


def fold_char(c: str) -> str:
    return table().get(c, c)


def fold(s: str) -> str:
    t = table()
    return "".join(t.get(c, c) for c in s)


def is_han(c: str) -> bool:
    return "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" or "\U00020000" <= c <= "\U0003134f"


def han_only(s: str) -> tuple[str, list[int]]:
    """The Han characters of `s` and, for each, its index in `s`."""
    idx = [i for i, c in enumerate(s) if is_han(c)]
    return "".join(s[i] for i in idx), idx
