"""Settings, read from environment variables and an optional ``.env`` file."""

from __future__ import annotations

import logging
import os
import re
import sysconfig
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

from service.errors import ConfigError
from service.prompt_folder import unusable

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Where a wheel puts prompts/ (pyproject's data-files), under the install's data path.
INSTALLED_PROMPTS = Path("share") / "plainfeed" / "prompts"


def find_prompts_dir(root: Path, data_dirs: Sequence[str | Path]) -> Path:
    """The prompts of a checkout (``root/prompts``), else of an installed wheel (under
    one of ``data_dirs``, the install schemes' data paths): the templates and glossary
    are files beside the code, not inside the package. A checkout's path when neither is
    there, so that the error names where prompts were expected."""
    for candidate in (root / "prompts", *(Path(d) / INSTALLED_PROMPTS for d in data_dirs)):
        if candidate.is_dir():
            return candidate
    return root / "prompts"


def _data_dirs() -> list[str]:
    # The environment's own (a venv, a system install), then a --user install's.
    dirs = [sysconfig.get_path("data")]
    user = f"{os.name}_user"
    if user in sysconfig.get_scheme_names():
        dirs.append(sysconfig.get_path("data", user))
    return dirs


DEFAULT_PROMPTS_DIR = find_prompts_dir(PROJECT_ROOT, _data_dirs())

# The smallest cleaned-text budget of one LLM call. The prompt templates alone are 1.5 to
# 5 thousand characters: below a couple of paragraphs per part a long post becomes
# thousands of calls, each mostly instructions, and at zero splitting never ended.
MIN_CONTEXT_CHARS = 2_000
# The longest wait, timeout or lease a setting may ask for. Infinity or 1e300 seconds
# overflowed later, far from the setting (timestamps, lock timeouts, int()); nothing
# Plainfeed waits for sensibly takes longer than a day.
MAX_SECONDS = 86_400.0
# Tries, repair passes and threads are counts of real work: a backoff doubles per try
# (2**tries overflows a float past ~1000), every repair pass is a model call, and every
# worker a thread and a database connection.
MAX_TRIES = 100
MAX_REPAIR_ROUNDS = 10
MAX_WORKERS = 256

# USD per million tokens; a negative one would report a negative cost.
Price = Annotated[float, Field(ge=0)]


class Settings(BaseSettings):
    """Everything configurable. Variables are ``PLAINFEED_<NAME>`` unless noted."""

    model_config = SettingsConfigDict(
        env_prefix="PLAINFEED_",
        env_file=".env",
        # Not the locale's encoding: the same .env must read the same on every machine.
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        # "inf" and "nan" parse as floats; no duration, rate or price can be either.
        allow_inf_nan=False,
    )

    # storage
    database_url: str = Field(
        default="sqlite:///./data/plainfeed.db",
        description="SQLAlchemy URL; SQLite under ./data by default, PostgreSQL for scale-out.",
    )

    # explaining
    engine: Literal["auto", "llm", "extractive"] = "auto"
    openai_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "PLAINFEED_OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL", "PLAINFEED_OPENAI_BASE_URL"),
    )
    model: str = "gpt-4o-mini"
    prompts_dir: Path = DEFAULT_PROMPTS_DIR
    llm_timeout: float = Field(
        default=120.0, gt=0, le=MAX_SECONDS, description="Seconds per LLM request."
    )
    # A connection to the endpoint opens within seconds or not at all: with the request's
    # 120 s, a host that drops packets held a worker that long at each try, its lease
    # lost long before (the reads watch the lease, a connect cannot).
    llm_connect_timeout: float = Field(
        default=10.0,
        gt=0,
        le=MAX_SECONDS,
        description="Seconds to open a connection to the LLM endpoint (at most llm_timeout).",
    )
    llm_max_attempts: int = Field(
        default=4, ge=1, le=MAX_TRIES, description="Tries per LLM call (tenacity)."
    )
    llm_backoff_initial: float = Field(
        default=1.0, ge=0, le=MAX_SECONDS, description="First retry wait, seconds."
    )
    llm_backoff_max: float = Field(
        default=30.0, ge=0, le=MAX_SECONDS, description="Longest retry wait, seconds."
    )
    llm_retry_after_max: float = Field(
        default=60.0,
        ge=0,
        le=MAX_SECONDS,
        description="Cap on a server's Retry-After within one call, seconds.",
    )
    llm_max_concurrency: int = Field(
        default=16, ge=1, description="Concurrent LLM requests per process."
    )
    llm_rpm: float = Field(default=600.0, gt=0, description="LLM requests per minute per process.")
    llm_max_output_tokens: int = Field(default=4096, ge=1)
    llm_context_chars: int = Field(
        default=48_000,
        ge=MIN_CONTEXT_CHARS,
        description="Cleaned-text budget for one call; longer posts are split.",
    )
    # A 10 MB text split by 48,000 characters is 200+ paid calls (and the merges of their
    # notes): a post past this many parts is refused before the first call.
    llm_max_parts: int = Field(
        default=40,
        ge=1,
        le=10_000,
        description="Parts of PLAINFEED_LLM_CONTEXT_CHARS a post may take; longer ones fail.",
    )
    # The offline engine takes about 10 s of CPU per MB of text (more on a busy machine),
    # and POST /explain took up to its 16 MiB body: minutes of a core for one request.
    # 500,000 characters is some four times the longest post of the corpus.
    extractive_max_chars: int = Field(
        default=500_000,
        ge=1,
        le=100_000_000,
        description="Characters of cleaned text the extractive engine explains; longer fail.",
    )
    # POST /check's cost grows with its texts as the engine's does (108 KB of figures took
    # 2.4 s): a 16 MiB body was minutes of a core. A million characters is some eight
    # times the longest post of the corpus.
    check_max_chars: int = Field(
        default=1_000_000,
        ge=1,
        le=100_000_000,
        description="Characters of an explainer or a source POST /check reads; longer: 413.",
    )
    # An explainer's figures cost the check more than a source's (some 45 s of CPU a MB
    # of them, against 20 s): at the million characters of a source, one request held a
    # server thread for most of a minute. 100,000 characters is some 15,000 words, fifteen
    # times an explainer of the seed's length, and at most a few seconds of a core.
    check_max_explainer_chars: int = Field(
        default=100_000,
        ge=1,
        le=100_000_000,
        description="Characters of an explainer POST /check reads (and at most "
        "PLAINFEED_CHECK_MAX_CHARS); longer: 413.",
    )
    prices: dict[str, tuple[Price, Price]] = Field(
        default_factory=lambda: {
            "gpt-4o-mini": (0.15, 0.60),
            "gpt-4o": (2.50, 10.00),
            "gpt-4.1-mini": (0.40, 1.60),
            "gpt-4.1": (2.00, 8.00),
        },
        description="USD per million (prompt, completion) tokens, by model.",
    )
    repair_rounds: int = Field(
        default=2, ge=0, le=MAX_REPAIR_ROUNDS, description="Repair passes before needs_review."
    )
    review_derived: bool = Field(
        default=False,
        description="Hold an explainer with derived numbers (a rounding, a range end, a ratio "
        "computed from the post) for review instead of publishing it marked.",
    )

    # work
    concurrency: int = Field(
        default=2, ge=0, le=MAX_WORKERS, description="In-process workers of `plainfeed serve`."
    )
    # At least 2 s: a running job's lease is renewed every third of it, but not more often
    # than every half second, so a shorter lease lapses under its own worker.
    lease_seconds: float = Field(default=60.0, ge=2, le=MAX_SECONDS)
    max_attempts: int = Field(
        default=5, ge=1, le=MAX_TRIES, description="Item attempts before `failed`."
    )
    backoff_base: float = Field(default=2.0, ge=0, le=MAX_SECONDS)
    backoff_max: float = Field(default=3600.0, ge=0, le=MAX_SECONDS)
    # Outbound webhooks retry on their own schedule: a subscriber down for a minute (a
    # deploy) must not lose events, as it did with the items' five tries in ~30 s. The
    # defaults try 8 times over about two hours (1, 2, 4 ... 64 minutes apart), as the
    # Standard Webhooks guidance has senders retry for hours.
    outbound_max_attempts: int = Field(
        default=8, ge=1, le=MAX_TRIES, description="Outbound webhook tries before `failed`."
    )
    outbound_backoff_base: float = Field(default=60.0, ge=0, le=MAX_SECONDS)
    outbound_backoff_max: float = Field(default=14_400.0, ge=0, le=MAX_SECONDS)
    retention_days: float = Field(
        default=30.0,
        ge=0,
        le=36_500,
        description="Days a finished delivery keeps its raw body and a finished outbound"
        " delivery is kept (0: for ever).",
    )
    outbound_concurrency: int = Field(
        default=1,
        ge=0,
        le=64,
        description="Threads that send outbound webhooks beside the workers of a process"
        " (0: the workers send them between items).",
    )
    # A subscriber whose events keep failing (each after all its tries, ~2 hours) is
    # deactivated rather than tried for ever: an endpoint that is gone without saying 410.
    outbound_disable_after: int = Field(
        default=5,
        ge=0,
        le=1000,
        description="Deliveries in a row ended `failed` that deactivate a subscriber (0: never).",
    )
    # Subscribing to a feed of hundreds of entries explained every one of them: a feed
    # reader shows the newest few of a new subscription, and so does this.
    first_delivery_max_items: int = Field(
        default=20,
        ge=0,
        le=1_000_000,
        description="Entries of a feed's first delivery that are explained, the newest; the"
        " older ones are stored as `skipped` (0: every entry).",
    )
    page_fetches_per_delivery: int = Field(
        default=10,
        ge=0,
        le=10_000,
        description="Article pages one delivery reads for its new excerpt-only entries; the"
        " other entries' pages are read by the item workers before explaining them.",
    )
    poll_interval: float = Field(
        default=0.5,
        ge=0,
        le=MAX_SECONDS,
        description="Seconds between looks at an empty queue (at least 0.05), and between"
        " looks at deliveries and outbound events while items flow (0: before every item).",
    )
    circuit_threshold: int = Field(default=5, ge=1, description="Consecutive upstream failures.")
    circuit_cooldown: float = Field(default=30.0, ge=0, le=MAX_SECONDS)
    shutdown_grace: float = Field(default=20.0, ge=0, le=MAX_SECONDS)
    worker_metrics_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="`plainfeed worker` serves its Prometheus metrics here (unset or 0: off).",
    )
    worker_metrics_host: str = Field(
        default="127.0.0.1", description="Address the worker's metrics port binds."
    )

    # HTTP
    api_token: str | None = None
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    # uvicorn bounds no request body in time: a client that declared one and sent nothing
    # held a connection and a server task for good. 30 s takes the 16 MiB cap at ~560 KB/s.
    body_timeout: float = Field(
        default=30.0,
        gt=0,
        le=MAX_SECONDS,
        description="Seconds a request body has to arrive whole, from the end of its headers.",
    )
    # A request's line and headers (service.api.protocol): httptools bounds neither, h11
    # only one that comes in pieces. At least 4 KiB, what a browser's head can take with
    # its cookies; at most 1 MiB, past which a head is memory, not a request.
    max_head_bytes: int = Field(
        default=64 * 1024,
        ge=4 * 1024,
        le=1024 * 1024,
        description="Bytes of a request's line and headers; more: 431.",
    )
    # uvicorn bounds only the wait between requests: a head sent a header every few
    # seconds held its connection for good.
    head_timeout: float = Field(
        default=30.0,
        gt=0,
        le=MAX_SECONDS,
        description="Seconds a request's line and headers have to arrive whole; slower: 408.",
    )
    public_url: str = "http://127.0.0.1:8000"
    # A WebSub subscribe or unsubscribe the hub took but never verified waited for good
    # (and its feed was removed only by force): given up after this (service.websub).
    websub_pending_timeout: float = Field(
        default=3600.0,
        gt=0,
        le=MAX_SECONDS,
        description="Seconds a WebSub (un)subscribe waits for the hub to verify it.",
    )

    # fetching
    allow_private_urls: bool = False
    fetch_timeout: float = Field(default=20.0, gt=0, le=MAX_SECONDS)
    fetch_max_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    # Browsers give up after 20: more than a hundred is a redirect loop, not a site.
    fetch_max_redirects: int = Field(default=5, ge=0, le=100)
    user_agent: str = "Plainfeed/0.1 (+https://github.com/plainfeed/plainfeed)"

    # logging
    log_format: Literal["text", "json"] = "text"
    log_level: str = Field(default="INFO", description="A logging level name, e.g. DEBUG.")

    @field_validator("database_url")
    @classmethod
    def _psycopg3(cls, v: str) -> str:
        # Users paste URLs as libpq writes them; SQLAlchemy needs the driver named.
        if v.startswith("postgres://"):
            v = "postgresql://" + v[len("postgres://") :]
        if v.startswith("postgresql://"):
            v = "postgresql+psycopg://" + v[len("postgresql://") :]
        return v

    @field_validator("user_agent", "openai_api_key", "api_token")
    @classmethod
    def _header_text(cls, v: str | None) -> str | None:
        # In an HTTP header (the token as clients send it): an accent was a traceback at
        # the first fetch or model call, a line break a protocol error or "cannot reach".
        if v is not None and not all(" " <= c <= "~" for c in v):
            raise ValueError(
                "it goes in an HTTP header: printable ASCII only (no accent, tab or line break)"
            )
        return v

    @field_validator("openai_base_url")
    @classmethod
    def _endpoint_url(cls, v: str | None) -> str | None:
        # "http://[::1" was a traceback at the first call, "ftp://" 10 s of retries.
        if not v:
            return v
        try:
            parts = urlsplit(v.strip())
            parts.port  # noqa: B018  # raises for a port out of range or not a number
        except ValueError as exc:
            raise ValueError(f"not a valid URL ({exc})") from exc
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http(s) URL with a host, e.g. https://api.openai.com/v1")
        return v

    @field_validator("log_level")
    @classmethod
    def _level_name(cls, v: str) -> str:
        # Checked here: where logging is set up, it was a traceback mid-command.
        name = v.strip().upper()
        if name not in logging.getLevelNamesMapping():
            raise ValueError("not a logging level; use DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return name

    @field_validator("public_url")
    @classmethod
    def _absolute_http_url(cls, v: str) -> str:
        # Every Atom link, outbound event link and the WebSub callback is this plus a
        # path: without a scheme and host ("news.example.org") each was a relative link
        # that no reader or hub can follow, with a query ("/?a=1") each path landed in it.
        parts = urlsplit(v.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http(s) URL with a host, e.g. https://news.example.org")
        if parts.query or parts.fragment or v.strip().endswith(("?", "#")):
            raise ValueError("the links are built on it: no query or fragment")
        return v.strip()

    @field_validator("prompts_dir")
    @classmethod
    def _a_folder(cls, v: Path) -> Path:
        # Only when set (the default is read where the templates are): prompt_folder.
        why = unusable(v)
        if why is not None:
            raise ValueError(why)
        return v

    @property
    def llm_configured(self) -> bool:
        return bool(self.openai_base_url or self.openai_api_key)

    @property
    def effective_engine(self) -> Literal["llm", "extractive"]:
        if self.engine == "auto":
            return "llm" if self.llm_configured else "extractive"
        return self.engine

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def _secret(loc: tuple[int | str, ...]) -> bool:
    # Values an error message must not repeat (stderr goes to logs and CI output).
    return bool(loc) and str(loc[0]).lower() in ("openai_api_key", "api_token")


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable a validation error's location names."""
    name = str(loc[0]) if loc else ""
    for field_name, field in Settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices) and name in (field_name, *map(str, alias.choices)):
            # The location is the first alias, whichever was set: the one in the environment.
            choices = [str(c) for c in alias.choices]
            given = [c for c in choices if c.upper() in map(str.upper, os.environ)]
            return given[0] if given else " or ".join(choices)
    return f"PLAINFEED_{name.upper()}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings; a variable of the wrong type is a :class:`ConfigError` naming it."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{_variable(e['loc'])}={e['input']!r}: {e['msg']}"
            if isinstance(e.get("input"), str) and not _secret(e["loc"])
            else f"{_variable(e['loc'])}: {e['msg']}"
            for e in exc.errors()
        )
        raise ConfigError(f"bad setting: {problems}") from exc
    except SettingsError as exc:
        # Complex fields (prices) are JSON in the environment; pydantic-settings raises
        # before validation when that JSON does not parse.
        m = re.search(r'field "(\w+)"', str(exc))
        what = _variable((m.group(1),)) if m else "a setting"
        raise ConfigError(f"bad setting: {what} is not valid JSON") from exc
    except UnicodeDecodeError as exc:
        # Only the .env file is decoded here: the environment is text already.
        raise ConfigError(
            f"bad setting: {_env_file()} is not UTF-8 text (at byte {exc.start + 1})"
        ) from exc
    except OSError as exc:
        raise ConfigError(f"bad setting: cannot read {_env_file()}: {exc.strerror or exc}") from exc


def _env_file() -> Path:
    """The .env file that settings are read from, as a full path."""
    return Path(str(Settings.model_config.get("env_file"))).absolute()
