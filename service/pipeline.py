"""The one orchestrator: the only place where the pure steps meet the database and the
network. The HTTP layer, the CLI and the workers call it; it calls the steps.

    webhook -> accept()            store the delivery, answer 202
    worker  -> process_delivery()  parse -> clean -> decide -> items (one transaction)
    worker  -> process_item()      explain -> check (-> repair) -> store -> publish
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from service import changes, clean, fetch, ingest, metrics, parse, queue, signatures, websub
from service.circuit import Circuit
from service.config import Settings
from service.engines.base import DEFAULT_AUDIENCE, Engine, ExplainOptions
from service.errors import (
    Conflict,
    FeedParseError,
    Gone,
    LeaseLost,
    LLMRetryable,
    NotAFeed,
    NotFound,
    PlainfeedError,
    SignatureError,
)
from service.gate import Outcome, explain_and_check
from service.ingest import Incoming
from service.models import (
    Article,
    FeedDoc,
    ItemState,
)
from service.store import tables as t
from service.store.db import readonly, transaction

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Accepted:
    delivery_id: int
    duplicate: bool


def _url_variants(url: str) -> list[str]:
    """A feed URL as given and with/without its trailing slash (monitors differ)."""
    return [url, url[:-1]] if url.endswith("/") else [url, url + "/"]


def feed_options(feed: t.Feed | None) -> ExplainOptions:
    if feed is None:
        return ExplainOptions()
    return ExplainOptions(
        audience=feed.audience or DEFAULT_AUDIENCE,
        language=feed.language or "English",
        template_dir=Path(feed.template_dir) if feed.template_dir else None,
    )


def _insert_ignore(session: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING on both backends (idempotent writes)."""
    if not rows:
        return
    ins = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    # Rows as parameters, not in the statement: its compiled form is cached and reused.
    session.execute(ins(table).on_conflict_do_nothing(), rows)


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


class Pipeline:
    """Chains the steps and does their I/O. Thread-safe: state lives in the database."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        engine: Engine,
        *,
        circuit: Circuit | None = None,
        fetch_feed: Callable[[t.Feed | None, str], bytes] | None = None,
        on_event: Callable[[Session, str, t.Item, t.Explainer], None] | None = None,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.read_sessions = readonly(sessions)
        self.engine = engine
        self.circuit = circuit or Circuit(settings.circuit_threshold, settings.circuit_cooldown)
        self.fetch_feed = fetch_feed
        self.on_event = on_event

    # --- the request path -----------

    def accept(self, incoming: Incoming, *, token_ok: bool = True) -> Accepted:
        """Authorise and store a delivery durably (committed before the caller answers 202).

        Raises before anything is stored: NotFound (no such registered feed), Gone (WebSub
        content for a feed that is not subscribed), AuthError / SignatureError (a feed with
        a secret and no valid signature; no API token and no signature).
        """
        if not incoming.coalesce:
            # Replays are the common case (monitors re-post): answer them from a read-only
            # session, which on SQLite does not wait behind writers.
            with self.read_sessions() as s:
                self._authorize(s, self._feed_of(s, incoming), incoming, token_ok)
                existing = s.scalars(
                    select(t.Delivery.id).where(t.Delivery.external_id == incoming.external_id)
                ).first()
            if existing is not None:
                metrics.DELIVERIES.labels("duplicate").inc()
                return Accepted(existing, duplicate=True)
        try:
            with transaction(self.sessions) as s:
                feed, scheme = self._authorize(s, self._feed_of(s, incoming), incoming, token_ok)
                external_id = incoming.external_id
                if incoming.coalesce and feed is not None:
                    waiting = s.scalars(
                        select(t.Delivery.id)
                        .where(
                            t.Delivery.feed_id == feed.id,
                            t.Delivery.body.is_(None),
                            t.Delivery.state == "received",
                        )
                        .limit(1)
                    ).first()
                    if waiting is not None:
                        metrics.DELIVERIES.labels("duplicate").inc()
                        return Accepted(waiting, duplicate=True)
                    external_id = f"{external_id}@{time.time_ns()}"
                existing = s.scalars(
                    select(t.Delivery.id).where(t.Delivery.external_id == external_id)
                ).first()
                if existing is not None:
                    metrics.DELIVERIES.labels("duplicate").inc()
                    return Accepted(existing, duplicate=True)
                record: dict[str, Any] = {"request": incoming.kept_headers(), "signature": scheme}
                if incoming.meta:
                    record["meta"] = incoming.meta
                d = t.Delivery(
                    external_id=external_id,
                    feed_id=feed.id if feed is not None else None,
                    sender=incoming.sender,
                    content_type=incoming.content_type,
                    headers=record,
                    body=incoming.body,
                    fetch_url=feed.url if incoming.body is None and feed is not None else None,
                    state="received",
                )
                s.add(d)
                s.flush()
                metrics.DELIVERIES.labels("accepted").inc()
                return Accepted(d.id, duplicate=False)
        except IntegrityError:
            # Two identical deliveries raced; the other one stored it.
            with self.sessions() as s:
                existing = s.scalars(
                    select(t.Delivery.id).where(t.Delivery.external_id == incoming.external_id)
                ).one()
            metrics.DELIVERIES.labels("duplicate").inc()
            return Accepted(existing, duplicate=True)

    def _feed_of(self, s: Session, incoming: Incoming) -> t.Feed | None:
        """The registered feed a delivery names (by id, monitor name or URL), or None when
        it names none (a raw feed document: the worker finds its feed from the document)."""
        if incoming.feed_id is not None:
            feed = s.get(t.Feed, incoming.feed_id)
            if feed is None:
                if incoming.sender == "websub":
                    raise Gone(f"no feed with id {incoming.feed_id}")
                raise NotFound(f"no feed with id {incoming.feed_id}")
            return feed
        if incoming.source:
            feed = s.scalars(select(t.Feed).where(t.Feed.name == incoming.source).limit(1)).first()
            if feed is not None:
                return feed
        if incoming.feed_urls:
            wanted = [v for u in incoming.feed_urls for v in _url_variants(u)]
            found = {f.url: f for f in s.scalars(select(t.Feed).where(t.Feed.url.in_(wanted)))}
            for url in wanted:
                if url in found:
                    return found[url]
        if incoming.source:
            raise NotFound(
                f"no registered feed named {incoming.source!r}: register it with "
                'POST /feeds {"url", "name"} (the name is the change record\'s source)'
            )
        if incoming.feed_urls:
            raise NotFound(
                f"no registered feed with url {incoming.feed_urls[0]}; register it with POST /feeds"
            )
        return None

    def _authorize(
        self, s: Session, feed: t.Feed | None, incoming: Incoming, token_ok: bool
    ) -> tuple[t.Feed | None, str | None]:
        """(the delivery's feed, the signature scheme that verified it, if any); raises
        Gone, AuthError or SignatureError."""
        if incoming.sender == "websub" and feed is not None:
            if feed.websub_state not in websub.RECEIVING:
                raise Gone(f"feed {feed.id} has no active WebSub subscription")
            secret = feed.websub_secret or feed.secret
        else:
            secret = feed.secret if feed is not None else None
        if feed is None and signatures.is_signed(incoming.headers):
            return self._feed_by_signature(s, incoming)
        return feed, signatures.authorize(secret, incoming.raw, incoming.headers, token_ok=token_ok)

    def _feed_by_signature(self, s: Session, incoming: Incoming) -> tuple[t.Feed, str]:
        """A signed document that names no feed: the feed whose secret verifies it."""
        for feed in s.scalars(
            select(t.Feed).where(t.Feed.secret.is_not(None)).order_by(t.Feed.id).limit(1000)
        ):
            try:
                assert feed.secret is not None
                return feed, signatures.verify(feed.secret, incoming.raw, incoming.headers)
            except SignatureError:
                continue
        raise SignatureError(
            "the delivery is signed but names no feed and no registered feed's secret "
            "verifies it (add ?feed_id=)"
        )

    # --- deliveries -----------

    def process_delivery(self, claim: queue.Claim, owner: str) -> None:
        """Turn a stored delivery into items: fetch the feed when the delivery carries no
        document (conditional GET), parse, fetch the pages of new excerpt-only items,
        clean; then commit new items, the feed's validators and the delivery's outcome in
        one transaction, so a crash leaves either all or none."""
        with self.sessions() as s:
            d = s.get(t.Delivery, claim.id)
            if d is None:
                return
            feed = s.get(t.Feed, d.feed_id) if d.feed_id else None
            body, ctype, fetch_url = d.body, d.content_type, d.fetch_url
            named_feed, sender, record = d.feed_id, d.sender, dict(d.headers or {})
        problems: list[str] = []
        validators: tuple[str | None, str | None] | None = None
        try:
            if body is None:
                url = fetch_url or (feed.url if feed is not None else None)
                if not url:
                    raise FeedParseError("delivery has no feed document and nothing to fetch")
                got = self._fetch_feed(feed, url)
                if got.not_modified:
                    self._finish_unchanged(claim, owner, f"{url} not modified (HTTP 304)")
                    return
                body, ctype, fetch_url = got.body, got.content_type, url
                validators = (got.etag, got.last_modified)
                if parse.sniff(body, ctype) is None:
                    raise NotAFeed(
                        f"{got.url} answered {ingest.media_type(ctype) or 'a document'} "
                        "that is not an RSS, Atom, RDF or JSON Feed document"
                    )
            elif sender == "change-record":
                recorded = (record.get("meta") or {}).get("recorded_headers") or {}
                if recorded.get("etag") or recorded.get("last-modified"):
                    validators = (recorded.get("etag"), recorded.get("last-modified"))
            doc = parse.parse_feed(body, content_type=ctype, url=fetch_url)
            articles = self._articles(named_feed, doc, fetch_url, problems)
        except PlainfeedError as exc:
            self._fail_delivery(claim, owner, exc)
            return
        except Exception as exc:  # a bug must not lose the delivery: record it
            log.exception("delivery %s crashed", claim.id)
            self._fail_delivery(claim, owner, exc)
            return
        for attempt in range(3):
            try:
                with transaction(self.sessions) as s:
                    feed_id = self._resolve_feed(s, named_feed, doc, fetch_url)
                    if named_feed is None:
                        found = s.get(t.Feed, feed_id)
                        if found is not None and found.secret:
                            # Accepted unsigned because it named no feed; the document
                            # turned out to be a feed that only takes signed deliveries.
                            raise SignatureError(
                                f"unsigned document of feed {feed_id}, which has a secret: "
                                "nothing was taken from it"
                            )
                    if validators is not None and named_feed is not None:
                        s.execute(
                            update(t.Feed)
                            .where(t.Feed.id == named_feed)
                            .values(etag=validators[0], last_modified=validators[1])
                        )
                    new, changed = self._store_items(s, feed_id, claim.id, articles)
                    queue.finish(
                        s,
                        queue.DELIVERIES,
                        claim.id,
                        owner,
                        state="processed",
                        feed_id=feed_id,
                        items_new=len(new),
                        items_changed=len(changed),
                        item_ids=sorted(new + changed),
                        problems="; ".join([*doc.problems, *problems]) or None,
                        processed_at=datetime.now(UTC),
                    )
                metrics.DELIVERIES.labels("processed").inc()
                metrics.ITEMS_CREATED.labels("new").inc(len(new))
                metrics.ITEMS_CREATED.labels("changed").inc(len(changed))
                return
            except SignatureError as exc:
                self._fail_delivery(claim, owner, exc)
                return
            except IntegrityError:
                # A concurrent delivery of the same feed created the feed row first;
                # run the decision again against what is stored now.
                if attempt == 2:
                    raise

    def _fetch_feed(self, feed: t.Feed | None, url: str) -> fetch.Fetched:
        """GET the feed, conditionally when its validators are stored for this URL."""
        if self.fetch_feed is not None:
            body = self.fetch_feed(feed, url)
            return fetch.Fetched(body, None, url, 200, None, None, not_modified=False)
        own = feed is not None and feed.url == url
        return fetch.fetch_url(
            url,
            self.settings,
            etag=feed.etag if own and feed is not None else None,
            last_modified=feed.last_modified if own and feed is not None else None,
        )

    def _finish_unchanged(self, claim: queue.Claim, owner: str, note: str) -> None:
        with transaction(self.sessions) as s:
            queue.finish(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                state="processed",
                items_new=0,
                items_changed=0,
                item_ids=[],
                problems=note,
                processed_at=datetime.now(UTC),
            )
        metrics.DELIVERIES.labels("processed").inc()

    def _articles(
        self, feed_id: int | None, doc: FeedDoc, fetch_url: str | None, problems: list[str]
    ) -> list[tuple[Any, Article]]:
        """Each entry as an article. An excerpt-only entry seen for the first time is read
        from its page (``content_source="page"``); one stored from its page before is left
        out, so the feed's excerpt never counts as a change of the page's text."""
        stored = self._stored_sources(feed_id, doc, fetch_url)
        out: list[tuple[Any, Article]] = []
        for entry in doc.entries:
            source = stored.get(entry.key)
            if source == "page":
                continue
            article = clean.article_from_entry(entry)
            if source is None and entry.link and clean.is_excerpt(entry):
                article = self._page_article(entry.link, article, problems)
            out.append((entry, article))
        return out

    def _stored_sources(
        self, feed_id: int | None, doc: FeedDoc, fetch_url: str | None
    ) -> dict[str, str]:
        with self.sessions() as s:
            if feed_id is None:
                url = fetch_url or doc.self_url or doc.link or f"urn:plainfeed:title:{doc.title}"
                feed_id = s.scalars(select(t.Feed.id).where(t.Feed.url == url)).first()
                if feed_id is None:
                    return {}
            keys = [e.key for e in doc.entries]
            rows = s.execute(
                select(t.Item.key, t.Item.content_source).where(
                    t.Item.feed_id == feed_id, t.Item.key.in_(keys)
                )
            )
            return {row.key: row.content_source for row in rows}

    def _page_article(self, link: str, excerpt: Article, problems: list[str]) -> Article:
        try:
            page = fetch.fetch_article(link, self.settings)
        except PlainfeedError as exc:
            problems.append(f"page {link} not read ({exc.detail}); kept the feed's excerpt")
            return excerpt
        if page.words < excerpt.words:
            problems.append(f"page {link} had less text than the excerpt; kept the excerpt")
            return excerpt
        return Article(
            title=excerpt.title or page.title,
            text=page.text,
            url=link,
            author=excerpt.author or page.author,
            published=excerpt.published,
            content_source="page",
        )

    def _fail_delivery(self, claim: queue.Claim, owner: str, exc: BaseException) -> None:
        reason = getattr(exc, "detail", None) or f"{exc.__class__.__name__}: {exc}"
        with transaction(self.sessions) as s:
            queue.finish(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                state="failed",
                error=str(reason),
                processed_at=datetime.now(UTC),
            )
        metrics.DELIVERIES.labels("failed").inc()

    def _resolve_feed(
        self, s: Session, feed_id: int | None, doc: FeedDoc, fetch_url: str | None
    ) -> int:
        if feed_id is not None:
            feed = s.get(t.Feed, feed_id)
            if feed is not None and not feed.title and doc.title:
                feed.title = doc.title[:1024]
            return feed_id
        url = fetch_url or doc.self_url or doc.link or f"urn:plainfeed:title:{doc.title}"
        feed = s.scalars(select(t.Feed).where(t.Feed.url == url)).first()
        if feed is None:
            _insert_ignore(
                s,
                t.Feed.__table__,
                [{"url": url, "title": doc.title[:1024], "created_at": datetime.now(UTC)}],
            )
            feed = s.scalars(select(t.Feed).where(t.Feed.url == url)).one()
        return feed.id

    def _store_items(
        self,
        s: Session,
        feed_id: int,
        delivery_id: int,
        articles: list[tuple[Any, Article]],
    ) -> tuple[list[int], list[int]]:
        keys = [e.key for e, _ in articles]
        known = {
            row.key: (row.id, row.content_hash)
            for row in s.execute(
                select(t.Item.key, t.Item.id, t.Item.content_hash).where(
                    t.Item.feed_id == feed_id, t.Item.key.in_(keys)
                )
            )
        }
        decision = changes.decide_changes(
            {k: v[1] for k, v in known.items()}, [(e.key, a) for e, a in articles]
        )
        new_keys = [k for k, _ in decision.new]
        by_key = {e.key: (e, a) for e, a in articles}
        now = datetime.now(UTC)
        rows = []
        for key in new_keys:
            e, a = by_key[key]
            rows.append(
                {
                    "feed_id": feed_id,
                    "key": key,
                    "guid": e.guid,
                    "link": e.link,
                    "title": (a.title or "")[:1024],
                    "author": e.author,
                    "published": e.published,
                    "content_hash": a.hash,
                    "text": a.text,
                    "content_source": a.content_source,
                    "state": ItemState.PENDING.value,
                    "delivery_id": delivery_id,
                    "next_attempt_at": now,
                    "created_at": now,
                    "updated_at": now,
                    "attempts": 0,
                }
            )
        # ON CONFLICT DO NOTHING: a concurrent delivery may have inserted the same item.
        _insert_ignore(s, t.Item.__table__, rows)
        new_ids = list(
            s.scalars(
                select(t.Item.id).where(
                    t.Item.feed_id == feed_id,
                    t.Item.key.in_(new_keys),
                    t.Item.delivery_id == delivery_id,
                )
            )
        )
        changed_ids = []
        for key, a in decision.changed:
            item_id, old_hash = known[key]
            res = s.execute(
                update(t.Item)
                .where(t.Item.id == item_id, t.Item.content_hash == old_hash)
                .values(
                    title=(a.title or "")[:1024],
                    text=a.text,
                    content_hash=a.hash,
                    state=ItemState.PENDING.value,
                    attempts=0,
                    last_error=None,
                    next_attempt_at=now,
                    lease_owner=None,
                    lease_until=None,
                    updated_at=now,
                )
            )
            if res.rowcount == 1:  # type: ignore[attr-defined]
                changed_ids.append(item_id)
        return new_ids, changed_ids

    # --- items -----------

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
            article = Article(
                title=item.title,
                text=item.text,
                url=item.link,
                author=item.author,
                published=item.published,
                content_source=item.content_source,  # type: ignore[arg-type]
                hash=item.content_hash,
            )
            model, prompt_version = self.engine.identity(options)
            feed_id = item.feed_id
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
        try:
            outcome = explain_and_check(
                self.engine, article, options, repair_rounds=self.settings.repair_rounds
            )
        except LLMRetryable as exc:
            self.circuit.failure()
            return self._retry_item(claim, owner, exc, getattr(exc, "retry_after", None))
        except PlainfeedError as exc:
            # Not transient (rejected request, invalid answer, no text): fail with reason.
            self.circuit.success()
            return self._fail_item(claim, owner, exc)
        except Exception as exc:
            log.exception("item %s crashed while explaining", claim.id)
            return self._retry_item(claim, owner, exc, None)
        self.circuit.success()
        return self._store_outcome(claim, owner, outcome, model, prompt_version, article, feed_id)

    def _store_outcome(
        self,
        claim: queue.Claim,
        owner: str,
        outcome: Outcome,
        model: str,
        prompt_version: str,
        article: Article,
        feed_id: int | None,
    ) -> str:
        r = outcome.result
        now = datetime.now(UTC)
        state = outcome.state
        with transaction(self.sessions) as s:
            _insert_ignore(
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
                        "check_ok": outcome.report.ok,
                        "prompt_tokens": r.usage.prompt_tokens,
                        "completion_tokens": r.usage.completion_tokens,
                        "llm_calls": r.usage.calls,
                        "cost_usd": r.cost_usd,
                        "repairs": outcome.repairs,
                        "created_at": now,
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
            if self.on_event is not None:
                # Loaded after finish (the item's new state), both in one round trip.
                item, ex = s.execute(
                    _ITEM_AND_EXPLAINER,
                    {
                        "item_id": claim.id,
                        "content_hash": article.hash,
                        "prompt_version": prompt_version,
                        "model": model,
                    },
                ).one()
                event = (
                    "explainer.published"
                    if state == ItemState.PUBLISHED
                    else "explainer.needs_review"
                )
                self.on_event(s, event, item, ex)
        if r.usage.calls:
            metrics.LLM_CALLS.labels(r.model).inc(r.usage.calls)
            metrics.LLM_TOKENS.labels(r.model, "prompt").inc(r.usage.prompt_tokens)
            metrics.LLM_TOKENS.labels(r.model, "completion").inc(r.usage.completion_tokens)
            metrics.LLM_COST.labels(r.model).inc(r.cost_usd)
        metrics.ITEM_OUTCOMES.labels(state.value).inc()
        return state.value

    def _retry_item(
        self, claim: queue.Claim, owner: str, exc: BaseException, retry_after: float | None
    ) -> str:
        error = getattr(exc, "detail", None) or f"{exc.__class__.__name__}: {exc}"
        delay = queue.backoff_seconds(
            claim.attempts, self.settings.backoff_base, self.settings.backoff_max
        )
        if retry_after:
            delay = max(delay, min(retry_after, self.settings.backoff_max))
        with transaction(self.sessions) as s:
            again = queue.retry_later(
                s,
                queue.ITEMS,
                claim.id,
                owner,
                attempts=claim.attempts,
                max_attempts=self.settings.max_attempts,
                error=str(error),
                delay=delay,
            )
        state = ItemState.PENDING if again else ItemState.FAILED
        metrics.ITEM_OUTCOMES.labels("retry" if again else "failed").inc()
        return state.value

    def _fail_item(self, claim: queue.Claim, owner: str, exc: PlainfeedError) -> str:
        chain = [exc.detail]
        cause = exc.__cause__
        while cause is not None and len(chain) < 4:
            chain.append(f"{cause.__class__.__name__}: {cause}")
            cause = cause.__cause__
        with transaction(self.sessions) as s:
            queue.finish(
                s, queue.ITEMS, claim.id, owner, state="failed", last_error=" <- ".join(chain)
            )
        metrics.ITEM_OUTCOMES.labels("failed").inc()
        return ItemState.FAILED.value

    # --- people -----------

    def retry(self, item_id: int) -> None:
        """Re-queue an item (failed or needs_review) now, with fresh attempts."""
        with transaction(self.sessions) as s:
            item = s.get(t.Item, item_id)
            if item is None:
                raise NotFound(f"no item with id {item_id}")
            if item.state == ItemState.PROCESSING.value:
                raise Conflict(f"item {item_id} is being processed")
            # A reviewer asking for a retry wants a new explainer: drop the one that
            # failed the check (an approved or clean one is never dropped).
            s.execute(
                delete(t.Explainer).where(
                    t.Explainer.item_id == item_id,
                    t.Explainer.check_ok.is_(False),
                    t.Explainer.approved_at.is_(None),
                )
            )
            item.state = ItemState.PENDING.value
            item.last_error = None
            item.attempts = 0
            item.next_attempt_at = datetime.now(UTC)
            item.lease_owner = None
            item.lease_until = None

    def approve(self, item_id: int, who: str) -> t.Explainer:
        """A person publishes a reviewed explainer; who and when are recorded."""
        with transaction(self.sessions) as s:
            item = s.get(t.Item, item_id)
            if item is None:
                raise NotFound(f"no item with id {item_id}")
            if item.state != ItemState.NEEDS_REVIEW.value:
                raise Conflict(f"item {item_id} is {item.state}, not needs_review")
            ex = latest_explainer(s, item)
            if ex is None:
                raise Conflict(f"item {item_id} has no explainer to approve")
            now = datetime.now(UTC)
            ex.approved_by = who
            ex.approved_at = now
            item.state = ItemState.PUBLISHED.value
            item.published_at = now
            item.updated_at = now
            if self.on_event is not None:
                self.on_event(s, "explainer.published", item, ex)
            return ex


def latest_explainer(s: Session, item: t.Item) -> t.Explainer | None:
    """The explainer of the item's current content (newest first)."""
    return s.scalars(
        select(t.Explainer)
        .where(t.Explainer.item_id == item.id, t.Explainer.content_hash == item.content_hash)
        .order_by(t.Explainer.id.desc())
        .limit(1)
    ).first()


def renew_lease(
    sessions: sessionmaker[Session],
    spec: queue.QueueSpec,
    job_id: int,
    owner: str,
    lease_seconds: float,
) -> bool:
    try:
        with transaction(sessions) as s:
            queue.renew(s, spec, job_id, owner, lease_seconds)
        return True
    except LeaseLost:
        return False
