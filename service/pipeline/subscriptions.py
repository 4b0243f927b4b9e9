"""Subscriptions: WebSub leases renewed before they end (a worker's extra job).

worker -> Renewer()   lease ends soon? -> pending-renewal -> ask the hub again
                      (the hub verifies at the callback: active, with the new lease)
                      a renewal, subscribe or unsubscribe taken, not verified, its
                      next ask due? -> ask the hub again (doubling intervals:
                      websub.next_ask)
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

from sqlalchemy import and_, or_, select, update
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
        lease, ask_at = t.Feed.websub_lease_until, t.Feed.websub_ask_at
        state = t.Feed.websub_state
        with transaction(self.sessions) as s:
            due = s.execute(
                select(
                    t.Feed.id,
                    t.Feed.url,
                    t.Feed.hub_url,
                    t.Feed.websub_secret,
                    t.Feed.websub_state,
                    lease,
                    ask_at,
                    t.Feed.websub_asks,
                    t.Feed.websub_lease_seconds,
                )
                .where(
                    t.Feed.hub_url.is_not(None),
                    lease > now,
                    or_(
                        and_(state == websub.ACTIVE, lease < now + websub.RENEW_BEFORE),
                        # A request the hub took and has not verified is asked again
                        # while its time runs (websub.ASKED_AGAIN): a hub that lost a
                        # renewal let the lease end. (A worker gone between taking a renewal
                        # and asking: it is asked at its next ask.)
                        and_(state.in_(websub.ASKED_AGAIN), ask_at <= now),
                    ),
                )
                .order_by(lease)
                .limit(len(waiting) + 1)
            ).all()
            row = next((r for r in due if r.id not in waiting), None)
            if row is None:
                return False
            renewal = row.websub_state == websub.ACTIVE
            asks = 1 if renewal else (row.websub_asks or 0) + 1
            asked = websub.RENEWING if renewal else row.websub_state
            # One worker (of any process) wins the feed: the others see it renewing, or
            # its next ask moved on.
            taken = s.execute(
                update(t.Feed)
                .where(
                    t.Feed.id == row.id,
                    t.Feed.websub_state == row.websub_state,
                    lease == row.websub_lease_until,
                    ask_at.is_not_distinct_from(row.websub_ask_at),
                )
                .values(
                    websub_state=asked,
                    websub_ask_at=websub.next_ask(asks, now),
                    websub_asks=asks,
                )
            )
            if taken.rowcount != 1:  # type: ignore[attr-defined]
                return True
        with self._lock:
            self._next_look = 0.0  # more may be due: look again at the next call
        self._ask(
            row.id,
            asked,
            row.url,
            row.hub_url,
            row.websub_secret,
            asks,
            row.websub_lease_seconds,
        )
        return True

    def _settle(self, now: datetime) -> None:
        """Write down the requests the hub never verified whose time is up, the leases
        ended with no renewal verified (the API answers as if written already:
        websub.settled), saying why in ``websub_error``; and give a time to a pending
        request with none (asked before there was one, or renewing a lease not known),
        and a next ask to a pending request with none (asked before there was one)."""
        lease = t.Feed.websub_lease_until
        pending = t.Feed.websub_state.in_(tuple(websub.GIVEN_UP))
        wait = timedelta(seconds=self.settings.websub_pending_timeout)
        with transaction(self.sessions) as s:
            s.execute(
                update(t.Feed).where(pending, lease.is_(None)).values(websub_lease_until=now + wait)
            )
            s.execute(
                update(t.Feed)
                .where(
                    t.Feed.websub_state.in_(websub.ASKED_AGAIN),
                    t.Feed.websub_ask_at.is_(None),
                )
                .values(websub_ask_at=websub.next_ask(1, now), websub_asks=1)
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
                    .values(
                        websub_state=websub.LAPSED[row.websub_state],
                        websub_error=note,
                        websub_ask_at=None,
                    )
                )
                if done.rowcount == 1:  # type: ignore[attr-defined]
                    log.warning("feed %s: WebSub %s", row.id, note)

    def _ask(
        self,
        feed_id: int,
        state: str,
        topic: str,
        hub_url: str,
        secret: str | None,
        asks: int,
        lease_seconds: int | None,
    ) -> None:
        """Ask the request of a subscription in pending ``state`` again, with the same
        mode, callback, topic and secret (the ``asks``-th ask of this request). A hub that
        refuses or cannot be reached the first ask of a renewal leaves the subscription
        active (its lease still runs), asked again after RETRY_AFTER; a request asked
        again stays pending, asked again at its next ask. The hub's failure is kept in
        ``websub_error``, as ``plainfeed feeds subscribe`` keeps its own (shown on GET
        /feeds/{id}, named by a removal refused), and cleared once a request is taken."""
        mode = websub.mode_of(state)
        form = websub.subscription_form(
            callback=websub.callback_url(self.settings.public_url, feed_id, secret),
            topic=topic,
            mode=mode,
            secret=secret,
            lease_seconds=lease_seconds,  # the one the operator asked for, if any
        )
        what = "renewal" if asks == 1 else f"{mode} asked again ({asks} asks)"
        try:
            answer = fetch.post_form(hub_url, form, self.settings)
            reason = (
                # As `plainfeed feeds subscribe`: WebSub asks for 202, and a hub that
                # answers 200 took the request too (it was taken for a refusal).
                None
                if 200 <= answer.status < 300
                else f"{what}: the hub {hub_url} answered HTTP {answer.status}: {answer.body[:300]}"
            )
        except FetchError as exc:
            reason = f"{what} at {hub_url}: {exc.detail}"
        # Fenced on the request asked (its mode's states, its secret): a request made
        # since (plainfeed feeds subscribe) is not told of this one's failure or success.
        ours = t.Feed.websub_secret.is_not_distinct_from(secret)
        if mode == "unsubscribe":
            asking: tuple[str, ...] = (websub.PENDING_UNSUBSCRIBE,)
        else:
            asking = (websub.RENEWING, websub.ACTIVE, websub.PENDING_SUBSCRIBE)
        if reason is None:
            log.info("feed %s: WebSub %s taken by %s", feed_id, what, hub_url)
            # The hub may have verified already (active again): its last failure is past.
            with transaction(self.sessions) as s:
                s.execute(
                    update(t.Feed)
                    .where(
                        t.Feed.id == feed_id,
                        t.Feed.websub_state.in_(asking),
                        ours,
                        t.Feed.websub_error.is_not(None),
                    )
                    .values(websub_error=None)
                )
            return
        log.warning("feed %s: WebSub %s", feed_id, reason)
        with transaction(self.sessions) as s:
            # Only a renewal's first ask, refused, leaves it active: the hub took none of
            # it. Asked again, the hub took an ask before and may verify it yet: made
            # active, that verification was answered 404 and the hub did not renew.
            renewing = s.execute(
                update(t.Feed)
                .where(
                    t.Feed.id == feed_id,
                    t.Feed.websub_state == websub.RENEWING,
                    t.Feed.websub_asks == 1,
                    ours,
                )
                .values(
                    websub_state=websub.ACTIVE,
                    websub_error=reason,
                    websub_ask_at=None,
                    websub_asks=0,
                )
            )
            # Asked again and refused: still pending (the hub may verify an ask it took).
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == feed_id, t.Feed.websub_state == state, ours)
                .values(websub_error=reason)
            )
        if renewing.rowcount == 1:  # type: ignore[attr-defined]
            with self._lock:
                self._refused[feed_id] = time.monotonic() + RETRY_AFTER
