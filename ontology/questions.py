"""The question scheme (tables.QUESTIONS) as lookups: names and synonyms, broader/narrower closure, the use-god
choices a question takes (its own, else its nearest broader question's) and what they accept.

One module for the loader (normalising --topic/--about/--school), the chapter compiler (a rule's topics
expand to every narrower question) and the reference-graph builder, so all three read the same scheme.
"""
from __future__ import annotations

from functools import cache

from liuyao_kg.ontology import tables as T

#: zh name → (zh, id, en, ko, broader, alt labels, passage)
QUESTION = {q[0]: q for q in T.QUESTIONS}
NAMES = tuple(QUESTION)
SUBJECT_NAMES = tuple(s[0] for s in T.SUBJECTS)
SCHOOL_IDS = {s[0]: s for s in T.USE_GOD_SCHOOLS}
# simplified / variant characters that occur in question names and synonyms
_VARIANTS = {"财": "財", "产": "產", "蚕": "蠶", "时": "時", "国": "國", "战": "戰", "书": "書", "农": "農",
             "医": "醫", "药": "藥", "试": "試", "访": "訪", "词": "詞", "讼": "訟", "丧": "喪", "坟": "墳",
             "脱": "脫", "门": "門", "远": "遠", "归": "歸", "营": "營", "谋": "謀", "气": "氣", "阴": "陰"}


def _fold(text: str) -> str:
    return "".join(_VARIANTS.get(ch, ch) for ch in text.strip()).lower()


@cache
def _lookup() -> dict[str, str]:
    out: dict[str, str] = {}
    for zh, qid, en, ko, _b, alts, _p in T.QUESTIONS:
        for key in (zh, qid, en, ko, *alts):
            key = _fold(key)
            assert out.get(key, zh) == zh, f"question name {key!r} is ambiguous"
            out[key] = zh
    return out


def find(text: str) -> str | None:
    """A question's zh name from its name, id, English or Korean label or a synonym (simplified forms too)."""
    return _lookup().get(_fold(text)) if isinstance(text, str) else None


def nearest(text: str, n: int = 3) -> list[str]:
    """The questions whose names or synonyms are closest to an unknown question (for its error message): by
    difflib's ratio over the folded names and synonyms, at least 0.4."""
    import difflib

    key = _fold(text) if isinstance(text, str) else ""
    if not key:
        return []
    scored: dict[str, float] = {}
    for name, zh in _lookup().items():
        score = difflib.SequenceMatcher(None, key, name).ratio()
        if score > scored.get(zh, 0.0):
            scored[zh] = score
    best = sorted((z for z in scored if scored[z] >= 0.4), key=lambda z: (-scored[z], NAMES.index(z)))
    return best[:n]


def broader_chain(zh: str) -> list[str]:
    """The question and its broader questions, nearest first (晴 → [晴, 天時])."""
    out = [zh]
    while QUESTION[out[-1]][4] is not None:
        out.append(QUESTION[out[-1]][4])
    return out


def broader_all(zh: str) -> list[str]:
    """Every broader question, by the tree and by tables.ALSO_BROADER (晴雨 → [晴雨, 天時, 晴, 雨])."""
    out = broader_chain(zh)
    for also in T.ALSO_BROADER.get(zh, ()):
        out += [q for q in broader_all(also) if q not in out]
    return out


def narrower_closure(zh: str) -> list[str]:
    """The question and every narrower one, in scheme order (天時 → [天時, 晴, 雨, 晴雨]; 晴 → [晴, 晴雨])."""
    return [q for q in NAMES if zh in broader_all(q)]


def choices(zh: str) -> list[tuple]:
    """The use-god choices that apply to a question: its own, else those of its nearest broader question; and
    the choice by each person (tables.PERSON_CHOICES) for whom those have none."""
    own: list[tuple] = []
    for q in broader_chain(zh):
        own = [c for c in T.USE_GOD_CHOICES if c[1] == q]
        if own:
            break
    people = {c[4]["about"] for c in own if "about" in c[4]}
    return own + [c for c in T.PERSON_CHOICES if c[4]["about"] not in people]


def specificity(when: dict) -> int:
    return sum(T.CHOICE_SPECIFICITY[k] for k in when if k in T.CHOICE_SPECIFICITY)


def horizon(zh: str) -> str:
    """The timing's unit of a question (tables.FAR_QUESTIONS: 遠應年月，近應日時): 月 for a far matter, else 日."""
    return "月" if any(q in T.FAR_QUESTIONS for q in broader_chain(zh)) else "日"


def schools_for(zh: str) -> list[str]:
    """The schools among a question's choices (--school)."""
    return list(dict.fromkeys(c[4]["school"] for c in choices(zh) if "school" in c[4]))


def tree_lines() -> list[tuple[int, str]]:
    """(depth, zh) in scheme order, each question under its broader one (for `liuyao topics`)."""
    out: list[tuple[int, str]] = []

    def walk(parent: str | None, depth: int) -> None:
        for q in NAMES:
            if QUESTION[q][4] == parent:
                out.append((depth, q))
                walk(q, depth + 1)

    walk(None, 0)
    return out
