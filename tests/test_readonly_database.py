"""A SQLite database opened read-only (``?mode=ro&uri=true``, as db.py asks such a URL be
written): what only reads works, what writes is refused with a message naming the
database, a command's bad input (exit 2) and the API's store-error problem (503), not
SQLAlchemy's OperationalError (a traceback, an internal error that said nothing)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.api_helpers import assert_problem
from tests.cli_helpers import assert_bad_input, plainfeed
from tests.conftest import api_client, make_settings


def _readonly(tmp_path: Path) -> str:
    """A database with one feed, and the URL that opens it read-only."""
    done = plainfeed(tmp_path, "feeds", "add", "https://blog.example/feed")
    assert done.stdout == "1\n", done.stderr
    return f"sqlite:///file:{tmp_path / 'cli.db'}?mode=ro&uri=true"


def test_a_command_that_writes_to_a_read_only_database_is_refused(tmp_path: Path) -> None:
    url = _readonly(tmp_path)
    env = {"PLAINFEED_DATABASE_URL": url}
    done = plainfeed(tmp_path, "feeds", "add", "https://other.example/feed", env=env)
    assert_bad_input(done, f"the database {url} is read-only")
    assert "attempt to write a readonly database" in done.stderr
    assert done.stdout == ""
    # What only reads is taken, and nothing was written.
    listed = plainfeed(tmp_path, "feeds", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "1\thttps://blog.example/feed\t\n"


def test_a_request_that_writes_to_a_read_only_database_is_a_store_error(
    tmp_path: Path,
) -> None:
    url = _readonly(tmp_path)
    with api_client(make_settings(url), workers=0) as c:
        assert isinstance(c, httpx.Client)
        r = c.post("/feeds", json={"url": "https://other.example/feed"})
        body = assert_problem(r, 503)
        assert body["type"].endswith("store-error"), body
        assert f"the database {url} is read-only" in str(body["detail"])
        feeds = c.get("/feeds").json()
        assert [f["url"] for f in feeds["items"]] == ["https://blog.example/feed"]
