"""Guarded HTTP fetching of feeds and article pages.

Every fetch goes through :func:`fetch_url`: httpx with a timeout (per read and for the
whole fetch), a streamed size cap, at most N redirects followed by hand so that each hop
is checked again, conditional GET, a clear User-Agent, and an SSRF guard. The guard
resolves the host once, refuses loopback, private, link-local, multicast and reserved
addresses, and then connects to the address it checked (the Host header and TLS name
stay the original host), so a DNS answer that changes between check and connect cannot
steer the request inside.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass, replace
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

import httpx

from service import clean
from service.config import Settings
from service.errors import FetchError, FetchRefused, FetchTooLarge
from service.models import Article
from service.transport import (
    ACCEPT_ENCODING,
    ResolveBusy,
    Resolver,
    ResolveTimeout,
    deadline,
    deadline_transport,
    decoded,
    resolve,
    system_resolver,
)

FEED_ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, "
    "application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
)
PAGE_ACCEPT = "text/html, application/xhtml+xml;q=0.9, text/markdown;q=0.8, */*;q=0.5"
REDIRECTS = (301, 302, 303, 307, 308)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


@dataclass(frozen=True, slots=True)
class Fetched:
    """The outcome of one fetch (after redirects)."""

    body: bytes
    content_type: str | None
    url: str  # the final URL, after redirects
    status: int
    etag: str | None
    last_modified: str | None
    not_modified: bool  # 304 to a conditional GET: body is empty
    links: tuple[str, ...] = ()  # raw Link header values (WebSub hub discovery)


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_blocked(address: str) -> bool:
    """Whether an IP address is off limits for fetching: anything not globally routable
    (loopback, private, link-local, shared, documentation, unspecified), multicast and
    reserved ranges, also when an IPv4 address hides inside an IPv6 one."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_v4(ip)
        if inner is not None and is_blocked(str(inner)):
            return True
    return not ip.is_global or ip.is_multicast or ip.is_reserved


def private_name(host: str) -> bool:
    """Whether ``host`` is a name that always means this machine or its private network,
    whatever a resolver says of it: "localhost" and any "*.localhost" (RFC 6761), "*.local"
    (mDNS, RFC 6762) and "*.internal" (private use, ICANN). Refused where a URL is
    registered (a subscriber's, a feed's) unless PLAINFEED_ALLOW_PRIVATE_URLS is set.
    "localhost." is localhost: a fully qualified name's final dot changes nothing."""
    name = host.strip("[]").lower().rstrip(".")
    return name == "localhost" or name.endswith((".localhost", ".local", ".internal"))


def resolve_checked(host: str, port: int, resolver: Resolver = system_resolver) -> str:
    """Resolve ``host`` (within the request's deadline, see :func:`transport.resolve`)
    and return an address to connect to; raise :class:`FetchRefused` when any address it
    resolves to is off limits (a name that also points inside is refused as a whole)."""
    try:
        addresses = resolve(host, port, resolver)
    except ResolveTimeout as exc:
        raise FetchError(f"resolving host {host!r} took longer than the time limit") from exc
    except ResolveBusy as exc:  # a name server not answering: tried again later (transient)
        raise FetchError(f"host {host!r} not resolved: {exc.why}") from exc
    except (OSError, UnicodeError) as exc:  # socket.gaierror is an OSError
        raise FetchError(f"cannot resolve host {host!r}: {exc}") from exc
    if not addresses:
        raise FetchError(f"host {host!r} has no address")
    for addr in addresses:
        if is_blocked(addr):
            raise FetchRefused(
                f"refused to fetch from {host} ({addr}): a loopback, private, link-local, "
                "multicast or reserved address (set PLAINFEED_ALLOW_PRIVATE_URLS=1 to allow)",
                url_host=host,
            )
    return addresses[0]


def static_checks(url: str) -> tuple[SplitResult, str]:
    """``url``'s parts and its host as DNS, the Host header and TLS carry it, after the
    guard's checks that need no lookup: http(s), a valid host, a port to connect to, no
    credentials. Raise :class:`FetchRefused` otherwise: such a URL is never fetched or
    sent to, whatever PLAINFEED_ALLOW_PRIVATE_URLS says (a subscriber's is refused
    when it is registered, api/subscribers.py)."""
    try:
        parts = urlsplit(url)
        port_given = parts.port  # a port out of range or not a number raises here
    except ValueError as exc:  # "http://[::1" (unclosed IPv6 bracket), "http://h:99999"
        raise FetchRefused(f"not a valid URL: {url} ({exc})") from exc
    if parts.scheme not in ("http", "https"):
        # "notaurl" has no scheme at all: "not none" would read as nonsense.
        what = f", not {parts.scheme}" if parts.scheme else ""
        raise FetchRefused(f"only http(s) URLs are fetched{what}: {url}")
    if not parts.hostname:
        raise FetchRefused(f"URL has no host: {url}")
    # Port 0 is no port to connect to; read as false, it went to the scheme's port.
    if port_given == 0:
        raise FetchRefused(f"port 0 is no port to connect to: {url}")
    if parts.username or parts.password:
        raise FetchRefused("URLs with credentials are not fetched")
    # The name as DNS, the Host header and TLS carry it: an internationalized name in
    # its IDNA form (xn--...). As typed, "bücher.example" made the Host header non-ASCII
    # and the fetch raise UnicodeEncodeError instead of fetching. Read with private
    # addresses allowed too: "http://a..b/" raised idna's UnicodeError out of the fetch.
    try:
        host = httpx.URL(url).raw_host.decode("ascii")
        host.encode("idna")  # as the resolver will: an empty label ("a..b") fails there
    except httpx.InvalidURL as exc:  # a control character, a DEL (legal in XML)
        raise FetchRefused(f"not a valid URL: {url} ({exc})") from exc
    except UnicodeError as exc:
        raise FetchRefused(f"not a valid host name: {url} ({exc})") from exc
    return parts, host


def pinned(
    url: str, settings: Settings, resolver: Resolver = system_resolver
) -> tuple[str, dict[str, str], dict[str, str]]:
    """(URL to request, extra headers, request extensions) for one hop, after the guard:
    the URL names the address the guard checked (the Host header and TLS SNI keep the
    name), so that a name resolving elsewhere a moment later (DNS rebinding) is not
    followed there. Called in a :func:`deadline` block, the name's resolution ends by
    its deadline."""
    parts, host = static_checks(url)
    if settings.allow_private_urls:
        return url, {}, {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addr = resolve_checked(host, port, resolver)
    ip_host = f"[{addr}]" if ":" in addr else addr
    netloc = f"{ip_host}:{parts.port}" if parts.port else ip_host
    name = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    host_header = f"{name}:{parts.port}" if parts.port else name
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return pinned, {"Host": host_header}, extensions


def check_url(url: str, settings: Settings, resolver: Resolver = system_resolver) -> None:
    """Raise :class:`FetchRefused` when the guard would refuse ``url`` (not http(s), no
    host, credentials, a private address): for a caller that must know before it records
    anything that depends on the URL. A host name is resolved (by ``resolver``) within
    PLAINFEED_FETCH_TIMEOUT, as a fetch's is: past it, a :class:`FetchError` says so."""
    # getaddrinfo takes no timeout: a resolver that did not answer held the command
    # (`feeds subscribe --hub`) for as long as it did, with no word of why.
    with deadline(settings.fetch_timeout):
        try:
            pinned(url, settings, resolver)
        except FetchError as exc:
            if not isinstance(exc.__cause__, ResolveTimeout):
                raise
            raise FetchError(
                f"{exc.detail} (PLAINFEED_FETCH_TIMEOUT={settings.fetch_timeout:g}s)"
            ) from exc


def _client(timeout: float) -> httpx.Client:
    return httpx.Client(
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
        transport=deadline_transport(),
    )


def _read_capped(resp: httpx.Response, url: str, cap: int, end: float) -> bytes:
    declared = resp.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise FetchTooLarge(f"{url} is {declared} bytes, over the {cap}-byte cap")
    chunks: list[bytes] = []
    size = 0
    # The cap counts decoded bytes, each piece as it is made (see decoded).
    for chunk in decoded(resp, url):
        size += len(chunk)
        if size > cap:
            raise FetchTooLarge(f"{url} is over the {cap}-byte cap")
        if time.monotonic() > end:
            raise FetchError(f"fetching {url} took longer than the time limit")
        chunks.append(chunk)
    return b"".join(chunks)


def fetch_url(
    url: str,
    settings: Settings,
    *,
    etag: str | None = None,
    last_modified: str | None = None,
    accept: str = FEED_ACCEPT,
) -> Fetched:
    """GET ``url`` safely. A 304 answer to the conditional GET gives ``not_modified``.

    Raises :class:`FetchRefused` (SSRF guard, scheme), :class:`FetchTooLarge` (cap) and
    :class:`FetchError` (timeout, connection, HTTP status >= 400, too many redirects).
    """
    headers = {
        "User-Agent": settings.user_agent,
        "Accept": accept,
        "Accept-Encoding": ACCEPT_ENCODING,
    }
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    end = time.monotonic() + settings.fetch_timeout
    current = url
    try:
        with deadline(settings.fetch_timeout), _client(settings.fetch_timeout) as client:
            for hop in range(settings.fetch_max_redirects + 1):
                target, extra, extensions = pinned(current, settings)
                request = client.build_request(
                    "GET", target, headers={**headers, **extra}, extensions=extensions
                )
                resp = client.send(request, stream=True)
                try:
                    if resp.status_code in REDIRECTS and resp.headers.get("location"):
                        if hop == settings.fetch_max_redirects:
                            raise FetchError(
                                f"more than {settings.fetch_max_redirects} redirects from {url}"
                            )
                        current = urljoin(current, resp.headers["location"])
                        continue
                    if resp.status_code == 304:
                        return Fetched(
                            b"",
                            resp.headers.get("content-type"),
                            current,
                            304,
                            resp.headers.get("etag") or etag,
                            resp.headers.get("last-modified") or last_modified,
                            not_modified=True,
                            links=tuple(resp.headers.get_list("link")),
                        )
                    if resp.status_code >= 400:
                        raise FetchError(
                            f"HTTP {resp.status_code} from {current}", status=resp.status_code
                        )
                    body = _read_capped(resp, current, settings.fetch_max_bytes, end)
                    return Fetched(
                        body,
                        resp.headers.get("content-type"),
                        current,
                        resp.status_code,
                        resp.headers.get("etag"),
                        resp.headers.get("last-modified"),
                        not_modified=False,
                        links=tuple(resp.headers.get_list("link")),
                    )
                finally:
                    resp.close()
    except httpx.TimeoutException as exc:
        raise FetchError(
            f"timed out after {settings.fetch_timeout:g} s fetching {current}"
        ) from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot fetch {current}: {exc.__class__.__name__}: {exc}") from exc
    except httpx.InvalidURL as exc:
        # No HTTPError: a URL httpx refuses (a control character, a DEL: legal in XML) when
        # no guard read it first (PLAINFEED_ALLOW_PRIVATE_URLS) escaped as a crash, and a
        # delivery whose page budget met one failed whole.
        raise FetchRefused(f"not a valid URL: {current!r} ({exc})") from exc
    raise FetchError(f"more than {settings.fetch_max_redirects} redirects from {url}")


@dataclass(frozen=True, slots=True)
class Posted:
    """A hub's answer to a form POST."""

    status: int
    body: str  # at most 64 KiB, for error messages


def post_form(url: str, data: dict[str, str], settings: Settings) -> Posted:
    """POST a form through the same guard (no redirects followed): WebSub subscription
    requests to a hub."""
    end = time.monotonic() + settings.fetch_timeout
    try:
        with deadline(settings.fetch_timeout), _client(settings.fetch_timeout) as client:
            # Inside the deadline: the hub's name is resolved within it too.
            target, extra, extensions = pinned(url, settings)
            headers = {
                "User-Agent": settings.user_agent,
                "Accept-Encoding": ACCEPT_ENCODING,
                **extra,
            }
            request = client.build_request(
                "POST", target, data=data, headers=headers, extensions=extensions
            )
            resp = client.send(request, stream=True)
            try:
                try:
                    body = _read_capped(resp, url, 64 * 1024, end)
                except FetchTooLarge:
                    body = b""
            finally:
                resp.close()
            return Posted(resp.status_code, body.decode("utf-8", errors="replace"))
    except httpx.TimeoutException as exc:
        raise FetchError(f"timed out after {settings.fetch_timeout:g} s posting to {url}") from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot post to {url}: {exc.__class__.__name__}: {exc}") from exc
    except httpx.InvalidURL as exc:
        raise FetchRefused(f"not a valid URL: {url!r} ({exc})") from exc


# --- article pages -----------


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def main_content(html: bytes) -> str:
    """The cleaned text of a page's main content. readability-lxml picks the main content
    (its scoring drops navigation, sidebars, share widgets and footers) and hands back
    that part of the page's own HTML, which :func:`clean.clean_html` turns into the
    cleaned-text format, tables and inline code intact. (trafilatura, also measured, turns
    inline ``<code>`` into code blocks and splits sentences: bench/README.md, Webhooks.)"""
    from readability import Document  # imported here: only page fetches need it

    # Decoded as every document is (UTF-8, a <meta> charset, else windows-1252): given
    # bytes, readability sent a page that is no UTF-8 and names no charset to chardet,
    # whose scan takes time growing with the square of the longest run of letters.
    text = clean.decode_document(html)
    try:
        summary = Document(text).summary(html_partial=True)
    except Exception:  # readability raises bare exceptions on pages it cannot score
        return ""
    return clean.clean_html(summary)


def article_from_page(body: bytes, content_type: str | None, url: str) -> Article:
    """An article from a fetched page (pure): HTML through the main-content extractor,
    Markdown and plain text through the cleaner. Raises :class:`Unprocessable` for a page
    without text."""
    mt = _media_type(content_type)
    kind: clean.DocumentKind = "html"
    if mt in ("text/markdown", "text/x-markdown"):
        kind = "md"
    elif mt == "text/plain":
        kind = "text"
    # The whole document gives the title, author and date (meta tags), and the text when
    # the extractor finds no main content.
    whole = clean.article_from_document(body, kind=kind, url=url)
    text = main_content(body) if kind == "html" else ""
    return Article(
        title=whole.title,
        text=text if text.strip() else whole.text,
        url=url,
        author=whole.author,
        site_name=whole.site_name,
        published=whole.published,
        content_source="page",
    )


def fetch_article(url: str, settings: Settings) -> Article:
    """Fetch an article page and extract its main content (``content_source="page"``)."""
    got = fetch_url(url, settings, accept=PAGE_ACCEPT)
    return article_from_page(got.body, got.content_type, got.url)


def page_or_excerpt(link: str, excerpt: Article, settings: Settings) -> tuple[Article, str | None]:
    """An excerpt-only entry's post as its page at ``link`` has it (``content_source=
    "page"``); the excerpt (``"feed"``) and why, when the page has less text. Raises what
    fetching raises: the caller decides whether to keep the excerpt or try later."""
    page = fetch_article(link, settings)
    if page.words < excerpt.words:
        kept = replace(excerpt, content_source="feed")
        return kept, f"page {link} had less text than the excerpt; kept the excerpt"
    return (
        Article(
            title=excerpt.title or page.title,
            text=page.text,
            url=link,
            author=excerpt.author or page.author,
            # No site_name: the item is stored without it, and explained again from the
            # store; its feed's title is its context.
            published=excerpt.published,
            content_source="page",
        ),
        None,
    )


def transient(exc: FetchError) -> bool:
    """Whether a failed fetch may work a moment later: a timeout, a connection that
    failed, an origin answering 408, 429 or 5xx. (A refused URL, a document over the cap,
    another 4xx answer do not change by asking again.)"""
    if isinstance(exc, FetchRefused | FetchTooLarge):
        return False
    status = exc.extra.get("status")
    return status is None or status in (408, 429) or (isinstance(status, int) and status >= 500)
