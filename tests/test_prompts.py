"""Prompt templates: loading, front matter, strict rendering, versions, the fixed prefix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from service import prompts
from service.config import DEFAULT_PROMPTS_DIR
from service.errors import TemplateError

EXPLAIN_VARS = {
    "title": "A post",
    "author": "Someone",
    "published": "2026-09-02",
    "url": "https://example.org/post",
    "audience": "a curious non-specialist",
    "language": "English",
    "text": "Body of the post.",
}


def _copy_prompts(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(DEFAULT_PROMPTS_DIR, target)
    return target


def test_every_template_loads_with_valid_front_matter() -> None:
    templates = prompts.load_set()
    assert set(templates) == {"explain", "explain-part", "combine", "repair"}
    for name, t in templates.items():
        assert t.meta.name == name
        assert t.meta.output == "service.models.Explainer"
        assert t.meta.max_tokens and t.meta.max_tokens > 0
        assert len(t.version) == 12


def test_explain_renders_the_post_into_the_user_message_only() -> None:
    rendered = prompts.render("explain", EXPLAIN_VARS)
    assert [m["role"] for m in rendered.messages] == ["system", "user"]
    for value in EXPLAIN_VARS.values():
        assert value in rendered.user
        assert value not in rendered.system
    assert rendered.temperature == 0.2
    assert rendered.max_tokens == 3000


def test_explain_system_prompt_is_a_fixed_prefix_under_the_token_budget() -> None:
    a = prompts.render("explain", EXPLAIN_VARS)
    b = prompts.render("explain", {**EXPLAIN_VARS, "title": "Other", "text": "Other body."})
    # Same bytes for every post, and first: what provider prompt caching needs.
    assert a.system == b.system
    assert a.messages[0]["content"] == a.system
    assert prompts.estimate_tokens(a.system) <= 1500
    # 003 is the worked example.
    assert "PyTorch FlyDSL: Operator support, performance gains" in a.system
    assert "RMSNorm for normalizing values" in a.system


def test_missing_variable_is_a_template_error_naming_it() -> None:
    variables = {k: v for k, v in EXPLAIN_VARS.items() if k not in ("audience", "text")}
    with pytest.raises(TemplateError) as info:
        prompts.render("explain", variables)
    assert "audience" in str(info.value)
    assert "text" in str(info.value)
    assert info.value.extra["missing"] == ["audience", "text"]


def test_none_is_a_given_value_and_reads_as_not_given() -> None:
    rendered = prompts.render("explain", {**EXPLAIN_VARS, "author": None, "url": None})
    assert "Author: not given" in rendered.user
    assert "Link: not given" in rendered.user


def test_version_changes_when_a_template_changes(tmp_path: Path) -> None:
    directory = _copy_prompts(tmp_path)
    before = prompts.load_set(prompts_dir=directory)
    path = directory / "combine.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    after = prompts.load_set(prompts_dir=directory)
    assert after["combine"].version != before["combine"].version
    assert after["explain"].version == before["explain"].version
    assert prompts.set_version(after) != prompts.set_version(before)


def test_override_directory_shadows_files_by_name(tmp_path: Path) -> None:
    override = tmp_path / "feed-prompts"
    override.mkdir()
    (override / "explain.md").write_text(
        "---\nname: explain\ndescription: Shorter.\ntemperature: 0.7\n---\n"
        "{% block system %}Be brief.{% endblock %}\n{% block user %}{{ title }}{% endblock %}\n",
        encoding="utf-8",
    )
    shadowed = prompts.load_template("explain", override_dir=override)
    assert shadowed.path == override / "explain.md"
    assert shadowed.render({"title": "T"}).system == "Be brief."
    assert shadowed.meta.temperature == 0.7
    # Files the override does not have still come from prompts/.
    assert prompts.load_template("combine", override_dir=override).path.parent == (
        DEFAULT_PROMPTS_DIR.resolve()
    )
    default_set = prompts.load_set()
    assert prompts.set_version(prompts.load_set(override_dir=override)) != prompts.set_version(
        default_set
    )


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("no front matter", "front matter"),
        ("---\nname: explain\n", "not closed"),
        ("---\n- a list\n---\n", "mapping"),
        ("---\nname: explain\n---\n{% block system %}x{% endblock %}", "description"),
        (
            "---\nname: explain\ndescription: d\ntemperature: 9\n---\n"
            "{% block system %}x{% endblock %}{% block user %}y{% endblock %}",
            "temperature",
        ),
        (
            "---\nname: explain\ndescription: d\nmodel: x\n---\n"
            "{% block system %}x{% endblock %}{% block user %}y{% endblock %}",
            "model",
        ),
        ("---\nname: other\ndescription: d\n---\n", "file name"),
        ("---\nname: explain\ndescription: d\n---\n{% block system %}x", "line"),
        ("---\nname: explain\ndescription: d\n---\n{% block system %}x{% endblock %}", "user"),
    ],
)
def test_malformed_templates_are_template_errors(tmp_path: Path, content: str, needle: str) -> None:
    (tmp_path / "explain.md").write_text(content, encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        prompts.load_template("explain", prompts_dir=tmp_path)
    assert needle in str(info.value)


def test_unknown_template_is_a_template_error(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="not found"):
        prompts.load_template("nope", prompts_dir=tmp_path)


def test_combine_and_repair_render_their_lists() -> None:
    combine = prompts.render(
        "combine",
        {k: v for k, v in EXPLAIN_VARS.items() if k != "text"} | {"parts": ["N1", "N2"]},
    )
    assert '<notes part="1">\nN1\n</notes>' in combine.user
    assert '<notes part="2">\nN2\n</notes>' in combine.user
    repair = prompts.render(
        "repair",
        {
            "title": "T",
            "url": None,
            "language": "English",
            "explainer_json": "{}",
            "text": "Body 1.5x.",
            "flagged": [
                {
                    "text": "2x",
                    "status": "unsupported",
                    "sentence": "It is 2x faster.",
                    "reason": "not in the source",
                    "source": None,
                }
            ],
        },
    )
    assert '- "2x" (unsupported) in the sentence: "It is 2x faster."' in repair.user
    assert "Reason: not in the source" in repair.user
