from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from service.config import (
    INSTALLED_PROMPTS,
    MAX_SECONDS,
    PROJECT_ROOT,
    Settings,
    find_prompts_dir,
)

FLOATS = sorted(n for n, f in Settings.model_fields.items() if f.annotation is float)


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


def test_floats_are_checked_at_all() -> None:
    assert {"lease_seconds", "shutdown_grace", "llm_backoff_max", "llm_rpm"} <= set(FLOATS)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_no_float_setting_is_infinite_or_nan(name: str, value: str) -> None:
    # Each overflowed or compared false far from the setting (OverflowError in a lock
    # timeout, a timestamp, int()).
    with pytest.raises(ValueError, match="finite"):
        Settings(_env_file=None, **{name: value})  # type: ignore[call-arg]


@pytest.mark.parametrize("name", sorted(set(FLOATS) - {"llm_rpm", "retention_days"}))
def test_no_wait_or_timeout_is_longer_than_a_day(name: str) -> None:
    Settings(_env_file=None, **{name: MAX_SECONDS})  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="less than or equal to 86400"):
        Settings(_env_file=None, **{name: 1e300})  # type: ignore[call-arg]


def test_the_head_cap_is_at_least_4_kib_and_at_most_1_mib() -> None:
    # Below, no browser's head (cookies and all) fits; above, a head is memory.
    for good in (4096, 1024 * 1024):
        assert Settings(_env_file=None, max_head_bytes=good).max_head_bytes == good  # type: ignore[call-arg]
    for bad in (4095, 1024 * 1024 + 1):
        with pytest.raises(ValueError, match="max_head_bytes"):
            Settings(_env_file=None, max_head_bytes=bad)  # type: ignore[call-arg]


def test_retention_is_counted_in_days_up_to_a_century() -> None:
    assert Settings(_env_file=None, retention_days=0.5).retention_days == 0.5  # type: ignore[call-arg]
    for bad in (-1, 36_501):
        with pytest.raises(ValueError, match="retention_days"):
            Settings(_env_file=None, retention_days=bad)  # type: ignore[call-arg]


@pytest.mark.parametrize("name", ["llm_backoff_initial", "llm_backoff_max", "backoff_base"])
def test_no_wait_is_negative(name: str) -> None:
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        Settings(_env_file=None, **{name: -1})  # type: ignore[call-arg]


def test_the_log_level_is_a_logging_level_name() -> None:
    assert Settings(_env_file=None, log_level=" debug ").log_level == "DEBUG"  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="not a logging level"):
        Settings(_env_file=None, log_level="LOUD")  # type: ignore[call-arg]


def test_prompts_are_found_in_a_checkout_else_in_an_installed_wheel(tmp_path: Path) -> None:
    checkout, data = tmp_path / "checkout", tmp_path / "venv"
    installed = data / INSTALLED_PROMPTS
    installed.mkdir(parents=True)
    # A wheel's install: no prompts/ beside the package, the data path has them.
    assert find_prompts_dir(checkout, [tmp_path / "none", data]) == installed
    (checkout / "prompts").mkdir(parents=True)
    assert find_prompts_dir(checkout, [data]) == checkout / "prompts"
    # Neither: the checkout's path, which the "template not found" error then names.
    assert find_prompts_dir(tmp_path / "bare", [tmp_path / "none"]) == tmp_path / "bare/prompts"


def test_the_wheel_ships_every_file_of_prompts() -> None:
    """pyproject's data-files must cover prompts/: a template or glossary left out works in
    a checkout and is missing from every pip-installed copy."""
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["data-files"][str(INSTALLED_PROMPTS)]
    shipped = {p for pattern in patterns for p in PROJECT_ROOT.glob(pattern)}
    assert shipped == set((PROJECT_ROOT / "prompts").iterdir())
