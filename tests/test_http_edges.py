"""What every route shares, over real HTTP on loopback: a fetch that the far side refuses
is a problem, not a crash; bodies are capped; HEAD is GET without the body; a 405 says
which methods are allowed."""

from __future__ import annotations

import gzip
import logging
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from service.api import problems
from service.api.limits import MAX_REQUEST_BODY
from service.config import Settings
from service.errors import Conflict, FetchError, TemplateError
from tests.conftest import (
    PYTORCH_FEED,
    api_client,
    drop_pg_database,
    llm_settings,
    make_settings,
    wait_for,
)
from tests.origin import Origin
from tests.stub_llm import Reply, StubLLM


@pytest.fixture
def server(settings: Settings) -> Iterator[httpx.Client]:
    with api_client(settings, workers=0, timeout=60) as client:
        yield client


@pytest.mark.parametrize("path", ["/explain", "/check"])
@pytest.mark.parametrize("status", [404, 500])
def test_a_page_the_far_side_refuses_is_a_fetch_problem(
    server: httpx.Client, path: str, status: int
) -> None:
    with Origin() as o:
        o.route("/post", body=b"gone", status=status)
        body: dict[str, object] = {"url": o.url + "/post"}
        if path == "/check":
            body["explainer"] = "It is 1.10x faster."
        r = server.post(path, json=body)
    assert r.status_code == 502, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/fetch-failed")
    assert problem["status"] == 502  # the answer's own status, not the far side's
    assert problem["upstream_status"] == status


def test_a_body_over_the_cap_is_refused_from_its_length(server: httpx.Client) -> None:
    r = server.post(
        "/check",
        content=b" " * (MAX_REQUEST_BODY + 1),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["type"].endswith("/payload-too-large")


def test_a_streamed_body_over_the_cap_is_refused_as_it_is_read(server: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: the server must count
        for _ in range(MAX_REQUEST_BODY // 65536 + 2):
            yield b" " * 65536

    r = server.post("/feeds", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["type"].endswith("/payload-too-large")
    assert server.get("/feeds").json()["total"] == 0  # nothing was stored


def test_a_body_under_the_cap_is_read_as_usual(server: httpx.Client) -> None:
    r = server.post(
        "/check",
        json={"text": "It is 1.10x faster." + " " * 100_000, "explainer": "It is 1.10x faster."},
    )
    assert r.status_code == 200, r.text
    assert r.json()["ok"] is True


@pytest.mark.parametrize("path", ["/healthz", "/feed.atom", "/items", "/openapi.json"])
def test_head_is_get_without_the_body(server: httpx.Client, path: str) -> None:
    get = server.get(path)
    head = server.head(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers.get("content-length") == get.headers.get("content-length")


def test_head_of_a_missing_item_is_404_without_a_body(server: httpx.Client) -> None:
    r = server.head("/items/999999")
    assert r.status_code == 404
    assert r.content == b""


def test_a_method_not_allowed_says_which_are(server: httpx.Client) -> None:
    r = server.delete("/healthz")
    assert r.status_code == 405
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "GET" in r.headers["allow"]
    r = server.put("/feeds")
    assert r.status_code == 405
    assert set(r.headers["allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


@pytest.mark.parametrize(
    ("path", "ctype"),
    [
        ("/feeds", "application/x-www-form-urlencoded"),  # what "curl -d" sends
        ("/explain", "text/plain"),
        ("/check", "text/plain; charset=utf-8"),
        ("/subscribers", "application/xml"),
    ],
)
def test_a_json_body_labelled_as_something_else_is_415_naming_json(
    server: httpx.Client, path: str, ctype: str
) -> None:
    """JSON sent without its content type ("curl -d '{...}'") was a 422 "body: Input
    should be a valid dictionary", which sends one looking for a wrong field."""
    body = '{"url": "https://a.example/feed", "text": "A 5 GB model runs 3x faster."}'
    r = server.post(path, content=body, headers={"Content-Type": ctype})
    assert r.status_code == 415, r.text
    assert r.headers["content-type"] == "application/problem+json"
    got = r.json()
    assert got["type"].endswith("/unsupported-media-type")
    assert f"content type '{ctype.split(';')[0]}' is not taken" in got["detail"]
    assert "Content-Type: application/json" in got["detail"]
    # Labelled JSON, the same kind of mistake in the body is still a 422 naming it.
    r = server.post(path, content="[]", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "valid dictionary" in r.json()["detail"]


def test_a_compressed_body_is_415_saying_so(server: httpx.Client) -> None:
    """A gzipped feed (Content-Encoding: gzip) was read as it came: "the body does not
    look like an RSS, Atom, RDF or JSON Feed document", of what is a feed."""
    feed = PYTORCH_FEED.read_bytes()
    for path, ctype in [("/webhooks/feed", "application/rss+xml"), ("/feeds", "application/json")]:
        r = server.post(
            path,
            content=gzip.compress(feed),
            headers={"Content-Type": ctype, "Content-Encoding": "gzip"},
        )
        assert r.status_code == 415, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"].endswith("/unsupported-media-type")
        assert "Content-Encoding 'gzip' is not taken" in r.json()["detail"]
    r = server.post(
        "/webhooks/feed",
        content=feed,
        headers={"Content-Type": "application/rss+xml", "Content-Encoding": "identity"},
    )
    assert r.status_code == 202, r.text
    assert server.get("/deliveries").json()["total"] == 1


def test_a_client_gone_mid_body_is_no_server_error(
    server: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    host, port = server.base_url.host, server.base_url.port
    assert port is not None
    with caplog.at_level(logging.INFO):
        with socket.create_connection((host, port)) as sock:
            sock.sendall(
                b"POST /webhooks/feed HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/rss+xml\r\n"
                b"Content-Length: 100000\r\n\r\n<rss version='2.0'><channel>"
            )
            time.sleep(0.3)  # the route is reading the body when the client goes
        assert wait_for(lambda: "client disconnected" in caplog.text, timeout=10)
    assert "unhandled error" not in caplog.text
    assert server.get("/deliveries").json()["total"] == 0  # nothing half-read was stored


def test_readiness_says_the_database_is_unreachable_without_saying_where(
    pg_admin_url: str, pg_url: str
) -> None:
    with api_client(make_settings(pg_url), workers=0) as client:
        assert client.get("/readyz").status_code == 200
        drop_pg_database(pg_admin_url, pg_url)  # the database goes away under the server
        r = client.get("/readyz")
    assert r.status_code == 503
    assert r.json()["checks"]["database"] == "unreachable"
    # The driver's reason (host, port, database name) is for the log, not for anyone.
    assert "5432" not in r.text and "127.0.0.1" not in r.text and "pf_test" not in r.text


def _problem_logs(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == problems.__name__]


@pytest.mark.parametrize("endpoint", ["down", "unreachable"])
def test_a_model_endpoint_failing_is_a_warning_not_a_traceback(
    db_url: str, caplog: pytest.LogCaptureFixture, endpoint: str, closed_port: int
) -> None:
    """A 502 of POST /explain (the model endpoint down: expected in operation) was
    logged at ERROR with a full traceback, as a bug is: one WARNING line now, its causes
    named on it."""
    post = {"title": "Kernels", "text": "The kernel ran faster on the new chip."}
    with StubLLM() as stub:
        url = stub.url if endpoint == "down" else f"http://127.0.0.1:{closed_port}/v1"
        stub.push(Reply.error(503, "the model is down"))
        settings = llm_settings(db_url, url, llm_max_attempts=1)
        with api_client(settings, workers=0) as client, caplog.at_level(logging.INFO):
            r = client.post("/explain", json=post)
    assert r.status_code == 502, r.text
    (record,) = _problem_logs(caplog)
    assert record.levelno == logging.WARNING and record.exc_info is None
    line = record.getMessage()
    assert "\n" not in line and line.startswith("POST /explain: 502 llm-error: ")
    if endpoint == "down":
        assert "LLM endpoint answered 503" in line
        assert "(caused by service.LLMRetryable: " in line
        assert " <- openai.InternalServerError: " in line and "the model is down" in line
    else:
        assert "cannot reach the LLM endpoint" in line
        assert "openai.APIConnectionError: Connection error." in line
        assert ".ConnectError: " in line and "Connection refused" in line


def test_a_bug_is_still_an_error_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """What the service answers 500 (a bug, a broken install) keeps ERROR and its
    traceback; a 4xx is not logged here; a fetch's 502 is the warning line."""
    app = FastAPI()
    problems.install(app)

    @app.get("/bug")
    def bug() -> None:
        try:
            {}["prompt"]
        except KeyError as exc:
            raise TemplateError("prompt 'explain' lacks a variable") from exc

    @app.get("/conflict")
    def conflict() -> None:
        raise Conflict("already published")

    @app.get("/fetch")
    def fetch() -> None:
        try:
            raise OSError("connection refused")
        except OSError as exc:
            raise FetchError("cannot fetch https://x.example/feed") from exc

    with TestClient(app) as client, caplog.at_level(logging.INFO):
        assert client.get("/bug").status_code == 500
        assert client.get("/conflict").status_code == 409
        assert client.get("/fetch").status_code == 502
    bug_log, fetch_log = _problem_logs(caplog)
    assert bug_log.levelno == logging.ERROR and bug_log.exc_info is not None
    assert "KeyError" in caplog.text and "Traceback" in caplog.text
    assert fetch_log.levelno == logging.WARNING and fetch_log.exc_info is None
    assert fetch_log.getMessage() == (
        "GET /fetch: 502 fetch-failed: cannot fetch https://x.example/feed "
        "(caused by OSError: connection refused)"
    )
