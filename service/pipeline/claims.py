"""Explain claims: one model call per post at a time, across worker processes.

worker -> process_item()  ... claim the explanation -> reuse? -> explain

The reuse of an explainer (service.pipeline.items) finds one already stored: two workers
on items of the same post (the same content hash, e.g. the same post in two feeds) at the
same moment both found none and both paid the model. Before calling the model a worker
claims the explanation's key (content hash, inputs, prompt version, model) in the
database; a worker of another item with that key finds the claim held and puts its item
back in the queue (its attempt not counted) until the holder's explainer is stored,
then copies it. The claim holds as long as its holder's lease on its own item (the lease
the worker renews while it works): a worker that dies leaves a claim that is dead as soon
as that lease runs out, and the waiting item takes it over then. No lost work, and no
second lease to renew.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from service import metrics, queue
from service.models import ItemState
from service.pipeline.base import PipelineBase
from service.store import tables as t
from service.store.db import transaction

# The start of a waiting item's last_error: the holder wakes the items that carry it.
WAITING = "waiting for the explainer of item"


def claim_key(content_hash: str, inputs: str, prompt_version: str, model: str) -> str:
    """The key of one explanation: what makes two items get the same explainer."""
    parts = "\x1f".join((content_hash, inputs, prompt_version, model))
    return hashlib.sha256(parts.encode()).hexdigest()


# The statements, built once: they run for every item explained (building one costs more
# CPU than running it).
_HOLDER_ALIVE = select(t.Item.id).where(
    t.Item.id == bindparam("item_id"),
    t.Item.state == ItemState.PROCESSING.value,
    t.Item.lease_owner == bindparam("owner"),
    t.Item.lease_until > bindparam("now"),
)
_HELD = select(t.ExplainClaim.item_id, t.ExplainClaim.owner).where(
    t.ExplainClaim.key == bindparam("key")
)
_TAKE_OVER = (
    update(t.ExplainClaim)
    .where(
        t.ExplainClaim.key == bindparam("claim_key"),
        t.ExplainClaim.item_id == bindparam("held_item"),
        t.ExplainClaim.owner == bindparam("held_owner"),
    )
    .values(item_id=bindparam("new_item"), owner=bindparam("new_owner"), created_at=bindparam("at"))
)
_MINE = (t.ExplainClaim.item_id == bindparam("item_id"), t.ExplainClaim.owner == bindparam("owner"))
_RELEASE = delete(t.ExplainClaim).where(*_MINE)
_MINE_HASHES = select(t.ExplainClaim.content_hash).where(*_MINE)
_WAKE = (
    update(t.Item)
    .where(
        t.Item.state == ItemState.PENDING.value,
        t.Item.content_hash == bindparam("hash"),
        t.Item.last_error.startswith(WAITING, autoescape=True),
    )
    # A scheduling write, no change of the item (its updated_at moves Atom's validators).
    .values(next_attempt_at=bindparam("woken_at"), updated_at=t.Item.updated_at)
)
_INSERT = {
    "postgresql": pg_insert(t.ExplainClaim).on_conflict_do_nothing(),
    "sqlite": sqlite_insert(t.ExplainClaim).on_conflict_do_nothing(),
}


def take(s: Session, key: str, content_hash: str, item_id: int, owner: str) -> int | None:
    """Claim ``key`` for ``item_id`` under ``owner``: None when it is this worker's now,
    else the id of the item whose worker holds it. A dead holder's claim is taken over
    (the conditional UPDATE lets one of several waiters win)."""
    now = datetime.now(UTC)
    row = {
        "key": key,
        "content_hash": content_hash,
        "item_id": item_id,
        "owner": owner,
        "created_at": now,
    }
    s.execute(_INSERT[s.get_bind().dialect.name], row)
    held = s.execute(_HELD, {"key": key}).one()
    if (held.item_id, held.owner) == (item_id, owner):
        return None
    alive = {"item_id": held.item_id, "owner": held.owner, "now": now}
    if s.scalar(_HOLDER_ALIVE, alive) is not None:
        return int(held.item_id)
    res = s.execute(
        _TAKE_OVER,
        {
            "claim_key": key,
            "held_item": held.item_id,
            "held_owner": held.owner,
            "new_item": item_id,
            "new_owner": owner,
            "at": now,
        },
    )
    return None if res.rowcount == 1 else int(held.item_id)  # type: ignore[attr-defined]


def release(s: Session, item_id: int, owner: str) -> None:
    """End the claims of ``item_id``'s worker (its item is finished, backed off or
    failed) and wake the items waiting for them: they copy its explainer now, or claim
    the explanation themselves."""
    mine = {"item_id": item_id, "owner": owner}
    gone = list(s.scalars(_MINE_HASHES, mine))
    if not gone:
        return
    s.execute(_RELEASE, mine)
    for content_hash in gone:
        s.execute(_WAKE, {"hash": content_hash, "woken_at": datetime.now(UTC)})


class Claims(PipelineBase):
    def _claim_explain(
        self, claim: queue.Claim, owner: str, content_hash: str, key: str
    ) -> str | None:
        """Claim the explanation before the model is called; None when this worker may
        call it, else the state the item was put back in (waiting for the holder)."""
        with transaction(self.sessions) as s:
            holder = take(s, key, content_hash, claim.id, owner)
            if holder is None:
                return None
            # Back in the queue until the holder's lease would have run out; the holder
            # wakes it as soon as its explainer is stored (or it gives up).
            queue.retry_later(
                s,
                queue.ITEMS,
                claim.id,
                owner,
                attempts=claim.attempts,
                max_attempts=self.settings.max_attempts,
                error=f"{WAITING} {holder} (the same post), being explained now",
                delay=self.settings.lease_seconds,
                refund=True,
            )
        metrics.ITEMS_WAITED.inc()
        # No call was made: a half-open trial this worker held goes to another.
        self.circuit.abandon()
        return ItemState.PENDING.value
