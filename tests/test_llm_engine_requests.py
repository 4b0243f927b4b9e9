"""The llm engine against the stub server: the exact requests it sends (the recorded 003,
the response formats it steps down through, the templates and the identity they give),
and the strict schema it asks for."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service import prompts
from service.config import DEFAULT_PROMPTS_DIR
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, explainer_schema
from service.errors import ConfigError, TemplateError
from service.models import Article, Explainer
from tests.llm_engine_helpers import (
    FLYDSL,
    FLYDSL_URL,
    OPTIONS,
    RECORDINGS,
    SCHEMA_FORMAT,
    SMALL,
    VALID,
    assert_explain_request,
    explain_messages,
    make_engine,
)
from tests.stub_llm import Reply, StubLLM, default_explainer, settings_for

# --- the recorded 003 ---------------------------------------------------------------------


def test_003_is_the_recorded_answer_for_the_flydsl_post() -> None:
    article = Article(
        title="Accelerating PyTorch on AMD GPUs with FlyDSL",
        text=FLYDSL.read_text(encoding="utf-8"),
        url=FLYDSL_URL,
    )
    recorded = json.loads(
        (RECORDINGS / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.json").read_text()
    )
    with StubLLM(recordings=RECORDINGS) as stub:
        engine = make_engine(stub, model="gpt-4o-mini")
        result = engine.explain(article, OPTIONS)
        (call,) = stub.calls
    assert call["model"] == "gpt-4o-mini"
    assert call["messages"] == explain_messages(article)
    assert call["messages"][0]["role"] == "system"
    assert call["messages"][1]["content"].count(FLYDSL_URL) == 1
    assert call["response_format"] == SCHEMA_FORMAT
    assert call["temperature"] == 0.2
    assert call["reply"] == "recording:pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"

    assert result.explainer == Explainer.model_validate(recorded["answer"])
    assert result.explainer.title == "PyTorch FlyDSL: Operator support, performance gains"
    assert len(result.explainer.sections) == 5
    assert result.explainer.sections[3].code is not None
    assert result.engine == "llm"
    assert (result.model, result.prompt_version) == engine.identity(OPTIONS)
    # Usage is the server's (chars / 4), priced at gpt-4o-mini's rates.
    assert result.usage.calls == 1
    assert result.usage.prompt_tokens == len("\n".join(m["content"] for m in call["messages"])) // 4
    assert result.usage.completion_tokens > 1000
    expected_cost = (
        result.usage.prompt_tokens * 0.15 + result.usage.completion_tokens * 0.60
    ) / 1e6
    assert result.cost_usd == pytest.approx(expected_cost)


def test_unknown_model_costs_nothing(stub: StubLLM) -> None:
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.usage.calls == 1 and result.usage.prompt_tokens > 0
    assert result.cost_usd == 0.0
    assert result.explainer == Explainer.model_validate(default_explainer(f"Title: {SMALL.title}"))


# --- response formats ----------------------------------------------------------------------------


def test_json_schema_refused_falls_back_to_json_object_and_remembers(stub: StubLLM) -> None:
    stub.reject_formats = {"json_schema"}
    engine = make_engine(stub)
    result = engine.explain(SMALL, OPTIONS)
    first, second = stub.calls
    assert (first["status"], first["reply"]) == (500, "reject:json_schema")
    assert_explain_request(first)
    assert_explain_request(
        second, response_format={"type": "json_object", "schema": explainer_schema()}
    )
    assert result.explainer.title.startswith("A small post")
    # The next explainer goes straight to the mode that worked.
    engine.explain(SMALL, OPTIONS)
    assert [c["response_format"]["type"] for c in stub.calls] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


def test_scripted_llama_cpp_style_500_for_json_schema(stub: StubLLM) -> None:
    stub.push(Reply("reject_schema"), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert [c["response_format"]["type"] for c in stub.calls] == ["json_schema", "json_object"]
    assert result.explainer.title == VALID["title"]


def test_no_response_format_at_all_reads_a_fenced_json_block(stub: StubLLM) -> None:
    stub.reject_formats = {"json_schema", "json_object"}
    stub.push(Reply.fenced(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert [c["reply"] for c in stub.calls] == [
        "reject:json_schema",
        "reject:json_object",
        "fenced",
    ]
    third = stub.calls[2]
    assert third["response_format"] is None
    assert third["messages"] == explain_messages(SMALL)
    assert result.explainer == Explainer.model_validate(VALID)


# --- templates and identity ---------------------------------------------------------------------


def test_missing_template_variable_is_a_template_error(tmp_path: Path, stub: StubLLM) -> None:
    (tmp_path / "explain.md").write_text(
        "---\nname: explain\ndescription: d\n---\n"
        "{% block system %}x{% endblock %}{% block user %}{{ title }} {{ tone }}{% endblock %}",
        encoding="utf-8",
    )
    with pytest.raises(TemplateError, match="tone"):
        make_engine(stub).explain(SMALL, ExplainOptions(template_dir=tmp_path))
    assert stub.calls == []


def test_prompt_version_follows_the_templates(tmp_path: Path, stub: StubLLM) -> None:
    engine = make_engine(stub)
    model, version = engine.identity(OPTIONS)
    assert model == "stub-model"
    override = tmp_path / "feed"
    override.mkdir()
    source = (prompts.DEFAULT_PROMPTS_DIR / "repair.md").read_text(encoding="utf-8")
    (override / "repair.md").write_text(source, encoding="utf-8")
    assert engine.identity(ExplainOptions(template_dir=override)) == (model, version)
    (override / "repair.md").write_text(source + "\nBe careful.", encoding="utf-8")
    changed = engine.identity(ExplainOptions(template_dir=override))[1]
    assert changed != version
    result = engine.explain(SMALL, ExplainOptions(template_dir=override))
    assert result.prompt_version == changed


def test_get_engine_auto_picks_llm_when_an_endpoint_is_set(stub: StubLLM) -> None:
    engine = get_engine(settings_for(stub, engine="auto"))
    assert isinstance(engine, LLMEngine)
    assert engine.name == "llm"


def test_get_engine_auto_picks_extractive_without_an_endpoint(tmp_path: Path) -> None:
    from service.config import Settings
    from service.engines.extractive import ExtractiveEngine

    # A folder without its glossary or templates is refused: a copy of the shipped one.
    shutil.copytree(DEFAULT_PROMPTS_DIR, tmp_path, dirs_exist_ok=True)
    settings = Settings(
        engine="auto", openai_base_url=None, openai_api_key=None, prompts_dir=tmp_path
    )
    engine = get_engine(settings)
    assert isinstance(engine, ExtractiveEngine)
    assert engine.prompts_dir == tmp_path
    assert get_engine(settings, name="llm").name == "llm"
    with pytest.raises(ConfigError):
        get_engine(settings, name="gpt")


# --- the schema asked for -----------------------------------------------------------------------


def test_strict_schema_lists_every_property_and_forbids_others() -> None:
    schema = explainer_schema()

    def objects(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(schema))
    assert len(found) == 2  # Explainer and Section
    for obj in found:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    assert "minLength" not in json.dumps(schema) and "default" not in json.dumps(schema)
