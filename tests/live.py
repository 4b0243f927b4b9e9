"""The app served on loopback with what tests need to look at it: an HTTP client, its
database, and shortcuts for feeds, webhook posts and deliveries (the ``svc`` fixture of
tests/conftest.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from sqlalchemy import func, select

from service.api.app import create_app
from service.config import Settings
from service.store.db import make_engine, make_sessionmaker
from tests.conftest import LiveServer, wait_for


class Service:
    """The running app and what tests need to look at it."""

    def __init__(self, server: LiveServer, settings: Settings) -> None:
        self.url = server.url
        self.settings = settings
        self.http = httpx.Client(base_url=server.url, timeout=30)
        self._db = make_engine(settings.database_url)
        self.sessions = make_sessionmaker(self._db)

    def feed(self, url: str, **kw: Any) -> int:
        headers = {"Authorization": f"Bearer {self.settings.api_token}"}
        r = self.http.post("/feeds", json={"url": url, **kw}, headers=headers)
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    def post(
        self, body: bytes | dict[str, Any], headers: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        if isinstance(body, dict):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        return self.http.post("/webhooks/feed", content=body, headers=headers or {}, **kw)

    def outcome(self, delivery_id: int, timeout: float = 30) -> dict[str, Any]:
        def done() -> dict[str, Any] | None:
            d = self.http.get(f"/deliveries/{delivery_id}").json()
            return d if d["state"] in ("processed", "failed") else None

        return wait_for(done, timeout=timeout)  # type: ignore[no-any-return]

    def fetched(self, feed_id: int) -> dict[str, Any]:
        """A body-less ping of ``feed_id`` (the worker fetches the feed, conditionally),
        processed: the delivery's outcome."""
        r = self.post({"feed_id": feed_id})
        assert r.status_code == 202, r.text
        d = self.outcome(r.json()["delivery_id"])
        assert d["state"] == "processed", d
        return d

    def count(self, table: Any) -> int:
        with self.sessions() as s:
            return int(s.scalar(select(func.count()).select_from(table)) or 0)

    def row(self, table: Any, ident: int) -> Any:
        with self.sessions() as s:
            return s.get(table, ident)

    def close(self) -> None:
        self.http.close()
        self._db.dispose()


@contextmanager
def running(settings: Settings, *, workers: int = 2) -> Iterator[Service]:
    with LiveServer(create_app(settings, workers=workers)) as server:
        svc = Service(server, settings)
        try:
            yield svc
        finally:
            svc.close()
