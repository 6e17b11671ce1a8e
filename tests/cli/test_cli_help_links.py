"""Every pointer in the `liuyao` help texts leads somewhere real: a docs file and its heading's anchor, an option
of the same command (`see --seed`), a subcommand (`liuyao topics`)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from liuyao_kg.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOC = re.compile(r"\b((?:docs/)?[\w.-]+\.md)(?:#([\w-]+))?")
OPTION = re.compile(r"\bsee (--[\w-]+)")
COMMAND = re.compile(r"`liuyao ([\w-]+)")


def _parsers(parser: argparse.ArgumentParser, name: str = "liuyao"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def _helps() -> list[tuple[str, argparse.ArgumentParser, str]]:
    out = []
    for name, parser in _parsers(build_parser()):
        texts = [parser.description or ""] + [a.help or "" for a in parser._actions]
        texts += [c.help or "" for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                  for c in a._choices_actions]
        out += [(name, parser, t) for t in texts if t]
    return out


HELPS = _helps()
COMMANDS = {name.split()[1] for name, _, _ in HELPS if len(name.split()) == 2}


def _slugs(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)  # not a code block's comments
    heads = re.findall(r"^#{1,6} (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def _doc_links():
    for name, _, text in HELPS:
        for file, anchor in DOC.findall(text):
            yield pytest.param(file, anchor, id=f"{name}: {file}#{anchor}")


@pytest.mark.parametrize("file, anchor", list(_doc_links()))
def test_a_docs_pointer_names_a_file_and_a_heading_that_exist(file, anchor):
    path = ROOT / file
    assert path.is_file(), f"{file} does not exist"
    assert not anchor or anchor in _slugs(path), f"{file} has no heading #{anchor}"


def test_the_help_points_to_docs_at_all():
    assert len(list(_doc_links())) >= 5


@pytest.mark.parametrize("name, parser, text", [h for h in HELPS if OPTION.search(h[2])],
                         ids=lambda v: v if isinstance(v, str) and v.startswith("liuyao") else "")
def test_see_an_option_names_one_of_the_same_command(name, parser, text):
    options = {o for a in parser._actions for o in a.option_strings}
    for sub_parsers in (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)):
        options |= {o for child in sub_parsers.choices.values() for a in child._actions for o in a.option_strings}
    assert set(OPTION.findall(text)) <= options, f"{name}: {text}"


def test_a_command_named_in_a_help_text_exists():
    named = {c for _, _, text in HELPS for c in COMMAND.findall(text)}
    assert named and named <= COMMANDS, named - COMMANDS
