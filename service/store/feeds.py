"""Repository functions for feeds that the API and the CLI share."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import HttpUrl, ValidationError
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from service import websub
from service.errors import Conflict, NotFound
from service.languages import language_tag
from service.models import DeliveryState, ItemState
from service.store import tables as t


def normal_url(url: str) -> str:
    """A feed's address as `POST /feeds` stores it: an http(s) URL in pydantic's normal
    form (lower-case scheme and host, no default port, percent-encoded) without its
    #fragment; anything else (a URL that does not parse, an urn) as it is, and so is a
    URL whose normal form would not fit its column."""
    if not url[:8].lower().startswith(("http://", "https://")):
        return url
    try:
        text = str(HttpUrl(url.split("#", 1)[0]))
    except ValidationError:
        return url
    return text if len(text) <= t.MAX_URL else url


def never_fetched(feed: t.Feed) -> str | None:
    """Why ``feed``'s URL is never fetched (nor told to a hub as a topic), or None: its
    ``url_error`` (a URL stored before URLs were checked, migration 0017), or, for a feed
    known by its title (urn:plainfeed:title:), that it has no URL to fetch."""
    if feed.url_error:
        return feed.url_error
    if feed.url[:8].lower().startswith(("http://", "https://")):
        return None
    return f"it is known by {feed.url}, no http(s) URL to fetch"


def bodiless_refused(feed: t.Feed) -> str | None:
    """Why a delivery without a document for ``feed`` is not taken (its URL is never
    fetched: :func:`never_fetched`), or None. The API's 422 says it, and so does a worker
    that takes one stored before migration 0017 refused them."""
    why = never_fetched(feed)
    if why is None:
        return None
    return f"a delivery for feed {feed.id} must carry its document in the request body: {why}"


def url_forms(url: str) -> list[str]:
    """The forms a feed's address may be stored in: its normal form, and as written (a
    feed registered by its self link before addresses were normalised)."""
    normal = normal_url(url)
    return [normal] if normal == url else [normal, url]


def feed_at(s: Session, url: str) -> t.Feed | None:
    """The feed registered at ``url`` (in any of its forms, the normal one first)."""
    forms = url_forms(url)
    found = {f.url: f for f in s.scalars(select(t.Feed).where(t.Feed.url.in_(forms)))}
    return next((found[u] for u in forms if u in found), None)


def shown_language(setting: str | None) -> str:
    """A feed's language as the Atom documents say it (xml:lang): a setting with no sure
    tag (none, "English", an unknown name) is "en" there, as "en" is: one document, one
    ETag."""
    return language_tag(setting) or "en"


def shown(feed: t.Feed) -> tuple[str, str]:
    """What the Atom feeds show of a feed itself, as their ETag holds it: its label (name,
    else title, else URL: pages.feed_label) and its language as the document says it
    (xml:lang). The setting as written made "en-US" and "en-us" two documents (another
    ETag, Last-Modified moved on) where the document was one."""
    return (feed.name or feed.title or feed.url, shown_language(feed.language))


def note_shown(feed: t.Feed, before: tuple[str, str]) -> None:
    """Mark the feed updated when what the Atom feeds show of it changed since ``before``
    (``shown`` taken before the change): their Last-Modified moves on with it, or a
    reader asking only If-Modified-Since is told 304 and keeps the old document. Set to
    what it was, it stays (the document is the same, and so is its 304)."""
    if shown(feed) != before:
        feed.updated_at = datetime.now(UTC)


def check_name_free(s: Session, name: str | None, feed_id: int | None = None) -> None:
    """Refuse (409) a name that another feed has: a change record names its feed by it
    (``data.source``), and of two feeds so named one would get the other's documents."""
    if name is None:
        return
    if s.get_bind().dialect.name == "postgresql":
        # Two registrations of one name at once both found it free, and both stored it
        # (names are no unique key: databases from before kept duplicates). The second
        # waits here until the first transaction ends, then sees its name.
        s.execute(text("SELECT pg_advisory_xact_lock(7321002, hashtext(:name))"), {"name": name})
    query = select(t.Feed.id).where(t.Feed.name == name)
    if feed_id is not None:
        query = query.where(t.Feed.id != feed_id)
    other = s.scalars(query.limit(1)).first()
    if other is not None:
        raise Conflict(
            f"feed {other} is already named {name!r} (a change record names its feed by it)"
        )


def feeds_named(s: Session, name: str, urls: list[str]) -> t.Feed | None:
    """The feed a monitor's name stands for: the one so named, or, where several are (a
    database from before names were kept unique), the one of them at one of ``urls``;
    None when none is named so. Several and no URL to choose by is a 409."""
    named = list(s.scalars(select(t.Feed).where(t.Feed.name == name).order_by(t.Feed.id)))
    if len(named) <= 1:
        return named[0] if named else None
    for feed in named:
        if feed.url in urls:
            return feed
    raise Conflict(
        f"feeds {', '.join(str(f.id) for f in named)} are all named {name!r}: rename all "
        "but one (PATCH /feeds/{id}), or send the feed's url in data.url"
    )


def remove_feed(s: Session, feed_id: int, *, force: bool = False) -> None:
    """Delete a feed with its items, their explainers and its own subscribers (the
    database cascades; webhook deliveries stay in the log without their feed).

    Refused while a WebSub hub pushes to it (the hub keeps its lease; unsubscribe
    first), unless ``force``, or while a worker is explaining one of its items."""
    feed = s.get(t.Feed, feed_id)
    if feed is None:
        raise NotFound(f"no feed with id {feed_id}")
    # A request the hub never verified, its time up, holds nothing (websub.settled).
    state = websub.settled(feed.websub_state, feed.websub_lease_until, datetime.now(UTC))
    if state in websub.HUB_HOLDS and not force:
        # Every state in which the hub may still push (a renewal or an unsubscribe it has
        # not verified yet included: it delivers until it has). A hub that cannot be
        # reached never confirms an unsubscribe: the feed stayed active and this refusal
        # had no end. Forced, the hub's next push to the removed feed is answered 410
        # Gone, which tells it to drop the subscription.
        failed = (
            f"; the last request to its hub failed: {feed.websub_error}"
            if feed.websub_error
            else ""
        )
        # When the feed goes without force: a pending unsubscribe is taken as done, a
        # renewal the hub has not verified expires with the lease it renews.
        lease = feed.websub_lease_until
        at = lease.isoformat(timespec="seconds") if lease is not None else ""
        unsubscribe = f"plainfeed feeds subscribe {feed_id} --unsubscribe"
        if state == websub.PENDING_UNSUBSCRIBE:
            until = f", or until {at}, when it is taken as done" if at else ""
            first = (
                f"wait for the hub to verify the unsubscribe (GET /feeds/{feed_id} shows "
                f"the state; ask again: {unsubscribe}){until}"
            )
        elif state == websub.RENEWING and at:
            first = (
                f"unsubscribe first ({unsubscribe}), or wait until {at}, when it expires "
                "unless the hub verifies the renewal"
            )
        else:
            first = f"unsubscribe first ({unsubscribe})"
        raise Conflict(
            f"feed {feed_id} has a WebSub subscription ({state}){failed}: "
            f"{first}, or remove it anyway: DELETE /feeds/{feed_id}?force=true, plainfeed "
            f"feeds remove {feed_id} --yes --force (the hub's pushes are then answered 410 "
            "Gone)"
        )
    # PostgreSQL: lock the feed's items and deliveries before looking for busy ones (a
    # claim skips locked rows): one claimed between the look and the delete was deleted
    # under its worker, whose store then failed on the foreign key, not as a lost lease.
    # (SQLite: the removal's transaction already holds the only write lock.)
    s.execute(select(t.Item.id).where(t.Item.feed_id == feed_id).with_for_update()).all()
    s.execute(select(t.Delivery.id).where(t.Delivery.feed_id == feed_id).with_for_update()).all()
    busy = s.scalar(
        select(func.count(t.Item.id)).where(
            t.Item.feed_id == feed_id, t.Item.state == ItemState.PROCESSING.value
        )
    )
    if busy:
        raise Conflict(f"feed {feed_id} has {busy} item(s) being processed: try again")
    deliveries = select(func.count(t.Delivery.id)).where(
        t.Delivery.feed_id == feed_id, t.Delivery.state == DeliveryState.PROCESSING.value
    )
    if busy := s.scalar(deliveries):
        raise Conflict(f"feed {feed_id} has {busy} delivery(ies) being processed: try again")
    # A delivery still waiting (a fetch to try again, say) would be taken up after the
    # feed is gone, its feed_id cleared by the cascade: read as a document of no known
    # feed, it registered the feed again, unnamed and without its secret.
    s.execute(
        update(t.Delivery)
        .where(t.Delivery.feed_id == feed_id, t.Delivery.state == DeliveryState.RECEIVED.value)
        .values(
            state=DeliveryState.FAILED.value,
            error=f"feed {feed_id} was removed before this delivery was processed",
            processed_at=datetime.now(UTC),
            lease_owner=None,
            lease_until=None,
        )
    )
    counts = s.execute(
        select(
            func.count(t.Item.id),
            func.count(t.Item.id).filter(t.Item.state == ItemState.PUBLISHED.value),
        ).where(t.Item.feed_id == feed_id)
    ).one()
    s.add(t.FeedRemoval(feed_id=feed_id, url=feed.url, items=counts[0], published=counts[1] or 0))
    s.delete(feed)
