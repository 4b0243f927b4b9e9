"""WebSub: signed content distribution and `plainfeed feeds subscribe` against a real hub
on loopback (the pure parts: tests/test_websub_protocol.py; renewals:
tests/test_websub_renewal.py; requests the hub never verifies: tests/test_websub_pending.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from service import signatures, websub
from service.store import tables as t
from tests.conftest import PYTORCH_FEED, wait_for
from tests.live import Service
from tests.origin import Origin
from tests.websub_hub import ATOM, ATOM_ENTRIES, ROOT, Hub, cli, subscribed


def test_subscribe_receive_and_unsubscribe(svc: Service, origin: Origin) -> None:
    hub = Hub(origin)
    topic = origin.route(
        "/history.atom",
        body=ATOM,
        headers={
            "Content-Type": "application/atom+xml",
            "Link": f'<{hub.url}>; rel="hub", <https://status.claude.com/history.atom>; rel="self"',
        },
    )
    fid = svc.feed(topic, name="claude-status")
    callback = f"{svc.url}/websub/{fid}"

    done = cli(svc, "feeds", "subscribe", str(fid))
    assert done.returncode == 0, done.stderr
    assert hub.url in done.stdout
    form = hub.requests[0]
    assert form["hub.mode"] == "subscribe" and form["hub.topic"] == topic
    assert len(form["hub.secret"]) == 64
    # The callback told to the hub carries a token only it knows (WebSub's unguessable
    # callback): the hub's GETs are signed by nothing else.
    assert form["hub.callback"] == f"{callback}?token={websub.callback_token(form['hub.secret'])}"
    wait_for(lambda: hub.verified)
    assert hub.verified[0] == ("subscribe", 200, True)
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == "active" and feed.hub_url == hub.url
    assert feed.websub_lease_until > datetime.now(UTC) + timedelta(days=9)

    # Content distribution, signed with the secret sent to the hub.
    r = hub.distribute(callback, ATOM, form["hub.secret"])
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert (d["sender"], d["feed_id"]) == ("websub", fid)
    # The feed's first delivery: its newest 20 entries explained, the older stored skipped.
    assert (d["items_new"], d["items_skipped"]) == (20, ATOM_ENTRIES - 20)
    assert hub.distribute(callback, ATOM, form["hub.secret"]).json()["duplicate"] is True
    for secret in (None, "wrong-secret"):
        bad = hub.distribute(callback, ATOM + b"\n", secret)
        assert bad.status_code == 401
    assert hub.distribute(callback, ATOM + b" ", form["hub.secret"], "sha256").status_code == 202

    # Someone else replaying a verification cannot re-activate or confirm anything.
    spoof = {"hub.mode": "unsubscribe", "hub.topic": topic, "hub.challenge": "x"}
    assert svc.http.get(f"/websub/{fid}", params=spoof).status_code == 404

    done = cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe")
    assert done.returncode == 0, done.stderr
    assert hub.requests[-1]["hub.mode"] == "unsubscribe"
    wait_for(lambda: len(hub.verified) == 2)
    assert hub.verified[1] == ("unsubscribe", 200, True)
    assert svc.row(t.Feed, fid).websub_state == "unsubscribed"
    gone = hub.distribute(callback, ATOM + b"  ", form["hub.secret"])
    assert gone.status_code == 410
    again = {"hub.mode": "subscribe", "hub.topic": topic, "hub.challenge": "x"}
    assert svc.http.get(f"/websub/{fid}", params=again).status_code == 404


def test_unsubscribe_asks_the_hub_that_pushes_without_reading_the_feed(
    svc: Service, origin: Origin
) -> None:
    """A feed that is gone (404) or down is the usual reason to unsubscribe: the request
    goes to the hub that pushes (the one stored), with no fetch of the feed. The command
    fetched it first and stopped on its error, and a feed subscribed cannot be removed."""
    hub, fid, callback, secret = subscribed(svc, origin, PYTORCH_FEED.read_bytes())
    origin.route("/feed", status=404, body=b"gone")
    fetches = len(origin.requests_to("/feed"))
    done = cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe")
    assert done.returncode == 0, done.stderr
    assert len(origin.requests_to("/feed")) == fetches
    assert hub.requests[-1]["hub.mode"] == "unsubscribe"
    wait_for(lambda: len(hub.verified) == 2)
    assert svc.row(t.Feed, fid).websub_state == "unsubscribed"
    assert hub.distribute(callback, ATOM, secret).status_code == 410
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    assert svc.http.delete(f"/feeds/{fid}", headers=auth).status_code == 204


def test_a_feed_whose_hub_cannot_be_reached_can_still_be_removed(
    svc: Service, origin: Origin, closed_port: int
) -> None:
    """An unsubscribe that never reaches the hub leaves the feed active (the hub may still
    push), and an active feed is not removed: DELETE stayed 409 for good. The refusal
    names the hub's failure and the way out, force, after which the hub's pushes are
    answered 410 Gone."""
    hub, fid, callback, secret = subscribed(svc, origin, PYTORCH_FEED.read_bytes())
    gone = f"http://127.0.0.1:{closed_port}/hub"
    with svc.sessions() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(hub_url=gone))
        s.commit()
    done = cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe")
    assert done.returncode == 2 and gone in done.stderr, done.stderr
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == "active" and gone in feed.websub_error
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert f"unsubscribe at {gone}" in detail and f"/feeds/{fid}?force=true" in detail
    assert svc.http.get(f"/feeds/{fid}").json()["websub_error"] == feed.websub_error
    no = cli(svc, "feeds", "remove", str(fid), "--yes")
    assert no.returncode == 2 and "--force" in no.stderr
    done = cli(svc, "feeds", "remove", str(fid), "--yes", "--force")
    assert done.returncode == 0, done.stderr
    assert hub.distribute(callback, ATOM, secret).status_code == 410

    # The same through the API.
    other = svc.feed("https://status.claude.com/history.atom")
    with svc.sessions() as s:
        s.execute(update(t.Feed).where(t.Feed.id == other).values(websub_state="active"))
        s.commit()
    assert svc.http.delete(f"/feeds/{other}", headers=auth).status_code == 409
    forced = svc.http.delete(f"/feeds/{other}", params={"force": "true"}, headers=auth)
    assert forced.status_code == 204


def test_hub_discovered_in_the_feed_body(svc: Service, origin: Origin) -> None:
    hub = Hub(origin)
    body = PYTORCH_FEED.read_bytes().replace(
        b"<channel>", f'<channel><atom:link rel="hub" href="{hub.url}"/>'.encode(), 1
    )
    fid = svc.feed(
        origin.route("/feed", body=body, headers={"Content-Type": "application/rss+xml"})
    )
    done = cli(svc, "feeds", "subscribe", str(fid))
    assert done.returncode == 0, done.stderr
    wait_for(lambda: hub.verified)
    assert svc.row(t.Feed, fid).websub_state == "active"


def test_a_hub_that_accepts_with_200_is_taken_at_its_word(svc: Service, origin: Origin) -> None:
    """WebSub asks for 202; a hub answering 200 (or 204) accepted the request too."""
    hub = Hub(origin)
    hub.status = 200
    fid = svc.feed(origin.route("/feed", body=PYTORCH_FEED.read_bytes()))
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
    assert done.returncode == 0, done.stderr
    wait_for(lambda: hub.verified)
    assert svc.row(t.Feed, fid).websub_state == "active"


def test_subscribe_without_a_public_url_says_so_before_reading_the_feed(
    svc: Service, origin: Origin
) -> None:
    """The missing setting is named first, whatever the feed's state: the feed was
    fetched before, and a feed not reachable from here (404, no network) was the error
    named, the setting only after that was fixed."""
    fid = svc.feed(origin.route("/feed", status=404, body=b"gone"))
    env = {k: v for k, v in os.environ.items() if k != "PLAINFEED_PUBLIC_URL"}
    env |= {
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": svc.settings.database_url,
        "PLAINFEED_ALLOW_PRIVATE_URLS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "service", "feeds", "subscribe", str(fid)],
        env=env, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "PLAINFEED_PUBLIC_URL" in done.stderr and "404" not in done.stderr, done.stderr
    assert origin.requests_to("/feed") == []
    assert svc.row(t.Feed, fid).websub_state is None


def test_subscribe_without_a_hub_or_to_a_refusing_hub(svc: Service, origin: Origin) -> None:
    fid = svc.feed(origin.route("/feed", body=PYTORCH_FEED.read_bytes()))
    done = cli(svc, "feeds", "subscribe", str(fid))
    assert done.returncode == 2
    assert "advertises no WebSub hub" in done.stderr
    assert svc.row(t.Feed, fid).websub_state is None
    hub = Hub(origin)
    hub.status = 400
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
    assert done.returncode == 2 and "HTTP 400" in done.stderr
    assert svc.row(t.Feed, fid).websub_state == "failed"
    assert cli(svc, "feeds", "subscribe", "999").returncode == 2


def test_a_failed_resubscribe_leaves_an_active_subscription_working(
    svc: Service, origin: Origin
) -> None:
    hub, fid, callback, _ = subscribed(svc, origin, PYTORCH_FEED.read_bytes())
    active = svc.row(t.Feed, fid)
    assert active.websub_state == "active"
    secret = hub.requests[0]["hub.secret"]

    # A hub URL that cannot be asked: refused before anything is recorded.
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", "notaurl")
    assert done.returncode == 2 and "notaurl" in done.stderr
    # A hub that refuses the new request: the old subscription is what it was.
    refusing = Hub(origin)
    refusing.url = origin.route("/hub2", handler=refusing._take)
    refusing.status = 400
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", refusing.url)
    assert done.returncode == 2 and "HTTP 400" in done.stderr

    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.hub_url, feed.websub_secret) == (
        "active",
        active.hub_url,
        active.websub_secret,
    )
    # The hub still signs with the secret it was given, and its pushes are taken.
    r = hub.distribute(callback, ATOM, secret)
    assert r.status_code == 202, r.text


def test_callback_for_unknown_or_unsubscribed_feeds(svc: Service) -> None:
    assert (
        svc.http.post(
            "/websub/999", content=ATOM, headers={"Content-Type": "application/atom+xml"}
        ).status_code
        == 410
    )
    fid = svc.feed("https://status.claude.com/history.atom")
    r = svc.http.post(
        f"/websub/{fid}", content=ATOM, headers={"Content-Type": "application/atom+xml"}
    )
    assert r.status_code == 410 and r.headers["content-type"] == "application/problem+json"
    q = {
        "hub.mode": "subscribe",
        "hub.topic": "https://status.claude.com/history.atom",
        "hub.challenge": "x",
    }
    assert svc.http.get("/websub/999", params=q).status_code == 404
    assert svc.http.get(f"/websub/{fid}", params=q).status_code == 404
    assert svc.count(t.Delivery) == 0


def test_denied_subscription_stops_content(svc: Service) -> None:
    topic = "https://status.claude.com/history.atom"
    fid = svc.feed(topic)
    with svc.sessions() as s:
        feed = s.get(t.Feed, fid)
        feed.websub_state, feed.websub_secret = "active", "hub-secret-1"
        s.commit()
    r = svc.http.post(
        f"/websub/{fid}",
        content=ATOM,
        headers={
            "Content-Type": "application/atom+xml",
            "X-Hub-Signature": signatures.sign_hub("hub-secret-1", ATOM, "sha1"),
        },
    )
    assert r.status_code == 202
    notice = {"hub.mode": "denied", "hub.topic": topic, "hub.reason": "no"}
    # Anyone may guess /websub/{id} and the topic: a denial without the callback's token
    # ends nothing.
    for forged in ({}, {"token": "0" * 32}):
        assert svc.http.get(f"/websub/{fid}", params={**notice, **forged}).status_code == 404
    assert svc.row(t.Feed, fid).websub_state == "active"
    token = websub.callback_token("hub-secret-1")
    # A parameter given twice is refused, not read as its last value.
    twice = [("hub.mode", "subscribe"), *{**notice, "token": token}.items()]
    refused = svc.http.get(f"/websub/{fid}", params=twice)
    assert refused.status_code == 404
    assert "hub.mode given more than once" in refused.json()["detail"]
    assert svc.row(t.Feed, fid).websub_state == "active"
    denied = svc.http.get(f"/websub/{fid}", params={**notice, "token": token})
    assert denied.status_code == 200
    assert svc.row(t.Feed, fid).websub_state == "denied"
    body = ATOM + b"\n"
    r2 = svc.http.post(
        f"/websub/{fid}",
        content=body,
        headers={
            "Content-Type": "application/atom+xml",
            "X-Hub-Signature": signatures.sign_hub("hub-secret-1", body, "sha1"),
        },
    )
    assert r2.status_code == 410


@pytest.mark.parametrize("state", [websub.RENEWING, websub.PENDING_UNSUBSCRIBE])
def test_a_feed_the_hub_still_pushes_to_is_not_removed_without_force(
    svc: Service, state: str
) -> None:
    """A renewal or an unsubscribe the hub has not verified yet: the hub still pushes
    (RECEIVING), as to an active feed. Removal was refused only while active or
    pending-subscribe, and these feeds went without a word, the hub pushing on."""
    fid = svc.feed("https://status.claude.com/history.atom")
    with svc.sessions.begin() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_state=state))
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    refused = svc.http.delete(f"/feeds/{fid}", headers=auth)
    assert refused.status_code == 409, refused.text
    detail = refused.json()["detail"]
    assert f"({state})" in detail and f"/feeds/{fid}?force=true" in detail
    no = cli(svc, "feeds", "remove", str(fid), "--yes")
    assert no.returncode == 2 and "--force" in no.stderr, no.stderr
    assert svc.row(t.Feed, fid).websub_state == state
    forced = svc.http.delete(f"/feeds/{fid}", params={"force": "true"}, headers=auth)
    assert forced.status_code == 204
    assert svc.http.get(f"/feeds/{fid}").status_code == 404


def test_a_subscribe_during_a_pending_unsubscribe_keeps_the_lease_the_hub_holds(
    svc: Service, origin: Origin
) -> None:
    """The operator unsubscribes, then changes their mind before the hub verified. The
    subscribe supersedes the unsubscribe: a renewal of the subscription the hub still
    holds (its secret), the hub's verification of the unsubscribe not echoed (so the hub
    keeps it), expiring, unverified, with the hub's lease. The lease was lost (the lease
    column holds the unsubscribe's give-up time): the renewal expired after
    PLAINFEED_WEBSUB_PENDING_TIMEOUT while the hub held days of lease."""
    hub, fid, callback, secret = subscribed(svc, origin, ATOM)
    lease = svc.row(t.Feed, fid).websub_lease_until
    assert lease > datetime.now(UTC) + timedelta(days=9)
    hub.verifies = False  # takes the next requests (202), verifies them when told to
    assert cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe").returncode == 0
    feed = svc.row(t.Feed, fid)
    assert feed.websub_state == websub.PENDING_UNSUBSCRIBE
    assert feed.websub_lease_until < datetime.now(UTC) + timedelta(hours=2)  # its give-up

    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
    assert done.returncode == 0, done.stderr
    unsubscribe, again = hub.requests[1], hub.requests[2]
    assert (again["hub.mode"], again["hub.secret"]) == ("subscribe", secret)
    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.websub_lease_until) == (websub.RENEWING, lease)
    shown = svc.http.get(f"/feeds/{fid}").json()
    assert shown["websub_state"] == websub.RENEWING
    # The hub's verification of the unsubscribe comes: not echoed, the hub keeps pushing.
    hub._verify(unsubscribe)
    assert hub.verified[-1] == ("unsubscribe", 404, False)
    assert hub.distribute(callback, ATOM, secret).status_code == 202
    # The hub verifies the subscribe: active, with the lease it grants now.
    hub._verify(again)
    assert hub.verified[-1] == ("subscribe", 200, True)
    feed = svc.row(t.Feed, fid)
    assert (feed.websub_state, feed.websub_secret) == (websub.ACTIVE, secret)
    assert feed.websub_lease_until > lease


def test_a_subscribe_after_the_lease_of_a_pending_unsubscribe_ended_is_a_new_one(
    svc: Service, origin: Origin
) -> None:
    """The hub holds nothing to renew then: a fresh secret, verified anew."""
    hub, fid, _, secret = subscribed(svc, origin, ATOM)
    hub.verifies = False
    assert cli(svc, "feeds", "subscribe", str(fid), "--unsubscribe").returncode == 0
    ended = datetime.now(UTC) - timedelta(seconds=1)
    with svc.sessions.begin() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_hub_lease_until=ended))
    done = cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url)
    assert done.returncode == 0, done.stderr
    assert hub.requests[-1]["hub.secret"] != secret
    assert svc.row(t.Feed, fid).websub_state == websub.PENDING_SUBSCRIBE
