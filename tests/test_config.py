from __future__ import annotations

import pytest

from service.config import Settings


def test_engine_auto_picks_llm_only_when_an_endpoint_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert Settings(_env_file=None).effective_engine == "extractive"  # type: ignore[call-arg]
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert Settings(_env_file=None).effective_engine == "llm"  # type: ignore[call-arg]
    monkeypatch.setenv("PLAINFEED_ENGINE", "extractive")
    assert Settings(_env_file=None).effective_engine == "extractive"  # type: ignore[call-arg]


def test_postgres_urls_get_the_psycopg_driver() -> None:
    s = Settings(_env_file=None, database_url="postgres://u@h/db")  # type: ignore[call-arg]
    assert s.database_url == "postgresql+psycopg://u@h/db"


def test_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAINFEED_ENGINE", "gpt")
    with pytest.raises(ValueError):
        Settings(_env_file=None)  # type: ignore[call-arg]
