"""Guarded fetching against real HTTP servers on loopback: conditional GET, redirects,
size cap, timeouts, the SSRF guard, and main-content extraction of article pages."""

from __future__ import annotations

import gzip
import resource
import socket
import threading
import time
import zlib
from pathlib import Path

import httpx
import pytest

from service import fetch
from service.config import Settings
from service.errors import FetchError, FetchRefused, FetchTooLarge, Unprocessable
from tests.conftest import DATA, PYTORCH_FEED, make_settings
from tests.origin import Origin, raw_origin

PAGE = DATA / "webhooks" / "article-page.html"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(f"sqlite:///{tmp_path / 'x.db'}", fetch_timeout=5.0)


def test_fetch_a_feed_with_its_validators_and_user_agent(
    origin: Origin, settings: Settings
) -> None:
    body = PYTORCH_FEED.read_bytes()
    url = origin.route(
        "/blog/feed/",
        body=body,
        headers={"Content-Type": "application/rss+xml; charset=UTF-8"},
        etag='"d5d35b0f"',
        last_modified="Wed, 21 Oct 2026 20:09:11 GMT",
    )
    got = fetch.fetch_url(url, settings)
    assert got.body == body
    assert got.status == 200 and not got.not_modified
    assert got.etag == '"d5d35b0f"'
    assert got.last_modified == "Wed, 21 Oct 2026 20:09:11 GMT"
    assert got.content_type == "application/rss+xml; charset=UTF-8"
    seen = origin.requests_to("/blog/feed/")[0]
    assert seen.headers["user-agent"] == settings.user_agent
    assert "application/rss+xml" in seen.headers["accept"]


def test_conditional_get_answers_not_modified(origin: Origin, settings: Settings) -> None:
    url = origin.route("/feed", body=b"<rss/>", etag='"v1"', last_modified="Tue, 01 Sep 2026")
    got = fetch.fetch_url(url, settings, etag='"v1"', last_modified="Tue, 01 Sep 2026")
    assert got.not_modified and got.status == 304 and got.body == b""
    assert got.etag == '"v1"'
    seen = origin.requests_to("/feed")[0]
    assert seen.headers["if-none-match"] == '"v1"'
    assert seen.headers["if-modified-since"] == "Tue, 01 Sep 2026"
    # A changed validator gets the document again.
    assert not fetch.fetch_url(url, settings, etag='"v0"').not_modified


def test_redirects_are_followed_up_to_five(origin: Origin, settings: Settings) -> None:
    origin.route("/final", body=b"<rss/>", headers={"Content-Type": "application/rss+xml"})
    for i in range(5):
        target = "/final" if i == 4 else f"/hop{i + 1}"
        origin.route(f"/hop{i}", status=301 if i % 2 else 302, headers={"Location": target})
    got = fetch.fetch_url(origin.url + "/hop0", settings)
    assert got.body == b"<rss/>"
    assert got.url == origin.url + "/final"


def test_a_sixth_redirect_is_refused(origin: Origin, settings: Settings) -> None:
    for i in range(7):
        origin.route(f"/r{i}", status=307, headers={"Location": f"/r{i + 1}"})
    origin.route("/r7", body=b"<rss/>")
    with pytest.raises(FetchError, match="more than 5 redirects"):
        fetch.fetch_url(origin.url + "/r0", settings)
    assert len(origin.seen) == 6  # the first request and five redirects, no more


def test_http_errors_name_the_status(origin: Origin, settings: Settings) -> None:
    origin.route("/gone", status=410, body=b"gone")
    with pytest.raises(FetchError, match="HTTP 404") as missing:
        fetch.fetch_url(origin.url + "/missing", settings)
    assert missing.value.extra["status"] == 404
    with pytest.raises(FetchError, match="HTTP 410"):
        fetch.fetch_url(origin.url + "/gone", settings)


def test_size_cap_by_content_length(origin: Origin, settings: Settings) -> None:
    url = origin.route("/big", body=b"x" * (settings.fetch_max_bytes + 1))
    with pytest.raises(FetchTooLarge, match="over the 10485760-byte cap"):
        fetch.fetch_url(url, settings)


def test_size_cap_while_streaming_without_content_length(
    origin: Origin, settings: Settings
) -> None:
    url = origin.route("/stream", body=b"y" * (settings.fetch_max_bytes + 70_000), chunked=True)
    with pytest.raises(FetchTooLarge):
        fetch.fetch_url(url, settings)
    exact = origin.route("/exact", body=b"z" * settings.fetch_max_bytes, chunked=True)
    assert len(fetch.fetch_url(exact, settings).body) == settings.fetch_max_bytes


def test_the_cap_counts_decompressed_bytes(origin: Origin, tmp_path: Path) -> None:
    small = make_settings(f"sqlite:///{tmp_path / 'y.db'}", fetch_max_bytes=100_000)
    bomb = gzip.compress(b"\0" * 5_000_000)  # ~5 KB on the wire, 5 MB unpacked
    url = origin.route("/bomb", body=bomb, headers={"Content-Encoding": "gzip"})
    with pytest.raises(FetchTooLarge):
        fetch.fetch_url(url, small)


def test_timeout(origin: Origin, tmp_path: Path) -> None:
    quick = make_settings(f"sqlite:///{tmp_path / 'z.db'}", fetch_timeout=0.3)
    url = origin.route("/slow", body=b"<rss/>", delay=1.5)
    with pytest.raises(FetchError, match="timed out"):
        fetch.fetch_url(url, quick)


def test_connection_refused_is_a_fetch_error(settings: Settings) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchError, match="cannot fetch"):
        fetch.fetch_url(f"http://127.0.0.1:{port}/feed", settings)


# --- the SSRF guard -----------


def test_loopback_is_refused_unless_private_urls_are_allowed(
    origin: Origin, tmp_path: Path
) -> None:
    url = origin.route("/feed", body=b"<rss/>")
    strict = make_settings(f"sqlite:///{tmp_path / 's.db'}", allow_private_urls=False)
    with pytest.raises(FetchRefused, match=r"127\.0\.0\.1"):
        fetch.fetch_url(url, strict)
    assert origin.seen == []  # refused before any connection
    lenient = make_settings(f"sqlite:///{tmp_path / 'l.db'}", allow_private_urls=True)
    assert fetch.fetch_url(url, lenient).body == b"<rss/>"


@pytest.mark.parametrize("private", [False, True])
def test_a_host_name_idna_refuses_is_refused_as_no_valid_host(
    tmp_path: Path, private: bool
) -> None:
    # An empty label: the idna codec raises UnicodeError, which left fetch_url as it was
    # where private addresses are allowed (no guard read the name first).
    settings = make_settings(f"sqlite:///{tmp_path / 'h.db'}", allow_private_urls=private)
    with pytest.raises(FetchRefused, match="not a valid host name"):
        fetch.fetch_url("http://a..b/posts/odd", settings)


def test_a_name_that_resolves_inside_is_refused(
    origin: Origin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The resolver's answer is what counts, not how the URL is spelled (DNS rebinding).
    real = socket.getaddrinfo

    def resolver(host: str, *args: object, **kw: object) -> object:
        if host == "feeds.example.com":
            return real("127.0.0.1", *args, **kw)  # type: ignore[arg-type]
        return real(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    strict = make_settings(f"sqlite:///{tmp_path / 's.db'}", allow_private_urls=False)
    with pytest.raises(FetchRefused):
        fetch.fetch_url(f"http://feeds.example.com:{origin.url.rsplit(':', 1)[1]}/f", strict)
    assert origin.seen == []


@pytest.mark.parametrize("private", [True, False], ids=["by-the-transport", "by-the-guard"])
def test_a_slow_resolver_cannot_hold_a_fetch_past_its_time_limit(
    origin: Origin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private: bool
) -> None:
    # getaddrinfo takes no timeout: the guard resolved the name before the fetch's clock
    # was looked at, and with private URLs allowed the connect resolved it unbounded.
    release = threading.Event()
    real = socket.getaddrinfo

    def resolver(host: str, *args: object, **kw: object) -> object:
        if host == "slow.example":
            release.wait(30)
            host = "127.0.0.1"
        return real(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    settings = make_settings(
        f"sqlite:///{tmp_path / 'r.db'}", allow_private_urls=private, fetch_timeout=0.5
    )
    port = origin.url.rsplit(":", 1)[1]
    began = time.monotonic()
    try:
        with pytest.raises(FetchError, match=r"time limit|timed out"):
            fetch.fetch_url(f"http://slow.example:{port}/f", settings)
    finally:
        release.set()
    assert time.monotonic() - began < 2  # not the 30 s the resolver takes
    assert origin.seen == []


@pytest.mark.parametrize(
    ("url", "asked", "host"),
    [
        ("https://bücher.example/feed", "xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("http://Straße.example:8080/f", "xn--strae-oqa.example", "xn--strae-oqa.example:8080"),
        ("http://[2606:4700::1111]:8080/f", "2606:4700::1111", "[2606:4700::1111]:8080"),
    ],
)
def test_the_guard_sends_a_name_as_dns_and_http_carry_it(
    url: str, asked: str, host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An internationalized name is resolved, sent (Host) and named to TLS (SNI) in its
    # IDNA form; nothing is connected to here (the resolver answers a public address).
    seen: list[str] = []

    def resolver(name: str, port: int, *args: object, **kw: object) -> object:
        seen.append(name)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("1.1.1.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    strict = make_settings(f"sqlite:///{tmp_path / 'i.db'}", allow_private_urls=False)
    target, headers, extensions = fetch.pinned(url, strict)
    assert seen == [asked]
    assert headers == {"Host": host}
    assert target.split("/")[2].startswith("1.1.1.1")
    if url.startswith("https"):
        assert extensions == {"sni_hostname": asked}
    # What httpx is given is a request it can send (it raised UnicodeEncodeError).
    with httpx.Client() as client:
        client.build_request("GET", target, headers=headers, extensions=extensions)


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.com/feed", "gopher://x/", "http://user:pw@host/feed"],
)
def test_other_schemes_and_credentials_are_refused(url: str, tmp_path: Path) -> None:
    strict = make_settings(f"sqlite:///{tmp_path / 's.db'}", allow_private_urls=False)
    with pytest.raises(FetchRefused):
        fetch.fetch_url(url, strict)


@pytest.mark.parametrize(
    ("address", "blocked"),
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("172.16.0.9", True),
        ("192.168.1.1", True),
        ("169.254.169.254", True),  # cloud metadata
        ("100.64.0.1", True),  # carrier-grade NAT
        ("0.0.0.0", True),
        ("224.0.0.251", True),  # multicast
        ("240.0.0.1", True),  # reserved
        ("::1", True),
        ("fe80::1", True),
        ("fc00::1", True),
        ("ff02::1", True),
        ("::ffff:127.0.0.1", True),  # IPv4-mapped loopback
        ("64:ff9b::a9fe:a9fe", True),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::", True),  # 6to4 of 127.0.0.1
        ("8.8.8.8", False),
        ("151.101.1.69", False),
        ("2606:4700::6810:84e5", False),
    ],
)
def test_blocked_ranges(address: str, blocked: bool) -> None:
    assert fetch.is_blocked(address) is blocked


# --- article pages -----------


def test_article_page_main_content_keeps_tables_and_drops_the_chrome(
    origin: Origin, settings: Settings
) -> None:
    url = origin.route(
        "/blog/fp8/", body=PAGE.read_bytes(), headers={"Content-Type": "text/html; charset=utf-8"}
    )
    art = fetch.fetch_article(url, settings)
    assert art.content_source == "page"
    assert art.title == "FP8 Training on AMD GPUs with TorchTitan and TorchAO"
    assert art.url == url
    # The post's numbers, including those only in its tables, are in the text.
    assert "13.4% throughput gain over BF16 on Llama3-8B" in art.text
    assert "| Workload | Optimization | Result | PR |" in art.text
    assert "| Llama3-8B (dense) | Rowwise FP8 vs BF16 | +13.4% throughput | #2736 |" in art.text
    # Navigation, share widgets, sidebar and footer are not the article.
    for chrome in ("Get Started", "Share this post", "Latest posts", "Letterman", "newsletter"):
        assert chrome not in art.text
    seen = origin.requests_to("/blog/fp8/")[0]
    assert "text/html" in seen.headers["accept"]


def test_article_page_in_markdown(origin: Origin, settings: Settings) -> None:
    md = b"# Release notes\n\nVersion 2.14 is 1.5x faster.\n\n- one\n- two\n"
    url = origin.route("/notes.md", body=md, headers={"Content-Type": "text/markdown"})
    art = fetch.fetch_article(url, settings)
    assert art.content_source == "page"
    assert "Version 2.14 is 1.5x faster." in art.text


def test_article_page_without_text_is_unprocessable(origin: Origin, settings: Settings) -> None:
    url = origin.route(
        "/empty",
        body=b"<html><body><script>track()</script></body></html>",
        headers={"Content-Type": "text/html"},
    )
    with pytest.raises(Unprocessable, match="no text"):
        fetch.fetch_article(url, settings)


def test_an_origin_dripping_its_headers_is_cut_off_at_the_time_limit(tmp_path: Path) -> None:
    quick = make_settings(f"sqlite:///{tmp_path / 'd.db'}", fetch_timeout=1.0)

    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(100):  # a header line every 0.2 s: no single read ever times out
            conn.sendall(b"X-Slow: 1\r\n")
            time.sleep(0.2)

    with raw_origin(drip) as url:
        started = time.monotonic()
        with pytest.raises(FetchError, match="timed out"):
            fetch.fetch_url(url, quick)
        # Cut at about 1 s; the whole drip takes 20 s: room for a loaded machine.
        assert time.monotonic() - started < 8


def test_stacked_compression_is_unpacked_no_further_than_the_cap(tmp_path: Path) -> None:
    small = make_settings(f"sqlite:///{tmp_path / 'b.db'}", fetch_max_bytes=100_000)
    # 1 GiB of zeros gzipped twice: about 1 KB on the wire. Unpacked layer by layer in
    # whole chunks it would take gigabytes of memory before the cap could count.
    inner = zlib.compressobj(9, zlib.DEFLATED, 31)
    layer = b"".join(inner.compress(b"\0" * (1 << 20)) for _ in range(1024)) + inner.flush()
    bomb = gzip.compress(layer, 9)
    assert len(bomb) < 5_000

    def answer(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n"
            b"Content-Encoding: gzip, gzip\r\n"
            + f"Content-Length: {len(bomb)}\r\n\r\n".encode()
            + bomb
        )

    with raw_origin(answer) as url:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with pytest.raises(FetchTooLarge):
            fetch.fetch_url(url, small)
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 100 * 1024


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate", "gzip-members"])
def test_compressed_feeds_are_read_whole(coding: str, tmp_path: Path) -> None:
    body = PYTORCH_FEED.read_bytes()
    if coding == "gzip":
        wire, header = gzip.compress(body), "gzip"
    elif coding == "deflate":
        wire, header = zlib.compress(body), "deflate"
    elif coding == "raw-deflate":  # what some servers send as "deflate"
        raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        wire, header = raw.compress(body) + raw.flush(), "deflate"
    else:
        half = len(body) // 2
        wire, header = gzip.compress(body[:half]) + gzip.compress(body[half:]), "gzip"

    def answer(conn: socket.socket) -> None:
        conn.sendall(
            f"HTTP/1.1 200 OK\r\nContent-Encoding: {header}\r\n"
            f"Content-Length: {len(wire)}\r\n\r\n".encode()
            + wire
        )

    settings = make_settings(f"sqlite:///{tmp_path / 'c.db'}")
    with raw_origin(answer) as url:
        assert fetch.fetch_url(url, settings).body == body


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@pytest.mark.parametrize("framing", ["close", "chunked"])
def test_a_compressed_body_cut_short_is_a_transient_fetch_error(
    coding: str, framing: str, tmp_path: Path
) -> None:
    # An origin that died mid-body on a connection whose close ends the body (no
    # Content-Length), or a proxy that ended its chunks: the coding's own end never came.
    # Taken whole, half a page was stored and explained as the post.
    page = PAGE.read_bytes()
    whole = gzip.compress(page) if coding == "gzip" else zlib.compress(page)
    wire = whole[: len(whole) // 2]
    framed = wire if framing == "close" else b"%x\r\n%s\r\n0\r\n\r\n" % (len(wire), wire)
    head = "Connection: close" if framing == "close" else "Transfer-Encoding: chunked"

    def answer(conn: socket.socket) -> None:
        conn.sendall(
            f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {coding}\r\n"
            f"{head}\r\n\r\n".encode()
            + framed
        )

    settings = make_settings(f"sqlite:///{tmp_path / 'c.db'}")
    with raw_origin(answer) as url, pytest.raises(FetchError, match="cut short") as raised:
        fetch.fetch_url(url, settings)
    assert fetch.transient(raised.value)


def test_a_content_coding_not_asked_for_is_a_fetch_error(
    origin: Origin, settings: Settings
) -> None:
    url = origin.route("/br", body=b"\x0b\x02\x80<rss/>\x03", headers={"Content-Encoding": "br"})
    with pytest.raises(FetchError, match="content coding not asked for: br"):
        fetch.fetch_url(url, settings)
    assert origin.requests_to("/br")[0].headers["accept-encoding"] == "gzip, deflate"


def test_a_page_that_is_no_utf8_and_names_no_charset_is_read_in_linear_time() -> None:
    """readability, given the page's bytes, sent a page that is not UTF-8 and names no
    charset to chardet, whose scan takes time growing with the square of the longest run
    of letters (12,000 letters: ~20 s; a long one, hours of a worker). The bytes are read
    as every document is (clean.decode_document: UTF-8, else windows-1252)."""
    page = b"<html><body><p>Caf\xe9 " + b"a" * 12_000 + b" runs 1.5x faster.</p></body></html>"
    began = time.monotonic()
    article = fetch.article_from_page(page, "text/html", "https://cafe.example/post")
    assert time.monotonic() - began < 5  # was ~20 s; linear, it is milliseconds
    assert article.text.startswith("Café aaa") and "1.5x faster" in article.text
