"""Witnesses of a work: a file, the part of it that carries the work, and the Han-character text to collate.

A witness is named `<work>/<edition>` (`火珠林/seed`, `火珠林/wikisource`, `黃金策/wikisource`), `<work>@<carrier>/<edition>`
for a work carried inside another work's edition (`黃金策@卜筮正宗/ctext`: the 黃金策 that 卜筮正宗 prints with 王洪緒's
notes), an edition IRI, or a file path with `--work`. `resolve` is the one place names are turned into files.

What a witness holds of the work is its Han characters, each remembering its offset in the file (wikitext stripped by
`loaders.edition`). Text that is not the work is set aside, with its offsets and the reason, never collated:
the seeds' Korean commentary (a paragraph holding Hangul), and outside a carried work's extent the rest of the carrier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus.variants import fold, is_han
from liuyao_kg.corpus.works import (WORKS, CorpusError, edition_iri, known_by_file, known_editions, work_key)
from liuyao_kg.loaders.edition import Edition, read_edition

#: ../shared beside the checkout: seeds/ and corpora/
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SEED = ns.BASE + "seed/"
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
#: a work carried inside another work's edition: (work, carrier key, edition name) → the lines bounding it
#: (the first line after which it starts, the first line where it has ended) and lines inside that are not the work
CARRIED = {
    ("HuangJinCe", "BuShiZhengZong", "ctext"): {
        "after": "黃金策總斷千金賦直解", "before": "十八問答附占驗", "headings": re.compile(r"^卷[一二三四五六七八九十]+$"),
        "note": "卜筮正宗 卷二–三: 黃金策總斷千金賦直解 (劉誠意撰, 王洪緒注), from its heading to 十八問答附占驗",
    },
}


@dataclass
class Witness:
    name: str                 # as the reader gave it, normalised (火珠林/seed)
    key: str                  # ASCII, for IRIs: HuoZhuLin-seed, HuangJinCe-BuShiZhengZong-ctext
    work: str                 # the work key (HuoZhuLin)
    edition: str              # the edition's IRI (the carrier's, for a carried work)
    ed: Edition               # the file as read, markup stripped, offsets kept
    chars: str = ""           # the work's Han characters
    origin: list[int] = field(default_factory=list)      # chars[i] is ed.raw[origin[i]]
    paragraph: list[int] = field(default_factory=list)   # the paragraph (line of ed.text) chars[i] stands in
    para_bounds: dict = field(default_factory=dict)      # paragraph → (first, last + 1) index in chars
    set_aside: list[dict] = field(default_factory=list)  # {start, end (in the file), reason, chars}
    extent: tuple[int, int] = (0, 0)                     # the part of the file that carries the work
    note: str = ""

    @property
    def path(self) -> str:
        return self.ed.path

    @property
    def folded(self) -> str:
        return fold(self.chars)

    def raw_span(self, i: int, j: int) -> tuple[int, int]:
        """Offsets in the file of chars[i:j] (an empty span: where chars[i] would be)."""
        if j > i:
            return self.origin[i], self.origin[j - 1] + 1
        o = self.origin[i] if i < len(self.origin) else self.extent[1]
        return o, o


def _seed_files(work: str, kg) -> list[str]:
    q = ns.sparql_prologue() + """SELECT ?e ?file WHERE { ?e a lyo:Edition ; dcterms:isVersionOf ?w ; lyo:fileName ?file .
      FILTER(STRSTARTS(STR(?e), "%s")) } ORDER BY ?file""" % SEED
    return [r["file"] for r in kg.select(q, {"w": _node(ns.LYR + WORKS[work][0])})]


def _node(iri: str):
    import pyoxigraph as ox

    return ox.NamedNode(iri)


def _shared(sub: str, file: str) -> Path:
    p = SHARED / sub / file
    if not p.is_file():
        raise CorpusError(f"{file}: not found in {SHARED / sub} (../shared beside the checkout holds the classics)")
    return p


def resolve(name: str, kg, *, work: str | None = None) -> Witness:
    """The witness a name stands for (see the module's docstring); a bad name is refused naming what is known."""
    if name.startswith(SEED):
        file = name[len(SEED):]
        w = work_key(work) if work else _seed_work(file, kg)
        return _witness(f"{WORKS[w][1]}/seed", f"{w}-seed", w, name, _shared("seeds", file), hangul=True)
    if name.startswith(edition_iri("", "")[:-1]):
        w, _, ed = name[len(edition_iri("", "")) - 1:].partition("/")
        name = f"{w}/{ed}"
    path = Path(name)
    if path.is_file() or (work is not None and "/" not in name):
        if not path.is_file():
            raise CorpusError(f"witness file not found: {name}")
        if work is None:
            raise CorpusError(f"{name}: give the work it is a witness of with --work")
        w = work_key(work)
        known = known_by_file(path.name)
        eiri = edition_iri(known["work"], known["name"]) if known else path.resolve().as_uri()
        return _witness(f"{WORKS[w][1]}/{path.name}", f"{w}-{re.sub(r'[^A-Za-z0-9]+', '-', path.stem)}", w, eiri, path,
                        hangul=True)
    head, sep, edition = name.rpartition("/")
    if not sep:
        raise CorpusError(f"witness {name!r}: name it <work>/<edition> (火珠林/seed, 黃金策/wikisource), "
                          f"<work>@<carrier>/<edition> (黃金策@卜筮正宗/ctext), an edition IRI, or a file with --work")
    work_name, _, carrier = head.partition("@")
    w = work_key(work_name)
    if carrier:
        c = work_key(carrier)
        spec = CARRIED.get((w, c, edition))
        known = next((e for e in known_editions() if e["work"] == c and e["name"] == edition), None)
        if spec is None or known is None:
            carried = ", ".join(f"{WORKS[a][1]}@{WORKS[b][1]}/{e}" for a, b, e in CARRIED)
            raise CorpusError(f"witness {name!r}: no known extent of {WORKS[w][1]} in {WORKS[c][1]}/{edition}; "
                              f"known: {carried}")
        wit = _witness(f"{WORKS[w][1]}@{WORKS[c][1]}/{edition}", f"{w}-{c}-{edition}", w, edition_iri(c, edition),
                       _shared("corpora", known["file"]), carried=spec)
        return wit
    if edition == "seed":
        files = _seed_files(w, kg)
        if len(files) != 1:
            raise CorpusError(f"{WORKS[w][1]} has {len(files)} seed texts"
                              + (f"; name one by its IRI: {', '.join(SEED + f for f in files)}" if files else ""))
        return _witness(f"{WORKS[w][1]}/seed", f"{w}-seed", w, SEED + files[0], _shared("seeds", files[0]), hangul=True)
    known = next((e for e in known_editions() if e["work"] == w and e["name"] == edition), None)
    if known is None:
        names = ", ".join(f"{WORKS[e['work']][1]}/{e['name']}" for e in known_editions() if e["work"] in WORKS)
        raise CorpusError(f"witness {name!r}: no edition {edition!r} of {WORKS[w][1]} is known; known: "
                          f"{WORKS[w][1]}/seed (if the work has one), {names}, or a file with --work")
    return _witness(f"{WORKS[w][1]}/{edition}", f"{w}-{edition}", w, edition_iri(w, edition),
                    _shared("corpora", known["file"]))


def _seed_work(file: str, kg) -> str:
    for w in WORKS:
        if file in _seed_files(w, kg):
            return w
    raise CorpusError(f"{SEED}{file}: not a seed edition the store describes")


def _witness(name: str, key: str, work: str, eiri: str, path: Path, *, hangul: bool = False,
             carried: dict | None = None) -> Witness:
    ed = read_edition(path)
    wit = Witness(name, key, work, eiri, ed)
    lines, at, chars = ed.text.split("\n"), 0, []
    inside = carried is None
    lo, hi = None, None
    for number, line in enumerate(lines):
        start, at = at, at + len(line) + 1
        stripped = line.strip()
        if carried is not None:
            if not inside and stripped == carried["after"]:
                inside, lo = True, ed.origin[at] if at < len(ed.origin) else len(ed.raw)   # after the heading line
                continue
            if inside and stripped == carried["before"]:
                inside, hi = False, ed.origin[start]
                break
            if not inside:
                continue
            if carried["headings"].match(stripped):
                s, e = ed.raw_span(start, start + len(line))
                wit.set_aside.append({"start": s, "end": e, "reason": "a heading of the carrier (its volume)",
                                      "chars": len(stripped)})
                continue
        if hangul and _HANGUL.search(line):
            s, e = ed.raw_span(start, start + len(line))
            wit.set_aside.append({"start": s, "end": e, "reason": "commentary in Korean (the seed's own)",
                                  "chars": sum(is_han(c) for c in line)})
            continue
        first = len(chars)
        for k, c in enumerate(line):
            if is_han(c):
                chars.append(c)
                wit.origin.append(ed.origin[start + k])
                wit.paragraph.append(number)
        if len(chars) > first:
            wit.para_bounds[number] = (first, len(chars))
    wit.chars = "".join(chars)
    if carried is not None:
        if lo is None or hi is None:
            raise CorpusError(f"{path}: the lines bounding the carried work ({carried['after']} … "
                              f"{carried['before']}) are not in this file")
        wit.extent, wit.note = (lo, hi), carried["note"]
    else:
        wit.extent = (0, len(ed.raw))
    if not wit.chars:
        raise CorpusError(f"{path}: no Han characters of the work in it")
    return wit
