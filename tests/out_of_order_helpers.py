"""The out-of-order tests' feeds (the lab's two entries in its versions, entries given
as id, date and text), their delivery posted and the items read back."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from service.store import tables as t
from tests.live import Service

ATOM = {"Content-Type": "application/atom+xml"}


def atom(
    updated: str | None, gpus: int, *, other: str = "2026-09-01T08:00:00Z", self_url: str = ""
) -> bytes:
    """A two-entry Atom feed: ``urn:lab:1`` (its ``updated`` date and its GPU count are
    the versions' difference; None: no ``updated``) and ``urn:lab:2``, the same in every
    version. No entry links: no page is read."""
    stamp = f"<updated>{updated}</updated>" if updated else ""
    link = f'<link rel="self" href="{self_url}"/>' if self_url else ""
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Lab notes</title>'
        f"<id>urn:lab</id>{link}<updated>2026-09-10T00:00:00Z</updated>"
        "<entry><id>urn:lab:1</id><title>Training run</title>"
        f"<published>2026-09-01T10:00:00Z</published>{stamp}"
        f'<content type="html">&lt;p&gt;The run used {gpus} GPUs for 3 days and reached '
        "71.5% accuracy.&lt;/p&gt;</content></entry>"
        "<entry><id>urn:lab:2</id><title>Dataset</title>"
        f"<published>{other}</published><updated>{other}</updated>"
        '<content type="html">&lt;p&gt;The dataset holds 1.2 million images.&lt;/p&gt;'
        "</content></entry></feed>"
    ).encode()


def lab_item(svc: Service) -> t.Item:
    with svc.sessions() as s:
        item = s.scalars(select(t.Item).where(t.Item.key == "urn:lab:1")).one()
        s.expunge(item)
        return item


def settled(item: t.Item) -> t.Item | None:
    """The item once no worker has it queued or in hand, else None."""
    return None if item.state in ("pending", "processing") else item


def post(svc: Service, body: bytes, fid: int) -> dict[str, Any]:
    r = svc.post(body, ATOM, params={"feed_id": fid})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["state"] == "processed", d
    return d


def entries_doc(*entries: tuple[str, str | None, str]) -> bytes:
    """An Atom feed of the entries given as (id, date or None: undated, text)."""
    body = "".join(
        f"<entry><id>{key}</id><title>Post {key[-1]}</title>"
        + (f"<updated>{when}</updated>" if when else "")
        + f'<content type="html">&lt;p&gt;{text}&lt;/p&gt;</content></entry>'
        for key, when, text in entries
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Lab notes</title>'
        f"<id>urn:lab</id><updated>2026-09-10T00:00:00Z</updated>{body}</feed>"
    ).encode()


def item_of(svc: Service, key: str) -> t.Item:
    with svc.sessions() as s:
        item = s.scalars(select(t.Item).where(t.Item.key == key)).one()
        s.expunge(item)
        return item
