"""The SQLite session store: schema, WAL, transactions, concurrency, failures."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from session.schema import MIGRATIONS
from session.store import SessionStore, StoreUnavailable
from tools.todos import Todo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions.db")


def test_schema_is_versioned_and_in_wal_mode(store):
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sessions", "entries", "todos"} <= tables


def test_an_old_schema_is_migrated_forward(tmp_path):
    path = tmp_path / "sessions.db"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    db.close()
    SessionStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'sessions_by_workspace'").fetchone()


def test_a_newer_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "sessions.db"
    sqlite3.connect(path).execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    before = path.read_bytes()
    with pytest.raises(StoreUnavailable, match="newer stepagent"):
        SessionStore(path)
    assert path.read_bytes() == before


def test_entries_keep_their_order_and_todos_replace_the_list(store, tmp_path):
    store.create_session("sess_a", tmp_path)
    for number in range(5):
        store.append("sess_a", "message", {"n": number})
    store.replace_todos("sess_a", (Todo("one"), Todo("two", "in_progress")))
    store.replace_todos("sess_a", (Todo("three", "completed"),))
    assert [e.payload["n"] for e in store.entries("sess_a")] == [0, 1, 2, 3, 4]
    assert store.todos("sess_a") == (Todo("three", "completed"),)


def test_ids_must_look_like_sessions(store, tmp_path):
    with pytest.raises(StoreUnavailable):
        store.create_session("../../etc", tmp_path)


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "sessions.db"
    SessionStore(path).create_session("sess_shared", tmp_path)
    writer = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
              "from session.store import SessionStore; s = SessionStore(Path(sys.argv[2])); "
              "[s.append('sess_shared', 'message', {'who': sys.argv[3], 'n': n}) for n in range(100)]")
    processes = [subprocess.Popen([sys.executable, "-c", writer, str(ROOT), str(path), str(w)])
                 for w in range(3)]
    threads = [threading.Thread(target=lambda: [SessionStore(path).append("sess_shared", "message",
                                                                         {"who": "t", "n": n})
                                                for n in range(50)])]
    for thread in threads:
        thread.start()
    assert all(p.wait(timeout=120) == 0 for p in processes)
    for thread in threads:
        thread.join()
    entries = SessionStore(path).entries("sess_shared")
    assert len(entries) == 350
    assert [e.seq for e in entries] == list(range(1, 351))
    for who in ("0", "1", "2"):
        assert [e.payload["n"] for e in entries if e.payload["who"] == who] == list(range(100))


def test_a_locked_database_is_a_clear_error_not_a_crash(store, tmp_path):
    store.create_session("sess_a", tmp_path)
    blocker = sqlite3.connect(store.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    waiting = SessionStore(store.path, busy_timeout=0.2)
    with pytest.raises(StoreUnavailable, match="busy"):
        waiting.append("sess_a", "message", {})
    blocker.execute("ROLLBACK")
    waiting.append("sess_a", "message", {})
    assert len(store.entries("sess_a")) == 1


def test_a_corrupt_database_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailable, match="cannot be used"):
        SessionStore(path)
    assert path.read_bytes() == b"this is not a database" * 100
