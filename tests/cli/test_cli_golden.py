"""`liuyao cast` prints exactly what it printed when tests/data/cli_golden.json was recorded: the same chart text,
JSON and RDF, and the same errors for bad input, byte for byte (a faster start must not change a character).

Re-record after an intended change of the output (then read the diff):

    LIUYAO_RECORD_GOLDEN=1 pytest tests/cli/test_cli_golden.py -n 0
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from liuyao_kg.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "cli_golden.json"
JIE = ["節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財"]

#: name → argv of `liuyao`; together they reach the reading, schools, people, hours, years and every --lang
CASES = {
    "readme": ["cast", *JIE],
    "readme-en": ["cast", *JIE, "--lang", "en"],
    "readme-ko": ["cast", *JIE, "--lang", "ko"],
    "readme-json": ["cast", *JIE, "--format", "json"],
    "readme-nquads": ["cast", *JIE, "--format", "nquads"],
    "no-date": ["cast", "姤之鼎", "--topic", "葬地"],
    "dated-hour": ["cast", "節之中孚", "--date", "2024-02-04T16:28:00+08:00", "--topic", "婚姻", "--sex", "女"],
    "birth-illness": ["cast", "大畜之蒙", "--month", "巳", "--day", "癸未", "--birth", "寅", "--topic", "疾病"],
    "about-parent": ["cast", "否之臨", "--month", "寅", "--day", "己亥", "--topic", "疾病", "--about", "父母",
                     "--lang", "en"],
    "school": ["cast", "乾之姤", "--month", "寅", "--day", "甲子", "--topic", "國家", "--school", "RulerFifth"],
    "school-json": ["cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "國家", "--school", "RulerFifth",
                    "--format", "json"],
    "school-unknown": ["cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "求財", "--school", "ZengShan"],
    "use-god": ["cast", "乾", "--month", "寅", "--day", "甲子", "--topic", "晴雨", "--use-god", "3", "--lang", "ko"],
    "year-month-horizon": ["cast", "787986", "--month", "壬寅", "--day", "辛亥", "--year", "壬午", "--topic", "求官",
                           "--horizon", "月"],
    "coins": ["cast", "--coins", "HHT,HTT,TTT,HHH,HHT,HTT", "--month", "寅", "--day", "辛亥", "--format", "json"],
    "static": ["cast", "坤", "--month", "亥", "--day", "甲子"],
    "bad-name": ["cast", "節x", "--month", "寅", "--day", "辛亥"],
    "bad-value": ["cast", "787985", "--month", "寅", "--day", "辛亥"],
    "bad-day": ["cast", "節", "--month", "寅", "--day", "甲丑"],
    "bad-lines": ["cast", "節之坤", "--lines", "787986", "--month", "寅", "--day", "辛亥"],
    "bad-date": ["cast", "節", "--date", "2024-02-30T10:00+08:00"],
    "bad-topic": ["cast", "節", "--month", "寅", "--day", "辛亥", "--topic", "no such question"],
    "bad-sex": ["cast", "節", "--month", "寅", "--day", "辛亥", "--sex", "x"],
    "bad-coins": ["cast", "--coins", "HHX,HTT,TTT,HHH,HHT,HHT", "--month", "寅", "--day", "辛亥"],
}


def run(capsys, argv) -> dict:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return {"argv": argv, "code": code, "stdout": out, "stderr": err}


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text("utf-8")) if GOLDEN.exists() else {}


@pytest.mark.parametrize("name", CASES)
def test_cast_output_is_byte_identical_to_the_recording(capsys, golden, name):
    got = run(capsys, CASES[name])
    if os.environ.get("LIUYAO_RECORD_GOLDEN") == "1":
        golden[name] = got
        GOLDEN.write_text(json.dumps(dict(sorted(golden.items())), ensure_ascii=False, indent=1) + "\n", "utf-8")
        pytest.skip("recorded")
    assert got == golden[name]


@pytest.mark.parametrize("name", ["readme", "bad-name"])
def test_a_first_run_in_a_fresh_process_prints_the_recording_too(golden, tmp_path, name):
    """A new process with an empty cache directory: the path a fresh clone's first `liuyao cast` takes."""
    import subprocess
    import sys

    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "liuyao_kg.cli", *CASES[name]], capture_output=True, env=env)
    assert (done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")) == \
        (golden[name]["code"], golden[name]["stdout"], golden[name]["stderr"])
