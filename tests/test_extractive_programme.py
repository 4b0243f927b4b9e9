"""A conference programme's list ("Featured keynote speakers and their scheduled sessions
include:" then "Bill Jia, Google Cloud: Workload Fungibility in the Age of Agents"): each
line has no verb of its own, so every one was dropped and the explainer of the
"Keynote Speaker Sessions" post kept its first paragraph alone."""

from __future__ import annotations

from pathlib import Path

from service import clean, parse
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.programme import session_sentence
from service.models import Article

DATA = Path(__file__).parent / "data" / "corpus"
PROMPTS = Path(__file__).parent.parent / "prompts"
TITLE = "PyTorch Conference North America 2026 Keynote Speaker Sessions Announced"


def _article() -> Article:
    feed = DATA / "feeds" / "pytorch-blog-2026-09-02-397d8ac.xml"
    entries = parse.parse_feed(feed.read_bytes()).entries
    return next(a for a in map(clean.article_from_entry, entries) if a.title == TITLE)


def test_the_sessions_of_a_programme_are_kept() -> None:
    article = _article()
    explainer = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    text = explainer.all_text()
    assert "Bill Jia (Google Cloud) presents “Workload Fungibility in the Age of Agents”." in text
    assert "Sara Hooker (Adaption) presents “Beyond Brute Force: The Era of Adaptive" in text
    # A line that is only a name and a job title says no session: it stays out.
    assert "Simon Mo" not in text and "Brian Stevens" not in text
    assert check_explainer(text, article.text, title=article.title).ok


LEAD = "Featured keynote speakers and their scheduled sessions include:"


def test_a_session_line_reads_as_a_sentence() -> None:
    assert (
        session_sentence(
            "Maen Suleiman, Amazon Web Services: Sponsored Keynote: Trainium’s Journey to Native"
            " PyTorch",
            LEAD,
        )
        == "Maen Suleiman (Amazon Web Services) presents “Trainium’s Journey to Native PyTorch”."
    )
    assert (
        session_sentence("Alban Desmaison and Edward Yang, Meta: PyTorch Updates", LEAD)
        == "Alban Desmaison and Edward Yang (Meta) present “PyTorch Updates”."
    )
    assert session_sentence("Simon Mo, Inferact: Keynote: Simon Mo, Inferact", LEAD) is None
    # Not under a programme's lead, not a session.
    assert session_sentence("Bill Jia, Google Cloud: Workload Fungibility", "Results:") is None
    assert session_sentence("Memory: 39 GB, down from 41 GB", LEAD) is None
