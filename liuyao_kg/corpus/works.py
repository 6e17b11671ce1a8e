"""Works, their known editions, and the IRIs of editions and their graphs."""
from __future__ import annotations

import re
from functools import cache
from importlib import resources

import yaml

from liuyao_kg import namespaces as ns
from liuyao_kg.loaders.errors import CastInputError
from liuyao_kg.ontology.tables import WORKS

EDITION = ns.BASE + "edition/"
GRAPH_EDITION = ns.GRAPH + "edition/"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class CorpusError(CastInputError):
    """Bad input to the corpus layer: an unknown work, a malformed edition name, an unreadable file."""


def read_yaml(path, what: str):
    """A YAML file given to a corpus command (a gold set, reviews), or a CorpusError saying what is wrong with it."""
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"{what} file not found: {p}")
    try:
        return p, yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise CorpusError(f"{p}: not a YAML {what} file ({e.__class__.__name__})") from None


def work_key(name: str) -> str:
    """The work key (HuoZhuLin …) for a key, a zh-Hant title or its simplified spelling."""
    from liuyao_kg.corpus.variants import fold

    for key, (_, zh, en, _) in WORKS.items():
        if name in (key, zh, en) or fold(name) == fold(zh):
            return key
    known = ", ".join(f"{zh} ({key})" for key, (_, zh, _, _) in WORKS.items())
    raise CorpusError(f"unknown work {name!r}; known works: {known}")


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name or ""):
        raise CorpusError(f"edition name {name!r}: use 1–64 ASCII letters, digits, '_', '-' or '.', "
                          f"starting with a letter or digit (it becomes part of the edition's IRI)")
    return name


def edition_iri(work: str, name: str) -> str:
    return f"{EDITION}{work}/{name}"


def edition_graph(work: str, name: str) -> str:
    return f"{GRAPH_EDITION}{work}/{name}"


def work_iri(work: str) -> str:
    return ns.LYR + WORKS[work][0]


@cache
def known_editions() -> list[dict]:
    text = resources.files(__package__).joinpath("editions.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["editions"]


def known_by_sha(sha256: str) -> dict | None:
    return next((e for e in known_editions() if e["sha256"] == sha256), None)


def known_by_file(file: str) -> dict | None:
    return next((e for e in known_editions() if e["file"] == file), None)
