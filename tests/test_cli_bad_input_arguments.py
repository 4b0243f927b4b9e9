"""Bad input on the command line: a one-line message on stderr and exit status 2, never a
traceback: ids, numbers, URLs, feeds' names and secrets, hubs and subscriptions.

Each case runs ``plainfeed`` as a real process, as a user or a script would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import assert_bad_input, boxed, plainfeed

pytestmark = pytest.mark.slow


def test_ids_beyond_what_the_tables_hold(tmp_path: Path) -> None:
    assert_bad_input(plainfeed(tmp_path, "items", "retry", "99999999999999999999"), "item_id")


def test_a_list_limit_beyond_what_the_tables_hold(tmp_path: Path) -> None:
    # Was an OverflowError traceback from the driver.
    done = plainfeed(tmp_path, "items", "list", "--limit", "99999999999999999999")
    assert_bad_input(done, "--limit")
    assert plainfeed(tmp_path, "items", "list", "--limit", str(2**31 - 1)).returncode == 0


@pytest.mark.parametrize("raw", [" 1", "1 ", "+1", "1_0", "1.0", "\u00b2", "0x1"])
@pytest.mark.parametrize(
    "args",
    [
        ("items", "show", "{}"),
        ("items", "retry", "{}"),
        ("items", "list", "--feed", "{}"),
        ("items", "list", "--limit", "{}"),
        ("deliveries", "retry", "{}"),
        ("feeds", "remove", "{}"),
        ("worker", "--concurrency", "{}"),
        ("serve", "--port", "{}"),
    ],
)
def test_a_number_not_written_in_digits_alone_is_refused(
    tmp_path: Path, args: tuple[str, ...], raw: str
) -> None:
    # Typer reads an int as pydantic does: "items show ' 1'" showed item 1, "--feed 1_0"
    # filtered by feed 10, "--limit +1" listed one, "serve --port ' 80'" served on 80.
    done = plainfeed(tmp_path, *(a.format(raw) for a in args))
    assert_bad_input(done, "Invalid value")
    assert "digits 0-9 alone" in boxed(done.stderr)
    assert done.stdout == ""


def test_a_number_past_its_range_is_refused_without_echoing_all_of_it(tmp_path: Path) -> None:
    done = plainfeed(tmp_path, "items", "show", "9" * 5000)
    assert_bad_input(done, "Invalid value")
    assert "is not in the range 1 to 2147483647" in boxed(done.stderr)
    assert "9" * 100 not in done.stderr
    assert_bad_input(plainfeed(tmp_path, "items", "list", "--limit", "0"), "--limit")
    # Leading zeros are still the number, however many (int() refuses over 4300 digits).
    assert plainfeed(tmp_path, "items", "list", "--limit", "007").returncode == 0
    assert plainfeed(tmp_path, "items", "list", "--limit", "0" * 5000 + "7").returncode == 0


def test_a_title_search_longer_than_the_api_takes_is_refused(tmp_path: Path) -> None:
    # GET /items?q= refuses over 200 characters (422); the command line searched them.
    done = plainfeed(tmp_path, "items", "list", "-q", "x" * 201)
    assert_bad_input(done, "--search/-q has at most 200 characters")
    assert done.stdout == ""
    assert plainfeed(tmp_path, "items", "list", "-q", "x" * 200).returncode == 0


@pytest.mark.parametrize("url", ["http://[::1", "http://example.com:99999/feed"])
def test_malformed_urls(tmp_path: Path, url: str) -> None:
    assert_bad_input(plainfeed(tmp_path, "explain", url), "not a valid URL")
    assert_bad_input(plainfeed(tmp_path, "feeds", "add", url), "not a valid URL")
    assert plainfeed(tmp_path, "feeds", "list").stdout == ""


def test_a_feed_secret_as_short_as_the_api_refuses(tmp_path: Path) -> None:
    url = "https://example.com/feed.xml"
    short = plainfeed(tmp_path, "feeds", "add", url, "--secret", "short")
    assert_bad_input(short, "a webhook secret has 8 to 512 characters")
    assert plainfeed(tmp_path, "feeds", "list").stdout == ""
    assert plainfeed(tmp_path, "feeds", "add", url, "--secret", "long-enough").stdout == "1\n"


def test_a_feed_name_already_taken_is_refused(tmp_path: Path) -> None:
    """As POST /feeds: a change record names its feed by name, so two feeds may not
    share one."""
    first = plainfeed(tmp_path, "feeds", "add", "https://a.example/feed", "--name", "blog")
    assert first.stdout == "1\n", first.stderr
    again = plainfeed(tmp_path, "feeds", "add", "https://b.example/feed", "--name", "blog")
    assert_bad_input(again, "feed 1 is already named 'blog'")
    assert plainfeed(tmp_path, "feeds", "list").stdout == "1\thttps://a.example/feed\tblog\n"


def test_a_hub_that_is_no_url_is_named_plainly(tmp_path: Path) -> None:
    assert plainfeed(tmp_path, "feeds", "add", "https://a.example/feed").returncode == 0
    done = plainfeed(tmp_path, "feeds", "subscribe", "1", "--hub", "notaurl")
    assert_bad_input(done, "only http(s) URLs are fetched: notaurl")  # not "not none: "
    done = plainfeed(tmp_path, "feeds", "subscribe", "1", "--hub", "ftp://hub.example/")
    assert_bad_input(done, "only http(s) URLs are fetched, not ftp: ftp://hub.example/")


def test_a_subscription_without_a_public_address_is_refused(tmp_path: Path) -> None:
    # The callback was built on the default http://127.0.0.1:8000: a hub elsewhere could
    # never verify it, and the feed sat pending-subscribe.
    assert plainfeed(tmp_path, "feeds", "add", "https://a.example/feed").returncode == 0
    allow = {"PLAINFEED_ALLOW_PRIVATE_URLS": "1"}
    done = plainfeed(
        tmp_path, "feeds", "subscribe", "1", "--hub", "http://127.0.0.1:9/hub", env=allow
    )
    assert_bad_input(done, "set PLAINFEED_PUBLIC_URL to the address the hub reaches")


@pytest.mark.parametrize(
    "args",
    [("explain", "post.txt", "--engine", "llm"), ("serve", "--port", "0"), ("worker",)],
)
def test_the_llm_engine_without_an_endpoint_is_a_bad_setting(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """PLAINFEED_ENGINE=llm (or --engine llm) and neither OPENAI_BASE_URL nor
    OPENAI_API_KEY: refused at once, as POST /explain refuses it. explain tried OpenAI's
    host four times, then 'cannot reach'; serve and worker started, and every post waited
    on that host for ever."""
    (tmp_path / "post.txt").write_text("The new kernel is 1.10x faster on 8 GPUs.\n")
    done = plainfeed(tmp_path, *args, env={"PLAINFEED_ENGINE": "llm"})
    assert_bad_input(done, "the llm engine has no endpoint: set OPENAI_BASE_URL")
    assert "cannot reach" not in done.stderr


def test_a_feed_url_is_written_as_post_feeds_writes_it(tmp_path: Path) -> None:
    """``feeds add`` kept the URL as typed while POST /feeds normalises it (host in lower
    case, "/" for an empty path, spaces escaped): one feed could be registered twice."""
    assert plainfeed(tmp_path, "feeds", "add", "https://Blog.Example").stdout == "1\n"
    again = plainfeed(tmp_path, "feeds", "add", "https://blog.example/")
    assert_bad_input(again, "a feed with url https://blog.example/ is already registered")
    assert plainfeed(tmp_path, "feeds", "add", "https://blog.example/a b").stdout == "2\n"
    listed = plainfeed(tmp_path, "feeds", "list").stdout
    assert listed == "1\thttps://blog.example/\t\n2\thttps://blog.example/a%20b\t\n"
    long_name = plainfeed(tmp_path, "feeds", "add", "https://c.example/", "--name", "n" * 600)
    assert_bad_input(long_name, "name: String should have at most 512 characters")


def test_a_feed_url_is_registered_without_its_fragment(tmp_path: Path) -> None:
    """A "#fragment" names a place in the document, not another resource (RFC 3986
    3.5): "https://blog.example/feed#top" was a second feed of the same document."""
    assert plainfeed(tmp_path, "feeds", "add", "https://blog.example/feed#top").stdout == "1\n"
    for again in (
        "https://blog.example/feed",
        "https://blog.example/feed#",
        "https://blog.example/feed#x",
    ):
        done = plainfeed(tmp_path, "feeds", "add", again)
        assert_bad_input(done, "a feed with url https://blog.example/feed is already registered")
    assert plainfeed(tmp_path, "feeds", "list").stdout == "1\thttps://blog.example/feed\t\n"


def test_a_feed_on_a_private_address_is_refused_unless_private_urls_are_allowed(
    tmp_path: Path,
) -> None:
    """As POST /feeds: registered, the feed was refused on each fetch."""
    for url in ("http://10.0.0.1/feed", "http://[::1]/", "http://169.254.169.254/"):
        done = plainfeed(tmp_path, "feeds", "add", url)
        assert_bad_input(done, "is a loopback, private, link-local, multicast or reserved")
        assert "PLAINFEED_ALLOW_PRIVATE_URLS" in done.stderr
    assert plainfeed(tmp_path, "feeds", "list").stdout == ""
    allow = {"PLAINFEED_ALLOW_PRIVATE_URLS": "1"}
    done = plainfeed(tmp_path, "feeds", "add", "http://127.0.0.1:8080/rss", env=allow)
    assert done.stdout == "1\n", done.stderr


def test_a_feed_on_a_private_name_is_refused_unless_private_urls_are_allowed(
    tmp_path: Path,
) -> None:
    """As POST /feeds and a subscriber's URL: "localhost" and "*.local" always name this
    machine or its network; registered, the feed was refused or failed on each fetch."""
    for url in ("http://localhost:8080/rss", "http://nas.local/feed", "http://a.internal/"):
        done = plainfeed(tmp_path, "feeds", "add", url)
        assert_bad_input(done, "is a name of this machine or its private network")
        assert "PLAINFEED_ALLOW_PRIVATE_URLS" in done.stderr
    assert plainfeed(tmp_path, "feeds", "list").stdout == ""
    allow = {"PLAINFEED_ALLOW_PRIVATE_URLS": "1"}
    done = plainfeed(tmp_path, "feeds", "add", "http://localhost:8080/rss", env=allow)
    assert done.stdout == "1\n", done.stderr
