"""Publishing: a claimed item explained, checked, stored and published (worker).

worker  -> process_item()      explain -> check (-> repair) -> store -> publish
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from service import abandon, fetch, metrics, queue
from service.engines.base import inputs_key
from service.errors import (
    FetchError,
    LeaseLost,
    LLMError,
    LLMKeyRefused,
    LLMRetryable,
    PlainfeedError,
)
from service.gate import Outcome, explain_and_check
from service.models import (
    Article,
    ItemState,
)
from service.pipeline.base import Spent, feed_names, feed_options, insert_ignore
from service.pipeline.claims import Claims, claim_key, release
from service.pipeline.reuse import Reuse
from service.store import tables as t
from service.store.db import once_more, transaction
from service.store.records import article_of

log = logging.getLogger(__name__)

# The item path's read, built once: it runs for every item, and building a statement
# costs more CPU than running it. One round trip brings the item, its feed and the
# explainers of its current content (usually none; one row per explainer).
_ITEM_FEED_EXPLAINERS = (
    select(
        t.Item,
        t.Feed,
        t.Explainer.prompt_version,
        t.Explainer.model,
        t.Explainer.check_ok,
        t.Explainer.approved_at,
    )
    .outerjoin(t.Feed, t.Feed.id == t.Item.feed_id)
    .outerjoin(
        t.Explainer,
        (t.Explainer.item_id == t.Item.id) & (t.Explainer.content_hash == t.Item.content_hash),
    )
    .where(t.Item.id == bindparam("item_id"))
)


# What the event hook gets after an item is stored: the item and its new explainer.
_ITEM_AND_EXPLAINER = (
    select(t.Item, t.Explainer)
    .join(t.Explainer, t.Explainer.item_id == t.Item.id)
    .where(
        t.Item.id == bindparam("item_id"),
        t.Explainer.content_hash == bindparam("content_hash"),
        t.Explainer.prompt_version == bindparam("prompt_version"),
        t.Explainer.model == bindparam("model"),
    )
)


class Publishing(Claims, Reuse):
    def process_item(self, claim: queue.Claim, owner: str) -> str:
        """Explain one claimed item; returns the state it ended in."""
        if claim.expired and claim.attempts > self.settings.max_attempts:
            # Every attempt ended with its worker (killed, out of memory): an item that
            # takes workers down with it must not be retried for ever.
            with transaction(self.sessions) as s:
                queue.finish(
                    s,
                    queue.ITEMS,
                    claim.id,
                    owner,
                    state=ItemState.FAILED.value,
                    last_error=f"gave up after {claim.attempts - 1} attempts; the last "
                    "one's worker died (its lease expired)",
                )
            metrics.ITEM_OUTCOMES.labels("failed").inc()
            return ItemState.FAILED.value
        # Read-only: on SQLite it does not wait for the write lock.
        with self.read_sessions() as s:
            rows = s.execute(_ITEM_FEED_EXPLAINERS, {"item_id": claim.id}).all()
            if not rows:
                return "missing"
            item, feed = rows[0][0], rows[0][1]
            options = feed_options(feed)
            names = feed_names(feed)
            article = article_of(item)
            feed_id = item.feed_id
        if article.content_source == "excerpt":
            # The delivery left this page to be read here (its page budget was spent, or
            # the item was skipped and is now asked for): read it, then go on with the
            # item as stored now (its text, and so its content hash, changed).
            read = self._read_page(claim, owner, article)
            if isinstance(read, str):
                return read
            with self.read_sessions() as s:
                rows = s.execute(_ITEM_FEED_EXPLAINERS, {"item_id": claim.id}).all()
                if not rows:
                    return "missing"
                article = article_of(rows[0][0])
        try:
            model, prompt_version = self.engine.identity(options)
        except PlainfeedError as exc:
            # A template that does not load (a feed's override, an edit of prompts/):
            # failing here keeps the reason; escaping, it left the job to its lease, and
            # every attempt after ran out too, ending in "the worker died".
            return self._fail_item(claim, owner, exc)
        done = next(
            (r for r in rows if (r.prompt_version, r.model) == (prompt_version, model)),
            None,
        )
        if done is not None:
            # The effect happened already (a redelivery, or a worker died after storing):
            # never explain the same (content, prompt, model) twice.
            state = (
                ItemState.PUBLISHED
                if done.check_ok or done.approved_at
                else (ItemState.NEEDS_REVIEW)
            )
            with transaction(self.sessions) as s:
                queue.finish(s, queue.ITEMS, claim.id, owner, state=state.value, last_error=None)
            return state.value
        key = inputs_key(article, options)
        # Another worker may be explaining the same post right now: wait for it
        # (service.pipeline.claims). Claimed first, then looked for: an explainer stored
        # by a holder that finished just before is found.
        effect = claim_key(article.hash, key, prompt_version, model)
        reused = self._claim_explain(claim, owner, article.hash, effect) or self._reuse(
            claim, owner, article, model, prompt_version, key, feed_id, names
        )
        if reused is not None:
            return reused
        try:
            outcome = explain_and_check(
                self.engine,
                article,
                options,
                repair_rounds=self.settings.repair_rounds,
                review_derived=self.settings.review_derived,
                feed_names=names,
            )
        except LeaseLost as exc:
            # The heartbeat found the lease lost (service.abandon): the explain stopped
            # before its next call; the calls made were paid for, so they are counted.
            spent = Spent.of(exc, feed_id, model)
            if spent is not None:
                with transaction(self.sessions) as s:
                    spent.record(s, claim.id, "explain-lease-lost")
            raise
        except (LLMRetryable, LLMKeyRefused) as exc:
            # A refused key is the endpoint's state, not the item's: like an outage, it
            # opens the circuit and the item waits, its attempt counted, except when it
            # was the half-open trial: probing a dead endpoint every cool-down, item after
            # item, spent the backlog's attempts over a long outage until all had failed.
            trial = self.circuit.holds_trial()
            self.circuit.failure()
            spent = Spent.of(exc, feed_id, model)
            retry_after = exc.retry_after if isinstance(exc, LLMRetryable) else None
            return self._retry_item(claim, owner, exc, retry_after, spent, refund=trial)
        except PlainfeedError as exc:
            # Not transient (rejected request, invalid answer, no text): fail with reason.
            if isinstance(exc, LLMError):
                # The endpoint answered, if not well. An error before any call (no text, a
                # template) says nothing of it: the worker gives back a trial it held.
                self.circuit.success()
            return self._fail_item(claim, owner, exc, Spent.of(exc, feed_id, model))
        except Exception as exc:
            log.exception("item %s crashed while explaining", claim.id)
            return self._retry_item(claim, owner, exc, None)
        self.circuit.success()
        try:
            return once_more(
                lambda: self._store_outcome(
                    claim, owner, outcome, model, prompt_version, article, feed_id, key
                ),
                f"item {claim.id}: storing its explainer",
            )
        except LeaseLost:
            # Another worker owns the item now and writes its result; these calls were
            # paid for all the same: count them, then let the worker discard the rest.
            r = outcome.result
            if r.usage.calls:
                with transaction(self.sessions) as s:
                    Spent(feed_id, r.model, r.usage, r.cost_usd).record(
                        s, claim.id, "explain-lease-lost"
                    )
            raise

    def _read_page(self, claim: queue.Claim, owner: str, excerpt: Article) -> Article | str:
        """The page of an item stored with its feed's excerpt, read and stored on the
        item (fenced by the lease); or the state the item ended in when the origin failed
        for a moment and the read is tried again later. A page that cannot be read (on
        the last attempt, any failure) leaves the excerpt, as the delivery would have."""
        abandon.check("reading the page")
        link = excerpt.url
        article = replace(excerpt, content_source="feed")
        note: str | None = "no link to read"
        try:
            if link:
                article, note = fetch.page_or_excerpt(link, excerpt, self.settings)
        except LeaseLost:
            raise  # the read cut short, the lease lost: the new holder reads the page
        except PlainfeedError as exc:
            if (
                isinstance(exc, FetchError)
                and fetch.transient(exc)
                and claim.attempts < self.settings.max_attempts
            ):
                return self._retry_item(claim, owner, exc, None)
            note = f"page {link} not read ({exc.detail}); kept the feed's excerpt"
        except Exception:  # a bug in reading a page must not stop the item: the excerpt
            log.exception("item %s: reading page %s crashed; kept the excerpt", claim.id, link)
            note = None
        if note:
            log.info("item %s: %s", claim.id, note)
        with transaction(self.sessions) as s:
            res = s.execute(
                update(t.Item)
                .where(t.Item.id == claim.id, t.Item.lease_owner == owner)
                .values(
                    title=(article.title or "")[:1024],
                    text=article.text,
                    content_hash=article.hash,
                    content_source=article.content_source,
                    updated_at=datetime.now(UTC),
                )
            )
            if res.rowcount != 1:  # type: ignore[attr-defined]
                raise LeaseLost(f"lease on items {claim.id} lost by {owner}")
        return article

    def _reuse(
        self,
        claim: queue.Claim,
        owner: str,
        article: Article,
        model: str,
        prompt_version: str,
        key: str,
        feed_id: int | None,
        names: tuple[str | None, ...],
    ) -> str | None:
        """Store a copy of another item's explainer of the same post when there is one
        this item would get (service.pipeline.reuse); the state it ended in, or None to
        explain anew (``names``: its feed's, for the check). Reuse saves a call; failing,
        it must not cost the item."""
        try:
            found = self._reusable(claim.id, article, model, prompt_version, key, names)
            if found is None:
                return None
            outcome, source_id = found
            return self._store_outcome(
                claim, owner, outcome, model, prompt_version, article, feed_id, key, source_id
            )
        except LeaseLost:
            raise
        except Exception:
            log.exception("item %s: reusing a stored explainer failed", claim.id)
            return None

    def _store_outcome(
        self,
        claim: queue.Claim,
        owner: str,
        outcome: Outcome,
        model: str,
        prompt_version: str,
        article: Article,
        feed_id: int | None,
        key: str,
        reused_from: int | None = None,
    ) -> str:
        # The write is fenced by the lease anyway; looked at first, a lease lost during
        # the check (or a reuse's reading) costs no transaction rolled back.
        abandon.check("storing the explainer")
        r = outcome.result
        now = datetime.now(UTC)
        state = outcome.state
        with transaction(self.sessions) as s:
            insert_ignore(
                s,
                t.Explainer.__table__,
                [
                    {
                        "item_id": claim.id,
                        "content_hash": article.hash,
                        "prompt_version": prompt_version,
                        "model": model,
                        "engine": r.engine,
                        "body": r.explainer.model_dump(mode="json"),
                        "check": outcome.report.model_dump(mode="json"),
                        "check_ok": outcome.publishable,
                        "prompt_tokens": r.usage.prompt_tokens,
                        "completion_tokens": r.usage.completion_tokens,
                        "llm_calls": r.usage.calls,
                        "cost_usd": r.cost_usd,
                        "repairs": outcome.repairs,
                        "created_at": now,
                        "inputs_key": key,
                        "reused_from": reused_from,
                    }
                ],
            )
            if r.usage.calls:
                # A Core insert: the ORM's unit of work costs more CPU than the write.
                s.execute(
                    insert(t.Base.metadata.tables[t.LLMCall.__tablename__]),
                    {
                        "item_id": claim.id,
                        "feed_id": feed_id,
                        "model": r.model,
                        "purpose": "explain+repair" if outcome.repairs else "explain",
                        "calls": r.usage.calls,
                        "prompt_tokens": r.usage.prompt_tokens,
                        "completion_tokens": r.usage.completion_tokens,
                        "cost_usd": r.cost_usd,
                        "created_at": now,
                    },
                )
            values: dict[str, Any] = {"state": state.value, "last_error": None, "updated_at": now}
            if state == ItemState.PUBLISHED:
                values["published_at"] = now
            queue.finish(s, queue.ITEMS, claim.id, owner, **values)
            release(s, claim.id, owner)  # the items waiting for it copy it now
            if self.on_event is not None:
                event = (
                    "explainer.published"
                    if state == ItemState.PUBLISHED
                    else "explainer.needs_review"
                )

                def load() -> tuple[t.Item, t.Explainer]:
                    # After finish (the item's new state), both in one round trip; only
                    # when someone subscribed (the hook asks first).
                    item, ex = s.execute(
                        _ITEM_AND_EXPLAINER,
                        {
                            "item_id": claim.id,
                            "content_hash": article.hash,
                            "prompt_version": prompt_version,
                            "model": model,
                        },
                    ).one()
                    return item, ex

                self.on_event(s, event, feed_id, load)
        if r.usage.calls:
            metrics.LLM_CALLS.labels(r.model).inc(r.usage.calls)
            metrics.LLM_TOKENS.labels(r.model, "prompt").inc(r.usage.prompt_tokens)
            metrics.LLM_TOKENS.labels(r.model, "completion").inc(r.usage.completion_tokens)
            metrics.LLM_COST.labels(r.model).inc(r.cost_usd)
        if reused_from is not None:
            metrics.EXPLAINERS_REUSED.inc()
        metrics.ITEM_OUTCOMES.labels(state.value).inc()
        return state.value

    def _retry_item(
        self,
        claim: queue.Claim,
        owner: str,
        exc: BaseException,
        retry_after: float | None,
        spent: Spent | None = None,
        *,
        refund: bool = False,
    ) -> str:
        """Back the item off; ``refund`` gives its attempt back (a failed circuit trial)."""
        error = getattr(exc, "detail", None) or f"{exc.__class__.__name__}: {exc}"
        delay = queue.backoff_seconds(
            claim.attempts, self.settings.backoff_base, self.settings.backoff_max
        )
        if retry_after:
            delay = max(delay, min(retry_after, self.settings.backoff_max))
        with transaction(self.sessions) as s:
            if spent is not None:
                spent.record(s, claim.id)
            again = queue.retry_later(
                s,
                queue.ITEMS,
                claim.id,
                owner,
                attempts=claim.attempts,
                max_attempts=self.settings.max_attempts,
                error=str(error),
                delay=delay,
                refund=refund,
            )
            release(s, claim.id, owner)
        state = ItemState.PENDING if again else ItemState.FAILED
        metrics.ITEM_OUTCOMES.labels("retry" if again else "failed").inc()
        return state.value

    def _fail_item(
        self, claim: queue.Claim, owner: str, exc: PlainfeedError, spent: Spent | None = None
    ) -> str:
        chain = [exc.detail]
        cause = exc.__cause__
        while cause is not None and len(chain) < 4:
            chain.append(f"{cause.__class__.__name__}: {cause}")
            cause = cause.__cause__
        with transaction(self.sessions) as s:
            if spent is not None:
                spent.record(s, claim.id)
            queue.finish(
                s, queue.ITEMS, claim.id, owner, state="failed", last_error=" <- ".join(chain)
            )
            release(s, claim.id, owner)
        metrics.ITEM_OUTCOMES.labels("failed").inc()
        return ItemState.FAILED.value

    # --- people -----------
