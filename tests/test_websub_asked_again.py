"""WebSub requests the hub took (202) but never verified are asked again while their time
runs: a hub that lost one (restarted, its queue dropped) let the lease end. A renewal
sat ``pending-renewal`` and expired with the lease it renewed, never asked again; an
unsubscribe was taken as done while the hub pushed on. The
real app, a real hub and the real CLI on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from service import websub
from service.pipeline import subscriptions
from service.store import tables as t
from tests.api_helpers import wait_items_settled
from tests.conftest import make_settings, wait_for
from tests.live import Service, running
from tests.origin import Origin
from tests.websub_hub import (
    ATOM,
    Hub,
    asked_no_more,
    cli,
    feed_in_state,
    subscribed,
    time_up,
    verified_racing,
)

NOW = datetime(2026, 10, 22, 4, 45, tzinfo=UTC)
FIRST = timedelta(seconds=0.4)  # the first ask again after 2 minutes, in production


def test_a_request_is_asked_again_at_growing_intervals() -> None:
    first, most = websub.ASK_AGAIN_FIRST, websub.ASK_AGAIN_MOST
    waits = [websub.next_ask(asks, NOW) - NOW for asks in range(1, 12)]
    assert waits[:4] == [first, 2 * first, 4 * first, 8 * first]
    assert all(a <= b for a, b in itertools.pairwise(waits))
    assert waits[-1] == most
    assert websub.next_ask(10_000, NOW) - NOW == most  # no overflow, however often asked


def test_a_renewal_the_hub_lost_is_asked_again_while_the_lease_runs(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)  # a look a minute, in production
    monkeypatch.setattr(websub, "ASK_AGAIN_FIRST", FIRST)
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, callback, secret = subscribed(svc, origin, ATOM)
        hub.verifies = False  # takes every ask (202), verifies none: it lost them
        ends = datetime.now(UTC) + timedelta(minutes=50)
        with svc.sessions.begin() as s:
            s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_lease_until=ends))
        wait_for(lambda: len(hub.requests) == 2)
        renewed = time.monotonic()
        wait_for(lambda: len(hub.requests) >= 4)  # the renewal, asked again twice
        # The same callback, topic and secret each time: one subscription, asked again.
        assert all(form == hub.requests[0] for form in hub.requests[1:])
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_lease_until) == (websub.RENEWING, ends)
        assert feed.websub_asks >= 3 and feed.websub_ask_at is not None
        # GET /feeds/{id} tells when the lease ends and that the renewal is asked again.
        shown = svc.http.get(f"/feeds/{fid}").json()
        assert shown["websub_state"] == websub.RENEWING
        assert datetime.fromisoformat(shown["websub_lease_until"]) == ends
        assert shown["websub_ask_again_at"] is not None
        # At growing intervals (0.4 s, 0.8 s, 1.6 s, ... here): within 3 s of the renewal,
        # at most 4 asks again (the workers look ten times a second, and asked each time).
        time.sleep(max(0.0, renewed + 3.0 - time.monotonic()))
        assert len(hub.requests) - 2 <= 4, len(hub.requests)
        # Meanwhile the hub pushes under the lease that runs.
        assert hub.distribute(callback, ATOM, secret).status_code == 202

        # The hub verifies one of the asks (the first, late): settled, with its lease,
        # and not asked again.
        asked = asked_no_more(svc, hub, fid)
        hub._verify(hub.requests[1])
        assert hub.verified[-1] == ("subscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_secret) == (websub.ACTIVE, secret)
        assert feed.websub_lease_until > datetime.now(UTC) + timedelta(days=9)
        assert (feed.websub_ask_at, feed.websub_asks) == (None, 0)
        shown = svc.http.get(f"/feeds/{fid}").json()
        assert datetime.fromisoformat(shown["websub_lease_until"]) == feed.websub_lease_until
        assert shown["websub_ask_again_at"] is None
        time.sleep(1.0)  # the workers look ten times a second here
        assert len(hub.requests) == asked
        # A slow hub that lost neither ask verifies the next one too, after the first
        # made the row active: confirmed (a 404 could make it drop the subscription),
        # with the lease it states, and still not asked again.
        hub._verify(hub.requests[2])
        assert hub.verified[-1] == ("subscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_secret) == (websub.ACTIVE, secret)
        assert (feed.websub_ask_at, feed.websub_asks) == (None, 0)
        time.sleep(0.5)
        assert len(hub.requests) == asked


def test_a_subscribe_the_hub_lost_is_asked_again_before_it_is_given_up(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within PLAINFEED_WEBSUB_PENDING_TIMEOUT (an hour): a hub that refuses an ask again
    leaves it pending (said in websub_error), asked again after."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(websub, "ASK_AGAIN_FIRST", FIRST)
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        fid = svc.feed(origin.route("/feed", body=ATOM))
        hub = Hub(origin)
        hub.verifies = False
        done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url, "--lease-seconds", "7200")
        assert done.returncode == 0, done.stderr
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_asks) == (websub.PENDING_SUBSCRIBE, 1)
        assert feed.websub_lease_seconds == 7200 == int(hub.requests[0]["hub.lease_seconds"])
        # The command asked; it is asked again two minutes later (websub.ASK_AGAIN_FIRST in
        # the command's own process): here, now.
        assert feed.websub_ask_at > datetime.now(UTC) + timedelta(seconds=60)
        with svc.sessions.begin() as s:
            s.execute(
                update(t.Feed).where(t.Feed.id == fid).values(websub_ask_at=datetime.now(UTC))
            )
        wait_for(lambda: len(hub.requests) >= 2)
        # The secret the hub was first told, and the lease the operator asked for (it
        # asked for none: the hub's default replaced the one chosen).
        assert hub.requests[1] == hub.requests[0]
        hub.status = 400
        wait_for(lambda: svc.row(t.Feed, fid).websub_error)
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == websub.PENDING_SUBSCRIBE
        assert f"the hub {hub.url} answered HTTP 400" in feed.websub_error
        hub.status = 202
        wait_for(lambda: svc.row(t.Feed, fid).websub_error is None)

        hub._verify(hub.requests[0])  # the command's own ask, verified late
        assert hub.verified[-1] == ("subscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_ask_at) == (websub.ACTIVE, None)
        assert feed.websub_secret == hub.requests[0]["hub.secret"]


def test_a_verification_while_the_request_is_asked_again_settles_it(db_url: str) -> None:
    """The verification's write is fenced on the state and the secret, not on the next
    ask: the workers asking again meanwhile (a new next ask written between the
    verification's read and its write) leave it standing, as a verification of any ask
    settles the request. A fence that no longer matches (the request given up meanwhile)
    is 404: tests/test_websub_pending.py."""
    with running(make_settings(db_url), workers=0) as svc:
        ends = datetime.now(UTC) + timedelta(minutes=30)
        fid = feed_in_state(
            svc,
            websub_state=websub.RENEWING,
            websub_lease_until=ends,
            websub_ask_at=datetime.now(UTC),
            websub_asks=2,
        )
        asked = f"UPDATE feeds SET websub_asks = 3 WHERE id = {fid}"
        answered = verified_racing(svc, fid, asked, "in-time")
        assert (answered.status_code, answered.text) == (200, "in-time")
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_ask_at, feed.websub_asks) == (
            websub.ACTIVE,
            None,
            0,
        )
        assert feed.websub_lease_until > ends


def test_a_renewal_asked_again_and_refused_still_waits_for_the_hub_that_took_it(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hub took the renewal (202) and refused an ask again (503, busy): the renewal
    it took is still its to verify. Made active again (as a renewal the hub never took
    is), the hub's verification of it was answered 404, and the hub did not renew."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(websub, "ASK_AGAIN_FIRST", FIRST)
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, _callback, secret = subscribed(svc, origin, ATOM)
        hub.verifies = False
        ends = datetime.now(UTC) + timedelta(minutes=50)
        with svc.sessions.begin() as s:
            s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_lease_until=ends))
        wait_for(lambda: len(hub.requests) == 2)  # the renewal, taken
        hub.status = 503
        wait_for(lambda: svc.row(t.Feed, fid).websub_error)  # an ask again, refused
        feed = svc.row(t.Feed, fid)
        assert "answered HTTP 503" in feed.websub_error
        assert (feed.websub_state, feed.websub_lease_until) == (websub.RENEWING, ends)
        assert feed.websub_ask_at is not None

        hub._verify(hub.requests[1])  # the renewal the hub took, verified late
        assert hub.verified[-1] == ("subscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_secret) == (websub.ACTIVE, secret)
        assert feed.websub_lease_until > datetime.now(UTC) + timedelta(days=9)


def _unsubscribing(svc: Service, origin: Origin) -> tuple[Hub, int, str, str]:
    """A feed subscribed at a hub that then takes the unsubscribe (202) and verifies
    nothing, its next ask brought forward from two minutes (websub.ASK_AGAIN_FIRST in the
    command's own process) to now: (hub, feed id, callback, the secret pushes are signed
    with)."""
    hub, fid, callback, secret = subscribed(svc, origin, ATOM)
    hub.verifies = False
    done = cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe")
    assert done.returncode == 0, done.stderr
    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.websub_asks) == (websub.PENDING_UNSUBSCRIBE, 1)
    assert feed.websub_ask_at > datetime.now(UTC) + timedelta(seconds=60)
    with svc.sessions.begin() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_ask_at=datetime.now(UTC)))
    return hub, fid, callback, secret


def test_an_unsubscribe_the_hub_lost_is_asked_again_until_it_is_verified(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was never asked again: taken as done once its time was up, while a hub that
    lost it kept pushing until its lease ended (each push answered 410). A hub that
    refuses an ask again leaves it pending, saying so; a verification of any ask, late,
    ends the subscription."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(websub, "ASK_AGAIN_FIRST", FIRST)
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, callback, secret = _unsubscribing(svc, origin)
        deadline = svc.row(t.Feed, fid).websub_lease_until
        wait_for(lambda: len(hub.requests) >= 4)  # the unsubscribe, asked again twice
        # The same mode, callback and topic each time: one unsubscribe, asked again.
        assert hub.requests[1]["hub.mode"] == "unsubscribe"
        assert all(form == hub.requests[1] for form in hub.requests[2:])
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == websub.PENDING_UNSUBSCRIBE
        assert feed.websub_lease_until == deadline  # its time, not moved by asking again
        assert feed.websub_asks >= 3 and feed.websub_ask_at is not None
        shown = svc.http.get(f"/feeds/{fid}").json()
        assert shown["websub_state"] == websub.PENDING_UNSUBSCRIBE
        assert shown["websub_ask_again_at"] is not None
        # Until the hub verifies, it may push, and the feed stays.
        pushed = hub.distribute(callback, ATOM, secret)
        assert pushed.status_code == 202, pushed.text

        hub.status = 503  # busy: an ask again refused
        wait_for(lambda: svc.row(t.Feed, fid).websub_error)
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == websub.PENDING_UNSUBSCRIBE
        assert "unsubscribe asked again" in feed.websub_error
        assert f"the hub {hub.url} answered HTTP 503" in feed.websub_error
        assert feed.websub_ask_at is not None  # and asked again after
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
        assert refused.status_code == 409 and "HTTP 503" in refused.json()["detail"]

        asked = asked_no_more(svc, hub, fid)
        hub._verify(hub.requests[1])  # the command's own ask, verified late
        assert hub.verified[-1] == ("unsubscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_ask_at, feed.websub_asks) == (
            websub.UNSUBSCRIBED,
            None,
            0,
        )
        assert feed.websub_error is None  # the refused ask is past: the hub verified
        time.sleep(1.0)  # the workers look ten times a second here
        assert len(hub.requests) == asked
        assert svc.http.get(f"/feeds/{fid}").json()["websub_ask_again_at"] is None
        assert hub.distribute(callback, ATOM + b"\n", secret).status_code == 410
        # A slow hub verifies another ask after: confirmed (a 404 tells it to keep the
        # subscription), and nothing changes.
        hub._verify(hub.requests[2])
        assert hub.verified[-1] == ("unsubscribe", 200, True)
        assert svc.row(t.Feed, fid).websub_state == websub.UNSUBSCRIBED
        svc.outcome(pushed.json()["delivery_id"])  # the push's items done: none is
        wait_items_settled(svc.http)  # being processed when the feed is removed
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


def test_an_unsubscribe_is_asked_again_only_while_its_time_runs(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Then it is taken as done (tests/test_websub_pending.py) and asked no more; a
    verification of one of its asks that comes after is confirmed: it asks for what was
    taken as done. Its time (an hour, as by default) is ended through the store once it
    was asked again: a 3-second timeout ran out on a busy machine before the command that
    asked had returned, or before it was asked again."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(websub, "ASK_AGAIN_FIRST", FIRST)
    monkeypatch.setenv("PLAINFEED_WEBSUB_PENDING_TIMEOUT", "3600")  # for the CLI
    settings = make_settings(db_url, websub_pending_timeout=3600.0)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, callback, secret = _unsubscribing(svc, origin)
        wait_for(lambda: len(hub.requests) >= 3)  # asked again while its time runs
        deadline = time_up(svc, fid)
        wait_for(lambda: svc.row(t.Feed, fid).websub_state == websub.UNSUBSCRIBED)
        feed = svc.row(t.Feed, fid)
        assert "did not verify the unsubscribe" in feed.websub_error
        assert deadline.isoformat(timespec="seconds") in feed.websub_error
        assert feed.websub_ask_at is None
        # An ask the renewer had taken before can still land; once settled, none is taken
        # (the row counts the asks taken, the hub's first request was the subscribe).
        asked = 1 + feed.websub_asks
        wait_for(lambda: len(hub.requests) >= asked)
        time.sleep(0.5)  # the workers look ten times a second here
        assert len(hub.requests) == asked
        assert svc.row(t.Feed, fid).websub_asks == feed.websub_asks
        assert hub.distribute(callback, ATOM + b"\n", secret).status_code == 410

        hub._verify(hub.requests[-1])
        assert hub.verified[-1] == ("unsubscribe", 200, True)
        assert svc.row(t.Feed, fid).websub_state == websub.UNSUBSCRIBED
        # Only at the callback told to the hub: another token is no hub's.
        late = {
            "hub.mode": "unsubscribe",
            "hub.topic": hub.requests[-1]["hub.topic"],
            "hub.challenge": "forged",
            "token": websub.callback_token("another-secret"),
        }
        assert svc.http.get(f"/websub/{fid}", params=late).status_code == 404
