"""Deliveries applied out of order: an older version of a feed, processed after a newer
one (a WebSub hub retrying an old distribution, a monitor replaying an old record, a
stale replica behind the feed's URL), must not put an edited entry back to its older text
and queue it to be explained again. End to end on real SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.store import tables as t
from tests.conftest import wait_for
from tests.live import Service
from tests.origin import Origin
from tests.out_of_order_helpers import ATOM, atom, entries_doc, item_of, lab_item, post, settled
from tests.websub_hub import Hub, cli


def test_an_entry_older_than_the_stored_one_does_not_replace_it(svc: Service) -> None:
    fid = svc.feed("https://lab.example/feed.atom")
    assert post(svc, atom("2026-09-01T10:00:00Z", 8), fid)["items_new"] == 2
    newest = post(svc, atom("2026-09-03T10:00:00Z", 32), fid)
    assert newest["items_changed"] == 1
    # Explained before it is looked at: the workers' explaining moves its updated_at,
    # and the comparison below is of what the older delivery did to it.
    stored = wait_for(lambda: settled(lab_item(svc)))
    assert "32 GPUs" in stored.text
    # The version of 2 September (edited before the one applied) is delivered last.
    older = post(svc, atom("2026-09-02T10:00:00Z", 16), fid)
    assert older["items_changed"] == 0 and older["item_ids"] == [], older
    assert "urn:lab:1" in older["problems"] and "older than" in older["problems"]
    after = lab_item(svc)
    assert (after.text, after.content_hash, after.updated_at) == (
        stored.text,
        stored.content_hash,
        stored.updated_at,
    )
    # A genuinely newer edit is applied and queued again.
    newer = post(svc, atom("2026-09-05T10:00:00Z", 64), fid)
    assert newer["items_changed"] == 1 and newer["item_ids"] == [after.id]
    assert not newer["problems"]
    assert "64 GPUs" in lab_item(svc).text
    # The same content again (a document re-sent with other markup) changes nothing.
    again = post(svc, atom("2026-09-05T10:00:00Z", 64).replace(b"<title>", b"<title> "), fid)
    assert again["items_changed"] == 0 and again["items_new"] == 0 and not again["problems"]


def test_an_edit_that_keeps_the_entry_date_is_applied(svc: Service) -> None:
    # RSS feeds rarely move a post's date when they edit it: equal dates are no order.
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, atom("2026-09-01T10:00:00Z", 8), fid)
    same_date = post(svc, atom("2026-09-01T10:00:00Z", 12), fid)
    assert same_date["items_changed"] == 1
    # Dates gone from the feed: nothing known of order, the edit is applied (as before).
    undated = post(svc, atom(None, 24), fid)
    assert undated["items_changed"] == 1
    assert "24 GPUs" in lab_item(svc).text


def test_an_entry_dated_far_ahead_gives_no_order(svc: Service) -> None:
    # A typo'd year must not make every later edit of the entry look older.
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, atom("2099-09-01T10:00:00Z", 8), fid)
    fixed = post(svc, atom("2026-09-02T10:00:00Z", 12), fid)
    assert fixed["items_changed"] == 1
    assert "12 GPUs" in lab_item(svc).text


def test_a_websub_retry_of_an_older_distribution_is_not_applied(
    svc: Service, origin: Origin
) -> None:
    hub = Hub(origin)
    fid = svc.feed(origin.route("/feed", body=atom("2026-09-01T10:00:00Z", 8)))
    assert cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url).returncode == 0
    wait_for(lambda: hub.verified)
    callback, secret = f"{svc.url}/websub/{fid}", hub.requests[0]["hub.secret"]

    def push(body: bytes) -> dict[str, Any]:
        r = hub.distribute(callback, body, secret)
        assert r.status_code == 202, r.text
        return svc.outcome(r.json()["delivery_id"])

    assert push(atom("2026-09-01T10:00:00Z", 8))["items_new"] == 2
    assert push(atom("2026-09-03T10:00:00Z", 32))["items_changed"] == 1
    retried = push(atom("2026-09-02T10:00:00Z", 16))
    assert retried["items_changed"] == 0 and "older than" in retried["problems"]
    assert "32 GPUs" in lab_item(svc).text


def test_a_fetched_document_older_than_the_one_applied_changes_nothing(
    svc: Service, origin: Origin
) -> None:
    """No entry dates here: the document's own HTTP Last-Modified (the publisher's clock,
    as the one stored from the last applied fetch) tells a stale replica's answer."""
    url = origin.route(
        "/feed", body=atom(None, 8), headers=ATOM, last_modified="Tue, 01 Sep 2026 10:00:00 GMT"
    )
    fid = svc.feed(url)

    assert svc.fetched(fid)["items_new"] == 2
    origin.route(
        "/feed", body=atom(None, 32), headers=ATOM, last_modified="Thu, 03 Sep 2026 10:00:00 GMT"
    )
    assert svc.fetched(fid)["items_changed"] == 1
    # A replica that has not seen the last edit answers (200: its date is not the one
    # asked about).
    origin.route(
        "/feed", body=atom(None, 16), headers=ATOM, last_modified="Wed, 02 Sep 2026 10:00:00 GMT"
    )
    stale = svc.fetched(fid)
    assert stale["items_changed"] == 0 and "older than" in stale["problems"], stale
    assert "32 GPUs" in lab_item(svc).text
    assert svc.row(t.Feed, fid).last_modified == "Thu, 03 Sep 2026 10:00:00 GMT"
    origin.route(
        "/feed", body=atom(None, 64), headers=ATOM, last_modified="Sat, 05 Sep 2026 10:00:00 GMT"
    )
    assert svc.fetched(fid)["items_changed"] == 1
    assert "64 GPUs" in lab_item(svc).text


def test_an_undated_version_keeps_the_stored_date(svc: Service) -> None:
    """A version without a date is applied (no evidence of order), but it says nothing
    of when it was written: the stored version's date stays, and a version dated before
    that is still refused. (Before, the undated version cleared the date and let any
    older version back in.)"""
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, entries_doc(("urn:lab:1", "2026-09-01T10:00:00Z", "The run used 8 GPUs.")), fid)
    post(svc, entries_doc(("urn:lab:1", "2026-09-03T10:00:00Z", "The run used 32 GPUs.")), fid)
    undated = post(svc, entries_doc(("urn:lab:1", None, "The run used 24 GPUs.")), fid)
    assert undated["items_changed"] == 1 and not undated["problems"]
    item = item_of(svc, "urn:lab:1")
    assert "24 GPUs" in item.text
    assert item.entry_date == datetime(2026, 9, 3, 10, tzinfo=UTC)
    late = post(svc, entries_doc(("urn:lab:1", "2026-09-02T10:00:00Z", "It used 16 GPUs.")), fid)
    assert late["items_changed"] == 0, late
    assert "urn:lab:1 dated 2026-09-02T10:00:00Z, older than the version stored" in (
        late["problems"] or ""
    )
    assert "24 GPUs" in item_of(svc, "urn:lab:1").text


def test_an_older_document_applies_the_entries_its_own_dates_say_are_newer(
    svc: Service, origin: Origin
) -> None:
    """A document whose Last-Modified is older than the one applied refuses what it
    cannot date itself (an undated entry, or one dated as the version stored); an entry
    dated after the stored version is a newer edit whatever the document's date, and is
    applied. (Before, the document's date refused every entry of it.)"""

    def serve(last_modified: str, *entries: tuple[str, str | None, str]) -> str:
        return origin.route(
            "/feed", body=entries_doc(*entries), headers=ATOM, last_modified=last_modified
        )

    url = serve(
        "Tue, 01 Sep 2026 10:00:00 GMT",
        ("urn:lab:1", "2026-09-01T10:00:00Z", "The run used 8 GPUs."),
        ("urn:lab:2", None, "The dataset holds 1.2 million images."),
        ("urn:lab:3", "2026-09-01T10:00:00Z", "The model has 7 layers."),
    )
    fid = svc.feed(url)
    assert svc.fetched(fid)["items_new"] == 3
    serve(
        "Thu, 03 Sep 2026 10:00:00 GMT",
        ("urn:lab:1", "2026-09-03T10:00:00Z", "The run used 32 GPUs."),
        ("urn:lab:2", None, "The dataset holds 1.5 million images."),
        ("urn:lab:3", "2026-09-03T10:00:00Z", "The model has 9 layers."),
    )
    assert svc.fetched(fid)["items_changed"] == 3
    serve(  # a replica's document, older by its Last-Modified
        "Wed, 02 Sep 2026 10:00:00 GMT",
        ("urn:lab:1", "2026-09-04T10:00:00Z", "The run used 64 GPUs."),  # newer by its date
        ("urn:lab:2", None, "The dataset holds 1.2 million images."),  # undated
        ("urn:lab:3", "2026-09-03T10:00:00Z", "The model has 5 layers."),  # same date
    )
    mixed = svc.fetched(fid)
    assert mixed["items_changed"] == 1, mixed
    assert mixed["item_ids"] == [item_of(svc, "urn:lab:1").id]
    assert "64 GPUs" in item_of(svc, "urn:lab:1").text
    assert "1.5 million" in item_of(svc, "urn:lab:2").text
    assert "9 layers" in item_of(svc, "urn:lab:3").text
    assert "2 changed entries not applied: the document was last modified at " in (
        mixed["problems"] or ""
    )
    # The feed's validators stay the newest document's.
    assert svc.row(t.Feed, fid).last_modified == "Thu, 03 Sep 2026 10:00:00 GMT"


def test_a_rollback_is_applied_when_its_delivery_is_retried_with_force(svc: Service) -> None:
    """A publisher undoes an edit together with its date: refused as older, and then
    applied by a person's retry with force (API, then the CLI), which the delivery
    records."""
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, atom("2026-09-01T10:00:00Z", 8), fid)
    post(svc, atom("2026-09-03T10:00:00Z", 32), fid)
    r = svc.post(atom("2026-09-02T10:00:00Z", 16), ATOM, params={"feed_id": fid})
    rollback = r.json()["delivery_id"]
    refused = svc.outcome(rollback)
    assert refused["items_changed"] == 0 and "older than" in refused["problems"]
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    plain = svc.http.post(f"/deliveries/{rollback}/retry", headers=auth)
    assert plain.status_code == 202, plain.text
    again = svc.outcome(rollback)
    assert again["items_changed"] == 0 and "older than" in again["problems"]
    assert again["forced_at"] is None
    forced = svc.http.post(f"/deliveries/{rollback}/retry?force=true", headers=auth)
    assert forced.status_code == 202, forced.text
    assert forced.json()["forced_at"] is not None
    done = svc.outcome(rollback)
    item = lab_item(svc)
    assert done["items_changed"] == 1 and done["item_ids"] == [item.id], done
    assert done["forced_at"] is not None
    assert (
        "forced: 1 entry applied though older: urn:lab:1 dated 2026-09-02T10:00:00Z over the "
        "version stored (2026-09-03T10:00:00Z)"
    ) in done["problems"]
    assert "16 GPUs" in item.text
    assert item.entry_date == datetime(2026, 9, 2, 10, tzinfo=UTC)
    # An unknown delivery: 404.
    assert svc.http.post("/deliveries/999999/retry", headers=auth).status_code == 404
    # A newer edit, then the rollback forced back again from the command line.
    assert post(svc, atom("2026-09-04T10:00:00Z", 48), fid)["items_changed"] == 1
    run = cli(svc, "deliveries", "retry", str(rollback), "--force")
    assert run.returncode == 0, run.stderr
    assert "re-queued (forced)" in run.stderr
    wait_for(lambda: "16 GPUs" in lab_item(svc).text)
    # The delivery's counts are of all its runs: the edit applied by each forced retry.
    final = svc.outcome(rollback)
    assert final["items_changed"] == 2 and final["item_ids"] == [item.id], final
    assert cli(svc, "deliveries", "retry", "999999").returncode == 2


def test_after_a_forced_stale_document_later_deliveries_are_judged_by_the_marks_kept(
    svc: Service, origin: Origin
) -> None:
    """A forced retry of a document older by its Last-Modified applies it and leaves the
    feed's marks (Last-Modified, validators) at the newest document's. A later delivery is
    judged right by them: a genuinely newer document is applied (not taken for older),
    and the forced version's own stale document again changes nothing."""

    def serve(last_modified: str, gpus: int) -> str:
        return origin.route(
            "/feed", body=atom(None, gpus), headers=ATOM, last_modified=last_modified
        )

    fid = svc.feed(serve("Tue, 01 Sep 2026 10:00:00 GMT", 8))
    assert svc.fetched(fid)["items_new"] == 2
    serve("Thu, 03 Sep 2026 10:00:00 GMT", 32)
    assert svc.fetched(fid)["items_changed"] == 1
    serve("Wed, 02 Sep 2026 10:00:00 GMT", 16)  # what a person knows to be the truth
    stale = svc.fetched(fid)
    assert stale["items_changed"] == 0 and "older than" in stale["problems"], stale
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    forced = svc.http.post(f"/deliveries/{stale['id']}/retry?force=true", headers=auth)
    assert forced.status_code == 202, forced.text
    done = svc.outcome(stale["id"])
    assert done["items_changed"] == 1 and "forced: 1 entry applied" in done["problems"], done
    assert "16 GPUs" in lab_item(svc).text
    feed = svc.row(t.Feed, fid)
    assert feed.last_modified == "Thu, 03 Sep 2026 10:00:00 GMT"  # the marks kept
    # The forced version's document again: the same text, nothing to judge.
    again = svc.fetched(fid)
    assert again["items_changed"] == 0 and "16 GPUs" in lab_item(svc).text, again
    # A genuinely newer document: applied, and the marks move on.
    serve("Sat, 05 Sep 2026 10:00:00 GMT", 64)
    newer = svc.fetched(fid)
    assert newer["items_changed"] == 1 and not newer["problems"], newer
    assert "64 GPUs" in lab_item(svc).text
    assert svc.row(t.Feed, fid).last_modified == "Sat, 05 Sep 2026 10:00:00 GMT"
