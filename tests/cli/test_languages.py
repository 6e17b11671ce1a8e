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
    re.compile(r"liuyao (?:why|topics|show|serve|load|upgrade)|--[a-z-]+|\bID\b"),  # commands and options the text points to
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


# --- errors, notes and the progress line on stderr ----------------------------------------------------------------

#: name → (argv, exit status): the common input errors, missing arguments, the CLI's own refusals, a store's error
ERROR_COMMANDS = {
    "no-spec": (["cast"], 2),
    "unknown-hexagram": (["cast", "甲乙"], 2),
    "bad-line-value": (["cast", "787586"], 2),
    "impossible-stem-branch": (["cast", "節", "--day", "甲丑"], 2),
    "malformed-date": (["cast", "節", "--date", "2024-13-45"], 2),
    "unknown-topic": (["cast", "節", "--topic", "吃飯"], 2),
    "seed-without-random": (["cast", "節", "--seed", "3"], 2),
    "tz-without-date": (["cast", "節", "--tz", "+08:00"], 2),
    "missing-parameter": (["query", "nayin"], 2),
    "unknown-query": (["query", "no-such-query"], 2),
    "parameter-syntax": (["query", "nayin", "--param", "gz"], 2),
    "line-position": (["why", *JIE, "--line", "9"], 2),
    "timing-candidate": (["why", *JIE, "--timing", "9"], 2),
    "show-needs-store": (["show", "abc"], 2),
    "no-such-store": (["query", "nayin", "--param", "gz=甲子", "--store", "/nonexistent/store", "--read-only"], 1),
}


def identifiers_in_errors() -> set[str]:
    """What an error may name as it is: the named queries and their parameters, the paths the commands were given,
    the words one types as they are (now, a time zone's name) and the options' metavariables (DIR, URL)."""
    from liuyao_kg import queries

    return ({q.name for q in queries.catalogue().values()} | {p.name for q in queries.catalogue().values()
                                                                 for p in q.params}
            | {"/nonexistent/store", "now", "Asia/Taipei", "DIR", "URL"})


def foreign_on_stderr(err: str, lang: str, kept=()) -> list[str]:
    """`foreign` of stderr, the program's name (`liuyao:`) and `kept` identifiers set aside. In English the
    characters may stand as they are: the input is written in them (a hexagram's name, 甲丑, a question), and an
    error quotes it and its notation; Hangul and full-width punctuation may not."""
    err = re.sub(r"^liuyao:", " ", err, flags=re.M)
    for name in sorted({*identifiers_in_errors(), *kept}, key=len, reverse=True):
        err = re.sub(rf"(?<![\w/-]){re.escape(name)}(?![\w/-])", " ", err)
    if lang == "en":
        err = re.sub(rf"[{HAN}⊃]+", " ", err)
    return foreign(err, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ERROR_COMMANDS)
def test_every_error_is_said_in_the_chosen_language(capsys, name, lang):
    argv, status = ERROR_COMMANDS[name]
    assert main([*argv, "--lang", lang]) == status
    err = capsys.readouterr().err
    said = {"zh": "liuyao: 錯誤: ", "zh-Hant": "liuyao: 錯誤: ", "zh-Hans": "liuyao: 错误: ", "en": "liuyao: error: ",
            "ko": "liuyao: 오류: "}[lang]
    assert err.startswith(said) and len(err) > len(said) + 4, err
    bad = foreign_on_stderr(err, lang)
    assert not bad, f"{name} --lang {lang}: {sorted(set(bad))[:12]} in\n{err}"


def _error_classes() -> list[type]:
    """Every error class the CLI reports as bad input or a store's failure (cli._exit_code), subclasses included."""
    import importlib

    for module in ("liuyao_kg.corpus.works", "liuyao_kg.corpus.urn", "liuyao_kg.rulebase.evaluate", "liuyao_kg.loaders.edition",
                   "liuyao_kg.loaders.shapes", "liuyao_kg.store.remote", "liuyao_kg.store.versioning"):
        importlib.import_module(module)
    from liuyao_kg.loaders.errors import CastInputError
    from liuyao_kg.queries import QueryParameterError
    from liuyao_kg.store import StoreError
    from liuyao_kg.store.remote import RemoteStoreError
    from liuyao_kg.store.versioning import OutdatedStoreError

    found, todo = [], [CastInputError, QueryParameterError, StoreError, RemoteStoreError, OutdatedStoreError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return sorted(set(found), key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda c: c.__name__)
def test_every_error_class_has_its_own_words_in_every_language(cls):
    """A new error class is worded in the catalogue (serve/messages.py), not left to print English."""
    from liuyao_kg.serve import messages

    err = cls.__new__(cls)
    entry = messages.CAST_ERRORS.get(cls.__name__) or messages.ERRORS.get(cls.__name__)
    assert messages.error_code(err) == cls.__name__ and entry, f"{cls.__name__}: no entry in serve/messages.py"
    assert entry.get("zh") and entry.get("ko")


def test_every_error_code_raised_has_words_in_every_language():
    """Each code the CLI and the named queries raise or print (`code=…`, `_refusal(…, "code"`, `_refuse(args,
    "code"`) is in the catalogue, in zh-Hant and ko (and in English where the CLI prints it itself)."""
    from liuyao_kg import cli, queries
    from liuyao_kg.serve.messages import ERRORS

    raised, printed = set(), set()
    for module in (cli, queries):
        source = Path(module.__file__).read_text(encoding="utf-8")
        raised |= set(re.findall(r'code="(\w+)"', source)) | set(re.findall(r'_refusal\(\w+, "(\w+)"', source))
        printed |= set(re.findall(r'_refuse\(args, "(\w+)"', source))
    assert len(raised) >= 10 and len(printed) >= 5
    for code in raised | printed:
        assert ERRORS[code].get("zh") and ERRORS[code].get("ko"), code
    for code in printed:
        assert ERRORS[code].get("en"), code


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_loaded_is_said_in_the_chosen_language(capsys, tmp_path, lang):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "r1", "spec": "787586"}\n{"id": "r2", "spec": "甲乙"}\n', encoding="utf-8")
    assert main(["load", str(bad), "--jobs", "1", "--lang", lang]) == 2
    err = capsys.readouterr().err
    assert "r1" in err and "r2" in err
    bad_words = foreign_on_stderr(err, lang, kept={"bad.jsonl", "r1", "r2"})
    assert not bad_words, f"{sorted(set(bad_words))[:12]} in\n{err}"


def test_a_worker_partitions_shape_rejection_is_said_in_the_chosen_language(capsys, monkeypatch, tmp_path):
    """A record the shapes reject inside a partition (a worker's process, with --jobs) is worded from the error the
    partition sent back, not left in English."""
    from liuyao_kg.load import records
    from liuyao_kg.loaders.shapes import ShapeViolation

    def one_rejected(recs, quads=None):
        rid, ci, line = list(recs)[0]
        err = ShapeViolation("cast graph violates shape lys:CastShape", field="spec", value="乾之姤")
        err.record_id, err.line = rid, line
        return {rid: err}

    monkeypatch.setattr(records, "shape_rejections", one_rejected)
    batch = tmp_path / "new.jsonl"  # casts no other test loads: not skipped as already present
    batch.write_text('{"id": "w1", "spec": "乾之姤", "month": "卯", "day": "丙午", "topic": "失物"}\n'
                     '{"id": "w2", "spec": "坤之復", "month": "卯", "day": "丙午", "topic": "失物"}\n', encoding="utf-8")
    main(["load", str(batch), "--jobs", "1", "--lang", "zh"])
    err = capsys.readouterr().err
    assert "拒收：第 1 行（w1）：卦「" in err and "卦例不合其形狀" in err and "violates" not in err


@pytest.mark.parametrize("lang", ["zh", "zh-Hans", "en", "ko"])
def test_the_new_store_progress_line_is_in_the_chosen_language(capsys, tmp_path, lang):
    store = tmp_path / "store"
    assert main(["cast", "節", "--store", str(store), "--lang", lang]) == 0
    err = capsys.readouterr().err
    assert str(store) in err and "5/5" in err
    bad = foreign_on_stderr(err, lang, kept={str(store)})
    assert not bad, f"{sorted(set(bad))[:12]} in\n{err}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_coins_and_the_clock_are_noted_in_the_chosen_language(capsys, lang):
    assert main(["cast", "--random", "--seed", "3", "--lang", lang]) == 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 2
    bad = foreign_on_stderr(re.sub(r"\d{4}-\d\d-\d\dT[\d:]+[+-]\d\d:\d\d", " ", err), lang)
    assert not bad, f"{sorted(set(bad))[:12]} in\n{err}"


# --- what each named query answers (`liuyao query --list`) ---------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_query_list_says_what_each_query_answers_in_the_chosen_language(capsys, lang):
    from liuyao_kg import queries

    lines = run(capsys, ["query", "--list", "--lang", lang]).splitlines()
    assert len(lines) == 2 * len(queries.catalogue())
    said = "\n".join(ln for ln in lines if ln.startswith("    "))  # each query's signature heads it: identifiers
    bad = foreign(re.sub(r"\b(?:oa:\w+|lyo:\w+|lyr:School…|IRI|SPARQL|userChoice|cited|true|false)\b|/api/rules|"
                         r"\?\w+|\"quoted\"|corpus add|liuyao (?:show|load)|\"id\"|rdfs:label|"
                         r"SixClashHexagram|BranchClash", " ", said), lang)
    assert not bad, f"query --list --lang {lang}: {sorted(set(bad))[:12]}"


def test_query_list_in_english_glosses_the_terms(capsys):
    assert "    the nayin (sound element) of a stem-branch of the sixty-day cycle\n" in run(capsys, ["query", "--list",
                                                                                                "--lang", "en"])
    assert "    六十甲子一干支之納音（及其五行）\n" in run(capsys, ["query", "--list"])
    assert "    육십갑자 한 간지의 납음(과 그 오행)\n" in run(capsys, ["query", "--list", "--lang", "ko"])


def test_a_query_without_its_descriptions_is_refused_naming_what_to_add():
    from liuyao_kg.queries import _parse

    with pytest.raises(ValueError, match=r"new\.rq says what it answers in English only: add "
                                         r"'# answers@zh-Hant: …', '# answers@ko: …'"):
        _parse("new", "# answers: something\nSELECT * WHERE { ?s ?p ?o }\n")
    with pytest.raises(ValueError, match=r"add '# answers@ko: …'"):
        _parse("new", "# answers: something\n# answers@zh-Hant: 某事\nSELECT * WHERE { ?s ?p ?o }\n")
