"""Every generated file of the package, from one table, run in order: `python -m liuyao_kg.build [--check] [STEP ...]`.

A step turns sources (the ontology's tables and YAML, the seeds beside the checkout in ../shared, the rules graph,
the named queries) into files the package ships. After changing a table, a rule, a passage, a question or a named
query, run `python -m liuyao_kg.build`: each step whose output would change rewrites it. `--check` writes nothing
and exits 1 naming every stale file (tests/build/test_build.py runs it); a step whose sources are missing (no
../shared beside a plain clone) is skipped and says so. `--list` prints the table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from liuyao_kg.build.paths import ROOT


@dataclass(frozen=True)
class Step:
    """One generator: its `name`, what it `makes`, the module of liuyao_kg.build that makes it (its `outputs()`:
    {file: bytes} it would write; and, where computing them is slow, its `stale()`: a cheap check of which of its
    files are stale, the compiled rules' hashes), and the directory of sources it `needs` beside the checkout (None:
    only the package's own)."""

    name: str
    makes: str
    module: str
    needs: Path | None = None

    @property
    def code(self):
        return import_module(f"liuyao_kg.build.{self.module}")

    def outputs(self) -> dict[Path, bytes]:
        return self.code.outputs()


SEEDS = ROOT.parent / "shared" / "seeds"

#: the generators, in the order they run (each reads what the ones before it wrote)
STEPS = (
    Step("reference", "ontology/reference.ttl and rules/shensha.ttl, from ontology/tables.py", "reference"),
    Step("owl", "ontology/lyo.owl, external.owl and catalog-v001.xml (RDF/XML for Protégé), from the Turtle", "owl"),
    Step("passages", "ontology/passages.ttl: passages.yaml anchored in the seeds and corpora", "passages", SEEDS),
    Step("chapters", "ontology/rules/chapters.ttl and chapter-passages.ttl: the chapter rules compiled to SPARQL",
         "chapters", SEEDS),
    Step("conflicts", "ontology/conflicts.ttl and docs/schools.md's tables: the schools' conflicts, from conflicts.yaml",
         "conflicts"),
    Step("lazy", "ontology/compiled/*-eager.nt, reference-layer.nt, reads.json: what a new store parses first", "lazy"),
    Step("rule-base", "ontology/compiled/rule_analysis.json, rule_base.pickle, reference_kept.nt: the rule base",
         "rule_base"),
    Step("native", "reasoner/native/compiled.py: the rules and the chart's queries compiled to Python (~90 s)",
         "native"),
    Step("questions", "docs/questions.md's table of questions, read from the graph", "questions"),
    Step("pinyin", "ontology/compiled/pinyin.json, labels.json: every term's pinyin (pypinyin) and en and ko labels",
         "pinyin"),
)


def step(name: str) -> Step:
    for s in STEPS:
        if s.name == name:
            return s
    raise ValueError(f"no build step {name!r}: one of {', '.join(s.name for s in STEPS)}")


def missing_sources(s: Step) -> str | None:
    """Why a step cannot run here (its sources are not beside the checkout), or None."""
    if s.needs is not None and not s.needs.is_dir():
        return f"{s.needs} is missing"
    return None


def stale(s: Step) -> list[Path]:
    """The files of a step that differ from what it would write now (by its module's own `stale()` where it has one)."""
    if hasattr(s.code, "stale"):
        return s.code.stale()
    return [path for path, data in s.outputs().items() if not path.exists() or path.read_bytes() != data]


def run(names: list[str] | None = None, *, check: bool = False, log: Callable[[str], None] = print) -> int:
    """Run the steps named (default: all) in the table's order: write their outputs, or with `check` only report
    the stale ones. Returns 1 when a check found a stale file, else 0."""
    chosen = [step(n) for n in names] if names else list(STEPS)
    order = [s for s in STEPS if s in chosen]
    status = 0
    for s in order:
        why = missing_sources(s)
        if why is not None:
            log(f"{s.name}: skipped ({why})")
            continue
        if check:
            for path in stale(s):
                log(f"{s.name}: stale {_shown(path)}: run python -m liuyao_kg.build {s.name}")
                status = 1
            continue
        if hasattr(s.code, "stale") and not stale(s):
            continue
        for path, data in s.outputs().items():
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
                log(f"{s.name}: wrote {_shown(path)}")
    return status


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
