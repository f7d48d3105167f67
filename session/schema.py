"""The session store's schema: its tables, their versions, and what full-text search sees.

Part of the session store (store.py). MIGRATIONS[n] brings a database at
PRAGMA user_version n to n + 1; a released migration is never edited, a change
is a new one. `entry_text` indexes `searchable_text` of every message, which
SQLite calls (the store registers it) when a migration rebuilds the index.
"""

from __future__ import annotations

import json

MIGRATIONS = [
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY CHECK (id LIKE 'sess\\_%' ESCAPE '\\'),
        workspace TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL);
    CREATE TABLE entries (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (session_id, seq));
    CREATE TABLE todos (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        content TEXT NOT NULL CHECK (content <> ''),
        status TEXT NOT NULL,
        priority TEXT NOT NULL,
        active_form TEXT NOT NULL,
        PRIMARY KEY (session_id, position));
    """,
    "CREATE INDEX sessions_by_workspace ON sessions (workspace, updated);",
    """
    CREATE VIRTUAL TABLE entry_text USING fts5(
        body, session_id UNINDEXED, seq UNINDEXED, role UNINDEXED,
        tokenize = 'porter unicode61');
    INSERT INTO entry_text (body, session_id, seq, role)
        SELECT searchable_text(payload), session_id, seq, json_extract(payload, '$.role')
        FROM entries WHERE kind = 'message';
    """,
    # The session id indexed too, so a search is limited to its session inside the index,
    # not after ranking every session's matches (bench/session_search.py).
    """
    CREATE VIRTUAL TABLE entry_words USING fts5(
        body, session_id, seq UNINDEXED, role UNINDEXED,
        tokenize = 'porter unicode61');
    INSERT INTO entry_words (body, session_id, seq, role)
        SELECT body, session_id, seq, role FROM entry_text;
    DROP TABLE entry_text;
    ALTER TABLE entry_words RENAME TO entry_text;
    """,
    """
    CREATE TABLE plan_revisions (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number > 0),
        plan TEXT NOT NULL,
        digest TEXT NOT NULL,
        outcome TEXT NOT NULL,
        feedback TEXT NOT NULL,
        edits TEXT NOT NULL,
        mode TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (session_id, number));
    """,
    """
    CREATE TABLE checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number > 0),
        kind TEXT NOT NULL CHECK (kind IN ('prompt', 'rewind')),
        label TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        position INTEGER NOT NULL,
        plan_mode INTEGER NOT NULL,
        permission_mode TEXT NOT NULL,
        todos TEXT NOT NULL,
        plan TEXT,
        problem TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (session_id, number));
    """,
    # NULL in a checkpoint taken before it was kept: a rewind to it leaves the plan model alone.
    "ALTER TABLE checkpoints ADD COLUMN plan_model TEXT;",
]


def searchable_text(payload: str) -> str:
    """What full-text search sees of a stored message: its text, each tool call's name and arguments.

    Whatever the message holds becomes text SQLite can store: a lone surrogate (from a
    model's JSON, or invalid UTF-8 in the user's prompt) is written as its escape, and
    arguments nested too deep to parse are indexed as they were written.
    """
    message = json.loads(payload)
    content = message.get("content")
    parts = [content] if isinstance(content, str) else []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        parts.append(str(function.get("name", "")))
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (ValueError, RecursionError):
            arguments = function.get("arguments")
        values = arguments.values() if isinstance(arguments, dict) else [arguments]
        parts += [value if isinstance(value, str) else json.dumps(value) for value in values]
    return storable("\n".join(part for part in parts if part))


def storable(text: str) -> str:
    """`text` as SQLite can store it: a lone surrogate (no UTF-8 holds one) as its escape, as the screen shows it."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
