"""A typed client generated from /api/openapi.json (datamodel-code-generator's pydantic models) parses what a
running server answers: the chart, why, the rules, a passage, the labels and an error, each into its typed model,
with extra keys forbidden (a key the schema does not describe fails the parse)."""
from __future__ import annotations

import importlib.util
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest
from reader_server import serving

JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}


@pytest.fixture(scope="module")
def base():
    with serving() as url:
        yield url


@pytest.fixture(scope="module")
def models(base, tmp_path_factory):
    """The models generated from the served OpenAPI document, imported as a module."""
    from datamodel_code_generator import DataModelType, InputFileType, generate
    from datamodel_code_generator.format import Formatter

    out = tmp_path_factory.mktemp("client") / "liuyao_api_models.py"
    with urllib.request.urlopen(base + "/api/openapi.json") as r:
        document = r.read().decode("utf-8")
    generate(document, input_file_type=InputFileType.OpenAPI, output=out, use_title_as_name=True,
             output_model_type=DataModelType.PydanticV2BaseModel, extra_fields="forbid", use_annotated=True,
             field_constraints=True, disable_timestamp=True, formatters=[Formatter.BUILTIN])
    spec = importlib.util.spec_from_file_location("liuyao_api_models", out)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def fetch(base, path, query=None, body=None):
    url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


pytestmark = pytest.mark.server


def test_the_generated_client_parses_a_chart_into_typed_models(base, models):
    status, body = fetch(base, "/api/cast", body=JIE)
    chart = models.Chart.model_validate_json(body)
    assert status == 200
    assert chart.verdict.polarity == models.VerdictPolarity("凶中有吉") and chart.verdict.favourable is False
    assert chart.primary.palace == models.Trigram("坎") and chart.changed.palace == models.Trigram("艮")
    assert [ln.relative for ln in chart.lines][:1] == [models.Relative("妻財")]
    assert chart.use_god_condition.lines[0].position == 1 and chart.timing[0].unit == models.Unit("日")
    assert all(j.id and j.group in set(models.Group) for j in chart.judgments)


def test_the_generated_client_parses_why_rules_a_passage_and_the_labels(base, models):
    _, why = fetch(base, "/api/why", {**JIE, "line": "1"})
    assert models.Why.model_validate_json(why).line.facts.relative == models.Relative("妻財")
    _, rules = fetch(base, "/api/rules", {"topic": "求財"})
    parsed = models.Rules.model_validate_json(rules)
    assert parsed.count == len(parsed.rules) > 0
    _, rule = fetch(base, "/api/rules/case-wealth-severed-sibling-moves")
    assert models.RuleDetail.model_validate_json(rule).id == "case-wealth-severed-sibling-moves"
    _, passage = fetch(base, "/api/passages/ch-000-yushi-case-wealth-severed-sibling-moves")
    assert models.Passage.model_validate_json(passage).passage.this is True
    _, labels = fetch(base, "/api/labels")
    assert models.Labels.model_validate_json(labels).schools


def test_the_generated_client_parses_an_error_naming_its_field(base, models):
    status, body = fetch(base, "/api/cast", body={"spec": "節", "month": "寅", "day": "甲丑"})
    error = models.Error.model_validate_json(body)
    assert status == 400 and error.field == "day" and "甲丑" in error.error


def test_the_generated_client_refuses_an_answer_its_schema_does_not_describe(base, models):
    from pydantic import ValidationError

    _, body = fetch(base, "/api/cast", body=JIE)
    chart = json.loads(body)
    chart["lines"][0]["colour"] = "red"
    with pytest.raises(ValidationError, match="colour"):
        models.Chart.model_validate(chart)
