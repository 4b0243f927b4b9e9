"""The extractive engine's explainer titles name their subject once: not again after it,
as a modifier of its own things, or before a clause that names it already (the corpus
feed items of ``tests/title_helpers.py``)."""

from __future__ import annotations

import pytest

from service.engines.extractive import build_explainer
from service.models import Article
from tests.title_helpers import explained_title


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Named first, the subject is not named again (it read "Claude Cowork: Degraded
        # functionality for Claude Cowork on Windows", "Claude.ai: Issues logging into
        # Claude.ai", "Ollama: Ollama's new app", "ChatGPT: Elevated errors affecting
        # ChatGPT"), whatever word follows the phrase that named it.
        ("Issues logging into Claude.ai", "Claude.ai: Issues logging in"),
        ("Errors logging into Claude.ai", "Claude.ai: Errors logging in"),
        ("Ollama's new app", "Ollama: New app"),
        ("Ollama's transparent pricing", "Ollama: Transparent pricing"),
        ("Elevated errors affecting ChatGPT", "ChatGPT: Elevated errors"),
        ("Elevated errors affecting ChatGPT Work", "ChatGPT Work: Elevated errors"),
    ],
)
def test_a_title_names_its_subject_once(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Named first, the subject is not said again of what is its own ("ChatGPT:
        # Unexpected logouts for some ChatGPT web users", "Codex API: Elevated Codex API
        # authentication errors").
        (
            "Unexpected logouts for some ChatGPT web users",
            "ChatGPT: Unexpected logouts for some web users",
        ),
        ("Elevated Codex API authentication errors", "Codex API: Elevated authentication errors"),
        # Past another name and its verb, the title is a clause the subject is a detail
        # of: cut, it read "Docker: Ollama is now available as an official image".
        (
            "Ollama is now available as an official Docker image",
            "Ollama is now available as an official Docker image",
        ),
    ],
)
def test_a_subject_leading_the_title_is_no_modifier_after(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # What a title announces names the subject ("NVIDIA Nemotron 3: Announcing native
        # availability of NVIDIA Nemotron 3 Nano, ...", "Together AI Startup Accelerator:
        # Announcing the Together AI Startup Accelerator, ..."): the title is the clause,
        # without the post's own "Announcing".
        (
            "Announcing native availability of NVIDIA Nemotron 3 Nano, NVIDIA’s latest"
            " reasoning model",
            "Native availability of NVIDIA Nemotron 3 Nano, NVIDIA’s latest reasoning model",
        ),
        (
            "Announcing the Together AI Startup Accelerator, purpose-built for AI Native Apps",
            "The Together AI Startup Accelerator, purpose-built for AI Native Apps",
        ),
        ("Introducing Together AI’s new look", "Together AI’s new look"),
        # A longer name of the subject qualifying a noun is no modifier to cut ("Rime: Two
        # enterprise-grade Rime TTS models ..."): the title names its subject already.
        (
            "Two enterprise-grade Rime TTS models now available on Together AI.",
            "Two enterprise-grade Rime TTS models now available on Together AI",
        ),
        ("Issues with Google Play subscriptions", "Issues with Google Play subscriptions"),
    ],
)
def test_a_title_naming_its_subject_within_is_not_led_by_it(source: str, expected: str) -> None:
    assert explained_title(source) == expected


def test_a_title_announcing_its_subject_alone_says_what_the_post_says() -> None:
    """ "Ollama Cloud: Announcing Ollama Cloud" named it twice; without its "Announcing",
    the title is the subject and nothing more."""
    text = (
        "Ollama Cloud runs models remotely. Ollama Cloud is fast and Ollama Cloud serves"
        " you. It has 12 regions."
    )
    for source in ("Announcing Ollama Cloud", "Introducing the Ollama Cloud"):
        article = Article(title=source, text=text, content_source="feed")
        assert build_explainer(article).title == "Ollama Cloud: What the post says"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # The subject said again in what the title adds, where no rule could cut it: the
        # title is that clause ("Gemma 4: Faster Gemma 4 on MLX ...", "Code Llama: How
        # to prompt Code Llama", "Claude: Elevated errors for Claude Mythos 5.1 ...").
        ("How to prompt Code Llama", "How to prompt Code Llama"),
        (
            "Elevated errors for Claude Mythos 5.1 and Claude Fable 5.1",
            "Elevated errors for Claude Mythos 5.1 and Claude Fable 5.1",
        ),
        (
            "Elevated errors on Claude Code and Claude Cowork",
            "Elevated errors on Claude Code and Claude Cowork",
        ),
        ("OpenAI Codex with Ollama", "OpenAI Codex with Ollama"),
        # A title that is its subject alone still says what the post says after it.
        ("OpenClaw", "OpenClaw: What the post says"),
        # A bare list of names, its "Introducing" cut, says what the post says after it.
        (
            "Introducing Gemini 3.6 Flash, 3.5 Flash-Lite, and 3.5 Flash Cyber",
            "Gemini 3.6 Flash, 3.5 Flash-Lite, and 3.5 Flash Cyber: what the post says",
        ),
    ],
)
def test_a_title_saying_its_subject_again_is_not_led_by_it(source: str, expected: str) -> None:
    assert explained_title(source) == expected
