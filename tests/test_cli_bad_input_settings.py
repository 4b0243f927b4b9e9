"""Bad input on the command line: a one-line message on stderr and exit status 2, never a
traceback or a hang: settings, databases and the server's port.

Each case runs ``plainfeed`` as a real process, as a user or a script would.
"""

from __future__ import annotations

import shutil
import socket
import sqlite3
import time
from pathlib import Path

import pytest

from service.config import DEFAULT_PROMPTS_DIR
from tests.cli_helpers import assert_bad_input, plainfeed
from tests.conftest import taken_port

pytestmark = pytest.mark.slow


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
        # A head cap no browser's head fits, and a head clock of no time.
        ("PLAINFEED_MAX_HEAD_BYTES", "1000", "greater than or equal to 4096"),
        ("PLAINFEED_HEAD_TIMEOUT", "0", "PLAINFEED_HEAD_TIMEOUT='0'"),
        # Every Atom link and the WebSub callback are built on it: "host/items/1" is none.
        ("PLAINFEED_PUBLIC_URL", "news.example.org", "PLAINFEED_PUBLIC_URL='news.example.org'"),
        ("PLAINFEED_PUBLIC_URL", "ftp://news.example.org", "an http(s) URL"),
        ("PLAINFEED_PUBLIC_URL", "https://news.example.org/?a=1", "no query or fragment"),
        # A mistyped folder: the offline engine went on without its glossary, silently.
        ("PLAINFEED_PROMPTS_DIR", "/no/such/prompts", "PLAINFEED_PROMPTS_DIR='/no/such/prompts'"),
        # Sent as a header: an accent was a UnicodeEncodeError traceback at the fetch.
        ("PLAINFEED_USER_AGENT", "Plainfeed (é)", "PLAINFEED_USER_AGENT='Plainfeed (é)'"),
        ("PLAINFEED_USER_AGENT", "Plainfeed\n", "printable ASCII only"),
    ],
)
def test_a_setting_of_the_wrong_type_names_the_variable(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    source = tmp_path / "post.md"
    source.write_text("# Post\n\nIt runs 1.5x faster on 8 GPUs.\n")
    done = plainfeed(tmp_path, "explain", source, env={variable: value})
    assert_bad_input(done, message)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OPENAI_API_KEY", "sk-clé-secret"),  # was a UnicodeEncodeError traceback
        ("PLAINFEED_OPENAI_API_KEY", "sk-secret\n"),  # was "cannot reach", after 4 tries
        ("PLAINFEED_API_TOKEN", "tök-secret"),  # no client can send it: nothing matched
    ],
)
def test_a_secret_no_http_header_can_carry_is_refused_unrepeated(
    tmp_path: Path, variable: str, value: str
) -> None:
    source = tmp_path / "post.md"
    source.write_text("# Post\n\nIt runs 1.5x faster on 8 GPUs.\n")
    env = {variable: value, "PLAINFEED_ENGINE": "llm", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    done = plainfeed(tmp_path, "explain", source, env=env)
    assert_bad_input(done, "printable ASCII only")
    assert "secret" not in done.stderr


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        # Was an InvalidURL traceback at the first call.
        ("OPENAI_BASE_URL", "http://[::1", "OPENAI_BASE_URL='http://[::1': Value error, not a"),
        # Were "cannot reach the LLM endpoint" after four tries, some 10 s.
        ("OPENAI_BASE_URL", "ftp://llm.example/v1", "expected an http(s) URL with a host"),
        ("PLAINFEED_OPENAI_BASE_URL", "localhost:8000/v1", "PLAINFEED_OPENAI_BASE_URL='localhost"),
    ],
)
def test_an_llm_endpoint_that_is_no_http_url_is_a_bad_setting_named_as_set(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    source = tmp_path / "post.md"
    source.write_text("# Post\n\nIt runs 1.5x faster on 8 GPUs.\n")
    env = {variable: value, "PLAINFEED_ENGINE": "llm", "OPENAI_API_KEY": "k"}
    done = plainfeed(tmp_path, "explain", source, env=env)
    assert_bad_input(done, message)
    # Named as the user spelled it: OPENAI_BASE_URL was called PLAINFEED_OPENAI_BASE_URL.
    assert f"error: bad setting: {variable}=" in done.stderr


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
        # The driver's float() of it was a ValueError traceback.
        ("sqlite:///pf.db?timeout=abc", "cannot use the database URL sqlite:///pf.db?timeout"),
    ],
)
def test_an_unusable_database_url(tmp_path: Path, url: str, message: str) -> None:
    done = plainfeed(tmp_path, "items", "list", env={"PLAINFEED_DATABASE_URL": url})
    assert_bad_input(done, message)
    assert "secret" not in done.stderr


@pytest.mark.parametrize("query", ["mode=ro", "mode=ro&cache=shared", "timeout=5&immutable=1"])
def test_a_sqlite_uri_argument_without_uri_true_is_refused(tmp_path: Path, query: str) -> None:
    """SQLAlchemy drops an argument SQLite reads only in a URI when uri=true is not in the
    URL, and only warns: "?mode=ro" opened the database for writing, and a command wrote."""
    assert plainfeed(tmp_path, "items", "list").returncode == 0  # the database, migrated
    url = f"sqlite:///{tmp_path / 'cli.db'}?{query}"
    done = plainfeed(
        tmp_path, "feeds", "add", "https://a.example/feed", env={"PLAINFEED_DATABASE_URL": url}
    )
    assert_bad_input(done, "has query arguments SQLite reads only in a URI")
    named = ", ".join(sorted(k.split("=")[0] for k in query.split("&") if k != "timeout=5"))
    assert f"({named})" in done.stderr
    assert f"write it sqlite:///file:{tmp_path / 'cli.db'}?{query}&uri=true" in done.stderr
    with sqlite3.connect(tmp_path / "cli.db") as conn:
        assert conn.execute("SELECT count(*) FROM feeds").fetchone() == (0,)
    # Written as the message says, it is taken.
    uri = {"PLAINFEED_DATABASE_URL": f"sqlite:///file:{tmp_path / 'cli.db'}?{query}&uri=true"}
    assert plainfeed(tmp_path, "items", "list", env=uri).returncode == 0


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


@pytest.mark.parametrize(
    "args",
    [("explain", "post.md", "--engine", "extractive"), ("worker",), ("serve", "--port", "0")],
)
def test_a_prompts_folder_without_its_glossary_is_a_bad_setting(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """The templates without glossary.yaml: the offline engine explained with no
    definitions at all, and said nothing; serve and worker started so."""
    (tmp_path / "post.md").write_text("# Post\n\nThe GEMM kernel runs 1.5x faster on 8 GPUs.\n")
    folder = tmp_path / "prompts"
    shutil.copytree(DEFAULT_PROMPTS_DIR, folder)
    (folder / "glossary.yaml").unlink()
    done = plainfeed(tmp_path, *args, env={"PLAINFEED_PROMPTS_DIR": str(folder)})
    assert_bad_input(done, f"PLAINFEED_PROMPTS_DIR='{folder}': Value error, it has no glossary")
    assert done.stdout == ""


def test_a_prompts_folder_with_its_glossary_is_taken(tmp_path: Path) -> None:
    (tmp_path / "post.md").write_text("# Post\n\nThe GEMM kernel runs 1.5x faster on 8 GPUs.\n")
    folder = tmp_path / "prompts"
    shutil.copytree(DEFAULT_PROMPTS_DIR, folder)
    env = {"PLAINFEED_PROMPTS_DIR": str(folder)}
    done = plainfeed(tmp_path, "explain", "post.md", "--engine", "extractive", env=env)
    assert done.returncode == 0, done.stderr
    assert "general matrix multiplication" in done.stdout  # the glossary's definition


@pytest.mark.parametrize(
    "args",
    [("explain", "post.md", "--engine", "llm"), ("worker",), ("serve", "--port", "0")],
)
@pytest.mark.parametrize(
    ("removed", "named"),
    [
        (("explain", "explain-part", "combine", "repair"), "explain.md, explain-part.md"),
        (("repair",), "repair.md"),
    ],
)
def test_a_prompts_folder_without_its_templates_is_a_bad_setting(
    tmp_path: Path, args: tuple[str, ...], removed: tuple[str, ...], named: str
) -> None:
    """The glossary without the templates: serve and worker started, and each item the
    llm engine explained failed on "template 'explain' not found" (or 'repair', when an
    answer needed one), as did `explain --engine llm`, after its setting was taken."""
    (tmp_path / "post.md").write_text("# Post\n\nThe GEMM kernel runs 1.5x faster on 8 GPUs.\n")
    folder = tmp_path / "prompts"
    shutil.copytree(DEFAULT_PROMPTS_DIR, folder)
    for name in removed:
        (folder / f"{name}.md").unlink()
    env = {
        "PLAINFEED_PROMPTS_DIR": str(folder),
        "PLAINFEED_OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    done = plainfeed(tmp_path, *args, env=env)
    assert_bad_input(done, f"PLAINFEED_PROMPTS_DIR='{folder}': Value error, it has no {named}")
    assert "expected the folder of prompt templates and glossary" in done.stderr
    assert done.stdout == ""
