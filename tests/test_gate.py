"""The gate reads the source for the number check while an engine waits for its model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from service.api.app import create_app
from service.check import check_explainer, headline_facts, index_source
from service.config import Settings
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory
from service.gate import explain_and_check
from service.models import Article, CheckStatus, ItemState
from service.ratelimit import RateLimiter
from service.store import tables as t
from tests.conftest import explain_pending, llm_settings, wait_for
from tests.seed_db import add_feed, add_item
from tests.stub_llm import Reply, StubLLM, settings_for

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (
    ROOT / "tests/data/corpus/posts/pytorch-blog-how-shopify-built-a-continual-learning-loop.md"
)
ARTICLE = Article(
    title="How Shopify built a continual learning loop",
    text=SOURCE.read_text(encoding="utf-8"),
    url="https://pytorch.org/blog/how-shopify-built-a-continual-learning-loop/",
)


@contextmanager
def one_worker(settings: Settings) -> Iterator[tuple[TestClient, Any]]:
    """The app with one in-process worker: a client, and its context (sessions, notify)."""
    with TestClient(create_app(settings, workers=1)) as client:
        yield client, client.app.state.ctx  # type: ignore[attr-defined]


def queue_item(ctx: Any, text: str, feed_id: int | None = None, title: str = "Kernels") -> int:
    """A pending item (of a new feed unless ``feed_id``), the workers told of it."""
    feed = feed_id if feed_id is not None else add_feed(ctx.sessions)
    iid = add_item(ctx.sessions, feed, title=title, text=text, state=ItemState.PENDING)
    ctx.notify()
    return iid


def test_the_source_is_indexed_while_the_model_answers() -> None:
    index_source.cache_clear()
    with StubLLM(delay=0.3) as stub:
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(engine, ARTICLE, ExplainOptions(), repair_rounds=0)
    info = index_source.cache_info()
    # Read once, beside the model call; the check after the answer found it read.
    assert (info.misses, info.hits) == (1, 1)
    # The report of the check (the post's headline figures as its key facts).
    facts = headline_facts(ARTICLE.text, ARTICLE.title)
    assert outcome.report == check_explainer(
        outcome.result.explainer, ARTICLE.text, facts, title=ARTICLE.title
    )


def test_derived_numbers_publish_marked_unless_the_policy_holds_them() -> None:
    article = Article(title="Kernels", text="The kernel ran 1.10x faster on MI355X.")
    rounded = {  # "1.1x" for the post's "1.10x": a rounding, derived
        "title": "Kernels: faster on MI355X",
        "sections": [{"heading": "Result", "paragraphs": ["The kernel ran 1.1x faster."]}],
    }
    states = {}
    with StubLLM() as stub:
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        for hold in (False, True):
            stub.push(Reply.explainer(rounded))
            outcome = explain_and_check(
                engine, article, ExplainOptions(), repair_rounds=2, review_derived=hold
            )
            assert [n.status for n in outcome.report.numbers if n.text == "1.1x"] == [
                CheckStatus.DERIVED
            ]
            assert outcome.report.ok and outcome.repairs == 0  # the post backs it: no repair
            states[hold] = outcome.state
        assert len(stub.calls) == 2  # one explain call each, no repair call
    assert states == {False: ItemState.PUBLISHED, True: ItemState.NEEDS_REVIEW}


def test_the_pipeline_holds_an_item_with_derived_numbers_when_told(tmp_path: Path) -> None:
    rounded = {
        "title": "Kernels: faster on MI355X",
        "sections": [{"heading": "Result", "paragraphs": ["The kernel ran 1.1x faster."]}],
    }
    with StubLLM() as stub:
        stub.push(Reply.explainer(rounded))
        settings = llm_settings(
            f"sqlite:///{tmp_path / 'g.db'}",
            stub.url,
            review_derived=True,
        )
        with TestClient(create_app(settings, workers=1)) as client:
            ctx = client.app.state.ctx  # type: ignore[attr-defined]
            iid, state = explain_pending(ctx, "Kernels", "The kernel ran 1.10x faster on MI355X.")
            assert state == "needs_review"
            with ctx.sessions() as s:
                (stored,) = s.scalars(select(t.Explainer).where(t.Explainer.item_id == iid))
                assert stored.check_ok is False  # what the review queue and the feed read
            assert client.get(f"/items/{iid}/check").json()["numbers"][-1]["status"] == "derived"


def _explainer(*paragraphs: str) -> dict[str, object]:
    headings = ["What the kernel does", "How fast it runs", "What comes next"]
    return {
        "title": "Kernels: faster on MI355X",
        "sections": [
            {"heading": h, "paragraphs": [p]} for h, p in zip(headings, paragraphs, strict=True)
        ],
    }


KERNEL = Article(title="Kernels", text="The kernel ran 1.10x faster on MI355X across 15 shapes.")
ONE_WRONG = _explainer("The kernel runs on MI355X.", "It ran 1.2x faster.", "More shapes follow.")


def test_a_repair_that_flags_more_numbers_is_not_taken() -> None:
    worse = _explainer("The kernel runs on 9 MI355X.", "It ran 1.3x faster.", "16 shapes follow.")
    with StubLLM() as stub:
        stub.push(Reply.explainer(ONE_WRONG), Reply.explainer(worse), Reply.explainer(worse))
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(engine, KERNEL, ExplainOptions(), repair_rounds=2)
        # The first explainer stays: one flagged number, not four; no second round of the
        # same request.
        assert outcome.result.explainer.model_dump(exclude_none=True) == ONE_WRONG
        assert [n.text for n in outcome.report.numbers if n.status.value != "supported"] == ["1.2x"]
        assert outcome.state == ItemState.NEEDS_REVIEW and outcome.repairs == 1
        assert len(stub.calls) == 2
        # The rejected rewrite was paid for: its tokens are counted.
        assert outcome.result.usage.calls == 2


def test_a_repair_that_drops_sections_to_pass_is_not_published() -> None:
    cut = {"title": "Kernels: faster on MI355X", "sections": [ONE_WRONG["sections"][0]]}
    with StubLLM() as stub:
        stub.push(Reply.explainer(ONE_WRONG), Reply.explainer(cut))
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(engine, KERNEL, ExplainOptions(), repair_rounds=2)
    assert len(outcome.result.explainer.sections) == 3
    assert outcome.state == ItemState.NEEDS_REVIEW


def test_a_repair_that_fixes_the_number_is_taken() -> None:
    fixed = _explainer("The kernel runs on MI355X.", "It ran 1.10x faster.", "More shapes follow.")
    with StubLLM() as stub:
        stub.push(Reply.explainer(ONE_WRONG), Reply.explainer(fixed))
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(engine, KERNEL, ExplainOptions(), repair_rounds=2)
    assert outcome.result.explainer.model_dump(exclude_none=True) == fixed
    assert outcome.state == ItemState.PUBLISHED and outcome.repairs == 1


def test_the_tokens_of_a_failed_attempt_are_on_the_bill(tmp_path: Path) -> None:
    """Calls whose answers came to nothing are billed all the same: /stats counts them."""
    with StubLLM() as stub:
        # Not JSON twice (the re-ask included): the item fails after two paid calls.
        stub.push(Reply.text("not an explainer"), Reply.text("still not one"))
        settings = llm_settings(f"sqlite:///{tmp_path / 'g.db'}", stub.url)
        with one_worker(settings) as (client, ctx):
            iid = queue_item(ctx, "The kernel ran 1.10x faster.")

            def failed() -> bool:
                with ctx.sessions() as s:
                    return str(s.get(t.Item, iid).state) == "failed"

            wait_for(failed)
            assert len(stub.calls) == 2
            with ctx.sessions() as s:
                (row,) = s.scalars(select(t.LLMCall).where(t.LLMCall.item_id == iid))
                assert (row.purpose, row.model) == ("explain-failed", "stub-model")
                assert row.prompt_tokens > 0 and row.completion_tokens > 0
            (per_feed,) = client.get("/stats").json()["per_feed"]
            assert per_feed["prompt_tokens"] == row.prompt_tokens
            assert per_feed["calls"] == row.calls == 2  # the call and its re-ask: one row


def test_a_failing_repair_call_keeps_the_paid_explainer_for_review() -> None:
    with StubLLM() as stub:
        # The explainer comes; every try of the repair call meets a 503.
        stub.push(Reply.explainer(ONE_WRONG), *[Reply.error(503, "overloaded")] * 3)
        engine = LLMEngine(
            settings_for(stub, llm_max_attempts=3),
            modes=ModeMemory(),
            limiter=RateLimiter(4, 60_000),
        )
        outcome = explain_and_check(engine, KERNEL, ExplainOptions(), repair_rounds=2)
        assert len(stub.calls) == 4  # the explain call and three tries of one repair call
    assert outcome.result.explainer.model_dump(exclude_none=True) == ONE_WRONG
    assert outcome.state == ItemState.NEEDS_REVIEW
    assert outcome.result.usage.calls == 1  # the 503s answered no tokens


def test_a_template_that_does_not_load_fails_the_item_with_its_reason(tmp_path: Path) -> None:
    override = tmp_path / "templates"
    override.mkdir()
    (override / "explain.md").write_text("---\nname: explain\n---\nno blocks\n", encoding="utf-8")
    with StubLLM() as stub:
        settings = llm_settings(f"sqlite:///{tmp_path / 'g.db'}", stub.url)
        with one_worker(settings) as (_, ctx):
            feed = add_feed(ctx.sessions, template_dir=str(override))
            iid = queue_item(ctx, "It ran.", feed)

            def failed() -> t.Item | None:
                with ctx.sessions() as s:
                    item = s.get(t.Item, iid)
                    return item if str(item.state) == "failed" else None

            # At once, not after the job's lease (60 s) ran out attempt after attempt.
            item = wait_for(failed, timeout=10)
            assert item.attempts == 1
            assert "explain.md: bad front matter: description: Field required" in str(
                item.last_error
            )
        assert stub.calls == []


def test_an_item_that_never_reached_the_model_does_not_close_the_circuit(
    tmp_path: Path,
) -> None:
    """Two upstream failures open a circuit of threshold 2, even with an item between
    them that failed before any call (no text): it says nothing of the endpoint."""
    with StubLLM() as stub:
        settings = llm_settings(
            f"sqlite:///{tmp_path / 'g.db'}",
            stub.url,
            circuit_threshold=2,
            llm_max_attempts=1,
            # Never retried within the test: make_settings caps backoff at 1 s, and "One"
            # retried (answered, the circuit closed) before "Three" failed kept it shut.
            backoff_base=3600,
            backoff_max=3600,
        )
        with one_worker(settings) as (_, ctx):
            feed = add_feed(ctx.sessions)

            def settle(title: str, text: str, *replies: Reply) -> str:
                stub.push(*replies)
                iid = queue_item(ctx, text, feed, title)

                def attempted() -> str | None:
                    with ctx.sessions() as s:
                        item = s.get(t.Item, iid)
                        return str(item.state) if item.last_error else None

                return str(wait_for(attempted, timeout=10))

            assert settle("One", "The kernel ran.", Reply.error(503, "down")) == "pending"
            assert settle("Two", "") == "failed"  # NothingToExplain, no call
            assert ctx.pipeline.circuit.state == "closed"
            assert settle("Three", "The kernel ran.", Reply.error(503, "down")) == "pending"
            assert ctx.pipeline.circuit.state == "open"
            assert len(stub.calls) == 2


def test_the_tokens_of_a_synchronous_explain_are_on_the_bill(tmp_path: Path) -> None:
    """POST /explain pays for LLM calls as the workers do: /stats counts them, answered
    or failed."""
    with StubLLM() as stub:
        settings = llm_settings(f"sqlite:///{tmp_path / 'g.db'}", stub.url)
        with TestClient(create_app(settings, workers=0)) as client:
            post = {"title": "Kernels", "text": "The kernel ran faster on the new chip."}
            answered = client.post("/explain", json=post)
            assert answered.status_code == 200, answered.text
            usage = answered.json()["usage"]
            stub.push(Reply.text("not an explainer"), Reply.text("still not one"))
            assert client.post("/explain", json=post).status_code == 502
            (day,) = client.get("/stats").json()["per_day"]
            assert day["calls"] == usage["calls"] + 2  # model calls, not rows
            assert day["prompt_tokens"] > usage["prompt_tokens"] > 0
        assert len(stub.calls) == usage["calls"] + 2


def test_the_tokens_of_a_result_discarded_for_a_lost_lease_are_on_the_bill(
    tmp_path: Path,
) -> None:
    with StubLLM() as stub:
        # The default explainer, answered once the item is taken over: a fixed delay
        # (a second) let a slow test thread take it over after the result was stored.
        stub.gate = threading.Event()
        settings = llm_settings(f"sqlite:///{tmp_path / 'g.db'}", stub.url)
        with one_worker(settings) as (_, ctx):
            iid = queue_item(ctx, "The kernel ran faster.")
            try:
                wait_for(lambda: stub.calls, timeout=10)
                # Meanwhile another worker took the item over (this one's lease ran out).
                with ctx.sessions.begin() as s:
                    item = s.get(t.Item, iid)
                    item.lease_owner = "another-worker"
            finally:
                stub.gate.set()

            def billed() -> list[t.LLMCall]:
                with ctx.sessions() as s:
                    return list(s.scalars(select(t.LLMCall)))

            (row,) = wait_for(billed, timeout=10)
            assert (row.item_id, row.purpose) == (iid, "explain-lease-lost")
            assert row.prompt_tokens > 0
            with ctx.sessions() as s:
                item = s.get(t.Item, iid)
                # The new owner's to finish: nothing of this worker's result was stored.
                assert (str(item.state), item.lease_owner) == ("processing", "another-worker")
                assert s.scalars(select(t.Explainer)).all() == []


def test_a_repair_template_that_does_not_render_keeps_the_paid_explainer(
    tmp_path: Path,
) -> None:
    """A feed's own repair.md naming a variable no one passes: the explainer (paid for,
    checked) waits for review instead of the item failing after the explain call."""
    override = tmp_path / "templates"
    override.mkdir()
    repair = (Path(__file__).parent.parent / "prompts" / "repair.md").read_text(encoding="utf-8")
    broken = repair.replace("{% block user -%}", "{% block user -%}\n{{ no_such_variable.field }}")
    (override / "repair.md").write_text(broken, encoding="utf-8")
    with StubLLM() as stub:
        stub.push(Reply.explainer(ONE_WRONG))
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(
            engine, KERNEL, ExplainOptions(template_dir=override), repair_rounds=2
        )
        assert len(stub.calls) == 1  # the explain call; the repair never got sent
    assert outcome.result.explainer.model_dump(exclude_none=True) == ONE_WRONG
    assert outcome.state == ItemState.NEEDS_REVIEW


def test_a_refused_key_opens_the_circuit_and_the_items_wait_for_it(tmp_path: Path) -> None:
    """A rotated or wrong key refuses every call: the items wait (retried later, the
    circuit opened after its threshold), not each failed for good, a backlog lost."""
    with StubLLM() as stub:
        settings = llm_settings(
            f"sqlite:///{tmp_path / 'g.db'}",
            stub.url,
            circuit_threshold=2,
            circuit_cooldown=3600,
            backoff_base=3600,
            backoff_max=3600,  # make_settings caps it at 1 s
        )
        stub.push(*[Reply.error(401, "Unauthorized")] * 3)
        with one_worker(settings) as (_, ctx):
            feed = add_feed(ctx.sessions)
            ids = [queue_item(ctx, "It ran.", feed, f"Post {n}") for n in range(3)]

            def settled() -> list[t.Item] | None:
                # The circuit opens in memory before the second failure's retry is
                # stored: wait for that write too, not only for the open circuit.
                if ctx.pipeline.circuit.state != "open":
                    return None
                with ctx.sessions() as s:
                    items = [s.get(t.Item, i) for i in ids]
                    s.expunge_all()
                if any(str(i.state) == "processing" for i in items):
                    return None
                return items

            items = wait_for(settled, timeout=10)
            states = sorted(str(i.state) for i in items)
            errors = [i.last_error for i in items if i.last_error]
        assert states == ["pending"] * 3  # two tried and waiting, one never tried
        assert len(stub.calls) == 2
        assert len(errors) == 2 and all("OPENAI_API_KEY" in e for e in errors)


def test_an_explainer_off_its_shape_waits_for_review_however_clean() -> None:
    """Twelve sections, or a section of nine paragraphs, is not the explainer's shape:
    clean numbers or not, a person looks first. One short section is (a status update
    has little to say)."""
    many = {
        "title": "Kernels: faster on MI355X",
        "sections": [
            {"heading": f"Part {chr(65 + n)}", "paragraphs": ["It runs."]} for n in range(12)
        ],
    }
    long = {
        "title": "Kernels: faster on MI355X",
        "sections": [{"heading": "All of it", "paragraphs": ["It runs."] * 9}],
    }
    short = {
        "title": "Kernels: faster on MI355X",
        "sections": [{"heading": "What changed", "paragraphs": ["It ran 1.10x faster."]}],
    }
    seen = {}
    with StubLLM() as stub:
        stub.push(Reply.explainer(many), Reply.explainer(long), Reply.explainer(short))
        for name in ("many", "long", "short"):
            engine = LLMEngine(
                settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000)
            )
            outcome = explain_and_check(engine, KERNEL, ExplainOptions(), repair_rounds=2)
            assert outcome.report.ok  # the numbers are the post's own
            seen[name] = (outcome.state, outcome.report.shape)
        assert len(stub.calls) == 3  # nothing to repair: the shape is a person's call
    assert seen == {
        "many": (ItemState.NEEDS_REVIEW, ["12 sections, want 1..7"]),
        "long": (ItemState.NEEDS_REVIEW, ["section 1 has 9 paragraphs, want 1..4"]),
        "short": (ItemState.PUBLISHED, []),
    }


def test_a_failed_circuit_trial_gives_its_item_the_attempt_back(tmp_path: Path) -> None:
    """Over a long outage the half-open trial probes the endpoint every cool-down; its
    failure is the endpoint's, so the item keeps its attempts (two here) and is explained
    once the endpoint is back, not failed after its second probe."""
    with StubLLM() as stub:
        settings = llm_settings(
            f"sqlite:///{tmp_path / 'g.db'}",
            stub.url,
            circuit_threshold=1,
            circuit_cooldown=0.2,
            llm_max_attempts=1,
            max_attempts=2,
            backoff_base=0.01,
            backoff_max=0.05,
        )
        stub.push(*[Reply.error(503, "down")] * 4)
        with one_worker(settings) as (_, ctx):
            iid = queue_item(ctx, "The kernel ran.")

            def settled() -> t.Item | None:
                with ctx.sessions() as s:
                    item = s.get(t.Item, iid)
                    return item if str(item.state) not in ("pending", "processing") else None

            item = wait_for(settled, timeout=30)
        # The first call failed with the circuit closed (counted), three trials failed
        # (given back), the fifth call answered: two attempts in all.
        assert len(stub.calls) == 5
        assert str(item.state) != "failed" and item.attempts == 2


def test_the_check_reads_a_name_of_the_items_feed_as_the_posts_context(tmp_path: Path) -> None:
    """A post's cleaned text need not write what its feed is named for: "For PyTorch
    users" of a post of the "PyTorch Blog" feed is no invented name, and its figure is
    not misattached for it (the worker passes the feed's title to the check); of a feed
    that names nothing, it is."""
    for_users = {
        "title": "Kernels: a faster one",
        "sections": [
            {
                "heading": "What changed",
                "paragraphs": ["For PyTorch users, the new kernel is 2x faster."],
            }
        ],
    }
    text = "The new kernel is 2x faster than the old one."
    with StubLLM() as stub:
        stub.push(Reply.explainer(for_users), Reply.explainer(for_users))
        settings = llm_settings(f"sqlite:///{tmp_path / 'g.db'}", stub.url, repair_rounds=0)
        with one_worker(settings) as (client, ctx):
            blog = add_feed(ctx.sessions, "https://pytorch.org/blog/feed.xml", title="PyTorch Blog")
            named = queue_item(ctx, text, blog)
            other = queue_item(ctx, text, add_feed(ctx.sessions), title="Kernels, again")

            def settled() -> dict[int, str] | None:
                with ctx.sessions() as s:
                    states = {i: str(s.get(t.Item, i).state) for i in (named, other)}
                done = {"published", "needs_review", "failed"}
                return states if set(states.values()) <= done else None

            states = wait_for(settled)
            assert states == {named: "published", other: "needs_review"}
            numbers = client.get(f"/items/{named}/check").json()["numbers"]
            assert [(n["text"], n["status"]) for n in numbers] == [("2x", "supported")]
            (flagged,) = client.get(f"/items/{other}/check").json()["numbers"]
            assert flagged["status"] == "misattached"
            assert flagged["reason"] == '"pytorch" is not in the source'
        assert len(stub.calls) == 2  # no repair asked (none allowed)
