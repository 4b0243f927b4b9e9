"""The stub LLM server itself, as other tests use it: a fixture, and a process with a
script, recordings and a call log."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import openai
import pytest

from tests.procs import StubProcess, wait_until
from tests.stub_llm import (
    Reply,
    StubLLM,
    default_explainer,
    stub_llm,  # noqa: F401  (the fixture other test modules import)
)

ROOT = Path(__file__).resolve().parent.parent


def _chat(url: str, user: str, **kw: object) -> object:
    client = openai.OpenAI(base_url=url, api_key="k", max_retries=0, timeout=10)
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": user}], **kw
    )


def test_fixture_answers_a_digit_free_default_explainer(stub_llm: StubLLM) -> None:  # noqa: F811
    answer = _chat(stub_llm.url, "Title: PyTorch 2.14 Release Blog\n\nText 1.5x.")
    content = answer.choices[0].message.content  # type: ignore[attr-defined]
    assert json.loads(content) == default_explainer("Title: PyTorch 2.14 Release Blog")
    assert not any(c.isdigit() for c in content)
    assert json.loads(content)["title"].startswith("PyTorch Release Blog:")
    usage = answer.usage  # type: ignore[attr-defined]
    assert usage.prompt_tokens == len("Title: PyTorch 2.14 Release Blog\n\nText 1.5x.") // 4
    (call,) = stub_llm.calls
    assert call["reply"] == "default" and call["status"] == 200 and call["seq"] == 1


def test_scripted_error_carries_its_headers(stub_llm: StubLLM) -> None:  # noqa: F811
    stub_llm.push(Reply.rate_limited("2"))
    with pytest.raises(openai.RateLimitError) as info:
        _chat(stub_llm.url, "hi")
    assert info.value.response.headers["retry-after"] == "2"


def test_process_with_script_recordings_and_log(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"kind": "status", "status": 503}]), encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "tests.stub_llm", "--port", "0",
            "--script", str(script), "--recordings", str(ROOT / "eval/recordings"),
            "--log", str(log), "--reject-format", "json_schema",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("stub-llm listening on http://127.0.0.1:")
        url = line.rsplit(" ", 1)[1].strip()
        with pytest.raises(openai.InternalServerError):
            _chat(url, "x", response_format={"type": "json_schema", "json_schema": {}})
        with pytest.raises(openai.InternalServerError):
            _chat(url, "x")  # the scripted 503
        link = "https://pytorch.org/blog/how-shopify-built-a-continual-learning-loop-with-pytorch-and-vllm/"
        answer = _chat(url, f"Link: {link}")
        content = json.loads(answer.choices[0].message.content)  # type: ignore[attr-defined]
        assert content["title"].startswith("Shopify's continual learning loop")
        with urllib.request.urlopen(url.removesuffix("/v1") + "/_calls", timeout=5) as resp:
            calls = json.load(resp)
    finally:
        proc.terminate()
        proc.wait(10)
    replies = [c["reply"] for c in calls]
    assert replies == [
        "reject:json_schema",
        "status",
        "recording:pytorch-blog-how-shopify-built-a-continual-learning-loop",
    ]
    logged = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert [x["reply"] for x in logged] == replies
    assert logged[0]["response_format"] == {"type": "json_schema", "json_schema": {}}
    assert set(logged[2]) >= {
        "seq", "at", "model", "messages", "response_format", "temperature", "max_tokens",
        "reply", "status",
    }  # fmt: skip


def test_a_repair_request_gets_the_recorded_repair() -> None:
    flydsl = "https://pytorch.org/blog/accelerating-pytorch-on-amd-gpus-with-flydsl/"
    data = json.loads(
        (
            ROOT / "eval/recordings/pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.json"
        ).read_text(encoding="utf-8")
    )
    with StubLLM(recordings=ROOT / "eval/recordings") as stub:
        first = _chat(stub.url, f"Post title: FlyDSL\nLink: {flydsl}\n\nThe post ...")
        fixed = _chat(stub.url, f"Link: {flydsl}\n<explainer>\n{{}}\n</explainer>\nFlagged: ...")
    for answer, expected in ((first, data["answer"]), (fixed, data["repair"])):
        content = answer.choices[0].message.content  # type: ignore[attr-defined]
        assert json.loads(content) == expected
    assert [c["reply"] for c in stub.calls] == [
        "recording:pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl",
        "recording-repair:pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl",
    ]


def test_a_gated_process_holds_every_answer_until_released(tmp_path: Path) -> None:
    """Tests that kill or stop a worker mid-call hold its calls on the gate (instead of a
    reply delay they hoped was long enough): logged on arrival, answered once released."""
    answers: list[object] = []
    with StubProcess(tmp_path, gated=True) as stub:
        caller = threading.Thread(target=lambda: answers.append(_chat(stub.url, "Title: Gated")))
        caller.start()
        wait_until(lambda: len(stub.calls()) == 1, 30, "the call logged")
        caller.join(0.5)
        assert caller.is_alive() and answers == []  # held, however long the test takes
        stub.release()
        caller.join(30)
        assert len(answers) == 1
        answer = _chat(stub.url, "Title: After")  # released for good
        assert answer.choices[0].message.content  # type: ignore[attr-defined]
