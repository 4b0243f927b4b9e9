"""What the HTTP API tests (tests/test_api_*.py) share: a feed posted to the webhook, waits for a
delivery and for the items to settle, and the problem body a 4xx answer carries."""

from __future__ import annotations

import httpx

from tests.conftest import wait_for

RSS = "application/rss+xml"


def post_feed(client: httpx.Client, body: bytes, **kw: object) -> httpx.Response:
    headers = {"Content-Type": RSS, **kw.pop("headers", {})}  # type: ignore[dict-item]
    return client.post("/webhooks/feed", content=body, headers=headers, **kw)  # type: ignore[arg-type]


def wait_delivery(client: httpx.Client, delivery_id: int) -> dict[str, object]:
    def done() -> dict[str, object] | None:
        d = client.get(f"/deliveries/{delivery_id}").json()
        return d if d["state"] in ("processed", "failed") else None

    return wait_for(done, timeout=60)  # type: ignore[no-any-return]


def wait_items_settled(client: httpx.Client) -> list[dict[str, object]]:
    def settled() -> list[dict[str, object]] | None:
        items = client.get("/items", params={"limit": 200}).json()["items"]
        busy = [i for i in items if i["state"] in ("pending", "processing")]
        return items if items and not busy else None

    return wait_for(settled, timeout=120)  # type: ignore[no-any-return]


def assert_problem(r: httpx.Response, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body  # type: ignore[no-any-return]
