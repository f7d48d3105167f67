"""The session store: SQLite at $STEPAGENT_HOME/sessions.db (stdlib sqlite3).

Five tables: `sessions` (ids `sess_…`, the workspace, times), `entries` (every
message and event of a session, numbered in order), `todos` (the current
list, by session and position, deleted with their session), `plan_revisions`
(every plan the user reviewed, plan_revisions.py) and `checkpoints` (rewind's,
session/rewind/: each with the snapshot of the files, how far the entries went,
the modes, the todos and the plan). `entry_text` is an
FTS5 full-text index over the messages (Porter stemming; BM25 within the session, ranking.py), which
ReadSessionContext searches (session/search.py). The database runs
in WAL mode so readers never block the writer, and every write is one
`BEGIN IMMEDIATE` transaction, so concurrent writers queue instead of failing
half-way; within the process, threads (sub-agents, the key reader of a turn,
ui/turn_keys.py) take turns on the one connection, whose transaction they would
share. The schema and its versions are in schema.py; the session list's lines in
session_list.py.

Any failure (locked, corrupt, unwritable) is a StoreUnavailable with a clear
message; callers fall back to memory. The store never rewrites what it holds.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from session.busy import BUSY_TIMEOUT_SECONDS
from session.plan_revisions import Revision
from session.ranking import bm25_order
from session.rewind.events import CheckpointTaken
from session.schema import MIGRATIONS, searchable_text, storable
from session.session_list import FIRST_PROMPT, LAST_MODE, SessionInfo, mode_name
from tools.todos import Todo


def _first_varint(size: bytes) -> int:
    """The first number of an FTS5 docsize blob: the body's length in tokens.

    The blob is one SQLite varint per column (the FTS5 manual's appendix on shadow
    tables): big-endian groups of seven bits, the high bit set on all but the last."""
    value = 0
    for byte in size[:8]:
        value = value << 7 | byte & 0x7F
        if byte < 0x80:
            break
    return value


def _text(data: bytes) -> str:
    """A text SQLite returns; json_extract of a stored lone surrogate is not UTF-8, so it reads as escapes."""
    return data.decode("utf-8", "backslashreplace")


class StoreUnavailable(Exception):
    """The database cannot be used now; the message says why, in one line."""


@dataclass(frozen=True)
class Entry:
    """One stored entry of a session: its number, kind and payload."""

    seq: int
    kind: str
    payload: dict[str, Any]


class SessionStore:
    """Sessions, their entries and todos in one SQLite file (WAL, BEGIN IMMEDIATE)."""

    def __init__(self, path: Path, busy_timeout: float = BUSY_TIMEOUT_SECONDS):
        self.path = path
        self._writing = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None,
                                       check_same_thread=False)
            self._db.text_factory = _text
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.create_function("searchable_text", 1, searchable_text, deterministic=True)
            self._refuse_newer_schema()
            self._db.execute("PRAGMA journal_mode = WAL")
            self._migrate()
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(f"session store {path} cannot be used: {exc}") from None

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def create_session(self, session_id: str, workspace: Path) -> bool:
        """Record a new session for this workspace; False (and nothing happens) if it exists."""
        now = time.time()
        with self._write() as db:
            return db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                              (session_id, str(workspace), now, now)).rowcount == 1

    def append(self, session_id: str, kind: str, payload: dict[str, Any]) -> int:
        """Add one entry at the end of the session; returns its number."""
        now = time.time()
        with self._write() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE session_id = ?",
                             (session_id,)).fetchone()[0]
            encoded = json.dumps(payload)
            db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?)",
                       (session_id, seq, kind, encoded, now))
            if kind == "message":
                db.execute("INSERT INTO entry_text VALUES (?, ?, ?, ?)",
                           (searchable_text(encoded), session_id, seq, payload.get("role", "")))
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, session_id))
        return seq

    def replace_todos(self, session_id: str, todos: tuple[Todo, ...]) -> None:
        """Store the whole todo list of a session in place of the old one."""
        with self._write() as db:
            db.execute("DELETE FROM todos WHERE session_id = ?", (session_id,))
            db.executemany("INSERT INTO todos VALUES (?, ?, ?, ?, ?, ?)",
                           [(session_id, n, storable(t.content), t.status, t.priority,
                             storable(t.active_form))
                            for n, t in enumerate(todos)])
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (time.time(), session_id))

    def entries(self, session_id: str) -> list[Entry]:
        """A session's entries in the order they were written."""
        rows = self._read("SELECT seq, kind, payload FROM entries WHERE session_id = ? ORDER BY seq",
                          (session_id,))
        try:
            return [Entry(seq, kind, json.loads(payload)) for seq, kind, payload in rows]
        except (TypeError, ValueError) as exc:
            raise StoreUnavailable(f"session {session_id} in {self.path} has a damaged entry: "
                                   f"{exc}") from None

    def copy_session(self, source: str, target: str, workspace: Path) -> None:
        """Make `target` a new session holding a copy of `source`'s entries, todos and checkpoints (a fork)."""
        now = time.time()
        with self._write() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", (target, str(workspace), now, now))
            db.execute("INSERT INTO entries SELECT ?, seq, kind, payload, created FROM entries "
                       "WHERE session_id = ?", (target, source))
            db.execute("INSERT INTO todos SELECT ?, position, content, status, priority, active_form "
                       "FROM todos WHERE session_id = ?", (target, source))
            db.execute("INSERT INTO entry_text SELECT body, ?, seq, role FROM entry_text "
                       "WHERE session_id = ?", (target, source))
            db.execute("INSERT INTO plan_revisions SELECT ?, number, plan, digest, outcome, feedback, "
                       "edits, mode, created FROM plan_revisions WHERE session_id = ?", (target, source))
            db.execute("INSERT INTO checkpoints SELECT ?, number, kind, label, snapshot, position, "
                       "plan_mode, permission_mode, todos, plan, problem, created, plan_model FROM checkpoints "
                       "WHERE session_id = ?", (target, source))

    def add_revision(self, session_id: str, revision: Revision) -> None:
        """Keep one reviewed plan of a session (plan_revisions.py); its number again replaces it."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO plan_revisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (session_id, revision.number, storable(revision.plan), revision.digest,
                        revision.outcome, storable(revision.feedback), storable(revision.edits),
                        revision.mode, time.time()))

    def revisions(self, session_id: str) -> list[Revision]:
        """A session's reviewed plans, first to last."""
        rows = self._read("SELECT plan, digest, outcome, feedback, edits, mode, '', number "
                          "FROM plan_revisions WHERE session_id = ? ORDER BY number", (session_id,))
        return [Revision(*row) for row in rows]

    def add_checkpoint(self, session_id: str, checkpoint: CheckpointTaken) -> None:
        """Keep one of rewind's checkpoints, at the place the session's entries have reached."""
        with self._write() as db:
            position = db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE session_id = ?",
                                  (session_id,)).fetchone()[0]
            db.execute("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (session_id, checkpoint.number, checkpoint.kind, storable(checkpoint.label),
                        checkpoint.commit, position, checkpoint.plan_mode, checkpoint.permission_mode,
                        json.dumps([todo.as_dict() for todo in checkpoint.todos]),
                        None if checkpoint.plan is None else storable(checkpoint.plan),
                        storable(checkpoint.problem), time.time(),
                        None if checkpoint.plan_model is None else storable(checkpoint.plan_model)))

    def checkpoints(self, session_id: str) -> list[tuple[int, CheckpointTaken]]:
        """A session's checkpoints in order, each with the place its session's entries had reached."""
        rows = self._read("SELECT position, number, kind, label, snapshot, plan_mode, permission_mode, "
                          "todos, plan, problem, plan_model FROM checkpoints WHERE session_id = ? "
                          "ORDER BY number", (session_id,))
        try:
            return [(position, CheckpointTaken(number, kind, label, snapshot, bool(plan_mode), mode,
                                               tuple(Todo.from_dict(todo) for todo in json.loads(todos)),
                                               plan, problem, plan_model))
                    for position, number, kind, label, snapshot, plan_mode, mode, todos, plan, problem,
                    plan_model in rows]
        except (TypeError, ValueError) as exc:
            raise StoreUnavailable(f"session {session_id} in {self.path} has a damaged checkpoint: "
                                   f"{exc}") from None

    def todos(self, session_id: str) -> tuple[Todo, ...]:
        """A session's current todo list."""
        rows = self._read("SELECT content, status, priority, active_form FROM todos "
                          "WHERE session_id = ? ORDER BY position", (session_id,))
        return tuple(Todo(*row) for row in rows)

    def sessions(self, workspace: Path, limit: int = 20) -> list[SessionInfo]:
        """This workspace's sessions, newest first, each with its first prompt and last mode."""
        rows = self._read(f"SELECT s.id, s.workspace, s.updated, COUNT(e.seq), ({FIRST_PROMPT}), "
                          f"({LAST_MODE}) FROM sessions s LEFT JOIN entries e ON e.session_id = s.id "
                          "WHERE s.workspace = ? GROUP BY s.id ORDER BY s.updated DESC LIMIT ?",
                          (str(workspace), limit))
        return [SessionInfo(*row[:4], row[4] or "", mode_name(row[5])) for row in rows]

    def session_count(self, workspace: Path) -> int:
        """How many sessions this workspace has stored (`sessions` lists the newest)."""
        return self._read("SELECT COUNT(*) FROM sessions WHERE workspace = ?", (str(workspace),))[0][0]

    def ids_starting(self, prefix: str, workspace: Path) -> list[str]:
        """This workspace's session ids that start with `prefix`, in order (the list's filter)."""
        rows = self._read("SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 "
                          "AND workspace = ?2 ORDER BY id", (prefix, str(workspace)))
        return [row[0] for row in rows]

    def workspace_of(self, session_id: str) -> str | None:
        """The workspace a stored session belongs to, None if there is no such session."""
        rows = self._read("SELECT workspace FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows else None

    def search(self, session_id: str, words: list[str], limit: int) -> list[tuple[int, str, str]]:
        """The session's messages holding any of `words`, best first (ranking.py): (seq, role, text).

        The index finds the session's rows by its id (a phrase in the session_id column);
        an id that holds this one word by word shares that phrase, so each row is checked
        for the exact id before it is returned."""
        own = f'session_id : "{session_id.replace(chr(34), chr(34) * 2)}"'
        messages = self._read("SELECT count(*) FROM entry_text WHERE entry_text MATCH ?", (own,))[0][0]
        hits = [self._read("SELECT t.rowid, d.sz FROM entry_text t JOIN entry_text_docsize d "
                           "ON d.id = t.rowid WHERE entry_text MATCH ?",
                           (f'{own} AND body : "{word.replace(chr(34), chr(34) * 2)}"',))
                for word in words]
        sizes = {row: size for rows in hits for row, size in rows}
        ranked = bm25_order([[row for row, _ in rows] for rows in hits],
                            {row: _first_varint(size) for row, size in sizes.items()}, messages)
        found: list[tuple[int, str, str]] = []
        for start in range(0, len(ranked), limit):
            rows = self._read("SELECT t.session_id, t.seq, t.role, t.body FROM json_each(?) j "
                              "JOIN entry_text t ON t.rowid = j.value ORDER BY j.key",
                              (json.dumps(ranked[start:start + limit]),))
            found += [(seq, role, body) for owner, seq, role, body in rows if owner == session_id]
            if len(found) >= limit:
                break
        return found[:limit]

    def exists(self, session_id: str) -> bool:
        """Whether a session with this id is stored."""
        return bool(self._read("SELECT 1 FROM sessions WHERE id = ?", (session_id,)))

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"session store {self.path} cannot be read: {exc}") from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._writing:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"session store {self.path} is busy or damaged: {exc}") from None
            try:
                yield self._db
                self._db.execute("COMMIT")
            except (sqlite3.Error, ValueError, RecursionError) as exc:  # ValueError: text SQLite cannot take
                self._rollback()
                raise StoreUnavailable(f"session store {self.path} refused a write: {exc}") from None
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        """Undo an open transaction; Ctrl-C may have landed before BEGIN or after COMMIT."""
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def _version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _refuse_newer_schema(self) -> None:
        if self._version() > len(MIGRATIONS):
            raise StoreUnavailable(f"session store {self.path} is from a newer stepagent "
                                   f"(schema {self._version()}); upgrade to use it")

    def _migrate(self) -> None:
        """Bring the schema up to date, one version per transaction; a second process
        opening the database at the same moment finds the work done and skips it.
        An up-to-date database is only read, so opening it never waits for a writer."""
        while self._version() < len(MIGRATIONS):
            with self._write() as db:
                version = self._version()
                if version < len(MIGRATIONS):
                    for statement in MIGRATIONS[version].split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version = {version + 1}")
