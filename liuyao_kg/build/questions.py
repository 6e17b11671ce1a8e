"""docs/questions.md's generated table of questions (liuyao_kg.rulebase.topics.questions_table), read from the graph."""
from __future__ import annotations

from pathlib import Path

from liuyao_kg.build.paths import ROOT

DOC = ROOT / "docs" / "questions.md"


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build): the document with its table made again."""
    from liuyao_kg import default_graph
    from liuyao_kg.rulebase.topics import TABLE_BEGIN, TABLE_END, questions_table, topics

    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(TABLE_BEGIN)
    _, _, tail = rest.partition(TABLE_END + "\n")
    return {DOC: (head + questions_table(topics(default_graph())) + tail).encode("utf-8")}
