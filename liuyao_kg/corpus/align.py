"""Align the passages of a work to an edition: exact first, then folded, then tolerant (edit distance).

1. **exact** — the quote occurs verbatim in the edition's text (markup stripped).
2. **folded** — it occurs once both are reduced to their Han characters and folded (variants.py): the
   edition differs only in punctuation and orthographic variants (為/为, 財/财 …).
3. **tolerant** — the best approximate occurrence (semi-global edit distance, Sellers 1980) of the
   folded quote among candidate windows (those sharing character bigrams with it, on one diagonal),
   accepted when the score — 1 − textual edits / quote length, orthographic variants costing nothing —
   is at least `THRESHOLD`; quotes under `MIN_TOLERANT` characters must match in 1 or 2.

A passage not found verbatim or folded in the edition's text is looked for, the same two ways, in its
alternative text (`Edition.alternative()`: every `{{另|A|B}}` read as B): found there, it is aligned with an
`alternative` variant at each such place (the passage's reading B, the edition's text A, score 1).

An exact alignment spans the quote as given, punctuation included; the others span from the first to the
last Han character matched. Every alignment lists its differing readings (異文): `textual` where the folded characters differ
(a different reading: an edit), `orthographic` where only the glyph form differs. A passage found
nowhere is returned as unaligned with the reason (its best candidate and score, if it had one).
Several equally good occurrences are told apart by the passage's context in its own edition
(prefix + suffix bigrams shared with the candidate's context).
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from liuyao_kg.corpus.variants import fold, han_only
from liuyao_kg.loaders.edition import Edition

#: the lowest score a tolerant match is accepted with: at most one textual edit in five characters
THRESHOLD = 0.8
#: quotes shorter than this (in Han characters) are aligned only exactly or folded
MIN_TOLERANT = 4
CONTEXT = 24


@dataclass(frozen=True)
class PassageText:
    iri: str
    work: str
    chapter: str
    quote: str
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class Variant:
    kind: str             # "textual" | "orthographic" | "alternative" (the edition's own 另 reading)
    base: str             # the reading of the passage's own (cited) text
    reading: str          # the edition's reading
    offset: int           # where in the quote's Han characters the difference starts


@dataclass
class Alignment:
    passage: PassageText
    method: str | None            # exact | folded | tolerant | None (unaligned)
    score: float
    start: int = 0                # offsets in the edition's stripped text
    end: int = 0
    variants: list[Variant] = field(default_factory=list)
    reason: str | None = None     # why it is unaligned
    candidates: int = 1           # equally good occurrences found
    view: Edition | None = None   # the text start/end count in, when not the edition's own (its alternative)

    def raw_span(self, ed: Edition) -> tuple[int, int]:
        """The span of the edition's file the alignment covers."""
        return (self.view or ed).raw_span(self.start, self.end)

    @property
    def aligned(self) -> bool:
        return self.method is not None


class _Index:
    """The edition's Han characters, folded, with a bigram index and the way back to text offsets."""

    def __init__(self, ed: Edition):
        self.ed = ed
        self.han, self.pos = han_only(ed.text)
        self.folded = fold(self.han)
        self.bigrams: dict[str, list[int]] = defaultdict(list)
        for i in range(len(self.folded) - 1):
            self.bigrams[self.folded[i:i + 2]].append(i)

    def text_span(self, s: int, e: int) -> tuple[int, int]:
        return self.pos[s], self.pos[e - 1] + 1

    def context(self, s: int, e: int) -> str:
        return self.folded[max(0, s - CONTEXT):s] + "|" + self.folded[e:e + CONTEXT]


def _bigrams(s: str) -> Counter:
    return Counter(s[i:i + 2] for i in range(len(s) - 1))


def _context_score(p: PassageText, ctx: str) -> int:
    want = _bigrams(fold(han_only(p.prefix)[0]) + "|" + fold(han_only(p.suffix)[0]))
    return sum((want & _bigrams(ctx)).values())


def _find_all(hay: str, needle: str) -> list[int]:
    out, i = [], hay.find(needle)
    while i != -1:
        out.append(i)
        i = hay.find(needle, i + 1)
    return out


def _sellers(q: str, w: str) -> tuple[int, int, int]:
    """Best approximate occurrence of q in w: (edit distance, start, end) in w."""
    m, n = len(q), len(w)
    prev = list(range(m + 1))            # column j = 0: D[i][0] = i
    start_prev = [0] * (m + 1)
    best = (m + 1, 0, 0)
    for j in range(1, n + 1):
        cur = [0] * (m + 1)
        st = [j] * (m + 1)               # an occurrence may start anywhere: D[0][j] = 0
        for i in range(1, m + 1):
            sub = prev[i - 1] + (q[i - 1] != w[j - 1])
            dele = prev[i] + 1           # w[j-1] inserted in the edition
            ins = cur[i - 1] + 1         # q[i-1] missing from the edition
            if sub <= dele and sub <= ins:
                cur[i], st[i] = sub, start_prev[i - 1]
            elif ins <= dele:
                cur[i], st[i] = ins, st[i - 1]
            else:
                cur[i], st[i] = dele, start_prev[i]
        if cur[m] < best[0]:
            best = (cur[m], st[m], j)
        prev, start_prev = cur, st
    return best


def _variants(q_han: str, ed_han: str) -> tuple[list[Variant], int]:
    """Differences between the quote's and the edition's Han characters, and the number of textual edits."""
    fq, fe = fold(q_han), fold(ed_han)
    out: list[Variant] = []
    edits = 0
    for op, i1, i2, j1, j2 in SequenceMatcher(None, fq, fe, autojunk=False).get_opcodes():
        if op == "equal":
            k = 0
            while k < i2 - i1:
                if q_han[i1 + k] != ed_han[j1 + k]:
                    s = k
                    while k < i2 - i1 and q_han[i1 + k] != ed_han[j1 + k]:
                        k += 1
                    out.append(Variant("orthographic", q_han[i1 + s:i1 + k], ed_han[j1 + s:j1 + k], i1 + s))
                else:
                    k += 1
        else:
            edits += max(i2 - i1, j2 - j1)
            out.append(Variant("textual", q_han[i1:i2], ed_han[j1:j2], i1))
    return out, edits


def _pick(p: PassageText, idx: _Index, spans: list[tuple[int, int]]) -> tuple[tuple[int, int], int]:
    """The span (in folded Han offsets) whose context best matches the passage's own; and how many tied."""
    if len(spans) == 1:
        return spans[0], 1
    scored = sorted(spans, key=lambda se: (-_context_score(p, idx.context(*se)), se[0]))
    return scored[0], len(spans)


def _verbatim(p: PassageText, q_han: str, idx: _Index) -> Alignment | None:
    """The passage found exactly (punctuation included) or folded in the index's text, or None."""
    fq = fold(q_han)
    ed = idx.ed
    hits = _find_all(ed.text, p.quote)
    if hits:
        by_span = {}
        for h in hits:
            s = bisect_left(idx.pos, h)
            by_span[(s, s + len(q_han))] = h
        (s, e), n = _pick(p, idx, list(by_span))
        h = by_span[(s, e)]  # the quote verbatim, punctuation included
        return Alignment(p, "exact", 1.0, h, h + len(p.quote), [], candidates=n)
    hits = _find_all(idx.folded, fq)
    if hits:
        (s, e), n = _pick(p, idx, [(h, h + len(fq)) for h in hits])
        variants, _ = _variants(q_han, idx.han[s:e])
        ts, te = idx.text_span(s, e)
        return Alignment(p, "folded", 1.0, ts, te, variants, candidates=n)
    return None


def _in_alternative(p: PassageText, q_han: str, alt: _Index) -> Alignment | None:
    """The passage found verbatim or folded in the alternative text, with an `alternative` variant per place."""
    a = _verbatim(p, q_han, alt)
    if a is None:
        return None
    first = bisect_left(alt.pos, a.start)  # the match's first Han character
    places, inside = [], set()
    for v in alt.ed.variants:  # in the alternative text, v.reading is the alternative, v.alternative the edition's
        lo, hi = bisect_left(alt.pos, max(v.start, a.start)), bisect_left(alt.pos, min(v.end, a.end))
        ks = [j - first for j in range(lo, hi)]
        if ks:
            places.append(Variant("alternative", q_han[ks[0]:ks[-1] + 1], v.alternative, ks[0]))
            inside.update(ks)
    a.variants = sorted([x for x in a.variants if x.offset not in inside] + places, key=lambda x: x.offset)
    a.view = alt.ed
    return a


def align_one(p: PassageText, idx: _Index, alt: _Index | None = None) -> Alignment:
    q_han, _ = han_only(p.quote)
    if not q_han:
        return Alignment(p, None, 0.0, reason="the quote has no Chinese characters")
    found = _verbatim(p, q_han, idx) or (alt and _in_alternative(p, q_han, alt))
    if found:
        return found
    fq = fold(q_han)
    ed = idx.ed
    if len(fq) < MIN_TOLERANT:
        return Alignment(p, None, 0.0, reason=f"not found verbatim or folded, and {len(fq)} characters are too few "
                                              f"for a tolerant match (at least {MIN_TOLERANT})")
    votes: Counter = Counter()
    for i in range(len(fq) - 1):
        for j in idx.bigrams.get(fq[i:i + 2], ()):
            votes[j - i] += 1
    if not votes:
        return Alignment(p, None, 0.0, reason="no two consecutive characters of the quote occur in the edition")
    slack = max(2, len(fq) // 4)
    results = []
    for diag, _ in votes.most_common(8):
        lo = max(0, diag - slack)
        hi = min(len(idx.folded), diag + len(fq) + slack)
        dist, s, e = _sellers(fq, idx.folded[lo:hi])
        if e > s:
            results.append((dist, lo + s, lo + e))
    if not results:
        return Alignment(p, None, 0.0, reason="no candidate occurrence in the edition")
    best = min(r[0] for r in results)
    spans = sorted({(s, e) for d, s, e in results if d == best})
    (s, e), n = _pick(p, idx, spans)
    variants, edits = _variants(q_han, idx.han[s:e])
    score = round(max(0.0, 1 - edits / len(fq)), 3)
    ts, te = idx.text_span(s, e)
    if score < THRESHOLD:
        ch = ed.chapter_at(ts)
        where = f" in {ch.title}" if ch else ""
        return Alignment(p, None, score, ts, te, variants,
                         reason=f"best candidate{where} 「{ed.text[ts:te]}」 scores {score} < {THRESHOLD} "
                                f"({edits} textual edits in {len(fq)} characters)", candidates=n)
    return Alignment(p, "tolerant", score, ts, te, variants, candidates=n)


def align(passages: list[PassageText], ed: Edition) -> list[Alignment]:
    """One Alignment per passage (aligned or not), in the order given."""
    idx = _Index(ed)
    alt = _Index(ed.alternative()) if ed.variants else None
    return [align_one(p, idx, alt) for p in passages]
