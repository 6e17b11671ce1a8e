"""Every string the CLI prints in words — `cast`, `why`, `topics`, `rules coverage`, `query`, `eval`, `load` and its
summary and progress lines — is in the chosen `--lang` alone (zh-Hant, zh-Hans, en, ko).

What may stand in another script, in every language: the classics' 「quotes」 with the names of their works and
chapters before them, IRIs, rule ids and rule conditions (`…`, the rule base's own notation), seed file names,
command options, and the identifiers of the input (a batch's file name and record ids, a case file's set name and
case ids). In English a Chinese term may stand only in brackets beside its pinyin or gloss
(`Xinhai (辛亥) day`, `severed (絕)`); in Korean no Latin word; in Chinese no Latin word and no Hangul; in zh-Hans no
character whose OpenCC simplified form differs.
"""
from __future__ import annotations

import re

import functools
import json
from pathlib import Path

import pytest
import yaml

from liuyao_kg.chart.i18n import simplified
from liuyao_kg import default_graph
from liuyao_kg.cli import main
from liuyao_kg.rulebase.coverage import coverage

DATA = Path(__file__).resolve().parents[1] / "data"
BATCH = DATA / "batches" / "casts.jsonl"
CASES = DATA / "eval_cases.yaml"

JIE = ["節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財"]
#: name → argv: the reading, no topic, no date, a hidden use-god, a dated cast, a named use-god, schools, people
COMMANDS = {
    "cast": ["cast", *JIE],
    "cast-brief": ["cast", *JIE, "--brief"],
    "cast-no-topic": ["cast", "節"],
    "cast-no-use-god-line": ["cast", "姤之鼎", "--topic", "葬地"],
    "cast-dated": ["cast", "節之中孚", "--date", "2024-02-04T16:28:00+08:00", "--topic", "婚姻", "--sex", "女"],
    "cast-about": ["cast", "否之臨", "--month", "寅", "--day", "己亥", "--topic", "疾病", "--about", "父母"],
    "cast-year": ["cast", "787986", "--month", "壬寅", "--day", "辛亥", "--year", "壬午", "--topic", "求官",
                  "--horizon", "月"],
    "cast-school": ["cast", "乾之姤", "--month", "寅", "--day", "甲子", "--topic", "國家", "--school", "RulerFifth"],
    "cast-use-god": ["cast", "乾", "--month", "寅", "--day", "甲子", "--topic", "晴雨", "--use-god", "3"],
    "why-line": ["why", *JIE, "--line", "1"],
    "why-rule": ["why", *JIE, "--rule", "理不應得"],
    "why-not-fired": ["why", *JIE, "--rule", "no-such-rule"],
    "why-verdict": ["why", *JIE, "--verdict"],
    "why-timing": ["why", *JIE, "--timing", "1"],
    "why-no-verdict": ["why", "節", "--month", "寅", "--day", "辛亥", "--verdict"],
    "topics": ["topics"],
    "rules-coverage": ["rules", "coverage"],
    "query-relations": ["query", "branch-relations", "--param", "a=子", "--param", "b=午"],
    "query-nayin": ["query", "nayin", "--param", "gz=甲子"],
    "eval": ["eval", str(CASES)],
}
#: commands whose words go to stderr (the load's progress line and summary, a rejected record's reason included)
STDERR_COMMANDS = {"load": ["load", str(BATCH), "--jobs", "1"]}
LANGS = ("zh", "zh-Hant", "zh-Hans", "en", "ko")

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: spans any language may hold as they are
NEUTRAL = [
    re.compile(r"[^\s「」—:：()（）\[\]]*「[^」]*」"),  # a quote, with its work·chapter before it
    re.compile(r"https?://\S+"),  # IRIs
    re.compile(r"urn:liuyao:\S+"),  # a passage's citation (docs/citation.md)
    re.compile(r"`[^`]*`"),  # a rule's condition, in the rule base's notation
    re.compile(r"\[[\w.]+\.txt(?: \d+–\d+)?\]"),  # a seed file and the offsets in it
    re.compile(r"[\w.]+\.txt"),
    re.compile(r"docs/[\w/-]+\.md(?:#[\w-]+)?"),  # a page of the docs the text points to
    re.compile(r"\b(?:ly[a-z]*|skos|rdfs|owl|xsd):[\w-]+"),  # IRIs by prefixed name (`query`'s table)
    re.compile(r"\(ConventionTimingOrder\)"),
    re.compile(r"liuyao (?:why|topics)|--[a-z-]+|\bID\b"),  # commands and options the text points to
    re.compile(r"\(([a-z0-9]+(?:-[a-z0-9]+)+)(?:, [a-z0-9]+(?:-[a-z0-9]+)+)*\)\s*$", re.M),  # rule ids closing a line
    re.compile(r"(?:規則|规则|rule|규칙) [a-z0-9]+(?:-[a-z0-9]+)+"),  # a rule id after the word rule
]
GLOSSED = re.compile(rf"[A-Za-z][\w'-]*,? \([{HAN}]+\)")  # Xinhai (辛亥), severed (絕): English beside the term
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
FULL_WIDTH = re.compile(r"[（）：、；，。]")


@pytest.fixture(autouse=True)
def whole_cells(monkeypatch):
    """Tables print whole cells, as into a pipe: a $COLUMNS left by another library in this process would cut them."""
    monkeypatch.delenv("COLUMNS", raising=False)


def run(capsys, argv: list[str]) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def identifiers() -> set[str]:
    """The input's own names, which every language keeps: the batch's file name and record ids, the case file's
    set name and case ids."""
    records = [json.loads(line) for line in BATCH.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))["cases"]
    return {BATCH.name, CASES.stem} | {r["id"] for r in records} | {c["id"] for c in cases}


def rule_base_notes() -> set[str]:
    """Why a rule is not executable: the rule base's own notes, written in English only (`rules coverage` prints
    them as they are, under a heading that says so)."""
    return {r["reason"] for r in coverage(default_graph())["not_executable_reasons"]}


def outside_neutral(text: str) -> str:
    text = NOTE_ROW.sub(lambda m: " " if _is_note(m.group(1)) else m.group(0), text)
    for span in NEUTRAL:
        text = span.sub(" ", text)
    for name in sorted(_kept(), key=len, reverse=True):
        text = text.replace(name, " ")
    return text


#: a row of `rules coverage`'s second table: a count, then a note (cut to the terminal's width with …)
NOTE_ROW = re.compile(r"^ *\d+  (\S.*?)…?$", re.M)


def _is_note(cell: str) -> bool:
    return any(note.startswith(cell) for note in _kept())


@functools.cache
def _kept() -> frozenset[str]:
    return frozenset(identifiers() | rule_base_notes())


def foreign(text: str, lang: str) -> list[str]:
    """The pieces of `text` written in another language or script than `lang`'s."""
    rest = outside_neutral(text)
    if lang == "en":
        rest = GLOSSED.sub(" ", rest)
        return re.findall(rf"[{HAN}]+", rest) + HANGUL.findall(rest) + FULL_WIDTH.findall(rest)
    if lang == "ko":
        return LATIN_WORD.findall(rest)
    found = LATIN_WORD.findall(rest) + HANGUL.findall(rest)
    if lang == "zh-Hans":
        found += [ch for ch in set(re.findall(rf"[{HAN}]", rest)) if simplified(ch) != ch]
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", COMMANDS)
def test_every_string_is_in_the_chosen_language(capsys, name, lang):
    text = run(capsys, [*COMMANDS[name], "--lang", lang])
    assert text.strip()
    if name.startswith("query-"):  # a table's head: the query's variable names, identifiers in every language
        text = text.split("\n", 1)[1]
    bad = foreign(text, lang)
    lines = [ln for ln in text.splitlines() if any(b in outside_neutral(ln) for b in bad)]
    assert not bad, f"{name} --lang {lang}: {sorted(set(bad))[:12]} in\n" + "\n".join(lines[:8])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", STDERR_COMMANDS)
def test_every_summary_and_progress_line_is_in_the_chosen_language(capsys, name, lang):
    code = main([*STDERR_COMMANDS[name], "--lang", lang])
    out, err = capsys.readouterr()
    assert code == 0 and err.strip()
    json.loads(out)  # the report itself is JSON, the same in every language
    bad = foreign(err, lang)
    lines = [ln for ln in err.splitlines() if any(b in outside_neutral(ln) for b in bad)]
    assert not bad, f"{name} --lang {lang}: {sorted(set(bad))[:12]} in\n" + "\n".join(lines[:8])


@pytest.mark.parametrize("argv", [["topics", "--format", "json"], ["rules", "coverage", "--format", "json"],
                                  ["query", "nayin", "--param", "gz=甲子", "--format", "json"],
                                  ["eval", str(CASES), "--format", "json"], ["load", str(BATCH), "--quiet"]],
                         ids=lambda argv: argv[0])
def test_json_is_the_same_in_every_language(capsys, argv):
    outputs = set()
    for lang in LANGS:
        main([*argv, "--lang", lang])
        outputs.add(capsys.readouterr().out)
    assert len(outputs) == 1


def test_topics_says_each_question_in_one_language(capsys):
    en = run(capsys, ["topics", "--lang", "en"])
    assert en.startswith("seeking wealth  (investment, money)\n")
    assert "use-god for seeking wealth: Qicai (wealth)" in en
    assert run(capsys, ["topics", "--lang", "ko"]).startswith("구재\n")
    assert run(capsys, ["topics", "--lang", "zh-Hans"]).startswith("求财  （投资、求利、求财、理财、生意、股票、财运、买卖）\n")


def test_query_cells_holding_terms_are_translated_and_columns_kept(capsys):
    argv = ["query", "branch-relations", "--param", "a=子", "--param", "b=午"]
    assert run(capsys, [*argv, "--lang", "en"]).splitlines()[1].split()[:4] == ["Zi", "(子)", "Wu", "(午)"]
    assert run(capsys, [*argv, "--lang", "ko"]).splitlines() == ["a   b   relation  source",
                                                               "子  午  충        lyp:BranchClash"]
    assert "冲" in run(capsys, [*argv, "--lang", "zh-Hans"]) and "沖" in run(capsys, argv)


def test_a_rejected_record_is_said_in_the_chosen_language(capsys):
    main(["load", str(BATCH), "--jobs", "1", "--lang", "zh"])
    err = capsys.readouterr().err
    assert "  拒收：第 4 行（bad-line）：卦「787586」不合" in err
    main(["load", str(BATCH), "--jobs", "1", "--lang", "en"])
    assert "  rejected: record 'bad-line', line 4, field spec: line value 5 at position 4" in capsys.readouterr().err


def test_eval_words_its_verdicts_and_timing(capsys):
    en = run(capsys, ["eval", str(CASES), "--lang", "en"])
    assert "auspicious" in en and "Zi (子) day, Chou (丑) day, Hai (亥) day" in en
    zh = run(capsys, ["eval", str(CASES)])
    assert "== 總計：全部 ==" in zh and "子日、丑日、亥日" in zh


@pytest.fixture(scope="module")
def silent_rules():
    """A never-fired report of a one-cast sample, cut to its first rules (the text of 1,000+ is the same per rule)."""
    from liuyao_kg.rulebase.never_fired import never_fired

    report = never_fired(1)
    return report | {"never_fired": report["never_fired"][:12]}


@pytest.mark.parametrize("lang", LANGS)
def test_never_fired_is_in_the_chosen_language(silent_rules, lang):
    from liuyao_kg.chart.i18n import labels
    from liuyao_kg.rulebase.never_fired import never_fired_text

    text = never_fired_text(silent_rules, lang, labels(default_graph()))
    rule_ids = {r["rule"].split("/ch/", 1)[-1] for r in silent_rules["never_fired"]}
    text = "\n".join(ln.split("  ", 1)[1] if ln.split("  ", 1)[0] in rule_ids else ln for ln in text.splitlines())
    bad = foreign(text, lang)  # each rule's id heads its entry: an identifier, kept
    assert not bad, f"never-fired in {lang}: {sorted(set(bad))[:12]}"


def test_the_check_catches_each_kind_of_mixing():
    """The checker is precise: each language's slip is found, and the spans every language may keep pass."""
    assert foreign("Verdict: 凶", "en") == ["凶"]
    assert foreign("the 應 overcoming", "en") == ["應"]
    assert foreign("because x（初爻）", "en")
    assert foreign("상효 and 효", "ko") == ["and"]
    assert foreign("無月日 no month or day", "zh") == ["no", "month", "or", "day"]
    assert foreign("斷：판단", "zh") == ["판", "단"]
    assert foreign("应期：子日 絕", "zh-Hans") == ["絕"]
    kept = "Zi (子) day — 易冒·沖合章「合主事之成」  (six-combine-matter-succeeds)\n`w = 妻財 日:絕`"
    assert foreign(kept, "en") == [] and foreign("断：凶 — 易冒「日傷爻」 https://w3id.org/x", "zh-Hans") == []


def test_zh_hant_is_zh(capsys):
    assert run(capsys, ["cast", *JIE, "--lang", "zh-Hant"]) == run(capsys, ["cast", *JIE])


def test_simplified_chinese_keeps_the_classics_quotes_as_written(capsys):
    text = run(capsys, ["cast", *JIE, "--lang", "zh-Hans"])
    assert text.startswith("断：凶中有吉\n") and "应期：子日、丑日、亥日" in text
    assert "「巳財絕於亥日，兄動奪之，理不應得」" in text and "黄金策「日傷爻，真罹其禍」" in text


def test_english_gives_the_pinyin_a_reader_would_search_for(capsys):
    text = run(capsys, ["cast", *JIE, "--lang", "en"])
    assert "Xianchi (salty pool, peach blossom)" in text and "Yima (post horse)" in text
    assert "Yin (寅) month, Xinhai (辛亥) day; void: Yin (寅), Mao (卯)" in text
    assert "Timing: Zi (子) day, Chou (丑) day, Hai (亥) day" in text
    assert "  line 1 Dingsi (丁巳) [day: severance; month: birth; strong]: " in text


@pytest.mark.parametrize("lang, head", [("zh", "斷："), ("en", "Verdict: "), ("ko", "판단: ")])
def test_brief_is_the_verdict_the_use_god_and_the_timing_only(capsys, lang, head):
    brief = run(capsys, ["cast", *JIE, "--brief", "--lang", lang]).splitlines()
    full = run(capsys, ["cast", *JIE, "--lang", lang])
    assert brief[0].startswith(head) and len(brief) == 6  # verdict, its three reasons, use-god, timing
    assert full.startswith("\n".join(brief) + "\n\n")  # the full chart opens with the same reading


def test_a_school_variant_is_shown_once_with_its_schools(capsys):
    text = run(capsys, ["cast", *JIE])
    assert "暗動（通說、增刪卜易說）" in text and "暗動、暗動" not in text


def test_judgments_drawn_from_one_sentence_are_said_once_with_every_rule(capsys):
    text = run(capsys, ["cast", *JIE])
    assert text.count("「克破為凶」") == 1
    assert "(usegod-overcome-by-day, usegod-overcome-by-moving-line)" in text


# --- what each named query answers (`liuyao query --list`) ---------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_query_list_says_what_each_query_answers_in_the_chosen_language(capsys, lang):
    from liuyao_kg import queries

    text = run(capsys, ["query", "--list", "--lang", lang])
    lines = text.splitlines()
    assert len(lines) == 2 * len(queries.catalogue())
    said = "\n".join(ln for ln in lines if ln.startswith("    "))  # each query's signature heads it: identifiers
    bad = foreign(re.sub(r"\b(?:oa:\w+|lyo:\w+|lyr:School…|IRI|SPARQL|userChoice|cited|true|false)\b|/api/rules|"
                         r"\?\w+|\"quoted\"|corpus add|liuyao (?:show|load)|\"id\"|rdfs:label|"
                         r"SixClashHexagram|BranchClash", " ", said), lang)
    assert not bad, f"query --list --lang {lang}: {sorted(set(bad))[:12]}"


def test_query_list_in_english_glosses_the_terms():
    from liuyao_kg.cli import main as cli_main  # noqa: F401 — the same entry the other tests use
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "liuyao_kg.cli", "query", "--list", "--lang", "en"],
                         capture_output=True, text=True, check=True).stdout
    assert "    the nayin (sound element) of a stem-branch of the sixty-day cycle\n" in out
    assert "    六十甲子一干支之納音（及其五行）\n" in run_list("zh")


def run_list(lang: str) -> str:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(["query", "--list", "--lang", lang])
    return out.getvalue()


def test_a_query_without_its_descriptions_is_refused_naming_what_to_add():
    from liuyao_kg.queries import _parse

    with pytest.raises(ValueError, match=r"new\.rq says what it answers in English only: add "
                                         r"'# answers@zh-Hant: …', '# answers@ko: …'"):
        _parse("new", "# answers: something\nSELECT * WHERE { ?s ?p ?o }\n")
    with pytest.raises(ValueError, match=r"add '# answers@ko: …'"):
        _parse("new", "# answers: something\n# answers@zh-Hant: 某事\nSELECT * WHERE { ?s ?p ?o }\n")
