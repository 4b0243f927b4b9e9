"""Durability with real processes: a worker's own metrics port (taken, or switched off), a
server whose port is taken before it binds, and a worker's JSON log lines."""

from __future__ import annotations

import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import taken_port
from tests.durability_helpers import FAST, all_done, store_delivery
from tests.procs import (
    READY,
    Child,
    StubProcess,
    on_a_free_port,
    plainfeed,
    plainfeed_env,
    rss_document,
    wait_ready,
    wait_until,
)

pytestmark = pytest.mark.slow


def test_a_worker_process_serves_its_own_metrics(tmp_path: Path, engine_for: Any) -> None:
    """Counters live where the work was done: a worker without the API serves them."""
    url = f"sqlite:///{tmp_path / 'plainfeed.db'}"
    engine = engine_for(url)
    store_delivery(engine, rss_document(0, 2))
    with ExitStack() as stack:
        stub = stack.enter_context(StubProcess(tmp_path))
        env = plainfeed_env(url, stub.url, **FAST)
        worker, port = stack.enter_context(
            on_a_free_port(
                lambda p: plainfeed("worker", tmp_path, env, "--metrics-port", str(p)),
                "metrics on http://",
            )
        )
        wait_until(lambda: all_done(engine, 2), 60, "both items published")

        def samples() -> dict[str, float]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                text = r.read().decode()
            return {
                f"{s.name}{sorted(s.labels.items())}": s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }

        got = wait_until(
            lambda: (
                (m := samples()).get("plainfeed_item_outcomes_total[('state', 'published')]") == 2
                and m
            ),
            10,
            "the published counter",
        )
        assert got["plainfeed_llm_calls_total[('model', 'stub-model')]"] == 2
        assert got["plainfeed_check_seconds_count[]"] == 2
        assert f"metrics on http://127.0.0.1:{port}/metrics" in worker.output()


def test_a_worker_whose_metrics_port_is_taken_says_so(tmp_path: Path) -> None:
    with taken_port() as port:
        env = plainfeed_env(f"sqlite:///{tmp_path / 'plainfeed.db'}")
        worker = plainfeed("worker", tmp_path, env, "--metrics-port", str(port))
        assert worker.run(timeout=30) == 2
    assert f"cannot serve metrics on port {port}" in worker.output()


def test_a_server_whose_port_is_taken_before_it_binds_is_started_on_another(
    tmp_path: Path,
) -> None:
    """The tests' children take a port found free (on_a_free_port); it can be taken before
    the child binds it, seconds later: the child says so (status 2) and is started again
    on another port, the output of the failed try gone."""
    env = plainfeed_env(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    given: list[int] = []
    with taken_port() as taken:

        def serve_on(port: int) -> Child:
            given.append(port if given else taken)  # the first one is taken meanwhile
            return plainfeed("serve", tmp_path, env, "--port", str(given[-1]))

        with on_a_free_port(serve_on, READY) as (server, port):
            wait_ready(server, f"http://127.0.0.1:{port}")
    assert given[0] == taken and port == given[1] != taken
    assert "cannot serve" not in server.output()


def test_metrics_port_0_switches_off_a_port_set_in_the_environment(tmp_path: Path) -> None:
    """0 means off (not "any free port", which no scraper could find)."""
    with taken_port() as port:
        env = plainfeed_env(f"sqlite:///{tmp_path / 'plainfeed.db'}", worker_metrics_port=port)
        with plainfeed("worker", tmp_path, env, "--metrics-port", "0") as worker:
            wait_until(lambda: "threads, engine" in worker.output(), 60, "the worker to start")
            assert worker.alive()
    assert "metrics on" not in worker.output()
    assert "cannot serve metrics" not in worker.output()


def test_a_worker_logging_json_writes_only_json_lines(tmp_path: Path) -> None:
    """PLAINFEED_LOG_FORMAT=json is for log collectors: the worker's start-up lines
    (threads, metrics port) are log records too, not plain text among them."""
    import json

    def worker_on(port: int) -> Child:
        env = plainfeed_env(
            f"sqlite:///{tmp_path / 'plainfeed.db'}", log_format="json", worker_metrics_port=port
        )
        return plainfeed("worker", tmp_path, env)

    with on_a_free_port(worker_on, "metrics on http://") as (worker, _):
        wait_until(lambda: "threads, engine" in worker.output(), 60, "the worker to start")
    lines = [line for line in worker.output().splitlines() if line.strip()]
    messages = [json.loads(line)["msg"] for line in lines]  # each line is JSON
    assert any("metrics on http://" in m for m in messages)
