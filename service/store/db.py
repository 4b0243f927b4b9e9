"""Engine, sessions and schema migrations.

SQLite is the embedded default: WAL mode and a busy timeout let the API and in-process
workers share one file; writes are serialised by SQLite itself. PostgreSQL is for any
number of workers on any number of machines.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SAWarning, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from service.errors import ConfigError, StoreError

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_migrate_lock = threading.Lock()
# Seconds a PostgreSQL connection may take to open. libpq waits for ever by default, so a
# host that accepts the connection and never answers hung every command; a URL's own
# ``?connect_timeout=`` wins.
CONNECT_TIMEOUT = 10
# How a PostgreSQL connection finds its server gone (a host down, a network cut): libpq's
# keepalives wait the kernel's 2 hours of silence before the first probe, and a write
# waits for the kernel's ~15 minutes of retransmissions, so a worker blocked on a dead
# connection held its thread, and a pooled one failed its next use only then. Probes
# after 30 s idle, every 10 s, 3 unanswered: dead in about a minute; an unacknowledged
# write gives up after 60 s. A URL's own parameter of the same name wins.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 60_000,  # ms
}


def _reason(exc: BaseException) -> str:
    """The first line of a database error's own message (the driver's, when there is
    one): SQLAlchemy's text adds the statement and a documentation link on more lines."""
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else type(cause).__name__


def _in_memory(u: URL) -> bool:
    """Whether a SQLite URL names an in-memory database (``sqlite://``, ``sqlite:///``,
    ``:memory:``, or a ``file:`` URI in memory mode)."""
    mode = u.query.get("mode")
    modes = (mode,) if isinstance(mode, str) else tuple(mode or ())
    return (
        u.database in (None, "", ":memory:")
        or "memory" in modes
        or (u.database or "").startswith("file::memory:")
    )


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _sqlite_begin(conn: Any) -> None:
    # Take the write lock at BEGIN: a deferred transaction that reads then writes can
    # fail with "database is locked" without waiting; IMMEDIATE waits (busy_timeout).
    # Read-only sessions (see `readonly`) begin deferred, so reads never queue behind
    # writers (WAL lets them read the last committed state).
    if conn.get_execution_options().get("readonly"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _readonly_refused(url: str) -> Callable[[ExceptionContext], None]:
    """A ``handle_error`` hook: SQLite's refusal to write (SQLITE_READONLY: the database
    opened with ``mode=ro`` or ``immutable=1``, a file or folder this user cannot write)
    as a :class:`StoreError` naming the database, the driver's error its cause. It left
    as SQLAlchemy's OperationalError: `feeds add` ended in a traceback of the INSERT, and
    a request in an internal error that said nothing of why."""

    def refuse(context: ExceptionContext) -> None:
        error = context.original_exception
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(error, sqlite3.Error) and code is not None and code & 0xFF == 8:
            raise StoreError(
                f"the database {url} is read-only, and this writes to it ({error}): "
                "open it read-write (no mode=ro or immutable=1, a file and folder this "
                "user can write) to change it"
            )

    return refuse


def _sqlite_engine(url: str, shown: str) -> Engine:
    """The engine of a SQLite URL; a :class:`ConfigError` for a query argument SQLite
    reads only in a URI, given without ``uri=true`` ("sqlite:///x.db?mode=ro"): the
    driver ignored it, with a warning few read, and the database was opened as if it
    were not there (read-write: mode=ro was not read-only)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "Query string argument", SAWarning)
        try:
            return create_engine(
                url,
                connect_args={"check_same_thread": False, "timeout": 30, "isolation_level": None},
            )
        except SAWarning as exc:
            said = str(exc).split(" are not accepted", 1)[0]
            names = ", ".join(re.findall(r"'([^']*)'", said)) or str(exc)
            uri = f"sqlite:///file:{make_url(url).database}?{url.split('?', 1)[1]}&uri=true"
            raise ConfigError(
                f"the database URL {shown} has query arguments SQLite reads only in a URI "
                f"({names}), which it would ignore: write it {uri} or leave them out"
            ) from exc


def make_engine(url: str, *, pool_size: int = 10) -> Engine:
    """Create an engine for ``url``; the SQLite file's folder is created if missing.

    Raises :class:`ConfigError` for a URL that names no usable database (unparsable,
    unknown dialect, driver not installed, folder that cannot be created, in memory)."""
    try:
        u = make_url(url)
    except (ArgumentError, ValueError) as exc:
        # ValueError: a port that is not a number ("h:abc", an unclosed "[::1").
        raise ConfigError(
            "the database URL (PLAINFEED_DATABASE_URL) does not parse; expected e.g. "
            "sqlite:///./data/plainfeed.db or postgresql://user@host/dbname"
        ) from exc
    shown = u.render_as_string(hide_password=True)
    try:
        if u.get_backend_name() == "sqlite":
            if u.database is None or _in_memory(u):
                # Each connection (each worker thread) would get its own empty database,
                # and all of it is gone when the command ends: nothing would be kept.
                raise ConfigError(  # as given: a SQLite URL has no password to hide
                    f"the database URL {url} is an in-memory SQLite database, which keeps "
                    "nothing; name a file, e.g. sqlite:///./data/plainfeed.db"
                )
            folder = Path(u.database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(
                    f"cannot create the folder of the SQLite database {shown}: "
                    f"{exc.strerror or exc}"
                ) from exc
            engine = _sqlite_engine(url, shown)
            event.listen(engine, "connect", _sqlite_pragmas)
            event.listen(engine, "begin", _sqlite_begin)
            event.listen(engine, "handle_error", _readonly_refused(url))  # no password
            return engine
        connect_args: dict[str, Any] = {}
        if u.get_driver_name() in ("psycopg", "psycopg2"):
            libpq = {"connect_timeout": CONNECT_TIMEOUT, **KEEPALIVES}
            connect_args.update((k, v) for k, v in libpq.items() if k not in u.query)
        return create_engine(
            url,
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_pre_ping=True,
            future=True,
            connect_args=connect_args,
        )
    except (ArgumentError, ImportError, ValueError) as exc:
        # NoSuchModuleError (an unknown dialect) is an ArgumentError; a dialect whose
        # driver is not installed fails with ImportError; a query argument the driver
        # converts and cannot ("sqlite:///x.db?timeout=abc"), ValueError: a traceback.
        raise ConfigError(f"cannot use the database URL {shown}: {exc}") from exc


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def readonly(sm: sessionmaker[Session]) -> sessionmaker[Session]:
    """Sessions for reading only: on SQLite they do not take the write lock."""
    bind = sm.kw["bind"]
    return sessionmaker(bind.execution_options(readonly=True), expire_on_commit=False)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (safe to call at every start)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with _migrate_lock:
        try:
            with engine.connect() as conn:
                if conn.dialect.name == "postgresql":
                    # Several processes may start at once; one migrates, the others wait.
                    conn.execute(text("SELECT pg_advisory_lock(7321001)"))
                    conn.commit()
                try:
                    _refuse_unknown_revision(conn, ScriptDirectory.from_config(cfg))
                    cfg.attributes["connection"] = conn
                    command.upgrade(cfg, "head")
                    conn.commit()
                finally:
                    if conn.dialect.name == "postgresql":
                        conn.execute(text("SELECT pg_advisory_unlock(7321001)"))
                        conn.commit()
        except SQLAlchemyError as exc:
            raise StoreError(f"database migration failed: {_reason(exc)}") from exc
        except CommandError as exc:
            raise StoreError(f"database migration failed: {exc}") from exc


def _refuse_unknown_revision(conn: Connection, script: ScriptDirectory) -> None:
    """A schema revision this version has no migration for was written by a newer
    Plainfeed: upgrading cannot start from it, and running on it could corrupt its data."""
    current = MigrationContext.configure(conn).get_current_heads()
    # Reading the revision began a transaction; end it before the upgrade begins its own.
    conn.rollback()
    known = {r.revision for r in script.walk_revisions()}
    unknown = [r for r in current if r not in known]
    if unknown:
        raise StoreError(
            f"the database's schema is at revision {', '.join(unknown)}, which this "
            "Plainfeed does not know: a newer Plainfeed migrated it; run that version "
            "or a newer one"
        )


def ping(engine: Engine) -> None:
    """Raise StoreError unless the database answers."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        raise StoreError(f"database unreachable: {_reason(exc)}") from exc


@contextmanager
def transaction(sm: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back on error."""
    with sm() as session, session.begin():
        yield session


_T = TypeVar("_T")


def once_more(write: Callable[[], _T], what: str) -> _T:
    """``write`` (a transaction recording work already done and paid for: a model's
    answer, a webhook sent), and once more on a fresh connection when the database fails
    it for a moment (a connection ended in a failover or a pooler restart, a deadlock):
    escaping, the work was left to its lease, then done (paid, sent) again."""
    try:
        return write()
    except OperationalError as exc:
        log.warning("%s failed (%s); once more", what, _reason(exc))
        return write()
