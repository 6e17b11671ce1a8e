"""Every generated file is what `python -m liuyao_kg.build` makes from its sources now: one test per step of the
table, naming a stale file and the command that rebuilds it. A step whose sources are not beside the checkout (the
seeds in ../shared, on a plain clone) skips and says so; CI has them."""
from __future__ import annotations

import pytest

from liuyao_kg.build import STEPS, missing_sources, stale
from liuyao_kg.build.__main__ import main


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
def test_each_generated_file_is_what_its_step_makes_now(step):
    why = missing_sources(step)
    if why is not None:
        pytest.skip(f"step {step.name} needs the source texts: {why}")
    files = stale(step)
    assert not files, f"stale: {', '.join(map(str, files))}: run python -m liuyao_kg.build {step.name}"


def test_the_command_lists_its_steps_in_order(capsys):
    assert main(["--list"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [s.name for s in STEPS]


def test_an_unknown_step_is_refused_by_name(capsys):
    assert main(["--check", "chapter"]) == 2
    assert "no build step 'chapter': one of reference, owl," in capsys.readouterr().err
