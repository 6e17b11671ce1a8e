"""A collation of two witnesses of one work: where their Han-character texts agree, and every place they differ.

The two witnesses' characters (`witness.py`: the work's text only, commentary set aside) are folded
(`variants.fold`) and aligned by their longest common subsequence (rapidfuzz's `Indel.opcodes`: a bit-parallel LCS
in C++, a second for two 20,000-character texts where difflib takes minutes on the hard cases; kept because it
also gives opcodes, not only a distance). An agreement shorter than `MIN_RUN` characters between two differences
is a chance match of common characters (之, 而, 也) and joins them. Each difference is classed:

* orthographic — the characters differ but fold alike (為/为, 衝/沖): inside an agreement of the folded texts;
* variant — both witnesses read something here, and it differs (a substitution);
* omission / addition — characters only the first (omission in the second) or only the second (addition) has,
  inside a paragraph both share;
* unshared — whole paragraphs only one witness has: a selection's gaps (the seed quotes parts of 火珠林), a
  commentator's notes one witness prints;

and the text set aside (the seed's Korean commentary, a carrier's volume headings) is listed apart, never collated.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rapidfuzz.distance import Indel

from liuyao_kg.corpus.witness import Witness

METHOD = "collate/v1: LCS of folded Han characters (rapidfuzz Indel), agreements under 3 characters between differences merged"
MIN_RUN = 3
KINDS = ("orthographic", "variant", "omission", "addition", "unshared")
#: the histogram's bins by an interval's length (the longer side), in characters
BINS = ((1, 1), (2, 2), (3, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, None))


@dataclass(frozen=True)
class Difference:
    kind: str
    a: tuple[int, int]     # span in the first witness's characters
    b: tuple[int, int]     # span in the second's

    @property
    def length(self) -> int:
        return max(self.a[1] - self.a[0], self.b[1] - self.b[0])

    @property
    def present_in(self) -> str:
        return "both" if self.a[1] > self.a[0] and self.b[1] > self.b[0] else "first" if self.a[1] > self.a[0] else "second"


@dataclass
class Collation:
    first: Witness
    second: Witness
    aligned: int = 0                       # characters the two share (folded), identical or orthographic
    identical: int = 0
    differences: list[Difference] = field(default_factory=list)
    agreements: list[tuple[int, int, int]] = field(default_factory=list)  # (a start, b start, length)

    def counts(self) -> dict:
        out = {k: {"intervals": 0, "first_chars": 0, "second_chars": 0} for k in KINDS}
        for d in self.differences:
            c = out[d.kind]
            c["intervals"] += 1
            c["first_chars"] += d.a[1] - d.a[0]
            c["second_chars"] += d.b[1] - d.b[0]
        return out

    def histogram(self) -> list[dict]:
        rows = []
        for lo, hi in BINS:
            row = {"length": f"{lo}" if lo == hi else f"{lo}+" if hi is None else f"{lo}–{hi}"}
            for k in KINDS:
                row[k] = sum(d.kind == k and d.length >= lo and (hi is None or d.length <= hi) for d in self.differences)
            rows.append(row)
        return rows

    def interval(self, n: int, d: Difference) -> dict:
        out = {"n": n, "kind": d.kind, "length": d.length, "in": d.present_in}
        for side, w, (i, j) in (("first", self.first, d.a), ("second", self.second, d.b)):
            s, e = w.raw_span(i, j)
            out[side] = {"reading": w.chars[i:j], "start": s, "end": e}
        return out

    def as_dict(self) -> dict:
        def wit(w: Witness) -> dict:
            return {"name": w.name, "edition": w.edition, "file": w.path, "sha256": w.ed.sha256,
                    "extent": list(w.extent), "chars": len(w.chars),
                    "aligned_share": round(self.aligned / len(w.chars), 4),
                    "set_aside": {"spans": len(w.set_aside), "chars": sum(s["chars"] for s in w.set_aside),
                                  "reasons": sorted({s["reason"] for s in w.set_aside})}, "note": w.note}

        return {"method": METHOD, "first": wit(self.first), "second": wit(self.second), "aligned": self.aligned,
                "identical": self.identical, "orthographic_chars": self.aligned - self.identical,
                "counts": self.counts(), "histogram": self.histogram(),
                "intervals": [self.interval(n, d) for n, d in enumerate(self.differences, 1)]}


def collate(first: Witness, second: Witness) -> Collation:
    """Align the two witnesses' characters and class every difference (see the module's docstring)."""
    if first.work != second.work:
        raise ValueError(f"{first.name} and {second.name} are witnesses of different works")
    fa, fb = first.folded, second.folded
    blocks: list[list] = []   # [tag, a0, a1, b0, b1], tag "=" or "≠"
    for op in Indel.opcodes(fa, fb):
        tag = "=" if op.tag == "equal" else "≠"
        if blocks and blocks[-1][0] == tag == "≠":
            blocks[-1][2], blocks[-1][4] = op.src_end, op.dest_end
        else:
            blocks.append([tag, op.src_start, op.src_end, op.dest_start, op.dest_end])
    merged: list[list] = []
    for k, blk in enumerate(blocks):
        short = blk[0] == "=" and blk[2] - blk[1] < MIN_RUN and 0 < k < len(blocks) - 1
        if (short or blk[0] == "≠") and merged and merged[-1][0] == "≠":
            merged[-1][2], merged[-1][4] = blk[2], blk[4]
        else:
            merged.append(["≠" if short else blk[0], *blk[1:]])
    col = Collation(first, second)
    for tag, a0, a1, b0, b1 in merged:
        if tag == "=":
            col.agreements.append((a0, b0, a1 - a0))
            col.aligned += a1 - a0
            k = 0
            while k < a1 - a0:
                if first.chars[a0 + k] == second.chars[b0 + k]:
                    col.identical += 1
                    k += 1
                    continue
                e = k
                while e < a1 - a0 and first.chars[a0 + e] != second.chars[b0 + e]:
                    e += 1
                col.differences.append(Difference("orthographic", (a0 + k, a0 + e), (b0 + k, b0 + e)))
                k = e
        else:
            for a, b in _peel(first, second, a0, a1, b0, b1):
                if a[1] - a[0] == b[1] - b[0] and fa[a[0]:a[1]] == fb[b[0]:b[1]]:
                    col.agreements.append((a[0], b[0], a[1] - a[0]))   # what is left of a peeled block agrees
                    col.aligned += a[1] - a[0]
                    col.identical += sum(first.chars[a[0] + k] == second.chars[b[0] + k] for k in range(a[1] - a[0]))
                    continue
                col.differences.append(Difference(_kind(first, second, *a, *b), a, b))
    col.differences.sort(key=lambda d: (d.a, d.b))
    return col


def _peel(first: Witness, second: Witness, a0: int, a1: int, b0: int, b1: int) -> list:
    """A difference whose longer side begins or ends with whole paragraphs beyond the shorter side's length is
    those paragraphs (unshared) and the rest: a witness that repeats or adds sections beside a small variant."""
    out = []
    for w, (lo, hi), short, is_a in ((first, (a0, a1), b1 - b0, True), (second, (b0, b1), a1 - a0, False)):
        if short == 0 or hi - lo <= short:
            continue
        head = lo
        while head < hi and w.para_bounds[w.paragraph[head]][0] == head and \
                w.para_bounds[w.paragraph[head]][1] <= hi - short:
            head = w.para_bounds[w.paragraph[head]][1]
        tail = hi
        while tail > head and w.para_bounds[w.paragraph[tail - 1]][1] == tail and \
                w.para_bounds[w.paragraph[tail - 1]][0] >= head + short:
            tail = w.para_bounds[w.paragraph[tail - 1]][0]
        if head == lo and tail == hi:
            continue
        other = (b0, b0) if is_a else (a0, a0)
        other_end = (b1, b1) if is_a else (a1, a1)
        rest_other = (b0, b1) if is_a else (a0, a1)
        for span, o in (((lo, head), other), ((tail, hi), other_end)):
            if span[1] > span[0]:
                out.append((span, o) if is_a else (o, span))
        out.append(((head, tail), rest_other) if is_a else (rest_other, (head, tail)))
        return sorted(out)
    return [((a0, a1), (b0, b1))]


def _kind(first: Witness, second: Witness, a0: int, a1: int, b0: int, b1: int) -> str:
    if a1 > a0 and b1 > b0:
        return "variant"
    w, i, j = (first, a0, a1) if a1 > a0 else (second, b0, b1)
    whole = w.para_bounds[w.paragraph[i]][0] == i and w.para_bounds[w.paragraph[j - 1]][1] == j
    return "unshared" if whole else "omission" if w is first else "addition"


def report_text(col: Collation, *, limit: int = 20) -> str:
    d = col.as_dict()
    out = [f"collation {d['first']['name']} ⇄ {d['second']['name']} ({METHOD})"]
    for side in ("first", "second"):
        w = d[side]
        out.append(f"  {side}: {w['name']} — {w['file']} (sha256 {w['sha256'][:12]}…), {w['chars']} Han characters of "
                   f"the work, {w['aligned_share']:.1%} aligned; set aside {w['set_aside']['spans']} spans "
                   f"({w['set_aside']['chars']} Han characters: {'; '.join(w['set_aside']['reasons']) or 'none'})")
    out.append(f"  aligned {d['aligned']} characters: identical {d['identical']}, orthographic {d['orthographic_chars']}")
    for k, c in d["counts"].items():
        out.append(f"  {k:<12} {c['intervals']:>5} intervals  first {c['first_chars']:>6} chars  "
                   f"second {c['second_chars']:>6} chars")
    out.append("  length       " + " ".join(f"{k[:8]:>8}" for k in KINDS))
    for row in d["histogram"]:
        out.append(f"  {row['length']:<12} " + " ".join(f"{row[k]:>8}" for k in KINDS))
    shown = [i for i in d["intervals"] if i["kind"] != "orthographic"][:limit]
    if shown:
        out.append(f"  first {len(shown)} intervals other than orthographic (all of them: --format json):")
    for i in shown:
        a, b = i["first"], i["second"]
        out.append(f"  #{i['n']} {i['kind']} ({i['length']}): 「{_clip(a['reading'])}」 [{a['start']}–{a['end']}] / "
                   f"「{_clip(b['reading'])}」 [{b['start']}–{b['end']}]")
    return "\n".join(out) + "\n"


def _clip(s: str, n: int = 24) -> str:
    return s if len(s) <= n else s[:n] + f"…(+{len(s) - n})"
