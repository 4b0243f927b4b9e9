"""``plainfeed demo``, the quick start's main command, as a real process."""

from __future__ import annotations

import re
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import taken_port
from tests.procs import (
    READY,
    http_json,
    on_a_free_port,
    plainfeed,
    plainfeed_env,
    wait_ready,
    wait_until,
)


def test_demo_explains_the_sample_feed_offline_even_with_a_key_exported(tmp_path: Path) -> None:
    """Ten posts of the bundled feed, published by the offline engine: an exported key and
    PLAINFEED_ENGINE=llm (an endpoint that is not there) must not reach the demo."""
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
    env.update(
        OPENAI_API_KEY="sk-not-for-the-demo",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        PLAINFEED_ENGINE="llm",
    )
    with on_a_free_port(
        lambda p: plainfeed("demo", tmp_path, env, "--port", str(p)), READY, 120
    ) as (demo, port):
        out = wait_until(lambda: "API docs:" in (o := demo.output()) and o, 300, "the item list")
        status, item = http_json(f"http://127.0.0.1:{port}/items/1")
    listed = [line.split() for line in out.splitlines() if "/explainer?format=md" in line]
    assert len(listed) == 10
    assert {fields[0] for fields in listed} == {"published"}
    assert status == 200
    assert item["explainer_meta"]["engine"] == "extractive"


def test_demo_on_a_taken_port_says_so(tmp_path: Path) -> None:
    with taken_port() as port:
        env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
        demo = plainfeed("demo", tmp_path, env, "--port", str(port))
        assert demo.run(timeout=60) == 2
    assert f"plainfeed: error: cannot serve on 127.0.0.1:{port}" in demo.output()
    assert "Traceback" not in demo.output()


def test_demo_on_port_0_serves_on_the_port_it_got(tmp_path: Path) -> None:
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
    with plainfeed("demo", tmp_path, env, "--port", "0", "--wait", "60") as demo:
        found = wait_until(
            lambda: re.search(r"http://127\.0\.0\.1:(\d+)/items/\d", demo.output()),
            300,
            "the item list",
        )
        port = int(found.group(1))
        assert port != 0
        status, _ = http_json(f"http://127.0.0.1:{port}/items/1")
        assert status == 200


def test_demo_that_waits_for_nothing_lists_the_items_as_they_stand(tmp_path: Path) -> None:
    # --wait 0 skipped the loop that read the delivery: its state was an unbound name.
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
    with plainfeed("demo", tmp_path, env, "--port", "0", "--wait", "0") as demo:
        wait_until(lambda: "API docs:" in demo.output() or not demo.alive(), 120, "the list")
        assert demo.alive(), demo.output()
    assert "Traceback" not in demo.output()


def test_demo_whose_feed_the_webhook_refuses_says_why(tmp_path: Path) -> None:
    # A body cap below the sample feed's size: the webhook's 413 was an HTTPError traceback.
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}", max_body_bytes=1000)
    demo = plainfeed("demo", tmp_path, env, "--port", "0")
    assert demo.run(timeout=120) == 1
    out = demo.output()
    assert "Traceback" not in out
    assert "plainfeed demo: the webhook refused the sample feed: 413" in out
    assert "over the 1000-byte cap" in out  # the problem's own detail


def _atom_self_link(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as resp:
        feed = ET.fromstring(resp.read())
    links = feed.findall("{http://www.w3.org/2005/Atom}link[@rel='self']")
    return links[0].get("href", "")


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_the_links_of_a_server_on_another_port_point_at_that_port(
    tmp_path: Path, command: str
) -> None:
    # PLAINFEED_PUBLIC_URL unset: the Atom feed's links named port 8000 whatever --port said.
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
    wait = ("--wait", "0") if command == "demo" else ()
    with on_a_free_port(
        lambda p: plainfeed(command, tmp_path, env, "--port", str(p), *wait), READY, 120
    ) as (server, port):
        wait_ready(server, f"http://127.0.0.1:{port}", 120)
        link = _atom_self_link(f"http://127.0.0.1:{port}/feed.atom")
    assert link == f"http://127.0.0.1:{port}/feed.atom"


def test_a_public_url_set_is_kept_whatever_port_is_served(tmp_path: Path) -> None:
    env = plainfeed_env(f"sqlite:///{tmp_path / 'a.db'}", public_url="https://news.example.org")
    with on_a_free_port(
        lambda p: plainfeed("serve", tmp_path, env, "--port", str(p)), READY, 120
    ) as (server, port):
        wait_ready(server, f"http://127.0.0.1:{port}", 120)
        link = _atom_self_link(f"http://127.0.0.1:{port}/feed.atom")
    assert link == "https://news.example.org/feed.atom"
