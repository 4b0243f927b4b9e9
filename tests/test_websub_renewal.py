"""WebSub leases renewed by the workers before they end, against a real hub on loopback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from service import websub
from service.pipeline import subscriptions
from service.store import tables as t
from tests.conftest import make_settings, wait_for
from tests.live import Service, running
from tests.origin import Origin
from tests.websub_hub import ATOM, cli, subscribed


def test_a_lease_about_to_end_is_renewed_and_pushes_are_taken_meanwhile(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)  # a look a minute, in production
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url  # the callback the hub reaches, known once it listens
        hub, fid, callback, secret = subscribed(svc, origin, ATOM)
        # Of the ten days the hub granted, 50 minutes are left: the hub stops delivering
        # when they end unless the subscriber asks again.
        with svc.sessions.begin() as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == fid)
                .values(websub_lease_until=datetime.now(UTC) + timedelta(minutes=50))
            )
        wait_for(lambda: len(hub.verified) == 2)
        assert len(hub.requests) == 2
        assert hub.requests[1] == hub.requests[0]  # same callback, topic and secret
        assert hub.verified[1] == ("subscribe", 200, True)
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == "active" and feed.websub_secret == secret
        assert feed.websub_lease_until > datetime.now(UTC) + timedelta(days=9)
        assert hub.distribute(callback, ATOM, secret).status_code == 202

        # Until the hub verifies a renewal, it delivers under the lease that still runs.
        with svc.sessions.begin() as s:
            s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_state=websub.RENEWING))
        r = hub.distribute(callback, ATOM + b"\n", secret)
        assert r.status_code == 202, r.text

        # A renewal the hub never verified by the end of the lease is not asked again:
        # the hub has stopped pushing, the subscription is expired
        # (tests/test_websub_pending.py).
        with svc.sessions.begin() as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == fid)
                .values(websub_lease_until=datetime.now(UTC) - timedelta(minutes=1))
            )
        wait_for(lambda: svc.row(t.Feed, fid).websub_state == websub.EXPIRED)
        assert len(hub.requests) == 2


def test_subscribing_again_to_the_same_hub_keeps_its_pushes_coming(
    svc: Service, origin: Origin
) -> None:
    hub, fid, callback, secret = subscribed(svc, origin, ATOM)
    # An operator renews by hand; the hub verifies some time later.
    hub.verifies = False
    assert cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url).returncode == 0
    again = hub.requests[1]
    assert again["hub.mode"] == "subscribe" and again["hub.secret"] == secret
    assert svc.row(t.Feed, fid).websub_state == websub.RENEWING
    # Meanwhile the hub pushes under the lease that runs, signed as before: taken (it was
    # answered 410, which tells a hub the subscription is gone).
    r = hub.distribute(callback, ATOM, secret)
    assert r.status_code == 202, r.text
    hub._verify(again)
    assert hub.verified[-1] == ("subscribe", 200, True)
    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.websub_secret) == ("active", secret)


def test_a_renewal_the_hub_refuses_is_recorded_and_cleared_once_taken(
    db_url: str, origin: Origin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers' renewal kept a hub's refusal in the log alone: websub_error (GET
    /feeds/{id}, a removal refused) said nothing, as if the lease were renewed. It says
    it now, as `plainfeed feeds subscribe` does, until a renewal is taken."""
    monkeypatch.setattr(subscriptions, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(subscriptions, "RETRY_AFTER", 0.5)  # 5 minutes, in production
    settings = make_settings(db_url)
    with running(settings) as svc:
        settings.public_url = svc.url
        hub, fid, _, _ = subscribed(svc, origin, ATOM)
        hub.status = 400
        with svc.sessions.begin() as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == fid)
                .values(websub_lease_until=datetime.now(UTC) + timedelta(minutes=50))
            )
        wait_for(lambda: svc.row(t.Feed, fid).websub_error)
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == "active"
        assert feed.websub_error == f"renewal: the hub {hub.url} answered HTTP 400: no"
        assert svc.http.get(f"/feeds/{fid}").json()["websub_error"] == feed.websub_error
        auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
        refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
        assert refused.status_code == 409 and feed.websub_error in refused.json()["detail"]

        # Asked again (RETRY_AFTER later), the hub takes it, answering 200 (WebSub asks
        # for 202; the subscribe path takes any 2xx, the renewal took 200 for a refusal).
        hub.status = 200
        wait_for(lambda: len(hub.verified) == 2)
        wait_for(lambda: svc.row(t.Feed, fid).websub_error is None)
        feed = svc.row(t.Feed, fid)
        assert feed.websub_state == "active"
        assert feed.websub_lease_until > datetime.now(UTC) + timedelta(days=9)
