"""Read an edition of a classic (plain text or MediaWiki wikitext) into text that keeps its offsets.

An edition is read as UTF-8 (a BOM is refused, CRLF is kept as it is: offsets are `str` indices into
the file as given). Wikitext markup is stripped, but every character of the stripped text remembers
its index in the original file (`Edition.origin`), so selectors written against an edition point into
the file a reader can open, not into an intermediate form.

What is stripped (the markup the Wikisource transcriptions use): templates `{{Header|…}}`,
`{{返回頁首}}`, `{{PD-old}}` … (dropped whole, nested braces counted), except the two that carry text:
`{{*|…}}` (an indented note: its text is kept) and `{{另|A|B}}` (the edition's own alternative reading: A is
the text, B "another copy reads", both with their offsets in the file in `Edition.variants`;
`Edition.alternative()` is the text read with every B in place of its A); `{{？}}` (an uncertain character) is dropped;
`[[target|label]]` keeps the label, `[[分類:…]]` is dropped; tags (`<poem>`, `<pre>`, `<onlyinclude>`)
and `'''`/`''` emphasis are dropped; a heading `== 6、身命 ==` starts a chapter; a list bullet `* ` at
the start of a line is dropped.

Plain text is taken as it is. Its chapters are its title lines: a line of 2–12 Han characters and nothing
else (no punctuation, no space, no tab), between blank lines or at the file's edges — the ctext.org layout of
卜筮正宗 (`卷一`, `月破論第九`, `黃金策總斷千金賦直解`, `天時` …); a text without such lines is one chapter. In
plain text `．` (ctext's full stop) and `?` (which this transcription has where a `；` or `。` was lost) also
end a sentence; a tab-laid table row is a sentence of its own (it ends at the line break).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from liuyao_kg.loaders.errors import CastInputError

#: sentence ends: full stop, semicolon, exclamation and question marks, and line breaks
SENTENCE_END = set("。；！？\n")
#: plain text also ends sentences at ctext's full stop `．` and at `?`
PLAIN_SENTENCE_END = SENTENCE_END | set("．?")
#: a title line of plain text: 2–12 Han characters alone on their line
_TITLE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]{2,12}")
_HEADING = re.compile(r"^(={2,6})\s*(.*?)\s*\1\s*$")
_TEXT_TEMPLATES = {"*"}          # {{*|text}}: keep the text
_VARIANT_TEMPLATES = {"另"}      # {{另|text|variant}}: keep the text, record the variant


class EditionError(CastInputError):
    """An edition file cannot be read (missing, not UTF-8, empty after markup is stripped)."""


@dataclass(frozen=True)
class Chapter:
    number: int            # 1-based, in file order
    title: str             # the heading's text (without a leading "6、")
    start: int             # offsets in Edition.text: the body, after the heading line
    end: int
    heading: int = 0       # where the heading line starts in Edition.text


@dataclass(frozen=True)
class Sentence:
    chapter: int           # Chapter.number (0: before the first heading)
    index: int             # 1-based within the chapter
    text: str
    start: int             # offsets in Edition.text
    end: int


@dataclass(frozen=True)
class Alternative:
    """An alternative reading the edition itself gives (`{{另|A|B}}`): A in the text, B beside it."""
    offset: int            # where A starts in the file (Edition.raw)
    reading: str           # A, the text's reading
    alternative: str       # B
    alt_offset: int        # where B starts in the file
    start: int             # A's span in Edition.text
    end: int


@dataclass
class Edition:
    path: str
    raw: str                               # the file as read
    text: str                              # markup stripped
    origin: list[int]                      # origin[i]: index in `raw` of text[i]
    sha256: str                            # of the file's bytes
    wikitext: bool
    chapters: list[Chapter] = field(default_factory=list)
    variants: list[Alternative] = field(default_factory=list)
    ends: frozenset = frozenset(SENTENCE_END)   # the characters that end a sentence

    def alternative(self) -> "Edition":
        """The edition read with each alternative in place of its reading (offsets still into the same file)."""
        text, origin, at = [], [], 0
        for v in sorted(self.variants, key=lambda v: v.start):
            text.append(self.text[at:v.start])
            origin += self.origin[at:v.start]
            text.append(v.alternative)
            origin += range(v.alt_offset, v.alt_offset + len(v.alternative))
            at = v.end
        text.append(self.text[at:])
        origin += self.origin[at:]

        def moved(i: int) -> int:  # an offset of self.text in the alternative text (alternatives before it shift it)
            return i + sum(len(v.alternative) - len(v.reading) for v in self.variants if v.end <= i)

        chapters = [Chapter(c.number, c.title, moved(c.start), moved(c.end), moved(c.heading)) for c in self.chapters]
        # in this reading the alternative is the text and the edition's reading its alternative
        swapped = [Alternative(v.alt_offset, v.alternative, v.reading, v.offset, moved(v.start),
                               moved(v.start) + len(v.alternative)) for v in self.variants]
        return Edition(self.path, self.raw, "".join(text), origin, self.sha256, self.wikitext, chapters, swapped,
                       self.ends)

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original file that text[start:end] was read from."""
        if end <= start:
            o = self.origin[start] if start < len(self.origin) else len(self.raw)
            return o, o
        return self.origin[start], self.origin[end - 1] + 1

    def chapter_at(self, offset: int) -> Chapter | None:
        for ch in self.chapters:
            if ch.start <= offset < ch.end:
                return ch
        return None

    def sentences(self) -> list[Sentence]:
        """The edition's sentences, chapter by chapter (ends at 。；！？ and line breaks; headings excluded)."""
        out: list[Sentence] = []
        bounds = [(c.number, c.start, c.end) for c in self.chapters] or [(0, 0, len(self.text))]
        if self.chapters and self.chapters[0].heading > 0:
            bounds.insert(0, (0, 0, self.chapters[0].heading))
        for number, start, end in bounds:
            i, idx = start, 0
            while i < end:
                j = i
                while j < end and self.text[j] not in self.ends:
                    j += 1
                stop = j + 1 if j < end and self.text[j] != "\n" else j
                s, e = i, stop
                while s < e and self.text[s].isspace():
                    s += 1
                while e > s and self.text[e - 1].isspace():
                    e -= 1
                if any(_is_han(c) for c in self.text[s:e]):
                    idx += 1
                    out.append(Sentence(number, idx, self.text[s:e], s, e))
                i = max(stop, i + 1)
        return out


def _is_han(c: str) -> bool:
    return "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" or "\U00020000" <= c <= "\U0003134f"


def read_edition(path: str | Path, *, wikitext: bool | None = None) -> Edition:
    """Read an edition file; `wikitext=None` detects wikitext by its markup (`{{`, `==` headings, `<poem>`)."""
    p = Path(path)
    if not p.is_file():
        raise EditionError(f"edition file not found: {p}")
    data = p.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        raise EditionError(f"{p}: starts with a UTF-8 byte-order mark; remove it so offsets count characters of the text")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise EditionError(f"{p}: not UTF-8 (byte {e.start}): an edition must be UTF-8 text") from None
    if wikitext is None:
        wikitext = bool(re.search(r"\{\{|^==.*==\s*$|<poem>", raw, re.M))
    ed = _strip(raw) if wikitext else Edition(str(p), raw, raw, list(range(len(raw))), "", False,
                                              _title_chapters(raw), [], frozenset(PLAIN_SENTENCE_END))
    ed.path = str(p)
    ed.sha256 = hashlib.sha256(data).hexdigest()
    if not any(_is_han(c) for c in ed.text):
        raise EditionError(f"{p}: no Chinese text left after reading it{' (markup stripped)' if wikitext else ''}")
    return ed


def _title_chapters(raw: str) -> list[Chapter]:
    """The chapters of a plain text: each title line (see the module's docstring) starts one."""
    lines, at = raw.split("\n"), 0
    starts = []
    for i, line in enumerate(lines):
        blank_before = i == 0 or not lines[i - 1].strip()
        blank_after = i + 1 == len(lines) or not lines[i + 1].strip()
        if blank_before and blank_after and _TITLE.fullmatch(line):
            starts.append((at, line))
        at += len(line) + 1
    out = []
    for n, (pos, title) in enumerate(starts, 1):
        end = starts[n][0] if n < len(starts) else len(raw)
        body = min(pos + len(title) + 1, end)
        out.append(Chapter(n, title, body, end, pos))
    return out


def _template_end(raw: str, i: int) -> int:
    """Index just after the `}}` closing the template opened at raw[i:i+2] (nested templates counted)."""
    depth, j = 0, i
    while j < len(raw) - 1:
        if raw.startswith("{{", j):
            depth += 1
            j += 2
        elif raw.startswith("}}", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        else:
            j += 1
    return len(raw)


def _strip(raw: str) -> Edition:
    keep: list[tuple[str, int]] = []
    variants: list[Alternative] = []
    headings: list[tuple[int, str]] = []   # (index in keep, title)

    def emit(lo: int, hi: int) -> None:
        """Copy raw[lo:hi], resolving the markup inside it."""
        i = lo
        line_start = lo == 0 or raw[lo - 1] == "\n"
        while i < hi:
            c = raw[i]
            if line_start:
                line_start = False
                eol = raw.find("\n", i, hi)
                eol = hi if eol == -1 else eol
                m = _HEADING.match(raw[i:eol])
                if m:
                    inner = raw.index(m.group(2), i) if m.group(2) else i
                    headings.append((len(keep), ""))
                    before = len(keep)
                    emit(inner, inner + len(m.group(2)))
                    title = "".join(ch for ch, _ in keep[before:])
                    headings[-1] = (before, title)
                    if eol < len(raw):
                        keep.append(("\n", eol))
                    i = eol + 1
                    line_start = True
                    continue
                if raw.startswith("* ", i):
                    i += 1
                    while i < hi and raw[i] == " ":
                        i += 1
                    continue
            if raw.startswith("{{", i):
                end = min(_template_end(raw, i), hi)
                body = raw[i + 2:end - 2]
                name, _, rest = body.partition("|")
                if name.strip() in _TEXT_TEMPLATES and rest:
                    s = i + 2 + len(name) + 1
                    emit(s, end - 2)
                elif name.strip() in _VARIANT_TEMPLATES and rest:
                    s = i + 2 + len(name) + 1
                    first, _, alt = rest.partition("|")
                    before = len(keep)
                    emit(s, s + len(first))
                    variants.append(Alternative(s, first, alt, s + len(first) + 1, before, len(keep)))
                i = end
                continue
            if raw.startswith("[[", i):
                end = raw.find("]]", i, hi)
                end = hi if end == -1 else end
                inner = raw[i + 2:end]
                if ":" in inner.split("|")[0] and "|" not in inner:
                    pass  # [[分類:…]]: a category, not text
                else:
                    s = i + 2 + (inner.rfind("|") + 1 if "|" in inner else 0)
                    emit(s, end)
                i = end + 2
                continue
            if c == "<":
                m = re.match(r"</?[A-Za-z][A-Za-z0-9]*[^<>]*>", raw[i:hi])
                if m:
                    i += m.end()
                    continue
            if raw.startswith("'''", i):
                i += 3
                continue
            if raw.startswith("''", i):
                i += 2
                continue
            keep.append((c, i))
            if c == "\n":
                line_start = True
            i += 1

    emit(0, len(raw))
    text = "".join(c for c, _ in keep)
    origin = [o for _, o in keep]
    chapters: list[Chapter] = []
    for n, (pos, title) in enumerate(headings, 1):
        end = headings[n][0] if n < len(headings) else len(text)
        body_start = text.find("\n", pos, end)
        body_start = end if body_start == -1 else body_start + 1
        chapters.append(Chapter(n, re.sub(r"^\s*\d+\s*[、.．]\s*", "", title).strip(), body_start, end, pos))
    return Edition("", raw, text, origin, "", True, chapters, variants)
