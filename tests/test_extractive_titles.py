"""The extractive engine's explainer titles on real feed items of the corpus: the subject
they lead with and the claim they end on (``python -m bench.titles`` lists them all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean
from service.check import check_explainer
from service.engines.extractive import build_explainer
from service.engines.extractive.subject import subject as post_subject
from service.models import Article
from service.text import split_sentences
from tests.title_helpers import explained_title, feed_items

CASES = Path(__file__).parent.parent / "eval" / "cases"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # An operating system or a maker's chips are where the subject runs: they led
        # "Windows: Degraded functionality for Claude Cowork", "Apple: Ollama is now
        # powered by MLX ...", "macOS: Image generation (experimental)".
        (
            "Degraded functionality for Claude Cowork on Windows",
            "Claude Cowork: Degraded functionality on Windows",
        ),
        (
            "Ollama is now powered by MLX on Apple Silicon in preview",
            "Ollama is now powered by MLX on Apple Silicon in preview",
        ),
        ("Image generation (experimental)", "Image generation (experimental): what the post says"),
        ("Windows preview", "Ollama: Windows preview"),
        # One item of a list the title gives is not its subject ("Voice: Users in APAC
        # region ..."), nor the end of a longer name ("Agent: ... Workspace Agent"). At 19
        # words, the title keeps the list whole, without who sees the errors
        # (``title_length``): cut before it, it lost what failed.
        (
            "Users in APAC region may face increased error in ChatGPT, Work, image generation,"
            " file upload, Voice, and Codex Cloud",
            "Increased error in ChatGPT, Work, image generation, file upload, Voice, and Codex"
            " Cloud",
        ),
        (
            "Elevated errors for Workspace Agent",
            "Elevated errors for Workspace Agent: what the post says",
        ),
        # A name the post always writes with its acronym is named with it ("Admin: ...").
        (
            "Elevated errors loading usage data on platform.claude.com",
            "Admin API: Elevated errors loading usage data on platform.claude.com",
        ),
        (
            "Together AI at ICML 2026: frontier research across the full stack",
            "Together AI: At ICML 2026",
        ),
        # Spelt out, a generic acronym is as generic ("Large Language Models: How to ...").
        (
            "How to evaluate and benchmark Large Language Models (LLMs)",
            "How to evaluate and benchmark Large Language Models (LLMs): what the post says",
        ),
        # A version names the plain word before it ("Ollama Python: Library 0.4 ...").
        (
            "Ollama Python library 0.4 with function calling improvements",
            "Ollama Python library 0.4: With function calling improvements",
        ),
    ],
)
def test_a_title_leads_with_what_the_post_is_about(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Cut after its subject, the title lost what joins it or its verb ("Together AI:
        # And Meta partner ...", "Llama 3: Is not very censored"), or half of a longer
        # name ("PyTorch: Conference North America Announces ..."). Uncut, it is a clause
        # that names its subject first: the subject is not put before it again ("Llama
        # 3: Llama 3 is not very censored", "PyTorch: PyTorch Conference ...").
        # (At 15 words, it ends where a phrase ends.)
        (
            "Together AI and Meta partner to bring PyTorch Reinforcement Learning to the AI"
            " Native Cloud",
            "Together AI and Meta partner to bring PyTorch Reinforcement Learning",
        ),
        ("Llama 3 is not very censored", "Llama 3 is not very censored"),
        (
            "PyTorch Conference North America Announces 2026 Keynotes",
            "PyTorch Conference North America Announces 2026 Keynotes",
        ),
        (
            "Gemini 2.5 Flash-Lite is now ready for scaled production use",
            "Gemini 2.5 Flash-Lite is now ready for scaled production use",
        ),
        # The subject's longer name, as the post writes it, is the subject ("Llama 3.2:
        # Llama 3.2 Vision", "MiniMax Speech 2.6: MiniMax Speech 2.6 Turbo").
        ("Llama 3.2 Vision", "Llama 3.2 Vision: What the post says"),
    ],
)
def test_a_subject_is_not_cut_out_of_the_phrase_it_starts(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A status update names the service affected with the acronym that ends its name;
        # its status page lists the component without it ("Responses (Operational)"):
        # "Responses: Elevated latency in the Responses API" led with a common word.
        ("Elevated latency in the Responses API", "Responses API: Elevated latency"),
        ("Elevated Errors for Sora API", "Sora API: Elevated Errors"),
        # Named first, the service is not named again mid-title ("Claude API: Elevated
        # latency on the Claude API for some users"); a longer name stays whole ("Claude
        # for Microsoft Office 365" is not "Claude" and "for Microsoft Office 365").
        (
            "Elevated latency on the Claude API for some users",
            "Claude API: Elevated latency for some users",
        ),
        (
            "Degraded performance on Claude for Microsoft Office 365",
            "Degraded performance on Claude for Microsoft Office 365",
        ),
    ],
)
def test_a_status_update_leads_with_the_service_affected(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Cut after its subject, a headline's verb stood bare ("Ollama: Now supports ...",
        # "Google: Announces ...", "Together AI: Brings ..."): the title is the clause.
        ("Ollama now supports AMD graphics cards", "Ollama now supports AMD graphics cards"),
        (
            "Google announces Firebase Genkit with Ollama support",
            "Google announces Firebase Genkit with Ollama support",
        ),
        (
            "Together AI welcomes Alon Gavrielov as VP of Infrastructure Strategy",
            "Together AI welcomes Alon Gavrielov as VP of Infrastructure Strategy",
        ),
        # In Title Case, as the post writes it (the verb in lower case read "Together AI
        # brings NVIDIA Nemotron 3 to Developers": Title Case after a word that is not).
        (
            "Together AI Brings NVIDIA Nemotron 3 to Developers on Day 0",
            "Together AI Brings NVIDIA Nemotron 3 to Developers on Day 0",
        ),
        # Not a verb: "now available" reads after the subject's colon.
        (
            "DeepSeek-V4 Pro now available on Together AI",
            "DeepSeek-V4 Pro: Now available on Together AI",
        ),
    ],
)
def test_a_headlines_verb_stays_after_its_subject(source: str, expected: str) -> None:
    assert explained_title(source) == expected


def test_a_subjects_longer_name_before_the_titles_colon_is_the_subject() -> None:
    """ "MiniMax Speech 2.6 Turbo: State-of-the-art multilingual TTS ..." led with
    "MiniMax Speech 2.6" and took the rest of the name for all it said ("MiniMax Speech
    2.6: MiniMax Speech 2.6 Turbo")."""
    source = next(t for t in feed_items() if t.startswith("MiniMax Speech 2.6 Turbo:"))
    title = explained_title(source)
    assert title.startswith("MiniMax Speech 2.6 Turbo: State-of-the-art multilingual TTS")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # The claim repeated a figure of the subject ("..., 3.1 Pro is designed"), ended
        # where a parenthesis interrupts its noun phrase ("..., 30 billion parameter"),
        # repeated the title ("Now available on Together AI, available on Together AI
        # with 512K context") or opened on a capital it could not tell from a name's
        # ("..., Performance is now up to 90% faster"): no claim then.
        (
            "Gemini 3.1 Pro: A smarter model for your most complex tasks",
            "Gemini 3.1 Pro: A smarter model for your most complex tasks",
        ),
        ("NVIDIA Nemotron 3.5 Lightning", "NVIDIA Nemotron 3.5 Lightning: What the post says"),
        (
            "DeepSeek-V4 Pro now available on Together AI",
            "DeepSeek-V4 Pro: Now available on Together AI",
        ),
        (
            "Faster Gemma 4 on MLX with multi-token prediction",
            "Faster Gemma 4 on MLX with multi-token prediction",
        ),
        # An em dash ends the claim's clause ("query execution plans—achieving ..."):
        # "..., achieving up to 4.78x speedups", 15 words, more than a title has, and
        # what the title adds cut to make room would be two words ("Using LLMs").
        (
            "AI for Systems: Using LLMs to Optimize Database Query Execution",
            "AI for Systems: Using LLMs to optimize database query execution",
        ),
    ],
)
def test_a_title_claim_is_a_whole_phrase_or_none(source: str, expected: str) -> None:
    assert explained_title(source) == expected


def test_a_title_claim_is_not_the_second_of_two_reported_clauses() -> None:
    """ "..., around 20% of total Dynamo tracing time and that aten.mm takes around 225
    microseconds": the first "that" and its verb were cut off."""
    title = explained_title("Core PyTorch Sessions at PyTorch Conference North America 2026")
    assert "and that" not in title and title.startswith("Core PyTorch sessions")


def test_a_title_claim_keeps_the_baseline_of_its_figure() -> None:
    """ "Faster kernels, the team is measuring a 1.5x speedup": a speedup over what? The
    figure leads its phrase then, and the phrase ends on its baseline."""
    post = (
        "# Faster kernels\n\nWe rewrote the attention kernels. We are measuring a 1.5x"
        " speedup over the old kernels on MI355X. Our next step is FP8.\n"
    )
    article = Article(title="Faster kernels", text=post, content_source="feed")
    title = build_explainer(article).title
    assert title == "Faster kernels, 1.5x speedup over the old kernels"


def _case(name: str) -> Article:
    folder = CASES / name
    source = next(folder.glob("source.*"))
    return clean.article_from_document(source.read_bytes(), filename=source.name)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # An untitled post's claim alone told neither what nor whose: the titles were
        # "10 hours per week" and "Performance is now up to 90% faster".
        (
            "deepmind-northern-ireland-teachers",
            "A six-month long pilot program with the"
            " Northern Ireland Education Authority’s C2k initiative found that integrating"
            " Gemini and other generative AI tools saved participating teachers an average of"
            " 10 hours per week",
        ),
        # Past 14 words, a sentence with its verb ends where a phrase ends; one whose verb
        # comes late ("... initiative found that ...") stays whole.
        (
            "ollama-gemma-4-mlx-mtp",
            "Gemma 4 is now significantly faster in Ollama 0.31 on Apple Silicon",
        ),
        # Opening words cut with an ellipsis stopped mid-clause ("... Claude Code has …").
        (
            "claude-status-2026-08-31-claude-code",
            "Claude: Aug 31, 20:36 UTC resolved - the issue affecting Claude Code has been"
            " resolved",
        ),
    ],
)
def test_an_untitled_post_is_titled_by_a_whole_sentence_or_a_subject_and_claim(
    case: str, expected: str
) -> None:
    article = _case(case)
    title = build_explainer(article).title
    assert title == expected
    assert check_explainer(title, article.text, title=article.title).ok


@pytest.mark.parametrize("end", ["(and 2x faster).", "(and 2x faster.)"])
def test_an_untitled_posts_first_sentence_is_its_opening_past_what_its_stop_closes(
    end: str,
) -> None:
    # The cleaner titles an untitled post by its first sentence, which ends with the ")"
    # or quote its stop closes: the engine still knows it for the post's opening words
    # (read as the post's own title, it was the explainer's title as it stood).
    text = (
        f"Foo 2.1 is out for Linux users {end} More text follows about Foo, a runtime.\n\n"
        "Foo 2.1 runs 2x faster on MI355X than Foo 2.0 in our tests of 17 shapes."
    )
    article = clean.article_from_document(text.encode(), filename="post.md")
    assert article.title == f"Foo 2.1 is out for Linux users {end}"
    assert build_explainer(article).title == "Foo: Foo 2.1 runs 2x faster"


def test_a_platform_is_never_a_subject_but_a_name_beside_it_is() -> None:
    text = "Generate images locally with Ollama on macOS. Windows and Linux support soon."
    intro = split_sentences(text)
    assert post_subject("Image generation (experimental)", intro, text, text) == ""
    text = "Try it with Ollama on Windows. It serves the Ollama API on Windows and Linux."
    assert post_subject("Windows preview", split_sentences(text), text, text) == "Ollama"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # The subject is the end of a longer name the title gives and the post writes
        # ("DeepMind: Google DeepMind supports ...", "Gemma 2: Google Gemma 2", "Deep
        # Think: ... with Gemini Deep Think"): the longer name is the subject, said once.
        (
            "Google DeepMind supports U.S. Department of Energy on Genesis: a national mission"
            " to accelerate innovation and scientific discovery",
            "Google DeepMind supports U.S. Department of Energy on Genesis: a national mission",
        ),
        ("Google Gemma 2", "Google Gemma 2: What the post says"),
        (
            "Accelerating Mathematical and Scientific Discovery with Gemini Deep Think",
            "Gemini Deep Think: Accelerating Mathematical and Scientific Discovery",
        ),
        # Not a word that only starts the title ("Introducing Gemini 3.5 ..."); the longer
        # name the title introduces or ends on is the subject, said once ("Gemini 3.5:
        # Introducing Gemini 3.5 Flash Cyber", "Gemini 3.5: Intelligent transcription
        # with Gemini 3.5 Transcribe" named it twice, the second time as more).
        ("Introducing Gemini 3.5 Flash Cyber", "Gemini 3.5 Flash Cyber: What the post says"),
        (
            "Intelligent transcription with Gemini 3.5 Transcribe",
            "Gemini 3.5 Transcribe: Intelligent transcription",
        ),
    ],
)
def test_a_subject_inside_a_longer_name_is_named_whole(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A title in Title Case stays so when the post gives no clue about a word's case
        # ("Keynote Speaker sessions Announced", "The open Source AI Stack", "ChatGPT
        # Work mode High Error Rates"): one word lowered of several read unevenly.
        (
            "PyTorch Conference North America 2026 Keynote Speaker Sessions Announced",
            "PyTorch Conference North America 2026 Keynote Speaker Sessions Announced",
        ),
        ("The Open Source AI Stack", "The Open Source AI Stack: what the post says"),
        ("ChatGPT Work Mode High Error Rates", "ChatGPT Work Mode High Error Rates"),
        # In sentence case, a capital the title gives is a name's ("UK AI security
        # Institute" split the name of the institute).
        (
            "Deepening our partnership with the UK AI Security Institute",
            "DeepMind: Deepening their partnership with the UK AI Security Institute",
        ),
    ],
)
def test_a_title_keeps_the_posts_casing_throughout(source: str, expected: str) -> None:
    assert explained_title(source) == expected


def test_a_clause_before_the_titles_colon_keeps_what_follows_it() -> None:
    """ "New in Together GPU Clusters: Reliability and control ..." and "...: Autoscaling,
    observability, and self-healing" were both "Together: New in Together GPU Clusters"."""
    titles = {
        explained_title(f"New in Together GPU Clusters: {rest}")
        for rest in (
            "Reliability and control for production GPU clusters",
            "Autoscaling, observability, and self-healing",
        )
    }
    assert titles == {
        "New in Together GPU Clusters: Reliability and control for production GPU clusters",
        "New in Together GPU Clusters: Autoscaling, observability, and self-healing",
    }


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Who the post is about, not a term its excerpt says once (in mixed case, 1.5
        # times a plain name's weight): it was "TensorRT: Learn how Cursor ...", "OpenAI:
        # Together Evaluations ...", "LoRA: Together AI expands ...". The title names it
        # as its clause's subject: the title is the clause, the subject named once.
        (
            "Learn how Cursor partnered with Together AI to deliver real-time, low-latency"
            " inference at scale",
            "Learn how Cursor partnered with Together AI to deliver real-time, low-latency"
            " inference at scale",
        ),
        (
            "Together Evaluations now supports comparing top commercial APIs vs. open source"
            " models",
            "Together Evaluations now supports comparing top commercial APIs vs. open source"
            " models",
        ),
        (
            "Together AI expands fine-tuning service with more models, live metrics, and finer"
            " controls",
            "Together AI expands fine-tuning service with more models, live metrics, and finer"
            " controls",
        ),
    ],
)
def test_the_subject_is_who_the_title_says_acts(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Learn how Cursor partnered with Together AI", "Cursor"),
        ("Together Evaluations now supports comparing", "Together Evaluations"),
        ("Together AI expands fine-tuning service with more", "Together AI"),
    ],
)
def test_the_subject_picked_is_the_one_the_title_opens_on(source: str, expected: str) -> None:
    article = next(a for t, a in feed_items().items() if t.startswith(source))
    whole = f"{article.title}\n{article.text}"
    assert post_subject(article.title, [article.text], article.text, whole) == expected
