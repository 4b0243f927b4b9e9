"""``plainfeed feeds add|list|subscribe``: feeds in the configured database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated
from urllib.parse import urlsplit

import typer
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from service import fetch, websub
from service.cli.inputs import whole, whole_option
from service.config import get_settings
from service.errors import (
    Conflict,
    FetchError,
    InputError,
    NotFound,
    Unprocessable,
    validation_problems,
)
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction
from service.store.feeds import check_name_free, never_fetched, remove_feed

# The largest id the tables hold (ids are INTEGER: 32 bits on PostgreSQL). A larger one on
# the command line would reach the driver and fail there (OverflowError, DataError).
ID_MAX = 2**31 - 1
# An id argument or option: a row id, in the digits 0-9 alone.
AN_ID = whole(1, ID_MAX)

feeds_app = typer.Typer(help="Registered feeds.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(feeds_app, name="feeds")


def sessions() -> sessionmaker[Session]:
    """Sessions on the configured database, migrated to the newest schema."""
    db = make_engine(get_settings().database_url)
    migrate(db)
    return make_sessionmaker(db)


@feeds_app.command("add")
def add(
    url: Annotated[str, typer.Argument(help="The feed's URL")],
    name: Annotated[str | None, typer.Option()] = None,
    secret: Annotated[str | None, typer.Option(help="Webhook signing secret")] = None,
    audience: Annotated[str | None, typer.Option()] = None,
    language: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Register a feed; prints its id."""
    if not url.startswith(("http://", "https://")):
        raise InputError(f"not an http(s) URL: {url}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises for a port out of range or not a number
    except ValueError as exc:  # "http://[::1" (unclosed IPv6 bracket)
        raise InputError(f"not a valid URL: {url} ({exc})") from exc
    if not parts.hostname:
        raise InputError(f"URL has no host: {url}")
    if secret is not None and not 8 <= len(secret) <= 512:
        # As POST /feeds: a short secret is a guessable one.
        raise InputError("a webhook secret has 8 to 512 characters")
    # The rest as POST /feeds takes it, the URL written as it writes it ("https://A.example"
    # is "https://a.example/"): written as typed, one feed could be registered twice.
    from pydantic import ValidationError

    from service.api.schemas import FeedIn
    from service.api.urls import refused_address

    try:
        given = FeedIn(url=url, name=name, secret=secret, audience=audience, language=language)
    except ValidationError as exc:
        raise InputError(f"not a feed: {validation_problems(exc, 'feed')}") from exc
    why = refused_address(given.url, get_settings())
    if why is not None:
        raise InputError(f"not a feed: url: Value error, {why}")
    url = str(given.url)
    try:
        with transaction(sessions()) as s:
            check_name_free(s, given.name)
            feed = t.Feed(
                url=url,
                name=given.name,
                secret=given.secret,
                audience=given.audience,
                language=given.language,
            )
            s.add(feed)
            s.flush()
            typer.echo(feed.id)
    except IntegrityError as exc:
        raise Conflict(f"a feed with url {url} is already registered") from exc


@feeds_app.command("list")
def list_() -> None:
    """Registered feeds, one per line: id, url, name (tab-separated); a feed whose URL
    is never fetched is named on stderr, with why (its url_error)."""
    with sessions()() as s:
        for f in s.scalars(select(t.Feed).order_by(t.Feed.id)):
            typer.echo(f"{f.id}\t{f.url}\t{f.name or f.title or ''}")
            if f.url_error:
                # Not a column of its own: the lines stay what scripts read.
                typer.echo(f"feed {f.id}: {f.url_error}", err=True)


@feeds_app.command("remove")
def remove(
    feed_id: Annotated[int, typer.Argument(help="The registered feed's id", parser=AN_ID)],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: its items go with it")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Even while a WebSub hub pushes to it (hub gone)")
    ] = False,
) -> None:
    """Remove a feed with its items and explainers (not while a hub pushes to it, unless
    --force: the hub's pushes are then answered 410 Gone)."""
    if not yes:
        raise InputError(f"removing feed {feed_id} deletes its items and explainers: add --yes")
    with transaction(sessions()) as s:
        remove_feed(s, feed_id, force=force)
    typer.echo(f"feed {feed_id} removed", err=True)


@feeds_app.command("subscribe")
def subscribe(
    feed_id: Annotated[int, typer.Argument(help="The registered feed's id", parser=AN_ID)],
    hub: Annotated[
        str | None,
        typer.Option(
            help="The hub's URL (default: discovered from the feed; to unsubscribe, the "
            "hub that pushes)"
        ),
    ] = None,
    unsubscribe: Annotated[
        bool, typer.Option("--unsubscribe", help="End the subscription")
    ] = False,
    lease_seconds: Annotated[
        int | None, whole_option(60, ID_MAX, help="Lease to ask the hub for")
    ] = None,
) -> None:
    """Ask the feed's WebSub hub to push its updates to this server.

    The hub is discovered from the feed's `Link` headers or its `<link rel="hub">`. The
    callback is `$PLAINFEED_PUBLIC_URL/websub/ID?token=...` (the token only the hub is
    told); the hub verifies it there, then sends content signed with a fresh secret."""
    settings = get_settings()
    make = sessions()
    with make() as s:
        feed = s.get(t.Feed, feed_id)
        if feed is None:
            raise NotFound(f"no feed with id {feed_id}")
        topic, secret = feed.url, feed.websub_secret
        # The topic is the URL the hub fetches: with --hub (the feed not read here), a
        # "javascript:" or title-only address went to the hub as the topic.
        why = never_fetched(feed)
        if not unsubscribe and why:
            raise Unprocessable(f"feed {feed_id} cannot be subscribed to: {why}")
        hub_url = hub or feed.hub_url
        # As it stands: a request the hub never verified, its time up, is given up
        # (websub.settled), and a subscribe now is a new one, not a renewal.
        now = datetime.now(UTC)
        state = websub.settled(feed.websub_state, feed.websub_lease_until, now)
        previous = _Subscription(
            feed.hub_url,
            state,
            feed.websub_secret,
            feed.websub_lease_until,
            feed.websub_ask_at,
            feed.websub_asks,
            feed.websub_hub_lease_until,
        )
    if hub is not None:
        # The command's own argument is named first: a --hub that is no URL at all is
        # the mistake to fix, whatever else is missing.
        fetch.check_url(hub, settings)
    if "public_url" not in settings.model_fields_set:
        # The hub calls the service back at PLAINFEED_PUBLIC_URL; its default names this
        # machine's port 8000, which a hub elsewhere never reaches and a server on
        # another port does not answer: the subscription would sit pending for ever. Said
        # before the feed is read: its fetch failing hid the setting missing.
        raise InputError(
            "set PLAINFEED_PUBLIC_URL to the address the hub reaches this service at"
            " (its callback is PLAINFEED_PUBLIC_URL/websub/FEED_ID)"
        )
    # An unsubscribe goes to the hub that pushes, the one stored: the feed is not read
    # (a feed gone or down is the usual reason to unsubscribe, and its fetch failing
    # left the subscription, and the feed with it, impossible to remove).
    if hub is None and not (unsubscribe and hub_url):
        got = fetch.fetch_url(topic, settings)
        found = websub.discover(got.links, got.body)
        if not found.hubs:
            if not hub_url:
                raise Unprocessable(
                    f"{topic} advertises no WebSub hub (no Link rel=hub header or "
                    '<link rel="hub">); give one with --hub'
                )
        else:
            hub_url = found.hubs[0]
    assert hub_url is not None
    if hub is None:
        # Before anything is recorded: a hub URL that cannot be asked leaves the feed as it
        # was (a --hub given was checked above, first of all).
        fetch.check_url(hub_url, settings)
    mode = "unsubscribe" if unsubscribe else "subscribe"
    # Subscribing again to the hub that pushes now is a renewal: the hub keeps pushing
    # under the running lease, signed with the secret it has, until it verifies. (A fresh
    # secret and pending-subscribe answered those pushes 410, which tells a hub to drop
    # the subscription.) During a pending unsubscribe too: the subscribe supersedes it
    # (the hub's verification of the unsubscribe is then answered 404, and the hub keeps
    # the subscription), renewing the lease the hub still holds; once that lease has
    # ended, the hub holds nothing to renew: a new subscription.
    lease = websub.lease_of(previous.state, previous.lease_until, previous.hub_lease)
    renewal = (
        not unsubscribe
        and previous.state in websub.RECEIVING
        and previous.hub_url == hub_url
        and previous.secret is not None
        and (lease is None or lease > now)
    )
    if not unsubscribe and not renewal:
        secret = websub.new_secret()
    callback = websub.callback_url(settings.public_url, feed_id, secret)
    if unsubscribe:
        pending = websub.PENDING_UNSUBSCRIBE
    else:
        pending = websub.RENEWING if renewal else websub.PENDING_SUBSCRIBE
    # A request the hub never verifies is given up at a time kept in the lease column
    # (service.websub.GIVEN_UP); a renewal keeps the lease that runs (it expires with
    # it), or, the lease not known (a pending unsubscribe asked before its lease was
    # kept), waits for the hub as a request does. An unsubscribe keeps the hub's lease
    # aside (websub_hub_lease_until): a subscribe that supersedes it renews that lease.
    # (It lost it: the renewal, never verified, expired after the pending timeout while
    # the hub still held days of lease.)
    now = datetime.now(UTC)
    lease_until = (
        lease
        if renewal and lease is not None
        else websub.pending_until(
            pending, lease, now, timedelta(seconds=settings.websub_pending_timeout)
        )
    )
    # A request the hub takes but does not verify is asked again by the workers
    # (websub.ASKED_AGAIN): the hub may lose it.
    asked_again = pending in websub.ASKED_AGAIN
    # Committed before the request: hubs may verify the intent before they answer it.
    with transaction(make) as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == feed_id)
            .values(
                hub_url=hub_url,
                websub_state=pending,
                websub_secret=secret,
                websub_error=None,
                websub_lease_until=lease_until,
                websub_ask_at=websub.next_ask(1, now) if asked_again else None,
                websub_asks=1 if asked_again else 0,
                websub_hub_lease_until=lease if unsubscribe else None,
            )
        )
    form = websub.subscription_form(
        callback=callback, topic=topic, mode=mode, secret=secret, lease_seconds=lease_seconds
    )
    try:
        answer = fetch.post_form(hub_url, form, settings)
    except FetchError as exc:
        _restore(make, feed_id, pending, previous, f"{mode} at {hub_url}: {exc.detail}")
        raise
    # WebSub asks hubs for 202 Accepted; some answer 200 or 204, which accept it too.
    if not 200 <= answer.status < 300:
        failure = f"the hub {hub_url} answered HTTP {answer.status}: {answer.body[:300]}"
        _restore(make, feed_id, pending, previous, f"{mode}: {failure}")
        raise FetchError(failure)
    if not unsubscribe:
        # Taken by the hub: the workers' renewals and asks again repeat the lease asked
        # for (fenced: a verification may have moved the state on; the secret is ours).
        with transaction(make) as s:
            s.execute(
                update(t.Feed)
                .where(t.Feed.id == feed_id, t.Feed.websub_secret == secret)
                .values(websub_lease_seconds=lease_seconds)
            )
    typer.echo(f"{mode} requested at {hub_url} for {topic}; the hub verifies at {callback}")


@dataclass(frozen=True, slots=True)
class _Subscription:
    """What a feed's WebSub columns held before a request."""

    hub_url: str | None
    state: str | None
    secret: str | None
    lease_until: datetime | None
    ask_at: datetime | None
    asks: int
    hub_lease: datetime | None  # the hub's lease, kept aside while unsubscribing


def _restore(
    make: sessionmaker[Session], feed_id: int, pending: str, previous: _Subscription, error: str
) -> None:
    """Undo a request the hub refused or that never reached it (unless the hub moved the
    state on already): the hub and the secret it signs with are what they were, so a
    subscription that was active stays active; a subscribe to a feed that had none is
    marked failed. ``error`` is kept (websub_error): a removal refused names it."""
    live = previous.state in websub.RECEIVING
    state = previous.state if live or pending == websub.PENDING_UNSUBSCRIBE else websub.FAILED
    with transaction(make) as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == feed_id, t.Feed.websub_state == pending)
            .values(
                websub_state=state,
                hub_url=previous.hub_url,
                websub_secret=previous.secret,
                websub_lease_until=previous.lease_until,
                websub_ask_at=previous.ask_at if live else None,
                websub_asks=previous.asks if live else 0,
                websub_hub_lease_until=previous.hub_lease,
                websub_error=error,
            )
        )
