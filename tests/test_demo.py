"""``plainfeed demo``, the quick start's main command, as a real process."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import free_port, taken_port
from tests.procs import http_json, plainfeed, plainfeed_env, wait_until


def test_demo_explains_the_sample_feed_offline_even_with_a_key_exported(tmp_path: Path) -> None:
    """Ten posts of the bundled feed, published by the offline engine: an exported key and
    PLAINFEED_ENGINE=llm (an endpoint that is not there) must not reach the demo."""
    port = free_port()
    env = plainfeed_env(f"sqlite:///{tmp_path / 'demo.db'}")
    env.update(
        OPENAI_API_KEY="sk-not-for-the-demo",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        PLAINFEED_ENGINE="llm",
    )
    with plainfeed("demo", tmp_path, env, "--port", str(port)) as demo:
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
