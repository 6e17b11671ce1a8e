"""The citation form of a passage: ``urn:liuyao:<Work>:<edition>:<ref>`` (docs/citation.md), made, parsed, resolved.

A URN names a *place in an edition*: the sentences a passage spans, counted the way the corpus layer segments
that edition, and — when the passage quotes only part of them — the characters it covers::

    urn:liuyao:HuangJinCe:wikisource:6.6          chapter 6, sentence 6 (a sentence of an added edition)
    urn:liuyao:HuoZhuLin:seed002:12.3-5           classical paragraph 12 of seed 002, sentences 3 to 5
    urn:liuyao:YiMao:seed000:40.2-41.1            from sentence 2 of paragraph 40 to sentence 1 of paragraph 41
    urn:liuyao:YiMao:seed000:71.1@1-5             characters 1–5 of that sentence (a clause of it)

It is derived from the file alone (never from the order of entries in a YAML file), so the same file gives
the same URNs every build, and it is invertible: :func:`span` turns a URN back into the characters it cites.
Two passages share a URN exactly when they quote the same characters of the same edition (the package's chapter
rules often quote one sentence several times, once per reading of it); the URN cites text, the IRI names the
resource.

Segmentation: an added edition's sentences are ``Edition.sentences()`` (loaders/edition.py: chapters at its
headings, 0 before the first; sentences end at 。；！？ and line breaks). A seed file has no chapter headings,
only Korean commentary interleaved with the classical text, so its first level is the **classical paragraph**:
the blocks between blank lines that hold Chinese and no Hangul, numbered from 1 (the Korean is not counted),
split into sentences by the same rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from liuyao_kg.corpus.works import CorpusError, check_name
from liuyao_kg.loaders.edition import SENTENCE_END, Edition, Sentence, _is_han
from liuyao_kg.ontology.tables import WORKS

PREFIX = "urn:liuyao:"
#: the seed files' edition names: "seed" and the file's three-digit number (seed002 for 002_….txt)
SEED_NAME = re.compile(r"seed[0-9]{3}")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")   # as liuyao_kg/build/passages.py counts paragraphs
_NUMBER = re.compile(r"0|[1-9][0-9]*")


class UrnError(CorpusError):
    """A URN that is malformed, names an unknown work, or cites no place of its edition."""


@dataclass(frozen=True, order=True)
class Point:
    chapter: int      # an edition's chapter (0: before its first heading) or a seed's classical paragraph
    sentence: int     # 1-based within it

    def __str__(self) -> str:
        return f"{self.chapter}.{self.sentence}"


@dataclass(frozen=True)
class Urn:
    work: str                          # a key of WORKS: HuoZhuLin …
    edition: str                       # the edition's name: wikisource, seed002 …
    first: Point
    last: Point                        # == first for one sentence
    chars: tuple[int, int] | None = None   # 1-based, inclusive, counted from the first sentence's start

    @property
    def ref(self) -> str:
        ref = str(self.first)
        if self.last != self.first:
            ref += f"-{self.last.sentence}" if self.last.chapter == self.first.chapter else f"-{self.last}"
        if self.chars:
            ref += f"@{self.chars[0]}-{self.chars[1]}"
        return ref

    def __str__(self) -> str:
        return f"{PREFIX}{self.work}:{self.edition}:{self.ref}"


def seed_name(file: str) -> str:
    """The edition name of a seed file: seed002 for 002_27074fab81f0590e.txt."""
    m = re.match(r"([0-9]{3})_", file)
    if not m:
        raise UrnError(f"seed file {file!r}: its name does not start with a three-digit number")
    return "seed" + m.group(1)


def check_added_name(name: str) -> str:
    """An added edition may not take a seed's name: its sentences are counted otherwise (the Korean included)."""
    if SEED_NAME.fullmatch(name):
        raise UrnError(f"edition name {name!r} is reserved for the package's seed file of that number "
                       f"(its URNs count classical paragraphs); choose another name")
    return name


def sentence(work: str, edition: str, s: Sentence) -> str:
    """The URN of one sentence of an added edition (`liuyao corpus add`)."""
    return str(Urn(work, check_added_name(edition), Point(s.chapter, s.index), Point(s.chapter, s.index)))


# ------------------------------------------------------------------------------------------------
# segmentation of the seeds
# ------------------------------------------------------------------------------------------------

def _is_hangul(c: str) -> bool:
    return "\uac00" <= c <= "\ud7a3" or "\u1100" <= c <= "\u11ff" or "\u3130" <= c <= "\u318f"


def seed_sentences(text: str) -> list[Sentence]:
    """A seed's classical sentences: paragraph (numbered among the classical ones), index, text, file offsets."""
    out: list[Sentence] = []
    starts = [0] + [m.end() for m in _PARAGRAPH_BREAK.finditer(text)]
    number = 0
    for k, lo in enumerate(starts):
        hi = starts[k + 1] if k + 1 < len(starts) else len(text)
        block = text[lo:hi]
        if any(_is_hangul(c) for c in block) or not any(_is_han(c) for c in block):
            continue
        number += 1
        index, i = 0, lo
        while i < hi:
            j = i
            while j < hi and text[j] not in SENTENCE_END:
                j += 1
            stop = j + 1 if j < hi and text[j] != "\n" else j
            s, e = i, stop
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            if any(_is_han(c) for c in text[s:e]):
                index += 1
                out.append(Sentence(number, index, text[s:e], s, e))
            i = max(stop, i + 1)
    return out


# ------------------------------------------------------------------------------------------------
# citing a span, and the span a URN cites
# ------------------------------------------------------------------------------------------------

def core(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without the punctuation and spaces at its edges (a quote may leave out a sentence's 。)."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


def cite(work: str, edition: str, sentences: list[Sentence], text: str, start: int, end: int) -> Urn:
    """The URN of ``text[start:end]``, whose sentences (in the same coordinates as the offsets) are ``sentences``."""
    start, end = core(text, start, end)
    first = next((s for s in sentences if s.end > start), None)
    if first is None or first.start > start or first.start >= end:
        raise UrnError(f"{text[start:end][:24]!r} (characters {start}-{end}) does not start in a sentence of "
                       f"{work} {edition} (in the Korean commentary, a heading, or between sentences?)")
    last = [s for s in sentences if s.start < end][-1]
    if last.end < end:
        raise UrnError(f"{text[start:end][:24]!r} (characters {start}-{end}) runs past the end of a sentence of "
                       f"{work} {edition} into text that is not counted")
    whole = core(text, first.start, last.end) == (start, end)
    chars = None if whole else (start - first.start + 1, end - first.start)
    return Urn(work, edition, Point(first.chapter, first.index), Point(last.chapter, last.index), chars)


def span(urn: Urn, sentences: list[Sentence], text: str) -> tuple[int, int]:
    """The characters ``urn`` cites, as offsets into ``text`` (the coordinates of ``sentences``)."""
    at = {(s.chapter, s.index): s for s in sentences}
    for p in (urn.first, urn.last):
        if (p.chapter, p.sentence) not in at:
            raise UrnError(f"{urn}: {urn.work} {urn.edition} has no sentence {p}")
    first, last = at[(urn.first.chapter, urn.first.sentence)], at[(urn.last.chapter, urn.last.sentence)]
    if urn.chars is None:
        return core(text, first.start, last.end)
    a, b = urn.chars
    start, end = first.start + a - 1, first.start + b
    if start >= first.end or not last.start < end <= last.end:
        raise UrnError(f"{urn}: characters {a}-{b} do not start in sentence {urn.first} and end in {urn.last}")
    canonical = cite(urn.work, urn.edition, sentences, text, start, end)
    if canonical != urn:  # the whole sentence(s), or a span that starts or ends with punctuation
        raise UrnError(f"{urn}: characters {a}-{b} are cited as {canonical}")
    return start, end


def edition_offsets(ed: Edition, raw_start: int, raw_end: int) -> tuple[int, int]:
    """The span of ``ed.text`` read from ``ed.raw[raw_start:raw_end]`` (the inverse of ``Edition.raw_span``)."""
    inside = [i for i, o in enumerate(ed.origin) if raw_start <= o < raw_end]
    if not inside:
        raise UrnError(f"characters {raw_start}-{raw_end} of {ed.path} hold no text (markup only)")
    return inside[0], inside[-1] + 1


# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------

def _number(part: str, what: str, urn: str, least: int) -> int:
    if not _NUMBER.fullmatch(part):
        why = "has a leading zero (write 6, not 06)" if part.isdigit() else "is not a number"
        raise UrnError(f"{urn!r}: the {what} {part!r} {why}")
    n = int(part)
    if n < least:
        raise UrnError(f"{urn!r}: the {what} is {n}; it counts from {least}")
    return n


def _point(part: str, urn: str) -> Point:
    chapter, dot, sent = part.partition(".")
    if not dot:
        raise UrnError(f"{urn!r}: {part!r} is not CHAPTER.SENTENCE (e.g. 12.3)")
    return Point(_number(chapter, "chapter", urn, 0), _number(sent, "sentence", urn, 1))


def parse(text: str) -> Urn:
    """A URN from its text, strictly: every fault is named (the prefix, an unknown work, a bad edition name, a
    reference that is not CHAPTER.SENTENCE[-[CHAPTER.]SENTENCE][@FIRST-LAST] in canonical form)."""
    if not isinstance(text, str) or text[:len(PREFIX)].lower() != PREFIX:
        raise UrnError(f"{text!r} is not a liuyao URN: it must start with {PREFIX!r}")
    parts = text[len(PREFIX):].split(":")
    if len(parts) != 3:
        hint = " (a URN names an edition: there is no edition-independent numbering, docs/citation.md)" \
            if len(parts) == 2 else ""
        raise UrnError(f"{text!r}: expected {PREFIX}WORK:EDITION:REF, three parts after {PREFIX!r}, "
                       f"got {len(parts)}{hint}")
    work, edition, ref = parts
    if work not in WORKS:
        raise UrnError(f"{text!r}: unknown work {work!r}; known works: {', '.join(WORKS)}")
    try:
        check_name(edition)
    except CorpusError as e:
        raise UrnError(f"{text!r}: {e}") from None
    where, at, chars = ref.partition("@")
    first_part, dash, last_part = where.partition("-")
    first = _point(first_part, text)
    last = first
    if dash:
        last = _point(last_part, text) if "." in last_part else Point(first.chapter, _number(last_part, "sentence",
                                                                                              text, 1))
        if last <= first:
            raise UrnError(f"{text!r}: the range {where!r} must end after it starts"
                           + (f" (for one sentence write {first})" if last == first else ""))
        if last.chapter == first.chapter and "." in last_part:
            raise UrnError(f"{text!r}: within one chapter write {first}-{last.sentence}, not {where}")
    span_chars = None
    if at:
        a, dash2, b = chars.partition("-")
        if not dash2:
            raise UrnError(f"{text!r}: characters {chars!r} must be FIRST-LAST (e.g. @1-5)")
        span_chars = (_number(a, "first character", text, 1), _number(b, "last character", text, 1))
        if span_chars[1] < span_chars[0]:
            raise UrnError(f"{text!r}: characters {chars!r} end before they start")
    return Urn(work, edition, first, last, span_chars)


def is_urn(text: str) -> bool:
    """Whether ``text`` is meant as a URN (it starts with the prefix), well-formed or not."""
    return isinstance(text, str) and text[:len(PREFIX)].lower() == PREFIX


def resolve(kg, text: str) -> list[dict]:
    """The passages of ``kg`` that ``text`` cites (queries/passage-by-urn.rq; the package's first), after parsing it
    strictly (UrnError naming the fault); [] for a well-formed URN that no passage of this store carries."""
    from liuyao_kg import queries

    return queries.run(kg, "passage-by-urn", urn=str(parse(text)))


def not_found(text: str) -> str:
    """Why a well-formed URN resolved to nothing, for the CLI and the API alike."""
    u = parse(text)
    return (f"no passage in this store is cited as {u}: either the edition {u.work}/{u.edition} is not in it "
            f"(liuyao corpus list) or no passage quotes {u.ref} there (one quoting part of a sentence is cited with @FIRST-LAST: "
            f"docs/citation.md)")
