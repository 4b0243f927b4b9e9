"""Bad input on the command line: a one-line message on stderr and exit status 2, never a
traceback, a hang, a garbage explainer or a check that passes on nothing.

Each case runs ``plainfeed`` as a real process, as a user or a script would.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import taken_port

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
FLYDSL = DATA / "corpus" / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
CASES = ROOT / "eval" / "cases"

pytestmark = pytest.mark.slow

# Random-looking bytes (an image, a PDF stream, an archive), the same on every run.
BINARY = bytes((i * 7919 + (i >> 3) * 104729) % 256 for i in range(8192))


def plainfeed(
    tmp_path: Path, *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PLAINFEED_", "OPENAI_"))},
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "PLAINFEED_ENGINE": "extractive",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "service", *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        cwd=tmp_path,
    )


def assert_bad_input(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    # Progress lines may come first; the error is the last line (or click's usage box).
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("plainfeed: error:") or "Invalid value" in done.stderr
    assert message in done.stderr, done.stderr


def boxed(stderr: str) -> str:
    """The text of click's error box, its lines joined (it wraps at 80 columns)."""
    return " ".join(re.sub("[\u2500-\u257f]", " ", stderr).split())


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PLAINFEED_CONCURRENCY", "abc", "PLAINFEED_CONCURRENCY='abc'"),
        ("PLAINFEED_ENGINE", "gpt", "PLAINFEED_ENGINE='gpt'"),
        ("PLAINFEED_FETCH_TIMEOUT", "-1", "PLAINFEED_FETCH_TIMEOUT='-1'"),
        ("PLAINFEED_PRICES", "cheap", "PLAINFEED_PRICES is not valid JSON"),
        ("PLAINFEED_PRICES", '{"m": [-1, 2]}', "PLAINFEED_PRICES: Input should be greater"),
        ("PLAINFEED_LLM_BACKOFF_MAX", "-1", "PLAINFEED_LLM_BACKOFF_MAX='-1'"),
        ("PLAINFEED_LLM_BACKOFF_INITIAL", "-1", "PLAINFEED_LLM_BACKOFF_INITIAL='-1'"),
        ("PLAINFEED_LLM_MAX_OUTPUT_TOKENS", "0", "PLAINFEED_LLM_MAX_OUTPUT_TOKENS='0'"),
        ("PLAINFEED_BACKOFF_BASE", "nan", "PLAINFEED_BACKOFF_BASE='nan'"),
        ("PLAINFEED_CIRCUIT_THRESHOLD", "0", "PLAINFEED_CIRCUIT_THRESHOLD='0'"),
        ("PLAINFEED_SHUTDOWN_GRACE", "1e300", "less than or equal to 86400"),
        ("PLAINFEED_LEASE_SECONDS", "1", "greater than or equal to 2"),
        ("PLAINFEED_MAX_ATTEMPTS", "9" * 30, "less than or equal to 100"),
        ("PLAINFEED_CONCURRENCY", "100000", "less than or equal to 256"),
        ("PLAINFEED_LOG_LEVEL", "LOUD", "PLAINFEED_LOG_LEVEL='LOUD': Value error, not a logging"),
        # Every Atom link and the WebSub callback are built on it: "host/items/1" is none.
        ("PLAINFEED_PUBLIC_URL", "news.example.org", "PLAINFEED_PUBLIC_URL='news.example.org'"),
        ("PLAINFEED_PUBLIC_URL", "ftp://news.example.org", "an http(s) URL"),
        ("PLAINFEED_PUBLIC_URL", "https://news.example.org/?a=1", "no query or fragment"),
        # A mistyped folder: the offline engine went on without its glossary, silently.
        ("PLAINFEED_PROMPTS_DIR", "/no/such/prompts", "PLAINFEED_PROMPTS_DIR='/no/such/prompts'"),
    ],
)
def test_a_setting_of_the_wrong_type_names_the_variable(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    source = tmp_path / "post.md"
    source.write_text("# Post\n\nIt runs 1.5x faster on 8 GPUs.\n")
    done = plainfeed(tmp_path, "explain", source, env={variable: value})
    assert_bad_input(done, message)


def test_a_dot_env_that_is_not_utf8_is_a_bad_setting_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"PLAINFEED_ENGINE=\xff\n")
    done = plainfeed(tmp_path, "items", "list")
    assert_bad_input(done, f"bad setting: {tmp_path / '.env'} is not UTF-8 text")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_dot_env_that_cannot_be_read_is_a_bad_setting_naming_the_file(tmp_path: Path) -> None:
    # A regular file by stat (so it is read) whose reading fails with EIO.
    (tmp_path / ".env").symlink_to("/proc/self/mem")
    done = plainfeed(tmp_path, "items", "list")
    assert_bad_input(done, f"bad setting: cannot read {tmp_path / '.env'}: ")


@pytest.mark.parametrize("chars", ["0", "-1"])
def test_a_context_budget_that_holds_no_text_is_a_bad_setting(tmp_path: Path, chars: str) -> None:
    # A long post is split for the model; a budget of zero split it for ever, memory growing.
    source = tmp_path / "post.md"
    source.write_text("# Post\n\n" + "It runs 1.5x faster on 8 GPUs. " * 500 + "\n")
    env = {"PLAINFEED_LLM_CONTEXT_CHARS": chars, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    done = plainfeed(tmp_path, "explain", source, "--engine", "llm", env=env)
    assert_bad_input(done, f"PLAINFEED_LLM_CONTEXT_CHARS='{chars}'")
    assert "greater than or equal to 2000" in done.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PLAINFEED_LOG_LEVEL", "LOUD"),  # was logging's ValueError once the worker started
        ("PLAINFEED_SHUTDOWN_GRACE", "inf"),  # was an OverflowError when it stopped
        ("PLAINFEED_LEASE_SECONDS", "inf"),  # was an OverflowError in every claim
        ("PLAINFEED_POLL_INTERVAL", "1e300"),  # was an OverflowError when it went idle
    ],
)
def test_a_worker_refuses_an_unbounded_setting_before_it_starts(
    tmp_path: Path, variable: str, value: str
) -> None:
    done = plainfeed(tmp_path, "worker", env={variable: value})
    assert_bad_input(done, f"{variable}='{value}'")


def test_a_worker_without_threads_says_so_and_ends(tmp_path: Path) -> None:
    done = plainfeed(tmp_path, "worker", env={"PLAINFEED_CONCURRENCY": "0"})
    assert_bad_input(done, "at least one thread")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "does not parse"),
        ("mysql://user:secret@db/plainfeed", "cannot use the database URL"),
        ("postgresql://user:secret@db:abc/plainfeed", "does not parse"),  # was int()'s error
        ("postgresql://user:secret@[::1/plainfeed", "does not parse"),
        # In memory, everything written would be gone when the command ends.
        ("sqlite://", "sqlite:// is an in-memory SQLite database"),
        ("sqlite:///", "sqlite:/// is an in-memory SQLite database"),
        ("sqlite:///:memory:", "is an in-memory SQLite database"),
        ("sqlite:///file:pf?mode=memory&uri=true", "is an in-memory SQLite database"),
    ],
)
def test_an_unusable_database_url(tmp_path: Path, url: str, message: str) -> None:
    done = plainfeed(tmp_path, "items", "list", env={"PLAINFEED_DATABASE_URL": url})
    assert_bad_input(done, message)
    assert "secret" not in done.stderr


def test_a_database_migrated_by_a_newer_plainfeed_is_refused(tmp_path: Path) -> None:
    assert plainfeed(tmp_path, "items", "list").returncode == 0  # migrated to this head
    with sqlite3.connect(tmp_path / "cli.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    done = plainfeed(tmp_path, "items", "list")
    assert_bad_input(done, "revision 9999_from_the_future, which this Plainfeed does not know")
    assert "migrated it" in done.stderr


def test_a_database_that_never_answers_times_out(tmp_path: Path) -> None:
    # A listener that takes connections and never answers: libpq waited for ever.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"postgresql://postgres@127.0.0.1:{silent.getsockname()[1]}/test"
        started = time.monotonic()
        done = plainfeed(tmp_path, "items", "list", env={"PLAINFEED_DATABASE_URL": url})
    assert_bad_input(done, "connection timeout expired")
    assert time.monotonic() - started < 60


def test_an_unreachable_database_is_reported_with_its_reason_on_one_line(
    tmp_path: Path,
) -> None:
    url = "postgresql://postgres@127.0.0.1:1/test"  # nothing listens on port 1
    for command in (("items", "list"), ("serve", "--port", "0")):
        done = plainfeed(tmp_path, *command, env={"PLAINFEED_DATABASE_URL": url})
        assert_bad_input(done, "Connection refused")  # not only "OperationalError"
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_serve_with_an_unusable_database_url_fails_before_serving(tmp_path: Path) -> None:
    done = plainfeed(tmp_path, "serve", "--port", "0", env={"PLAINFEED_DATABASE_URL": "not a url"})
    assert_bad_input(done, "does not parse")


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_serve_on_a_taken_port_or_a_foreign_address_fails_before_starting(
    tmp_path: Path, command: str
) -> None:
    with taken_port() as port:
        done = plainfeed(tmp_path, command, "--port", str(port))
    assert_bad_input(done, f"cannot serve on 127.0.0.1:{port}")
    done = plainfeed(tmp_path, command, "--host", "999.1.1.1", "--port", "0")
    assert_bad_input(done, "cannot serve on 999.1.1.1:0")


def test_serve_refuses_a_port_out_of_range(tmp_path: Path) -> None:
    assert_bad_input(plainfeed(tmp_path, "serve", "--port", "99999"), "--port")


@pytest.mark.parametrize(
    ("command", "option"), [("serve", "--workers"), ("worker", "--concurrency")]
)
def test_more_worker_threads_than_the_setting_allows_are_refused(
    tmp_path: Path, command: str, option: str
) -> None:
    # PLAINFEED_CONCURRENCY stops at 256 (each worker a thread and a database connection);
    # the option started as many as asked.
    assert_bad_input(plainfeed(tmp_path, command, option, "257"), option)


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


def test_a_binary_file_is_not_explained_or_checked(tmp_path: Path) -> None:
    blob = tmp_path / "figure.png"
    blob.write_bytes(BINARY)
    explainer = tmp_path / "explainer.md"
    explainer.write_text("# FlyDSL\n\nBF16 dense GEMM ran 1.10x faster.\n")
    done = plainfeed(tmp_path, "explain", blob)
    assert_bad_input(done, "binary data")
    assert done.stdout == ""
    assert_bad_input(
        plainfeed(tmp_path, "check", "--explainer", explainer, "--source", blob), "binary data"
    )


def test_an_empty_explainer_does_not_pass_the_check(tmp_path: Path) -> None:
    empty = tmp_path / "explainer.md"
    empty.write_text("\n  \n")
    done = plainfeed(tmp_path, "check", "--explainer", empty, "--source", FLYDSL)
    assert_bad_input(done, "is empty")


def test_nul_bytes_in_an_explainer_are_dropped_as_in_the_source(tmp_path: Path) -> None:
    text = "# FlyDSL\n\nBF16 dense GEMM ran 1.10x faster than the faster of ATen and Triton.\n"
    plain = tmp_path / "plain.md"
    plain.write_text(text)
    nul = tmp_path / "nul.md"
    nul.write_text(text.replace("1.10x", "1.10x\x00"))
    want = plainfeed(tmp_path, "check", "--explainer", plain, "--source", FLYDSL, "--json")
    assert want.returncode == 0, want.stdout
    done = plainfeed(tmp_path, "check", "--explainer", nul, "--source", FLYDSL, "--json")
    assert (done.returncode, done.stdout) == (want.returncode, want.stdout)


def test_a_file_over_the_size_cap_is_refused_at_once(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("The kernel ran 1.10x faster on 256 GPUs. " * 2000)
    env = {"PLAINFEED_FETCH_MAX_BYTES": "10000"}
    assert_bad_input(plainfeed(tmp_path, "explain", big, env=env), "PLAINFEED_FETCH_MAX_BYTES")
    done = plainfeed(tmp_path, "check", "--explainer", big, "--source", FLYDSL, env=env)
    assert_bad_input(done, "over the 10,000-byte cap")


def test_eval_json_to_an_unwritable_path_fails_before_the_run(tmp_path: Path) -> None:
    a_file = tmp_path / "metrics"
    a_file.write_text("")
    for out, message in ((tmp_path, "is a directory"), (a_file / "m.json", "is a file")):
        done = plainfeed(tmp_path, "eval", "--json", out)
        assert_bad_input(done, message)
        assert done.stdout == ""  # failed before explaining anything


def test_eval_case_files_that_are_not_utf8(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(CASES / "flydsl-amd-gpus", cases / "flydsl-amd-gpus")
    reference = cases / "flydsl-amd-gpus" / "reference.md"
    reference.write_bytes(BINARY)
    done = plainfeed(tmp_path, "eval", "--cases", cases, "--engine", "reference")
    assert_bad_input(done, f"{reference}: reference is not UTF-8 text")
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_bytes("engines: {}\n# caf\xe9\n".encode("latin-1"))
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, "thresholds file is not UTF-8 text")


def _one_case(tmp_path: Path) -> Path:
    cases = tmp_path / "cases"
    shutil.copytree(CASES / "flydsl-amd-gpus", cases / "flydsl-amd-gpus")
    return cases


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "the md document holds no text"), (BINARY, "the document is binary data")],
)
def test_an_eval_source_without_text_names_the_case_and_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    cases = _one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.write_bytes(content)
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: source of case flydsl-amd-gpus: {message}")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_an_eval_source_that_cannot_be_read_names_the_case(tmp_path: Path) -> None:
    cases = _one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.unlink()
    source.symlink_to("/proc/self/mem")  # a regular file by stat; reading it fails (EIO)
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: cannot read the source of case flydsl-amd-gpus")


def test_an_eval_source_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    from service.evaluate.cases import MAX_FILE_BYTES

    cases = _one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    with source.open("r+b") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: a disk image dropped into the case
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(
        done, f"{source}: the source of case flydsl-amd-gpus is over {MAX_FILE_BYTES:,} bytes"
    )


def test_an_eval_source_that_is_a_directory_says_so(tmp_path: Path) -> None:
    cases = _one_case(tmp_path)
    source = cases / "flydsl-amd-gpus" / "source.md"
    source.unlink()
    source.mkdir()
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{source}: the source is not a file")


def test_an_eval_recording_that_cannot_be_read_names_it(tmp_path: Path) -> None:
    recordings = tmp_path / "recordings"
    shutil.copytree(ROOT / "eval" / "recordings", recordings)
    (recordings / "x.json").mkdir()  # was an IsADirectoryError traceback
    done = plainfeed(tmp_path, "eval", "--engine", "llm", "--recordings", recordings)
    assert_bad_input(done, f"{recordings / 'x.json'}: cannot read the recording: Is a directory")


@pytest.mark.parametrize("nested", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1"])
def test_an_explainer_nested_too_deeply_is_bad_input(tmp_path: Path, nested: str) -> None:
    explainer = tmp_path / "explainer.json"
    explainer.write_text(nested)  # was a RecursionError traceback from json
    done = plainfeed(tmp_path, "check", "--explainer", explainer, "--source", FLYDSL)
    assert_bad_input(done, f"explainer file {explainer} is not an explainer in JSON: nested")


def test_eval_yaml_nested_too_deeply_is_bad_input(tmp_path: Path) -> None:
    cases = _one_case(tmp_path)
    case_yaml = cases / "flydsl-amd-gpus" / "case.yaml"
    case_yaml.write_text("[" * 5000)  # was a RecursionError traceback from yaml
    done = plainfeed(tmp_path, "eval", "--cases", cases)
    assert_bad_input(done, f"{case_yaml}: not usable YAML: nested too deeply")
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("engines: " + "{a: " * 5000)
    done = plainfeed(tmp_path, "eval", "--thresholds", thresholds)
    assert_bad_input(done, f"{thresholds}: not usable YAML: nested too deeply")


def test_ctrl_c_while_the_command_loads_is_exit_130_without_a_traceback() -> None:
    # A real SIGINT, delivered while the command's module imports (seconds on a busy
    # machine): a finder that sends it when the import system looks the module up.
    probe = (
        "import os, signal, sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'service.cli.eval':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from service.cli import main\n"
        "main(['eval', '--engine', 'reference'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 130


def test_an_empty_source_is_named_as_such(tmp_path: Path) -> None:
    assert_bad_input(plainfeed(tmp_path, "explain", ""), "SOURCE is empty")  # not "not a file: ."


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "{long}"),
        ("check", "--explainer", "{long}", "--source", str(FLYDSL)),
        ("check", "--explainer", str(FLYDSL), "--source", "{long}"),
        ("eval", "--cases", "{long}"),
        ("eval", "--thresholds", "{long}"),
        ("eval", "--json", "{long}"),
        ("eval", "--engine", "llm", "--recordings", "{long}"),
    ],
)
def test_a_file_name_the_system_refuses_is_bad_input(tmp_path: Path, args: tuple[str, ...]) -> None:
    # Longer than a file name may be (ENAMETOOLONG): stat() raised it, a traceback.
    long = str(tmp_path / ("a" * 300))
    done = plainfeed(tmp_path, *(a.replace("{long}", long) for a in args))
    assert_bad_input(done, "File name too long")


@pytest.mark.parametrize("option", ["--explainer", "--source"])
def test_check_names_a_url_given_for_a_file_as_given(tmp_path: Path, option: str) -> None:
    # Read as a path, "https://example.org/post" was "file not found: https:/example.org/post".
    other = "--source" if option == "--explainer" else "--explainer"
    done = plainfeed(tmp_path, "check", option, "https://example.org/post", other, FLYDSL)
    assert_bad_input(done, "https://example.org/post is a URL")
