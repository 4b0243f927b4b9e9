"""A WebSub hub on loopback for the tests: takes (un)subscription requests and verifies
them at the real callback; ``subscribed`` and ``cli`` drive the real
`plainfeed feeds subscribe`; ``feed_in_state`` and ``verified_racing`` force a write
between a verification's read of its feed and its fenced write."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
from sqlalchemy import Engine, event, text, update

from service import signatures, websub
from service.store import tables as t
from tests.conftest import CORPUS, DATA, wait_for
from tests.live import Service
from tests.origin import Origin, Seen

ROOT = Path(__file__).resolve().parent.parent
ATOM = (CORPUS / "feeds" / "claude-status-history-atom-2026-10-08-012672d.xml").read_bytes()
ATOM_ENTRIES = 25
DISTRIBUTION = json.loads((DATA / "webhooks" / "websub-distribution.json").read_text())


class Hub:
    """A WebSub hub on loopback: takes (un)subscription requests with 202, then verifies
    the intent at the callback from another thread, as hubs do."""

    def __init__(self, origin: Origin) -> None:
        self.requests: list[dict[str, str]] = []
        self.verified: list[tuple[str, int, bool]] = []  # (mode, status, challenge echoed)
        self.status = 202
        self.verifies = True  # False: requests are taken, their verification waits
        self.url = origin.route("/hub", handler=self._take)

    def _take(self, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        form = {k: v[0] for k, v in parse_qs(seen.body.decode()).items()}
        self.requests.append(form)
        accepted = 200 <= self.status < 300
        if accepted and self.verifies:
            threading.Thread(target=self._verify, args=(form,), daemon=True).start()
        return self.status, {"Content-Type": "text/plain"}, b"" if accepted else b"no"

    def _verify(self, form: dict[str, str]) -> None:
        challenge = secrets.token_urlsafe(16)
        query = {
            "hub.mode": form["hub.mode"],
            "hub.topic": form["hub.topic"],
            "hub.challenge": challenge,
            "hub.lease_seconds": "864000",
        }
        # WebSub: the hub keeps the callback's own query and adds its parameters.
        url = httpx.URL(form["hub.callback"]).copy_merge_params(query)
        r = httpx.get(url, timeout=10)
        self.verified.append((form["hub.mode"], r.status_code, r.text == challenge))

    def distribute(
        self, callback: str, body: bytes, secret: str | None, algo: str = "sha1"
    ) -> httpx.Response:
        headers = {
            "Content-Type": DISTRIBUTION["headers"]["Content-Type"],
            "Link": DISTRIBUTION["headers"]["Link"],
        }
        if secret:
            headers["X-Hub-Signature"] = signatures.sign_hub(secret, body, algo)
        return httpx.post(callback, content=body, headers=headers, timeout=30)


def subscribed(svc: Service, origin: Origin, body: bytes) -> tuple[Hub, int, str, str]:
    """A feed served by ``origin`` and subscribed at a loopback hub that verified it:
    (hub, feed id, callback for its pushes, the secret it signs them with)."""
    hub = Hub(origin)
    fid = svc.feed(origin.route("/feed", body=body))
    assert cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url).returncode == 0
    wait_for(lambda: hub.verified)
    return hub, fid, f"{svc.url}/websub/{fid}", hub.requests[0]["hub.secret"]


def cli(svc: Service, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": svc.settings.database_url,
        "PLAINFEED_PUBLIC_URL": svc.url,
        "PLAINFEED_ALLOW_PRIVATE_URLS": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


TOPIC = "https://status.claude.com/history.atom"  # (no origin: nothing is fetched)


def time_up(svc: Service, fid: int) -> datetime:
    """End the time a pending request of feed ``fid`` waits for the hub, through the store
    (its deadline a second ago), rather than wait for a short PENDING_TIMEOUT: on a busy
    machine that ran out before the command that asked had returned. The deadline set."""
    deadline = datetime.now(UTC) - timedelta(seconds=1)
    with svc.sessions.begin() as s:
        s.execute(update(t.Feed).where(t.Feed.id == fid).values(websub_lease_until=deadline))
    return deadline


def asked_no_more(svc: Service, hub: Hub, fid: int) -> int:
    """Put feed ``fid``'s next ask a day away (through the store), then wait until every
    ask the workers took before has reached ``hub``: how many requests it has had. A
    test that then has the hub verify knows any later request for a new ask; one that
    waited half a second for an ask in flight failed on a busy machine when it came
    later. (A worker's take is fenced on the next ask it read, and counts the ask in
    ``websub_asks`` before asking; the hub's first request was the subscribe.)"""
    with svc.sessions.begin() as s:
        s.execute(
            update(t.Feed)
            .where(t.Feed.id == fid)
            .values(websub_ask_at=datetime.now(UTC) + timedelta(days=1))
        )
        asks = s.get_one(t.Feed, fid).websub_asks
    wait_for(lambda: len(hub.requests) >= 1 + asks)
    return 1 + asks


def feed_in_state(svc: Service, **values: Any) -> int:
    """A feed of TOPIC, its WebSub columns set to ``values``, its secret "hub-secret"."""
    fid = svc.feed(TOPIC)
    with svc.sessions.begin() as s:
        s.execute(
            update(t.Feed).where(t.Feed.id == fid).values(websub_secret="hub-secret", **values)
        )
    return fid


def verified_racing(svc: Service, fid: int, statement: str, challenge: str) -> httpx.Response:
    """The hub's verification of a subscribe of ``fid`` (feed_in_state's), answered while
    ``statement`` runs between the verification's read of the row and its fenced write: on
    PostgreSQL from another connection, committed (read committed: the fenced write sees
    it); on SQLite (whose writers take the lock at BEGIN, so no other writer comes in
    between) on the verification's own connection."""
    fired: list[str] = []

    def meanwhile(conn: Any, cursor: Any, sql: str, *_: Any) -> None:
        fenced = sql.startswith("UPDATE feeds SET websub_state")
        if not fenced or "feeds.websub_state =" not in sql or fired:
            return
        fired.append(sql)
        if conn.dialect.name == "sqlite":
            conn.connection.dbapi_connection.cursor().execute(statement)
        else:
            with svc.sessions.begin() as other:
                other.execute(text(statement))

    verify = {
        "hub.mode": "subscribe",
        "hub.topic": TOPIC,
        "hub.challenge": challenge,
        "hub.lease_seconds": "864000",
        "token": websub.callback_token("hub-secret"),
    }
    event.listen(Engine, "before_cursor_execute", meanwhile)
    try:
        answered = svc.http.get(f"/websub/{fid}", params=verify)
    finally:
        event.remove(Engine, "before_cursor_execute", meanwhile)
    assert fired, "the verification's fenced write was not seen"
    return answered
