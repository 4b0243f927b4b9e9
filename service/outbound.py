"""Outbound webhooks: explainer events sent to subscribers as Standard Webhooks.

An event is stored as one ``OutboundDelivery`` row per subscriber in the same
transaction that publishes the explainer (:func:`enqueue_event`, the pipeline's
``on_event``), so an event is never lost and never sent for an explainer that was rolled
back. Workers send the rows through the database queue (:class:`Sender`); a failed
attempt is retried with exponential backoff; every attempt is logged and the row keeps
its state, attempt count, last status and error (``GET /subscribers/{id}/deliveries``).

Signing (https://www.standardwebhooks.com): headers ``webhook-id`` (the event id, the
same on every retry, for de-duplication), ``webhook-timestamp`` (unix seconds of the
attempt) and ``webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` keyed
with the base64-decoded part of the subscriber's ``whsec_...`` secret.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import secrets
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from service import __version__, fetch, metrics, queue, signatures, transport
from service.config import Settings
from service.errors import FetchError, InputError, LeaseLost
from service.events import EventHook as EventHook
from service.events import deactivate as deactivate
from service.events import enqueue_event as enqueue_event
from service.events import event_payload as event_payload
from service.events import subscribers_for as subscribers_for
from service.store import tables as t
from service.store.db import once_more, readonly, transaction

log = logging.getLogger(__name__)

EVENTS = ("explainer.published", "explainer.needs_review")
SECRET_PREFIX = "whsec_"
# A secret as new_secret writes it and secret_key takes it: base64 of 24 to 64 bytes, in
# groups of four characters (8 to 21, the last padded). For the OpenAPI document:
# secret_key also takes base64 this does not spell (excess padding), as it always has.
_B64 = "[A-Za-z0-9+/]"
SECRET_PATTERN = (
    rf"^{SECRET_PREFIX}(?:{_B64}{{4}}){{8,20}}"
    rf"(?:{_B64}{{4}}(?:{_B64}{{2}}==)?|{_B64}{{2}}==|{_B64}{{3}}=)?$"
)
TOLERANCE_SECONDS = 5 * 60
ERROR_CHARS = 500


# --- signing (pure) -----------


def new_secret() -> str:
    """A fresh ``whsec_`` secret: 32 random bytes, base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_<base64>`` secret."""
    if not secret.startswith(SECRET_PREFIX):
        raise InputError("a webhook secret looks like whsec_<base64 of 24 to 64 bytes>")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InputError("the webhook secret after whsec_ is not valid base64") from exc
    if not 24 <= len(key) <= 64:
        raise InputError("a webhook secret must hold 24 to 64 bytes")
    return key


def headers_for(
    secret: str, msg_id: str, body: bytes, *, now: float | None = None
) -> dict[str, str]:
    """The headers of one attempt: Standard Webhooks id, timestamp and signature."""
    # A malformed secret is refused here: signatures' lenient key (a typed-in secret
    # used as is, for monitors that sign deliveries to us) would sign with it.
    secret_key(secret)
    return {
        "content-type": "application/json",
        "user-agent": f"Plainfeed-Webhooks/{__version__}",
        **signatures.standard_headers(
            secret, msg_id, body, timestamp=int(now if now is not None else time.time())
        ),
    }


def encode(payload: Mapping[str, Any]) -> bytes:
    """The exact bytes that are signed and sent."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


# --- sending -----------


def _retry_after(resp: httpx.Response) -> float | None:
    """Retry-After in seconds (its HTTP-date form is not used), else None. str.isdigit
    takes "²" for a digit and float() refuses it: the send crashed after its POST."""
    value = resp.headers.get("retry-after", "").strip()
    return float(value) if value.isascii() and value.isdigit() else None


_ANSWER_BYTES = 4096  # of a receiver's answer, read for the delivery log


class Sender:
    """A worker's extra job: send at most one pending delivery per call.

    ``Worker(extra_jobs=[Sender(settings, sessions)])``; returns False when there was
    nothing to send. Thread-safe: state lives in the database.
    """

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        *,
        max_attempts: int | None = None,
        timeout: float = 10.0,
        client: httpx.Client | None = None,
        resolver: transport.Resolver = transport.system_resolver,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.read_sessions = readonly(sessions)
        self.max_attempts = max_attempts or settings.outbound_max_attempts
        self.timeout = timeout
        # httpx's timeout bounds each read, not the request: a receiver that drips a byte
        # every few seconds held a worker thread for ever. A send ends by this deadline
        # (give or take one read's timeout), well inside its lease, the resolution of the
        # subscriber's host name included: a resolver slower than the lease let a second
        # worker send the event again.
        self.deadline = 3 * timeout
        self.resolver = resolver  # the host names of subscribers' URLs
        # The delivery each worker (by owner name) is sending: one Sender serves every
        # worker thread, and a stopping worker hands its send back (release).
        self._sending: dict[str, int] = {}
        self._released: set[str] = set()  # owners whose sends were handed back: no more
        self._lock = threading.Lock()
        # Redirects are not followed: a subscriber answers at the URL it registered. The
        # transport ends each send by its deadline, the status line and headers included.
        self.client = client or httpx.Client(
            timeout=timeout,
            follow_redirects=False,
            transport=transport.deadline_transport(resolver),
        )

    def close(self) -> None:
        self.client.close()

    def _post(
        self, url: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, str, float | None]:
        """POST the event: the status, the first 200 characters of the answer (no more
        than 4 KiB of it is read: a receiver's 500 MiB error page stays on the wire), and
        its Retry-After. Raises httpx.TimeoutException past the send's deadline.

        The SSRF guard of fetching runs at send time (a subscriber's name may have come
        to resolve to a private address since it registered), and the request goes to
        the address it checked, not to a second lookup of the name. The deadline runs
        from before that resolution."""
        end = time.monotonic() + self.deadline
        with transport.deadline(self.deadline):
            target, extra, extensions = fetch.pinned(url, self.settings, self.resolver)
            # Only the codings transport.decoded unpacks in bounded pieces (httpx unpacked
            # each chunk of a "gzip, gzip" answer whole: gigabytes before 4 KiB counted).
            headers = {**headers, "Accept-Encoding": transport.ACCEPT_ENCODING, **extra}
            with self.client.stream(
                "POST", target, content=body, headers=headers, extensions=extensions
            ) as resp:
                head = b""
                try:
                    for chunk in transport.decoded(resp, url):
                        head += chunk
                        if len(head) >= _ANSWER_BYTES:
                            break
                        if time.monotonic() > end:
                            raise httpx.ReadTimeout(f"no whole answer within {self.deadline:g} s")
                except FetchError as exc:  # an answer that cannot be unpacked: its status counts
                    head = f"({exc.detail})".encode()
                excerpt = head[:_ANSWER_BYTES].decode(resp.encoding or "utf-8", "replace")[:200]
                # PostgreSQL text holds no NUL: an answer of zeros failed storing the outcome.
                return resp.status_code, excerpt.replace("\x00", ""), _retry_after(resp)

    def __call__(self, owner: str) -> bool:
        lease = max(self.settings.lease_seconds, self.deadline + 2 * self.timeout)
        with transaction(self.sessions) as s:
            claims = queue.claim(s, queue.OUTBOUND, owner, lease)
        if not claims:
            return False
        claim = claims[0]
        if claim.expired:
            metrics.LEASE_EXPIRIES.labels(t.OutboundDelivery.__tablename__).inc()
        with self._lock:
            handed_back = owner in self._released
            if not handed_back:
                self._sending[owner] = claim.id
        if handed_back:
            # Claimed as its worker's sends were handed back (release found none): it
            # went out from a process about to exit. Given back at once, unsent.
            with transaction(self.sessions) as s:
                queue.release(s, queue.OUTBOUND, claim.id, owner)
            log.warning("outbound delivery %s: released at shutdown", claim.id)
            return True
        try:
            if claim.expired and claim.attempts > self.max_attempts:
                # Every attempt ended with its sender (killed, out of memory): as items and
                # deliveries do, a send that takes senders down with it is given up.
                self._give_up(
                    claim,
                    owner,
                    f"gave up after {claim.attempts - 1} attempts; the last one's sender "
                    "died (its lease expired)",
                )
            else:
                self._send(claim, owner)
        except LeaseLost:
            log.warning("outbound delivery %s: lease lost, outcome discarded", claim.id)
        except Exception as exc:
            # A bug, a secret stored malformed: escaping, it left the row "sending" until
            # its lease ran out, and every attempt after crashed the same way, for ever.
            log.exception("outbound delivery %s: the send crashed", claim.id)
            try:
                self._give_up(claim, owner, f"the send crashed: {exc.__class__.__name__}: {exc}")
            except LeaseLost:
                log.warning("outbound delivery %s: lease lost, outcome discarded", claim.id)
        finally:
            with self._lock:
                self._sending.pop(owner, None)
        return True

    def release(self, owner: str) -> None:
        """Hand the delivery ``owner`` is sending back to the queue, its attempt not
        counted (shutdown past the grace period): another worker sends it, with the same
        webhook-id, which receivers deduplicate by. A send ``owner`` claims after is
        given back unsent."""
        with self._lock:
            self._released.add(owner)
            job_id = self._sending.get(owner)
        if job_id is None:
            return
        with transaction(self.sessions) as s:
            queue.release(s, queue.OUTBOUND, job_id, owner)
        log.warning("outbound delivery %s: released at shutdown", job_id)

    def _give_up(self, claim: queue.Claim, owner: str, error: str) -> None:
        """Record an attempt that got no answer to record: retried with backoff while
        attempts are left (the last one past), else failed against its subscriber."""
        now = datetime.now(UTC)
        with transaction(self.sessions) as s:
            delay = queue.backoff_seconds(
                claim.attempts,
                self.settings.outbound_backoff_base,
                self.settings.outbound_backoff_max,
            )
            again = self._attempted(s, claim, owner, now, delay, last_error=error[:ERROR_CHARS])
            sub_id = s.scalar(
                select(t.OutboundDelivery.subscriber_id).where(t.OutboundDelivery.id == claim.id)
            )
            if not again and sub_id is not None:
                self._failed(s, sub_id, now)
        metrics.OUTBOUND.labels("retry" if again else "failed").inc()

    def _attempted(
        self,
        s: Session,
        claim: queue.Claim,
        owner: str,
        now: datetime,
        delay: float,
        **values: object,
    ) -> bool:
        """Record a failed attempt (``values``: its status and error): pending again after
        ``delay`` while attempts are left (True), else failed."""
        again = claim.attempts < self.max_attempts
        queue.finish(
            s,
            queue.OUTBOUND,
            claim.id,
            owner,
            state="pending" if again else "failed",
            next_attempt_at=now + timedelta(seconds=delay) if again else now,
            **values,
        )
        return again

    def _failed(self, s: Session, sub_id: int, now: datetime) -> None:
        """Count a delivery that ended ``failed`` against its subscriber; deactivate it
        at ``outbound_disable_after`` in a row (one SQL increment: two workers ending
        two of its deliveries at once both count)."""
        s.execute(
            update(t.Subscriber)
            .where(t.Subscriber.id == sub_id)
            .values(failures=t.Subscriber.failures + 1)
        )
        limit = self.settings.outbound_disable_after
        failures = s.scalar(select(t.Subscriber.failures).where(t.Subscriber.id == sub_id))
        if limit and failures is not None and failures >= limit:
            deactivate(
                s,
                sub_id,
                f"{failures} deliveries in a row failed, the last at {now:%Y-%m-%d %H:%M} UTC",
            )

    def _send(self, claim: queue.Claim, owner: str) -> None:
        # Read, then let the session go before any write: on SQLite a writing session
        # holds the write lock (BEGIN IMMEDIATE) and a second writer would wait for it.
        with self.read_sessions() as s:
            d = s.get(t.OutboundDelivery, claim.id)
            if d is None:
                return
            sub = s.get(t.Subscriber, d.subscriber_id)
            target = (sub.url, sub.secret, sub.id) if sub is not None and sub.active else None
            event_id, event_type, payload = d.event_id, d.event_type, d.payload
        if target is None:
            with transaction(self.sessions) as w:
                queue.finish(
                    w,
                    queue.OUTBOUND,
                    claim.id,
                    owner,
                    state="cancelled",
                    last_error="subscriber removed or inactive",
                )
            metrics.OUTBOUND.labels("cancelled").inc()
            return
        url, secret, sub_id = target
        body = encode(payload)
        status: int | None = None
        retry_after: float | None = None
        try:
            status, excerpt, retry_after = self._post(
                url, body, headers_for(secret, event_id, body)
            )
            error = None if 200 <= status < 300 else f"HTTP {status}: {excerpt}"
        except httpx.HTTPError as exc:
            error = f"{exc.__class__.__name__}: {exc}"
        except FetchError as exc:
            error = exc.detail
        now = datetime.now(UTC)
        log.info(
            "outbound %s %s to subscriber %s (%s) attempt %d: %s",
            event_id,
            event_type,
            sub_id,
            url,
            claim.attempts,
            status if error is None else error,
        )

        def record() -> str:  # the POST went out: its outcome is recorded (once_more)
            with transaction(self.sessions) as s:
                if error is None:
                    queue.finish(
                        s,
                        queue.OUTBOUND,
                        claim.id,
                        owner,
                        state="delivered",
                        last_status=status,
                        last_error=None,
                        delivered_at=now,
                    )
                    s.execute(
                        update(t.Subscriber)
                        .where(t.Subscriber.id == sub_id, t.Subscriber.failures != 0)
                        .values(failures=0)
                    )
                    outcome = "delivered"
                elif status == 410:
                    # Standard Webhooks: 410 Gone means "stop sending to this endpoint".
                    queue.finish(
                        s,
                        queue.OUTBOUND,
                        claim.id,
                        owner,
                        state="failed",
                        last_status=status,
                        last_error=error[:ERROR_CHARS],
                    )
                    deactivate(
                        s, sub_id, f"the endpoint answered 410 Gone at {now:%Y-%m-%d %H:%M} UTC"
                    )
                    outcome = "gone"
                else:
                    cap = self.settings.outbound_backoff_max
                    delay = queue.backoff_seconds(
                        claim.attempts, self.settings.outbound_backoff_base, cap
                    )
                    if retry_after:
                        delay = max(delay, min(retry_after, cap))
                    again = self._attempted(
                        s,
                        claim,
                        owner,
                        now,
                        delay,
                        last_status=status,
                        last_error=error[:ERROR_CHARS],
                    )
                    outcome = "retry" if again else "failed"
                    if not again:
                        self._failed(s, sub_id, now)
            return outcome

        outcome = once_more(record, f"outbound delivery {claim.id}: recording its outcome")
        metrics.OUTBOUND.labels(outcome).inc()
