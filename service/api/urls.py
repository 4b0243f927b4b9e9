"""The URLs the API takes and stores: HttpUrl's normal form within its column, and a
feed's, which is its identity: no fragment, no credentials, one the fetch takes."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, HttpUrl

from service import fetch
from service.config import Settings
from service.errors import FetchRefused
from service.store import tables as t


def _without_fragment(url: HttpUrl) -> HttpUrl:
    """The URL without its "#fragment" (empty or not): it names a place in the document,
    not another resource (RFC 3986 3.5), and the feed's URL is its identity: with one,
    the same feed was registered twice."""
    text = str(url)
    return HttpUrl(text.split("#", 1)[0]) if "#" in text else url


def _without_credentials(url: HttpUrl) -> HttpUrl:
    """Refuse a user name or password in a feed's URL: feeds are never fetched with
    credentials (fetch.py), and the URL is shown to every reader of ``GET /feeds``, the
    pages and the CLI, so a password kept in it would be published, not used."""
    if url.username or url.password:
        raise ValueError(
            "a feed URL with a user name or password is refused: feeds are not fetched "
            "with credentials, and the URL is shown to every reader of /feeds"
        )
    return url


def _fetchable(url: HttpUrl) -> HttpUrl:
    """Refuse a feed URL the fetch refuses whatever the settings (fetch.static_checks):
    a host that is no DNS name ("a..b", a label over 63 characters), port 0. It was
    registered, and each delivery without a document for it failed on the fetch."""
    try:
        fetch.static_checks(str(url))
    except FetchRefused as exc:
        raise ValueError(f"a feed URL that is never fetched: {exc.detail}") from exc
    return url


def refused_address(url: HttpUrl, settings: Settings) -> str | None:
    """Why a feed's URL is never fetched under ``settings`` though FeedUrl takes it: its
    host is a literal address the guard refuses unless PLAINFEED_ALLOW_PRIVATE_URLS is set
    (loopback, private, link-local, multicast, reserved: fetch.is_blocked), or a name that
    always means this machine or its network ("localhost", "*.local": fetch.private_name,
    as a subscriber's), or None. Such a feed was registered (201), and each delivery
    without a document for it was refused on the fetch. Another name is not resolved
    here: what it resolves to is the fetch's to read."""
    if settings.allow_private_urls:
        return None
    host = (url.host or "").strip("[]")
    if fetch.private_name(host):
        return (
            f"a feed URL that is never fetched: {host} is a name of this machine or its "
            "private network (set PLAINFEED_ALLOW_PRIVATE_URLS=1 to allow)"
        )
    try:
        blocked = fetch.is_blocked(host)
    except ValueError:  # a name, not an address
        return None
    if not blocked:
        return None
    return (
        f"a feed URL that is never fetched: {host} is a loopback, private, link-local, "
        "multicast or reserved address (set PLAINFEED_ALLOW_PRIVATE_URLS=1 to allow)"
    )


def _fits_its_column(url: HttpUrl) -> HttpUrl:
    """The URL's normal form, as it is stored, within its column: pydantic's bound (2,083
    characters) is of the URL as sent, and percent-encoding grows it (one "ü" is six
    characters): PostgreSQL refused the insert, a 500."""
    if len(str(url)) > t.MAX_URL:
        raise ValueError(
            f"URL is {len(str(url))} characters percent-encoded, over the {t.MAX_URL} stored"
        )
    return url


# The bound of a stored URL, for the OpenAPI document: HttpUrl's own (2,083) is longer
# than any stored URL, and a client built from the document sent URLs always refused.
_STORED_LENGTH = Field(json_schema_extra={"maxLength": t.MAX_URL})

# An http(s) URL as it is stored: HttpUrl's normal form, within its column.
StoredUrl = Annotated[HttpUrl, AfterValidator(_fits_its_column), _STORED_LENGTH]

# A feed's URL as it is stored and compared: HttpUrl's normal form, no fragment.
FeedUrl = Annotated[
    HttpUrl,
    AfterValidator(_without_credentials),
    AfterValidator(_fetchable),
    AfterValidator(_without_fragment),
    AfterValidator(_fits_its_column),
    _STORED_LENGTH,
]
