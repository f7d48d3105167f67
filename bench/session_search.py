"""ReadSessionContext's search: FTS5 over a stored session of 10,000 entries, and among 50.

The session alternates user questions, assistant answers and tool results
(about 300 characters each, words drawn from a fixed vocabulary); one entry
mentions a deployment script. Figures: the search alone (store.search: FTS5 finds,
BM25 within the session ranks, 200 candidates), and the whole `relevant` strategy (query, excerpts,
a 6,000-token budget). Also the cost the index adds to each journal write.
Then the same query with words most entries hold, on a session of 2,000
entries, in a store holding it alone and in one holding 49 other sessions like
it, timed in turn. Target: among 50 ≤ 1.5× alone.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from common import Targets, conditions, median_seconds, ratio

from session.search import query_words, relevant_passages
from session.store import SessionStore

ENTRIES = 10_000
RUNS = 21
SESSIONS, EACH = 50, 2_000
COMMON = ["parser", "token", "session"]
TARGET = 1.5
QUERY = "where is the deploy script for staging kept?"
WORDS = ("parser token grammar config lexer module import function class test file read write "
         "error result value option flag model request reply session plan todo memory hook "
         "guard sandbox shell command branch commit").split()


def fill(store: SessionStore, session_id: str, entries: int = ENTRIES) -> float:
    """Store the session; returns the seconds per append."""
    store.create_session(session_id, Path("/bench"))
    chooser = random.Random(42)
    roles = ("user", "assistant", "tool")
    start = time.perf_counter()
    for number in range(entries):
        text = " ".join(chooser.choice(WORDS) for _ in range(45))
        if number == entries // 2:
            text = "The deployment script lives in ops/release.sh and needs staging credentials."
        store.append(session_id, "message", {"role": roles[number % 3], "content": text})
    return (time.perf_counter() - start) / entries


def among_many(folder: Path, targets: Targets) -> None:
    """The common-words query on one session, alone in its store and among SESSIONS."""
    alone, crowded = SessionStore(folder / "alone.db"), SessionStore(folder / "crowded.db")
    fill(alone, "sess_wanted", EACH)
    fill(crowded, "sess_wanted", EACH)
    for number in range(SESSIONS - 1):
        crowded.copy_session("sess_wanted", f"sess_other{number}", Path("/bench"))
    measured = ratio(lambda: crowded.search("sess_wanted", COMMON, 200),
                     lambda: alone.search("sess_wanted", COMMON, 200), RUNS)
    print(f"words most entries hold, a session of {EACH:,} entries: alone "
          f"{measured.reference * 1000:.2f} ms, among {SESSIONS} sessions {measured.measured * 1000:.2f} ms")
    print(f"  among {SESSIONS} / alone: {measured} "
          f"{targets.check('search among sessions', measured.median, TARGET, f'{TARGET}×')}")
    alone.close()
    crowded.close()


def main() -> int:
    print(conditions())
    targets = Targets()
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-fts-") as folder:
        store = SessionStore(Path(folder) / "sessions.db")
        per_append = fill(store, "sess_bench")
        words = query_words(QUERY)
        query = median_seconds(lambda: store.search("sess_bench", words, 200), RUNS)
        whole = median_seconds(lambda: relevant_passages(store, "sess_bench", QUERY, 6000), RUNS)
        common = median_seconds(lambda: store.search("sess_bench", ["parser", "token"], 200), RUNS)
        store.close()
    print(f"session of {ENTRIES:,} entries; query {QUERY!r}")
    print(f"search (FTS5 finds, BM25 within the session ranks, 200 candidates): "
          f"{query * 1000:.2f} ms (median of {RUNS})")
    print(f"search for words in most entries: {common * 1000:.2f} ms (median of {RUNS})")
    print(f"relevant strategy, 6,000-token budget: {whole * 1000:.2f} ms (median of {RUNS})")
    print(f"journal append with the index: {per_append * 1000:.3f} ms per entry")
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-fts-") as folder:
        among_many(Path(folder), targets)
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
