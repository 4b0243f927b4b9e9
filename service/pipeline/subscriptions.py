"""Subscriptions: WebSub leases renewed before they end (a worker's extra job).

worker -> Renewer()   lease ends soon? -> pending-renewal -> ask the hub again
                      (the hub verifies at the callback: active, with the new lease)
                      a pending (un)subscribe never verified, its time up? -> failed
                      (unsubscribed); a lease ended, no renewal verified? -> expired:
                      websub.LAPSED

A hub delivers only while the lease it granted runs (days); renewing it is the
subscriber's part (WebSub section 5.1). Without this, pushes stopped silently when the
first lease ended while the feed still read ``active``.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from service import fetch, websub
from service.config import Settings
from service.errors import FetchError
from service.store import tables as t
from service.store.db import transaction

log = logging.getLogger(__name__)

LOOK_EVERY = 60.0  # seconds between looks for due leases (each worker thread calls in)
RETRY_AFTER = 300.0  # seconds before a hub that refused a renewal is asked again


class Renewer:
    """``Worker(extra_jobs=[Renewer(settings, sessions)])``: renews one due subscription
    per call; False when none was due (or it is not time to look yet)."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session]) -> None:
        self.settings = settings
        self.sessions = sessions
        self._lock = threading.Lock()
        self._next_look = 0.0  # monotonic time of the next look (shared by the threads)
        self._refused: dict[int, float] = {}  # feed id -> monotonic time to ask again

    def __call__(self, owner: str) -> bool:
        now_m = time.monotonic()
        with self._lock:
            if now_m < self._next_look:
                return False
            self._next_look = now_m + LOOK_EVERY
            waiting = {fid for fid, at in self._refused.items() if at > now_m}
        now = datetime.now(UTC)
        self._settle(now)
        lease = t.Feed.websub_lease_until
        with transaction(self.sessions) as s:
            due = s.execute(
                select(
                    t.Feed.id,
                    t.Feed.url,
                    t.Feed.hub_url,
                    t.Feed.websub_secret,
                    t.Feed.websub_state,
                    lease,
                )
                .where(
                    t.Feed.hub_url.is_not(None),
                    # A renewal the hub has not verified keeps the lease that runs: it
                    # is not asked again, the subscription expires with it (_settle).
                    t.Feed.websub_state == websub.ACTIVE,
                    lease < now + websub.RENEW_BEFORE,
                    lease > now,
                )
                .order_by(lease)
                .limit(len(waiting) + 1)
            ).all()
            row = next((r for r in due if r.id not in waiting), None)
            if row is None:
                return False
            # One worker (of any process) wins the feed: the others see it renewing.
            taken = s.execute(
                update(t.Feed)
                .where(
                    t.Feed.id == row.id,
                    t.Feed.websub_state == row.websub_state,
                    lease == row.websub_lease_until,
                )
                .values(websub_state=websub.RENEWING)
            )
            if taken.rowcount != 1:  # type: ignore[attr-defined]
                return True
        with self._lock:
            self._next_look = 0.0  # more may be due: look again at the next call
        self._ask(row.id, row.url, row.hub_url, row.websub_secret)
        return True

    def _settle(self, now: datetime) -> None:
        """Write down the requests the hub never verified whose time is up, the leases
        ended with no renewal verified (the API answers as if written already:
        websub.settled), saying why in ``websub_error``; and give a time to a pending
        request with none (asked before there was one, or renewing a lease not known)."""
        lease = t.Feed.websub_lease_until
        pending = t.Feed.websub_state.in_(tuple(websub.GIVEN_UP))
        wait = timedelta(seconds=self.settings.websub_pending_timeout)
        with transaction(self.sessions) as s:
            s.execute(
                update(t.Feed).where(pending, lease.is_(None)).values(websub_lease_until=now + wait)
            )
            over = s.execute(
                select(t.Feed.id, t.Feed.hub_url, t.Feed.websub_state, lease).where(
                    t.Feed.websub_state.in_(tuple(websub.LAPSED)), lease <= now
                )
            ).all()
            for row in over:
                note = websub.given_up_note(row.websub_state, row.hub_url, row.websub_lease_until)
                # Fenced on what was read: a verification that came meanwhile stands.
                done = s.execute(
                    update(t.Feed)
                    .where(
                        t.Feed.id == row.id,
                        t.Feed.websub_state == row.websub_state,
                        lease == row.websub_lease_until,
                    )
                    .values(websub_state=websub.LAPSED[row.websub_state], websub_error=note)
                )
                if done.rowcount == 1:  # type: ignore[attr-defined]
                    log.warning("feed %s: WebSub %s", row.id, note)

    def _ask(self, feed_id: int, topic: str, hub_url: str, secret: str | None) -> None:
        """Subscribe again with the same callback, topic and secret; a hub that refuses
        or cannot be reached leaves the subscription active (its lease still runs) and is
        asked again after RETRY_AFTER. The hub's failure is kept in ``websub_error``, as
        ``plainfeed feeds subscribe`` keeps its own (shown on GET /feeds/{id}, named by a
        removal refused), and cleared once a renewal is taken."""
        form = websub.subscription_form(
            callback=websub.callback_url(self.settings.public_url, feed_id, secret),
            topic=topic,
            mode="subscribe",
            secret=secret,
        )
        try:
            answer = fetch.post_form(hub_url, form, self.settings)
            reason = (
                # As `plainfeed feeds subscribe`: WebSub asks for 202, and a hub that
                # answers 200 took the request too (it was taken for a refusal).
                None
                if 200 <= answer.status < 300
                else f"renewal: the hub {hub_url} answered HTTP {answer.status}: "
                f"{answer.body[:300]}"
            )
        except FetchError as exc:
            reason = f"renewal at {hub_url}: {exc.detail}"
        if reason is None:
            log.info("feed %s: WebSub lease renewal asked of %s", feed_id, hub_url)
            # The hub may have verified already (active again): its last failure is past.
            with transaction(self.sessions) as s:
                s.execute(
                    update(t.Feed)
                    .where(
                        t.Feed.id == feed_id,
                        t.Feed.websub_state.in_((websub.RENEWING, websub.ACTIVE)),
                        t.Feed.websub_error.is_not(None),
                    )
                    .values(websub_error=None)
                )
            return
        log.warning("feed %s: WebSub lease %s", feed_id, reason)
        with self._lock:
            self._refused[feed_id] = time.monotonic() + RETRY_AFTER
        with transaction(self.sessions) as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == feed_id, t.Feed.websub_state == websub.RENEWING)
                .values(websub_state=websub.ACTIVE, websub_error=reason)
            )
