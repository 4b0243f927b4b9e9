"""WebSub subscriber (pure): hub discovery, subscription requests, intent verification.

The I/O (fetching the feed, posting to the hub, reading and writing the feed row) is
done by the callers: ``plainfeed feeds subscribe`` and the ``/websub/{feed_id}`` routes.
The topic of a subscription is the registered feed URL.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from lxml import etree

from service.errors import NotFound, Unprocessable

PENDING_SUBSCRIBE = "pending-subscribe"
PENDING_UNSUBSCRIBE = "pending-unsubscribe"
ACTIVE = "active"
UNSUBSCRIBED = "unsubscribed"
DENIED = "denied"
FAILED = "failed"
# A subscription whose lease ended with no renewal verified: the hub stopped delivering.
EXPIRED = "expired"
# An active subscription whose lease is being renewed: the hub keeps delivering under
# the lease that still runs, signed with the same secret, until it verifies the renewal.
RENEWING = "pending-renewal"
# States in which the hub may deliver content: subscribed, asked to stop but not yet
# confirmed (the hub keeps delivering until it has verified the unsubscription), renewing.
RECEIVING = (ACTIVE, PENDING_UNSUBSCRIBE, RENEWING)
# States in which a hub holds (or is about to hold) a subscription and may push to the
# feed: those receiving, and a subscribe asked but not yet verified (the hub verifies,
# then pushes). A feed in one of them is not removed without an unsubscribe (or force).
HUB_HOLDS = (PENDING_SUBSCRIBE, *RECEIVING)
# What a request the hub never verified becomes once its time is up (``pending_until``,
# kept in the lease column while it is pending). An unsubscribe stayed pending for good
# (the hub took it, 202, and never came back): its feed was removed only by force. Done
# once its time is up: a push after is answered 410 Gone, which tells the hub to drop it.
# Until then it is asked again (ASKED_AGAIN). A subscribe is failed: subscribe again. A
# renewal keeps the lease that runs in that column: once it ends unverified, the hub has
# stopped delivering (WebSub section 5.1), and the subscription is expired. It was asked
# again hourly for ever instead, and its feed was removed only by force.
GIVEN_UP = {PENDING_UNSUBSCRIBE: UNSUBSCRIBED, PENDING_SUBSCRIBE: FAILED, RENEWING: EXPIRED}
# The same at the end of an active lease (every renewal refused until then): expired.
# Not in GIVEN_UP: an active row with no lease known is given no time (it is no request).
LAPSED = {**GIVEN_UP, ACTIVE: EXPIRED}
DEFAULT_LEASE_SECONDS = 10 * 24 * 3600
# The longest lease taken from a hub's verification: a hub's "hub.lease_seconds" of 30
# digits overflowed the date (a 500 to the hub); a shorter one than granted is renewed
# early, which the hub takes as any renewal.
MAX_LEASE_SECONDS = 366 * 24 * 3600
# A subscription is renewed this long before its lease ends (WebSub section 5.1: the
# subscriber re-subscribes; a hub stops delivering when the lease ends). Hubs grant days.
RENEW_BEFORE = timedelta(hours=1)
# A request is given this long at least before it is given up (PLAINFEED_WEBSUB_PENDING_
# TIMEOUT, if shorter): an unsubscribe asked as the lease ends (or after) was given up at
# once, its note naming a time before it was asked. Hubs verify within seconds.
PENDING_AT_LEAST = timedelta(minutes=1)
# A request the hub took (2xx) but has not verified is asked again (the same mode,
# callback, topic and secret) while its time runs: a hub that lost it (restarted, its
# queue dropped) would otherwise let the lease end, or, an unsubscribe, push until it
# ended (the unsubscribe taken as done here, its pushes answered 410). First after
# ASK_AGAIN_FIRST, then at doubling intervals up to ASK_AGAIN_MOST, so a hub slow to
# verify is not flooded. A verification of any of the asks settles the request (they
# are one request).
ASKED_AGAIN = (RENEWING, PENDING_SUBSCRIBE, PENDING_UNSUBSCRIBE)
ASK_AGAIN_FIRST = timedelta(minutes=2)
ASK_AGAIN_MOST = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Discovery:
    hubs: tuple[str, ...]
    self_url: str | None


_LINK_PARAM = re.compile(r';\s*([A-Za-z*-]+)\s*=\s*(?:"([^"]*)"|([^;,\s]*))')


def parse_link_header(values: Sequence[str]) -> list[tuple[str, set[str]]]:
    """(URL, rel values) of each link in ``Link`` header values (RFC 8288)."""
    out: list[tuple[str, set[str]]] = []
    for value in values:
        # Split on commas that start a new "<...>" link, not those inside parameters.
        for part in re.split(r",\s*(?=<)", value):
            m = re.match(r"\s*<([^>]*)>(.*)", part, re.S)
            if not m:
                continue
            rels: set[str] = set()
            for p in _LINK_PARAM.finditer(m.group(2)):
                if p.group(1).lower() == "rel":
                    rels.update((p.group(2) or p.group(3) or "").lower().split())
            out.append((m.group(1).strip(), rels))
    return out


def _document_links(body: bytes) -> list[tuple[str, set[str]]]:
    """``<link rel=... href=...>`` of an RSS, Atom or HTML document, and the ``hubs`` of a
    JSON Feed."""
    head = body.lstrip()[:1]
    if head == b"{":
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            # Not a JSON Feed we can read (not UTF-8 or JSON, nested too deep, a number
            # of more digits than int() converts): no links in it.
            return []
        out: list[tuple[str, set[str]]] = []
        if isinstance(data, dict):
            for hub in data.get("hubs") or []:
                if isinstance(hub, dict) and isinstance(hub.get("url"), str):
                    out.append((hub["url"], {"hub"}))
            if isinstance(data.get("feed_url"), str):
                out.append((data["feed_url"], {"self"}))
        return out
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        return []
    links = []
    for el in root.iter("{*}link"):
        href, rel = el.get("href"), el.get("rel")
        if href and rel:
            links.append((href.strip(), set(rel.lower().split())))
    return links


def discover(links: Sequence[str], body: bytes) -> Discovery:
    """The hubs and self URL a feed advertises: ``Link`` headers first (the WebSub spec's
    preferred place), then ``<link rel="hub">`` / ``<atom:link rel="hub">`` in the body."""
    hubs: list[str] = []
    self_url: str | None = None
    for url, rels in parse_link_header(links) + _document_links(body):
        if "hub" in rels and url.startswith(("http://", "https://")) and url not in hubs:
            hubs.append(url)
        if "self" in rels and self_url is None:
            self_url = url
    return Discovery(tuple(hubs), self_url)


def new_secret() -> str:
    return secrets.token_hex(32)


def callback_token(secret: str) -> str:
    """What the callback URL carries besides the feed id. A hub's GET (intent
    verification, a denial) is signed by nothing, and ``/websub/{id}`` is easy to guess:
    anyone could send ``hub.mode=denied`` and end a subscription. The URL told to the hub
    alone holds this token (WebSub asks for unguessable callbacks, and hubs keep their
    query when they call them)."""
    return hmac.new(secret.encode(), b"websub-callback", hashlib.sha256).hexdigest()[:32]


def callback_url(public_url: str, feed_id: int, secret: str | None) -> str:
    """The callback of a feed's subscription made with ``secret``."""
    base = f"{public_url.rstrip('/')}/websub/{feed_id}"
    return f"{base}?token={callback_token(secret)}" if secret else base


def token_ok(secret: str | None, token: str) -> bool:
    """Whether a hub's GET came to the callback of the subscription made with ``secret``."""
    return secret is None or hmac.compare_digest(token, callback_token(secret))


def subscription_form(
    *,
    callback: str,
    topic: str,
    mode: str,
    secret: str | None,
    lease_seconds: int | None = None,
) -> dict[str, str]:
    """The form a subscriber POSTs to the hub (WebSub section 5.1)."""
    if mode not in ("subscribe", "unsubscribe"):
        raise Unprocessable(f"hub.mode must be subscribe or unsubscribe, not {mode!r}")
    form = {"hub.callback": callback, "hub.mode": mode, "hub.topic": topic}
    if mode == "subscribe":
        if secret:
            form["hub.secret"] = secret
        if lease_seconds:
            form["hub.lease_seconds"] = str(lease_seconds)
    return form


@dataclass(frozen=True, slots=True)
class IntentAnswer:
    """What to answer a hub's GET and how the feed's subscription changes."""

    body: str  # the challenge to echo ("" for a denial notice)
    state: str
    lease_until: datetime | None


def answer_intent(
    state: str | None, topic: str, params: Mapping[str, str], now: datetime
) -> IntentAnswer:
    """Decide a hub's verification request (WebSub section 5.3) for a feed whose
    subscription is in ``state`` with ``topic``. Raises :class:`NotFound` (answered 404)
    for anything this subscriber did not ask for: another topic, a mode it is not
    waiting for, a missing challenge."""
    mode = params.get("hub.mode", "")
    if params.get("hub.topic", "") != topic:
        raise NotFound("hub.topic is not the topic of this feed's subscription")
    if mode == "denied":
        # The hub refused (or ended) the subscription: record it, nothing to echo.
        return IntentAnswer("", DENIED, None)
    challenge = params.get("hub.challenge", "")
    if not challenge:
        raise NotFound("hub.challenge is missing")
    # ACTIVE too: a request asked again (the first looked lost) may be verified twice, the
    # second after the first made the row active; a 404 to it could make the hub drop the
    # subscription this subscriber wants. The callback token (checked before) is the one
    # told to the hub: confirming renews the lease by what it says.
    if mode == "subscribe" and state in (PENDING_SUBSCRIBE, RENEWING, ACTIVE):
        return IntentAnswer(
            challenge,
            ACTIVE,
            now + timedelta(seconds=lease_seconds(params.get("hub.lease_seconds", ""))),
        )
    # UNSUBSCRIBED too, as ACTIVE for a subscribe: an unsubscribe asked again verified
    # twice, or after it was taken as done (its time up). A 404 tells the hub to keep
    # the subscription (and push until its lease ends, each push answered 410).
    if mode == "unsubscribe" and state in (PENDING_UNSUBSCRIBE, UNSUBSCRIBED):
        return IntentAnswer(challenge, UNSUBSCRIBED, None)
    raise NotFound(f"no pending {mode or 'request'} for this feed")


def lease_seconds(raw: str) -> int:
    """The lease a hub's verification grants: its ``hub.lease_seconds`` up to
    MAX_LEASE_SECONDS, the default when it is no number of digits 0-9 ("\u00b2" is a digit
    to str.isdigit, not to int(): a 500 to the hub)."""
    if not (raw.isascii() and raw.isdigit()):
        return DEFAULT_LEASE_SECONDS
    digits = raw.lstrip("0") or "0"  # int() refuses thousands of digits, zeros too
    if len(digits) > len(str(MAX_LEASE_SECONDS)):
        return MAX_LEASE_SECONDS
    return min(int(digits), MAX_LEASE_SECONDS)


def lease_of(
    state: str | None, lease_until: datetime | None, kept: datetime | None = None
) -> datetime | None:
    """The lease the hub granted, as far as a row in ``state`` with ``lease_until`` in its
    lease column tells: an active subscription's, and a renewal's (which keeps the lease
    that runs); a pending unsubscribe's is the one ``kept`` aside when it was asked
    (``websub_hub_lease_until``). In pending states the lease column holds when to give
    up, no lease: taken for one, asking an unsubscribe again kept its first give-up time,
    and a renewal asked during a pending unsubscribe renewed the unsubscribe's give-up
    time."""
    if state == PENDING_UNSUBSCRIBE:
        return kept
    return lease_until if state in (ACTIVE, RENEWING) else None


def pending_until(state: str, lease: datetime | None, now: datetime, wait: timedelta) -> datetime:
    """When a request asked ``now`` is given up if the hub has not verified it: ``wait``
    (PLAINFEED_WEBSUB_PENDING_TIMEOUT) later; an unsubscribe at the latest when the hub's
    ``lease`` (``lease_of``) ends, as the hub stops pushing then, verified or not; never
    before PENDING_AT_LEAST (or ``wait``, if shorter) has passed."""
    deadline = now + wait
    if state == PENDING_UNSUBSCRIBE and lease is not None:
        deadline = min(deadline, lease)
    return max(deadline, now + min(wait, PENDING_AT_LEAST))


def mode_of(state: str) -> str:
    """The ``hub.mode`` of the request a subscription in pending ``state`` waits for."""
    return "unsubscribe" if state == PENDING_UNSUBSCRIBE else "subscribe"


def next_ask(asks: int, now: datetime) -> datetime:
    """When a request asked ``asks`` times (the last ``now``) is asked again if the hub
    has not verified it: ASK_AGAIN_FIRST after the first ask, twice as long after each
    one since, never more than ASK_AGAIN_MOST."""
    first, most = ASK_AGAIN_FIRST, ASK_AGAIN_MOST
    wait = most if asks > 30 else min(most, first * 2 ** max(asks - 1, 0))
    return now + wait


def settled(state: str | None, lease_until: datetime | None, now: datetime) -> str | None:
    """The state of a subscription in ``state``, its lease column ``lease_until``, at
    ``now``: a pending request whose time is up, a lease ended, is as LAPSED says
    (whether or not a worker has written it yet); anything else is as it is."""
    if state in LAPSED and lease_until is not None and lease_until <= now:
        return LAPSED[state]
    return state


def given_up_note(state: str, hub_url: str | None, deadline: datetime) -> str:
    """The ``websub_error`` of a subscription settled by ``settled``."""
    hub = hub_url or "(none)"
    at = deadline.isoformat(timespec="seconds")
    if state in (RENEWING, ACTIVE):
        return (
            f"the hub {hub} verified no renewal before the lease ended at {at}: the "
            "subscription expired (its pushes are answered 410 Gone); subscribe again"
        )
    mode = mode_of(state)
    then = (
        "taken as done (its pushes are answered 410 Gone)"
        if mode == "unsubscribe"
        else "subscribe again"
    )
    return (
        f"the hub {hub} did not verify the {mode} by {at} "
        f"(PLAINFEED_WEBSUB_PENDING_TIMEOUT): {then}"
    )
