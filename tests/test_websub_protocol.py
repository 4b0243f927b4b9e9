"""WebSub, the pure parts: hub discovery, intent verification, the subscription form."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from service import websub
from service.errors import NotFound
from tests.conftest import PYTORCH_FEED
from tests.websub_hub import ATOM, DISTRIBUTION

NOW = datetime(2026, 10, 22, 4, 45, tzinfo=UTC)

# --- discovery (pure) -----------


def test_discover_from_link_headers() -> None:
    found = websub.discover([DISTRIBUTION["headers"]["Link"]], b"")
    assert found.hubs == ("https://pubsubhubbub.appspot.com/",)
    assert found.self_url == "https://status.claude.com/history.atom"


def test_discover_from_several_link_headers_and_rel_lists() -> None:
    found = websub.discover(
        ['<https://a.example/hub>; rel="hub"', '<https://b.example/hub>; rel="hub self"'], b""
    )
    assert found.hubs == ("https://a.example/hub", "https://b.example/hub")
    assert found.self_url == "https://b.example/hub"


def test_discover_from_an_rss_atom_link() -> None:
    body = PYTORCH_FEED.read_bytes().replace(
        b'<atom:link href="https://pytorch.org/blog/feed/" rel="self"',
        b'<atom:link rel="hub" href="https://pubsubhubbub.appspot.com/" />'
        b'<atom:link href="https://pytorch.org/blog/feed/" rel="self"',
        1,
    )
    found = websub.discover([], body)
    assert found.hubs == ("https://pubsubhubbub.appspot.com/",)
    assert found.self_url == "https://pytorch.org/blog/feed/"


def test_discover_from_an_atom_feed_and_a_json_feed() -> None:
    atom = ATOM.replace(b"<title>", b'<link rel="hub" href="https://hub.example/"/><title>', 1)
    assert websub.discover([], atom).hubs == ("https://hub.example/",)
    jf = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "feed_url": "https://x.example/feed.json",
            "hubs": [{"type": "WebSub", "url": "https://hub.example/j"}],
            "items": [],
        }
    ).encode()
    found = websub.discover([], jf)
    assert found.hubs == ("https://hub.example/j",)
    assert found.self_url == "https://x.example/feed.json"


def test_no_hub() -> None:
    assert websub.discover([], PYTORCH_FEED.read_bytes()).hubs == ()
    assert websub.discover([], b"not xml at all").hubs == ()
    # A JSON document nested past the parser's recursion limit: no links, no crash.
    assert websub.discover([], b"{" + b'"a":[' * 100_000 + b"1").hubs == ()
    deep = b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert websub.discover([], deep).hubs == ()


# --- intent verification (pure) -----------

TOPIC = "https://pytorch.org/blog/feed/"


def params(mode: str, topic: str = TOPIC, **kw: str) -> dict[str, str]:
    return {"hub.mode": mode, "hub.topic": topic, "hub.challenge": "c-123", **kw}


def test_pending_subscribe_is_confirmed_with_its_lease() -> None:
    answer = websub.answer_intent(
        websub.PENDING_SUBSCRIBE, TOPIC, params("subscribe", **{"hub.lease_seconds": "3600"}), NOW
    )
    assert answer.body == "c-123"
    assert answer.state == websub.ACTIVE
    assert answer.lease_until == NOW + timedelta(seconds=3600)


def test_a_renewal_is_confirmed_with_its_new_lease() -> None:
    answer = websub.answer_intent(
        websub.RENEWING, TOPIC, params("subscribe", **{"hub.lease_seconds": "7200"}), NOW
    )
    assert (answer.body, answer.state) == ("c-123", websub.ACTIVE)
    assert answer.lease_until == NOW + timedelta(seconds=7200)


def test_a_subscribe_verified_again_while_active_is_confirmed_with_its_lease() -> None:
    # A request asked again is verified twice by a slow hub that lost neither ask: the
    # second verification comes after the first made the row active. A 404 could make
    # the hub drop the subscription; the callback's token shows it is ours.
    answer = websub.answer_intent(
        websub.ACTIVE, TOPIC, params("subscribe", **{"hub.lease_seconds": "7200"}), NOW
    )
    assert (answer.body, answer.state) == ("c-123", websub.ACTIVE)
    assert answer.lease_until == NOW + timedelta(seconds=7200)


def test_pending_unsubscribe_is_confirmed() -> None:
    answer = websub.answer_intent(websub.PENDING_UNSUBSCRIBE, TOPIC, params("unsubscribe"), NOW)
    assert (answer.body, answer.state) == ("c-123", websub.UNSUBSCRIBED)


def test_an_unsubscribe_verified_again_once_done_is_confirmed() -> None:
    # Asked again, it may be verified twice (or after it was taken as done): a 404 tells
    # the hub to keep the subscription.
    answer = websub.answer_intent(websub.UNSUBSCRIBED, TOPIC, params("unsubscribe"), NOW)
    assert (answer.body, answer.state) == ("c-123", websub.UNSUBSCRIBED)
    assert websub.mode_of(websub.PENDING_UNSUBSCRIBE) == "unsubscribe"
    assert websub.mode_of(websub.RENEWING) == websub.mode_of(websub.PENDING_SUBSCRIBE)


@pytest.mark.parametrize(
    ("state", "query"),
    [
        (websub.PENDING_SUBSCRIBE, params("subscribe", topic="https://evil.example/feed")),
        (websub.PENDING_SUBSCRIBE, params("unsubscribe")),
        (websub.ACTIVE, params("unsubscribe")),
        (websub.UNSUBSCRIBED, params("subscribe")),
        (websub.FAILED, params("unsubscribe")),
        (None, params("subscribe")),
        (websub.PENDING_SUBSCRIBE, {"hub.mode": "subscribe", "hub.topic": TOPIC}),
        (websub.PENDING_SUBSCRIBE, params("")),
    ],
)
def test_anything_not_asked_for_is_not_found(state: str | None, query: dict[str, str]) -> None:
    with pytest.raises(NotFound):
        websub.answer_intent(state, TOPIC, query, NOW)


def test_denial_is_recorded() -> None:
    answer = websub.answer_intent(
        websub.ACTIVE, TOPIC, {"hub.mode": "denied", "hub.topic": TOPIC}, NOW
    )
    assert (answer.body, answer.state) == ("", websub.DENIED)


def test_subscription_form() -> None:
    form = websub.subscription_form(
        callback="https://me/websub/1", topic=TOPIC, mode="subscribe", secret="s", lease_seconds=60
    )
    assert form == {
        "hub.callback": "https://me/websub/1",
        "hub.mode": "subscribe",
        "hub.topic": TOPIC,
        "hub.secret": "s",
        "hub.lease_seconds": "60",
    }
    off = websub.subscription_form(callback="c", topic=TOPIC, mode="unsubscribe", secret="s")
    assert "hub.secret" not in off
