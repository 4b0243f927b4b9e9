"""WebSub requests the hub never verifies: a pending subscribe or unsubscribe has a time
(PLAINFEED_WEBSUB_PENDING_TIMEOUT, an unsubscribe at most the hub's lease) after which it
is settled. An unsubscribe a hub took (202) but never verified stayed
``pending-unsubscribe`` for good, and its feed was removed only with force. The real
app, a real hub and the real CLI on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

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
    cli,
    feed_in_state,
    subscribed,
    time_up,
    verified_racing,
)

NOW = datetime(2026, 10, 22, 4, 45, tzinfo=UTC)


@pytest.mark.parametrize(
    ("state", "settled"),
    [
        (websub.PENDING_UNSUBSCRIBE, websub.UNSUBSCRIBED),
        (websub.PENDING_SUBSCRIBE, websub.FAILED),
        # A renewal keeps the lease that runs: once it ends, the hub has stopped pushing.
        (websub.RENEWING, websub.EXPIRED),
        (websub.ACTIVE, websub.EXPIRED),
        (websub.FAILED, websub.FAILED),
    ],
)
def test_a_pending_request_is_settled_once_its_time_is_up(state: str, settled: str) -> None:
    assert websub.settled(state, NOW + timedelta(seconds=1), NOW) == state
    assert websub.settled(state, NOW, NOW) == settled
    assert websub.settled(state, None, NOW) == state  # no time known: as it was


def test_how_long_a_request_waits_for_the_hub() -> None:
    wait = timedelta(hours=1)
    assert websub.pending_until(websub.PENDING_SUBSCRIBE, None, NOW, wait) == NOW + wait
    far = NOW + timedelta(days=9)
    assert websub.pending_until(websub.PENDING_SUBSCRIBE, far, NOW, wait) == NOW + wait
    # The hub stops pushing when its lease ends, verified or not: an unsubscribe waits
    # no longer than that.
    soon = NOW + timedelta(minutes=10)
    assert websub.pending_until(websub.PENDING_UNSUBSCRIBE, soon, NOW, wait) == soon
    assert websub.pending_until(websub.PENDING_UNSUBSCRIBE, far, NOW, wait) == NOW + wait
    assert websub.pending_until(websub.PENDING_UNSUBSCRIBE, None, NOW, wait) == NOW + wait


def test_an_unsubscribe_the_hub_never_verifies_is_done_once_its_time_is_up(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command gives the request PLAINFEED_WEBSUB_PENDING_TIMEOUT (an hour here, as by
    default); the test then ends that time through the store: a 5-second timeout ran out
    on a busy machine before the command had returned."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)  # a look a minute, in production
    monkeypatch.setenv("PLAINFEED_WEBSUB_PENDING_TIMEOUT", "3600")  # for the CLI
    settings = make_settings(db_url, websub_pending_timeout=3600.0)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, callback, secret = subscribed(svc, origin, ATOM)
        hub.verifies = False  # takes the unsubscribe (202), never verifies it
        asked = datetime.now(UTC)
        done = cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe")
        assert done.returncode == 0, done.stderr
        assert hub.requests[-1]["hub.mode"] == "unsubscribe"
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == websub.PENDING_UNSUBSCRIBE
        wait = timedelta(seconds=3600)
        assert asked + wait <= feed.websub_lease_until <= datetime.now(UTC) + wait
        # Meanwhile the hub may push (it does until it has verified), and the feed stays.
        pushed = hub.distribute(callback, ATOM, secret)
        assert pushed.status_code == 202, pushed.text
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
        assert refused.status_code == 409 and "taken as done" in refused.json()["detail"]

        # Its time up, it is done: said so, the hub's pushes answered 410 (which tells it
        # to drop the subscription), and the feed removed without force.
        deadline = time_up(svc, fid)
        wait_for(lambda: svc.row(t.Feed, fid).websub_state == websub.UNSUBSCRIBED)
        error = svc.row(t.Feed, fid).websub_error
        assert "did not verify the unsubscribe" in error and hub.url in error, error
        assert deadline.isoformat(timespec="seconds") in error, error
        shown = svc.http.get(f"/feeds/{fid}").json()
        assert (shown["websub_state"], shown["websub_error"]) == (websub.UNSUBSCRIBED, error)
        assert hub.distribute(callback, ATOM + b"\n", secret).status_code == 410
        # The push's items done (taken up, none is being processed): before, the seconds
        # the test waited for the time to run out gave them that.
        svc.outcome(pushed.json()["delivery_id"])
        wait_items_settled(svc.http)
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


def test_a_subscribe_the_hub_never_verifies_fails_once_its_time_is_up(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setenv("PLAINFEED_WEBSUB_PENDING_TIMEOUT", "3600")
    settings = make_settings(db_url, websub_pending_timeout=3600.0)
    with running(settings) as svc:
        settings.public_url = svc.url
        fid = svc.feed(origin.route("/feed", body=ATOM))
        hub = Hub(origin)
        hub.verifies = False
        done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
        assert done.returncode == 0, done.stderr
        assert svc.row(t.Feed, fid).websub_state == websub.PENDING_SUBSCRIBE
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 409
        time_up(svc, fid)
        wait_for(lambda: svc.row(t.Feed, fid).websub_state == websub.FAILED)
        assert "did not verify the subscribe" in svc.row(t.Feed, fid).websub_error
        # A verification that comes after is of a request given up: not echoed.
        form = hub.requests[-1]
        late = {
            "hub.mode": "subscribe",
            "hub.topic": form["hub.topic"],
            "hub.challenge": "late",
            "token": websub.callback_token(form["hub.secret"]),
        }
        assert svc.http.get(f"/websub/{fid}", params=late).status_code == 404
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


def test_a_renewal_the_hub_never_verifies_expires_with_the_lease(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A renewal the hub took (202) but never verified was asked again hourly for ever
    once the lease had ended, and its feed removed only by force, while the hub, its
    lease over, pushed no more. Within the lease it works as before; after, it expired."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, callback, secret = subscribed(svc, origin, ATOM)
        hub.verifies = False  # takes the renewal (202), never verifies it
        # Within the hour before it ends (websub.RENEW_BEFORE): renewed at the next look.
        ends = datetime.now(UTC) + timedelta(minutes=50)
        with svc.sessions.begin() as s:
            s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_lease_until=ends))
        wait_for(lambda: len(hub.requests) == 2)
        assert hub.requests[1] == hub.requests[0]  # the renewal: same callback and secret
        feed = svc.row(t.Feed, fid)
        assert (feed.websub_state, feed.websub_lease_until) == (websub.RENEWING, ends)
        # While the lease runs, the hub pushes and the feed stays.
        pushed = hub.distribute(callback, ATOM, secret)
        assert pushed.status_code == 202, pushed.text
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
        assert refused.status_code == 409 and "pending-renewal" in refused.json()["detail"]

        time_up(svc, fid)  # the lease ends
        wait_for(lambda: svc.row(t.Feed, fid).websub_state == websub.EXPIRED)
        error = svc.row(t.Feed, fid).websub_error
        assert "verified no renewal" in error and hub.url in error, error
        shown = svc.http.get(f"/feeds/{fid}").json()
        assert (shown["websub_state"], shown["websub_error"]) == (websub.EXPIRED, error)
        # Not asked again (the workers look ten times a second here), pushes refused (410
        # tells the hub to drop it), a late verification not echoed, removal unforced.
        time.sleep(0.5)
        assert len(hub.requests) == 2
        assert hub.distribute(callback, ATOM + b"\n", secret).status_code == 410
        late = {
            "hub.mode": "subscribe",
            "hub.topic": hub.requests[1]["hub.topic"],
            "hub.challenge": "late",
            "token": websub.callback_token(secret),
        }
        assert svc.http.get(f"/websub/{fid}", params=late).status_code == 404
        # The push's items done (taken up, none is being processed): before, the seconds
        # the test waited for the time to run out gave them that.
        svc.outcome(pushed.json()["delivery_id"])
        wait_items_settled(svc.http)
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


@pytest.mark.parametrize(
    ("state", "settled"),
    [
        (websub.PENDING_UNSUBSCRIBE, websub.UNSUBSCRIBED),
        (websub.PENDING_SUBSCRIBE, websub.FAILED),
        (websub.RENEWING, websub.EXPIRED),
        (websub.ACTIVE, websub.EXPIRED),
    ],
)
def test_a_pending_request_past_its_time_is_settled_with_no_worker_running(
    db_url: str, state: str, settled: str
) -> None:
    """The API alone (no worker has written the settled state yet) already answers as
    settled: the feed shows it, a push is 410, a removal needs no force."""
    with running(make_settings(db_url), workers=0) as svc:
        fid = svc.feed("https://status.claude.com/history.atom")
        with svc.sessions.begin() as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == fid)
                .values(
                    websub_state=state,
                    websub_secret="hub-secret",
                    websub_lease_until=datetime.now(UTC) - timedelta(seconds=1),
                )
            )
        assert svc.http.get(f"/feeds/{fid}").json()["websub_state"] == settled
        pushed = svc.http.post(
            f"/websub/{fid}", content=ATOM, headers={"Content-Type": "application/atom+xml"}
        )
        assert pushed.status_code == 410, pushed.text
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


def test_subscribing_after_an_unsubscribe_given_up_is_a_new_subscription(
    svc: Service, origin: Origin
) -> None:
    """Not a renewal of the subscription given up (its secret, which the hub may have
    dropped with it): a fresh secret, verified anew."""
    hub, fid, _, secret = subscribed(svc, origin, ATOM)
    with svc.sessions.begin() as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == fid)
            .values(
                websub_state=websub.PENDING_UNSUBSCRIBE,
                websub_lease_until=datetime.now(UTC) - timedelta(seconds=1),
            )
        )
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
    assert done.returncode == 0, done.stderr
    assert hub.requests[-1]["hub.secret"] != secret
    wait_for(lambda: len(hub.verified) == 2)
    assert hub.verified[1] == ("subscribe", 200, True)
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == websub.ACTIVE and feed.websub_secret != secret


def test_a_verification_the_row_changed_under_is_not_echoed(db_url: str) -> None:
    """The hub's verification reads the row, decides, and writes fenced on the state it
    read; the Renewer settling the request (its time up) or a new subscribe may change
    the row in between. The fenced write then changes nothing, and the challenge was
    echoed anyway: the hub held a subscription the database said had failed. The
    change is forced between the read and the write with an event hook on the engine:
    on PostgreSQL from another connection, committed (read committed: the fenced write
    sees it); on SQLite (whose writers take the lock at BEGIN, so no other writer comes
    in between) on the verification's own connection."""
    with running(make_settings(db_url), workers=0) as svc:
        fid = feed_in_state(
            svc,
            websub_state=websub.PENDING_SUBSCRIBE,
            websub_lease_until=datetime.now(UTC) + timedelta(hours=1),
        )
        settle = f"UPDATE feeds SET websub_state = '{websub.FAILED}' WHERE id = {fid}"
        answered = verified_racing(svc, fid, settle, "too-late")
        assert answered.status_code == 404 and "too-late" not in answered.text, answered.text
        assert svc.row(t.Feed, fid).websub_state != websub.ACTIVE


def test_only_a_lease_is_taken_as_the_hubs_lease() -> None:
    """In pending states the lease column holds when to give up, not a lease; in
    pending-renewal it keeps the lease that runs."""
    at = NOW + timedelta(days=3)
    assert websub.lease_of(websub.ACTIVE, at) == at
    assert websub.lease_of(websub.RENEWING, at) == at
    for state in (websub.PENDING_UNSUBSCRIBE, websub.PENDING_SUBSCRIBE, websub.EXPIRED, None):
        assert websub.lease_of(state, at) is None


def test_a_request_is_never_given_up_before_it_had_time() -> None:
    """A lease ending now (or ended) gave the unsubscribe no time at all: it was done at
    once, its note naming a time before it was asked."""
    wait = timedelta(hours=1)
    for lease in (NOW - timedelta(days=1), NOW, NOW + timedelta(seconds=2)):
        until = websub.pending_until(websub.PENDING_UNSUBSCRIBE, lease, NOW, wait)
        assert until == NOW + websub.PENDING_AT_LEAST
    # A wait shorter than that minimum (tests) is kept.
    short = timedelta(seconds=5)
    assert websub.pending_until(websub.PENDING_UNSUBSCRIBE, NOW, NOW, short) == NOW + short


def _waiting(svc: Service, origin: Origin) -> tuple[Hub, int]:
    """A feed subscribed at a hub that takes its next requests (202), never verifying."""
    hub, fid, _, _ = subscribed(svc, origin, ATOM)
    hub.verifies = False
    return hub, fid


def _ask(svc: Service, monkeypatch: pytest.MonkeyPatch, timeout: int, *args: str) -> datetime:
    """Run ``plainfeed feeds subscribe`` with PLAINFEED_WEBSUB_PENDING_TIMEOUT ``timeout``:
    when it was asked."""
    monkeypatch.setenv("PLAINFEED_WEBSUB_PENDING_TIMEOUT", str(timeout))
    asked = datetime.now(UTC)
    done = cli(svc, "feeds", "subscribe", *args)
    assert done.returncode == 0, done.stderr
    return asked


def test_asking_an_unsubscribe_again_gives_it_time_again(
    svc: Service, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 409 says to ask again; the first give-up time was taken for the hub's lease,
    and min() kept it: asking again never gave the hub more time."""
    _, fid = _waiting(svc, origin)
    _ask(svc, monkeypatch, 600, str(fid), "--unsubscribe")
    first = svc.row(t.Feed, fid).websub_lease_until
    asked = _ask(svc, monkeypatch, 1200, str(fid), "--unsubscribe")
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == websub.PENDING_UNSUBSCRIBE
    assert feed.websub_lease_until >= asked + timedelta(seconds=1200) > first


def test_subscribing_during_a_pending_unsubscribe_takes_no_deadline_for_a_lease(
    svc: Service, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A renewal (the hub still pushes until it verifies the unsubscribe) kept the
    unsubscribe's give-up time as the lease it renews; it renews the hub's lease, kept
    aside when the unsubscribe was asked (tests/test_websub.py), or, none kept (an
    unsubscribe asked before there was a place for it), waits for the hub as a request
    does."""
    _, fid = _waiting(svc, origin)
    lease = svc.row(t.Feed, fid).websub_lease_until
    _ask(svc, monkeypatch, 600, str(fid), "--unsubscribe")
    deadline = svc.row(t.Feed, fid).websub_lease_until
    _ask(svc, monkeypatch, 1200, str(fid))
    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.websub_lease_until) == (websub.RENEWING, lease)
    _ask(svc, monkeypatch, 600, str(fid), "--unsubscribe")
    with svc.sessions.begin() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_hub_lease_until=None))
    asked = _ask(svc, monkeypatch, 1200, str(fid))
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == websub.RENEWING
    assert feed.websub_lease_until >= asked + timedelta(seconds=1200) > deadline


@pytest.mark.parametrize(
    ("state", "lease"),
    [(websub.EXPIRED, timedelta(hours=-1)), (websub.ACTIVE, timedelta(seconds=2))],
)
def test_an_unsubscribe_after_the_lease_is_not_given_up_before_it_is_asked(
    svc: Service,
    origin: Origin,
    monkeypatch: pytest.MonkeyPatch,
    state: str,
    lease: timedelta,
) -> None:
    """The lease ended (the subscription expired) or ending: the unsubscribe was given
    up at once, its note naming a time before it was asked."""
    _, fid = _waiting(svc, origin)
    with svc.sessions.begin() as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == fid)
            .values(websub_state=state, websub_lease_until=datetime.now(UTC) + lease)
        )
    asked = _ask(svc, monkeypatch, 3600, str(fid), "--unsubscribe")
    feed = svc.row(t.Feed, fid)
    assert feed.websub_lease_until >= asked + websub.PENDING_AT_LEAST
    assert svc.http.get(f"/feeds/{fid}").json()["websub_state"] == websub.PENDING_UNSUBSCRIBE


def test_a_renewal_refused_removal_says_when_it_expires(svc: Service) -> None:
    """As a pending unsubscribe's 409 says when it is taken as done: a renewal the hub
    has not verified expires with the lease it renews, and the feed is removed then."""
    fid = svc.feed("https://status.claude.com/history.atom")
    ends = (datetime.now(UTC) + timedelta(hours=2)).replace(microsecond=0)
    with svc.sessions.begin() as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == fid)
            .values(websub_state=websub.RENEWING, websub_lease_until=ends)
        )
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
    assert refused.status_code == 409, refused.text
    detail = refused.json()["detail"]
    assert f"until {ends.isoformat()}, when it expires" in detail, detail
