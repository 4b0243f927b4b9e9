"""``plainfeed items list|show|retry`` run as a real process whose output is piped."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from service import render
from service.models import CheckReport, Explainer, ItemState, Section
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate
from tests.seed_db import add_feed, add_item

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
EXPLAINER = Explainer(
    title="Kernels: faster",
    sections=[Section(heading="What changed", paragraphs=["It runs 1.5x faster."])],
)


def run(
    db_url: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``plainfeed ARGS`` with stdout and stderr piped (not a terminal)."""
    full_env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": db_url,
        "PLAINFEED_ENGINE": "extractive",
        "TERM": "xterm-256color",  # colour would be possible; a pipe must still get none
        **(env or {}),
    }
    full_env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        cwd=ROOT,
    )


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[str, dict[str, int]]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    engine = make_engine(url)
    migrate(engine)
    sm = make_sessionmaker(engine)
    fid = add_feed(sm, name="Kernel blog")
    ids = {
        "published": add_item(
            sm,
            fid,
            title="Faster\tkernels\non MI355X",
            text="It runs 1.5x faster.",
            explainer=EXPLAINER,
            report=CheckReport(),
        ),
        "review": add_item(
            sm,
            fid,
            title="A post for review",
            text="Other text.",
            explainer=EXPLAINER,
            report=CheckReport(),
            state=ItemState.NEEDS_REVIEW,
        ),
        "pending": add_item(sm, fid, title="Pending post", text="More.", state=ItemState.PENDING),
    }
    with sm.begin() as s:
        s.get(t.Item, ids["pending"]).last_error = "upstream\ttimeout\nafter 120 s"  # type: ignore[union-attr]
    engine.dispose()
    return url, ids


def test_list_is_tab_separated_and_plain(seeded: tuple[str, dict[str, int]]) -> None:
    url, ids = seeded
    r = run(url, "items", "list")
    assert r.returncode == 0, r.stderr
    assert not ANSI.search(r.stdout + r.stderr)
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert rows == [
        [str(ids["pending"]), "pending", "Pending post"],
        [str(ids["review"]), "needs_review", "A post for review"],
        [str(ids["published"]), "published", "Faster kernels on MI355X"],
    ]
    only = run(url, "items", "list", "--state", "needs_review")
    assert only.stdout == f"{ids['review']}\tneeds_review\tA post for review\n"
    found = run(url, "items", "list", "-q", "REVIEW", "--json")
    assert [json.loads(line)["id"] for line in found.stdout.splitlines()] == [ids["review"]]
    assert run(url, "items", "list", "--state", "bogus").returncode == 2


def test_show_prints_the_explainer_in_each_format(seeded: tuple[str, dict[str, int]]) -> None:
    url, ids = seeded
    md = run(url, "items", "show", str(ids["published"]))
    assert md.returncode == 0, md.stderr
    assert md.stdout == render.to_markdown(EXPLAINER)
    assert md.stdout.endswith("\n") and not md.stdout.endswith("\n\n")
    assert not ANSI.search(md.stdout)
    body = json.loads(run(url, "items", "show", str(ids["published"]), "-f", "json").stdout)
    assert body["title"] == "Kernels: faster" and body["state"] == "published"
    assert body["model"] == "stub-model" and body["usage"]["prompt_tokens"] == 1200
    html = run(url, "items", "show", str(ids["published"]), "--format", "html").stdout
    assert html.rstrip("\n") == render.to_html(EXPLAINER).rstrip("\n")
    assert not html.endswith("\n\n")


def test_show_without_explainer_and_unknown_item(seeded: tuple[str, dict[str, int]]) -> None:
    url, ids = seeded
    r = run(url, "items", "show", str(ids["pending"]))
    assert r.returncode == 1
    assert r.stdout == ""
    assert (
        r.stderr
        == f"item {ids['pending']} is pending: upstream timeout after 120 s (no explainer yet)\n"
    )
    missing = run(url, "items", "show", "4242")
    assert missing.returncode == 2
    assert missing.stderr == "plainfeed: error: no item with id 4242\n"
    assert "Traceback" not in missing.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("items", "list", "--feed", "999"),
        ("items", "list", "--feed", "999", "--json", "--state", "published"),
        ("items", "retry", "--state", "needs_review", "--feed", "999"),
    ],
)
def test_a_feed_that_does_not_exist_is_an_error(
    seeded: tuple[str, dict[str, int]], args: tuple[str, ...]
) -> None:
    """`--feed 999` printed nothing (or "0 items re-queued") and exited 0, as for a feed
    with no such items: a mistyped id looked like an empty feed."""
    url, ids = seeded
    r = run(url, *args)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "plainfeed: error: no feed with id 999\n"
    listed = run(url, "items", "list", "--state", "needs_review").stdout
    assert f"{ids['review']}\tneeds_review\t" in listed  # nothing was re-queued


def test_retry_requeues(seeded: tuple[str, dict[str, int]]) -> None:
    url, ids = seeded
    r = run(url, "items", "retry", str(ids["review"]))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == f"item {ids['review']} re-queued\n"
    listed = run(url, "items", "list", "--state", "pending").stdout
    assert f"{ids['review']}\tpending\t" in listed
    assert run(url, "items", "retry", "4242").returncode == 2


def test_retry_says_what_it_does_and_does_it_to_a_published_item(
    seeded: tuple[str, dict[str, int]],
) -> None:
    url, ids = seeded
    help_text = " ".join(run(url, "items", "retry", "--help").stdout.split())
    assert "any state but processing" in help_text
    assert "a published one is published again" in help_text
    r = run(url, "items", "retry", str(ids["published"]))
    assert r.returncode == 0, r.stderr
    assert f"{ids['published']}\tpending\t" in run(url, "items", "list").stdout


def test_retry_by_state_requeues_every_such_item(seeded: tuple[str, dict[str, int]]) -> None:
    """After an outage every failed item wants a retry: --state does them all, --feed
    narrows it; an id and --state together, or a queued state, are bad input."""
    url, ids = seeded
    fid = run(url, "feeds", "list").stdout.split("\t", 1)[0]
    r = run(url, "items", "retry", "--state", "failed", "--feed", fid)
    assert (r.returncode, r.stderr) == (0, "0 items re-queued\n")
    r = run(url, "items", "retry", "--state", "needs_review")
    assert (r.returncode, r.stderr) == (0, "1 item re-queued\n")
    listed = run(url, "items", "list", "--state", "pending").stdout
    assert f"{ids['review']}\tpending\t" in listed
    assert f"{ids['published']}\t" not in listed
    for bad, message in [
        ((), "give an item id or --state"),  # neither: "not both" would puzzle
        ((str(ids["review"]), "--state", "failed"), "give an item id or --state, not both"),
        (("--feed", "1"), "--feed goes with --state"),
        (("--state", "pending"), "pending items are queued already"),
    ]:
        done = run(url, "items", "retry", *bad)
        assert done.returncode == 2, bad
        assert done.stderr == f"plainfeed: error: {message}\n", bad


def test_skipped_items_are_listed_and_explained_on_demand(tmp_path: Path) -> None:
    """An older entry of a feed's first delivery is `skipped`: listed by its state, and
    a retry (one, or --state skipped) queues it to be explained."""
    url = f"sqlite:///{tmp_path / 'skipped.db'}"
    engine = make_engine(url)
    migrate(engine)
    sm = make_sessionmaker(engine)
    fid = add_feed(sm)
    old = [
        add_item(sm, fid, title=f"Old post {n}", text="Old.", state=ItemState.SKIPPED)
        for n in ("one", "two")
    ]
    engine.dispose()
    listed = run(url, "items", "list", "--state", "skipped")
    assert listed.returncode == 0, listed.stderr
    assert sorted(listed.stdout.splitlines()) == [
        f"{old[0]}\tskipped\tOld post one",
        f"{old[1]}\tskipped\tOld post two",
    ]
    one = run(url, "items", "retry", str(old[0]))
    assert one.returncode == 0, one.stderr
    rest = run(url, "items", "retry", "--state", "skipped")
    assert (rest.returncode, rest.stderr) == (0, "1 item re-queued\n")
    assert run(url, "items", "list", "--state", "skipped").stdout == ""
    assert len(run(url, "items", "list", "--state", "pending").stdout.splitlines()) == 2


def test_feeds_remove_takes_the_items_with_it(seeded: tuple[str, dict[str, int]]) -> None:
    url, _ = seeded
    fid = run(url, "feeds", "list").stdout.split("\t", 1)[0]
    unconfirmed = run(url, "feeds", "remove", fid)
    assert unconfirmed.returncode == 2
    assert "deletes its items and explainers: add --yes" in unconfirmed.stderr
    assert run(url, "items", "list").stdout.count("\n") == 3
    done = run(url, "feeds", "remove", fid, "--yes")
    assert (done.returncode, done.stderr) == (0, f"feed {fid} removed\n")
    assert run(url, "items", "list").stdout == "" and run(url, "feeds", "list").stdout == ""
    again = run(url, "feeds", "remove", fid, "--yes")
    assert (again.returncode, again.stderr) == (2, f"plainfeed: error: no feed with id {fid}\n")
