"""Explainer engines: ``llm`` (prompt templates on an OpenAI-compatible endpoint) and
``extractive`` (no model). :func:`get_engine` picks one from the settings."""

from __future__ import annotations

from typing import Any

from service.config import Settings
from service.engines.base import DEFAULT_AUDIENCE, Engine, ExplainOptions
from service.errors import ConfigError

__all__ = ["DEFAULT_AUDIENCE", "Engine", "ExplainOptions", "get_engine", "require_endpoint"]


def require_endpoint(settings: Settings, name: str | None = None) -> None:
    """Refuse (a bad setting) the ``llm`` engine asked for by name, or by
    PLAINFEED_ENGINE, when no endpoint is configured: the client would try OpenAI's
    default host without a key, and every post would wait on it for ever."""
    if (name or settings.engine) == "llm" and not settings.llm_configured:
        raise ConfigError(
            "the llm engine has no endpoint: set OPENAI_BASE_URL (a local server) or "
            "OPENAI_API_KEY (OpenAI), or use the extractive engine"
        )


def get_engine(settings: Settings, name: str | None = None, **kw: Any) -> Engine:
    """The engine named ``name`` (``auto``, ``llm`` or ``extractive``), else the settings'.

    ``auto`` is ``llm`` when ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY`` is set, else
    ``extractive``. Keyword arguments go to the engine's constructor (e.g. ``client=`` or
    ``modes=`` for :class:`~service.engines.llm.LLMEngine`); the extractive engine reads
    its glossary from ``settings.prompts_dir``.
    """
    choice = name or settings.engine
    if choice == "auto":
        choice = "llm" if settings.llm_configured else "extractive"
    # Imported here so that each engine's dependencies load only when it is used.
    if choice == "llm":
        from service.engines.llm import LLMEngine

        return LLMEngine(settings, **kw)
    if choice == "extractive":
        from service.engines.extractive import ExtractiveEngine

        kw.setdefault("max_chars", settings.extractive_max_chars)
        engine: Engine = ExtractiveEngine(settings.prompts_dir, **kw)
        return engine
    raise ConfigError(f"unknown engine {choice!r} (expected auto, llm or extractive)")
