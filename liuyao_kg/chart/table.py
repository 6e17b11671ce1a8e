"""Rows as a terminal table: columns padded by display width, IRIs compacted, cut to fit the terminal.

Width is what a terminal shows (wcwidth: 2 for CJK and full-width forms, 0 for combining marks), not code
points, so 六沖 and SixClash line up. An IRI is written with the project's prefixes (``lyo:MonthBroken``,
``lyrule:…``) or, in no known namespace, by its local name (a cast's hash, which `liuyao show` takes);
``iris=True`` keeps them whole (and never cuts them). Given a ``width`` (the terminal's), the widest columns are
cut first, each cut cell ending in …; numbers are right-aligned.
"""
from __future__ import annotations

import os
import re
import sys

from wcwidth import wcswidth, wcwidth

from liuyao_kg.namespaces import PREFIXES

GAP = "  "
#: no column is cut narrower than this (a cell of two CJK characters and …)
MIN_WIDTH = 5
_IRI = re.compile(r"https?://\S+\Z")
_SPACE = re.compile(r"[\t\n\r\x0b\x0c]+")
_BY_LENGTH = sorted(PREFIXES.items(), key=lambda kv: -len(kv[1]))


def terminal_width(stream=None) -> int | None:
    """Columns to fit: $COLUMNS if set, else the terminal's when `stream` (stdout) is one, else None (no limit:
    a pipe or a file gets whole cells)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    stream = stream if stream is not None else sys.stdout
    try:
        return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else None
    except (AttributeError, OSError, ValueError):
        return None


def display_width(text: str) -> int:
    width = wcswidth(text)
    return width if width >= 0 else sum(max(wcwidth(ch), 0) for ch in text)  # a control character counts 0


def pad(text: str, width: int) -> str:
    """`text` followed by spaces up to `width` terminal columns."""
    return text + " " * max(0, width - display_width(text))


def compact(value: str) -> str:
    """An IRI by its prefixed name, or its local name outside the known namespaces."""
    for prefix, ns in _BY_LENGTH:
        if value.startswith(ns) and len(value) > len(ns):
            return f"{prefix}:{value[len(ns):]}"
    return re.split(r"[/#]", value.rstrip("/#"))[-1] or value


def cut(text: str, width: int) -> str:
    """`text` in at most `width` columns, ending in … when cut."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = max(wcwidth(ch), 0)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def table(rows: list[dict], *, iris: bool = False, width: int | None = None) -> str:
    if not rows:
        return "(no rows)\n"
    cols = list(rows[0])
    numeric = [all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                   for r in rows if r.get(c) is not None) for c in cols]
    cells = [[_cell(r.get(c), iris) for c in cols] for r in rows]
    natural = [max(display_width(c), *(display_width(row[i]) for row in cells)) for i, c in enumerate(cols)]
    # asked for whole IRIs: a column holding one is never cut (a cut IRI is of no use)
    whole = [iris and any(isinstance(r.get(c), str) and _IRI.match(r[c]) for r in rows) for c in cols]
    widths = natural if width is None else fit(natural, width - len(GAP) * (len(cols) - 1), whole)
    lines = [_line(cols, widths, [False] * len(cols))] + [_line(row, widths, numeric) for row in cells]
    return "\n".join(lines) + "\n"


def fit(natural: list[int], room: int, whole: list[bool] | None = None) -> list[int]:
    """Column widths within `room` columns: the widest cut first, to a common cap, none below MIN_WIDTH (or its
    own natural width) and none marked `whole`; wider than `room` only when every column is at that floor."""
    if sum(natural) <= room:
        return list(natural)
    floor = [w if keep else min(w, MIN_WIDTH) for w, keep in zip(natural, whole or [False] * len(natural))]

    def used(cap: int) -> int:
        return sum(max(min(w, cap), f) for w, f in zip(natural, floor))

    cap = max(natural)
    while cap > MIN_WIDTH and used(cap) > room:
        cap -= 1
    widths = [max(min(w, cap), f) for w, f in zip(natural, floor)]
    spare = room - sum(widths)
    for i, w in enumerate(natural):  # what the cap left over, to the cut columns, left to right
        if spare <= 0:
            break
        if w > widths[i]:
            more = min(spare, w - widths[i])
            widths[i] += more
            spare -= more
    return widths


def _cell(value, iris: bool) -> str:
    if value is None:
        return ""
    text = _SPACE.sub(" ", str(value))
    return compact(text) if not iris and isinstance(value, str) and _IRI.match(text) else text


def _line(cells: list[str], widths: list[int], right: list[bool]) -> str:
    out = []
    for text, w, r in zip(cells, widths, right):
        text = cut(text, w)
        pad = " " * (w - display_width(text))
        out.append(pad + text if r else text + pad)
    return GAP.join(out).rstrip()
