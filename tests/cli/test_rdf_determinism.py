"""Every RDF format is the same bytes for the same cast, across processes (docs/cli.md#rdf-out)."""
from __future__ import annotations

import subprocess
import sys

import pyoxigraph as ox
import pytest

from liuyao_kg.chart.rdf import FORMATS, serialize_quads

CAST = ["cast", "否之臨", "--month", "寅", "--day", "己亥"]


def _liuyao(*argv: str) -> bytes:
    """The command in a fresh interpreter: its own hash seed, so set orders differ from any other run."""
    done = subprocess.run([sys.executable, "-m", "liuyao_kg.cli", *argv], capture_output=True, check=True)
    return done.stdout


@pytest.mark.parametrize("fmt", ["json-ld", "trig"])
def test_a_cast_prints_the_same_bytes_in_two_processes(fmt):
    first, second = (_liuyao(*CAST, "--format", fmt) for _ in range(2))
    assert first and first == second


def _two_labellings() -> tuple[list[ox.Quad], list[ox.Quad]]:
    """One graph with blank nodes, as two stores would hold it: the same shape under different labels."""
    p, g = ox.NamedNode("https://example.org/p"), ox.NamedNode("https://example.org/g")
    def graph(a: str, b: str) -> list[ox.Quad]:
        x, y = ox.BlankNode(a), ox.BlankNode(b)
        return [ox.Quad(x, p, y, g), ox.Quad(y, p, ox.Literal("leaf"), g)]
    return graph("zz9", "aa1"), graph("b0", "b1")


@pytest.mark.parametrize("fmt", FORMATS)
def test_blank_node_labels_do_not_change_the_bytes(fmt):
    one, other = _two_labellings()
    assert serialize_quads(one, fmt) == serialize_quads(other, fmt)
