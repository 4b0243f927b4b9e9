"""What people do to items: retry one, approve a reviewed explainer."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from service.errors import (
    Conflict,
    NotFound,
)
from service.models import (
    ItemState,
)
from service.pipeline import outcome
from service.pipeline.base import PipelineBase, latest_explainer
from service.store import tables as t
from service.store.db import transaction


class Review(PipelineBase):
    def retry(self, item_id: int) -> None:
        """Re-queue an item now, with fresh attempts (any state but processing): a failed
        or needs-review one is explained anew; a published one finds its stored explainer
        again, without a model call (the explain effect is keyed by content, prompt and
        model), and is published again; a skipped one is explained (on demand)."""
        with transaction(self.sessions) as s:
            item = _locked(s, item_id)
            if item.state == ItemState.PROCESSING.value:
                raise Conflict(f"item {item_id} is being processed")
            # A reviewer asking for a retry wants a new explainer: drop the one that
            # failed the check (an approved or clean one is never dropped), and do not
            # copy another item's held explainer of this post back to it.
            held = (
                t.Explainer.item_id == item_id,
                t.Explainer.check_ok.is_(False),
                t.Explainer.approved_at.is_(None),
            )
            declined = set(s.scalars(select(t.Explainer.content_hash).where(*held)))
            s.execute(delete(t.Explainer).where(*held))
            # Declined is the text the dropped explainer was of. One of an older text
            # (the post was edited since it was held) says nothing of the text now: the
            # item may copy another item's held explainer of that, as any twin does.
            if item.content_hash in declined:
                item.review_declined = item.content_hash
            item.state = ItemState.PENDING.value
            item.last_error = None
            item.attempts = 0
            item.next_attempt_at = datetime.now(UTC)
            item.lease_owner = None
            item.lease_until = None
            # A published item leaves the Atom feed: its Last-Modified moves on with this.
            item.updated_at = datetime.now(UTC)

    def retry_delivery(self, delivery_id: int, *, force: bool = False) -> None:
        """Process a finished delivery again (its document, or a fetch of its feed when
        it carried none or its body was pruned), with fresh attempts.

        ``force``: apply its version however dated: a publisher who rolled an edit back
        with its date is refused as older, rightly by the evidence, and only a person can
        say otherwise. Each entry it applies over a newer one is named in its
        ``problems``, and ``forced_at`` says when it was asked. A fetch is then made
        without the feed's validators (the older document would be answered 304)."""
        with transaction(self.sessions) as s:
            d = s.get(t.Delivery, delivery_id, with_for_update=True, populate_existing=True)
            if d is None:
                raise NotFound(f"no delivery with id {delivery_id}")
            if d.state not in ("processed", "failed"):
                raise Conflict(f"delivery {delivery_id} is {d.state}: it is queued already")
            now = datetime.now(UTC)
            d.state = "received"
            d.forced_at = now if force else None
            d.attempts = 0
            d.next_attempt_at = now
            d.lease_owner = d.lease_until = None
            # Its counts, items and problems are kept: the run adds to them (service.
            # pipeline.intake); an earlier failure is one of its problems from now on
            # (``error`` says why the delivery is failed, and the run may not fail).
            if d.error:
                d.problems = outcome.with_earlier(d.problems, [outcome.earlier_failure(d.error)])
            d.error = d.processed_at = None

    def approve(self, item_id: int, who: str) -> t.Explainer:
        """A person publishes a reviewed explainer; who and when are recorded."""
        with transaction(self.sessions) as s:
            item = _locked(s, item_id)
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
                self.on_event(s, "explainer.published", item.feed_id, lambda: (item, ex))
            return ex


def _locked(s: Session, item_id: int) -> t.Item:
    """The item, its row locked until the transaction ends (PostgreSQL: SELECT ... FOR
    UPDATE; SQLite takes the database's write lock at the first write instead). The state
    read is then the state written over: ten concurrent approvals publish once (and send
    one event), and a retry waits for a worker's claim to commit and sees it processing,
    instead of resetting it under the worker."""
    item = s.get(t.Item, item_id, with_for_update=True, populate_existing=True)
    if item is None:
        raise NotFound(f"no item with id {item_id}")
    return item
