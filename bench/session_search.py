"""ReadSessionContext's search: FTS5 over a stored session of 10,000 entries.

The session alternates user questions, assistant answers and tool results
(about 300 characters each, words drawn from a fixed vocabulary); one entry
mentions a deployment script. Figures: the FTS5 query alone (store.search,
BM25-ranked, 200 candidates), and the whole `relevant` strategy (query, excerpts,
a 6,000-token budget). Also the cost the index adds to each journal write.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from session.search import match_expression, relevant_passages
from session.store import SessionStore

ENTRIES = 10_000
RUNS = 21
QUERY = "where is the deploy script for staging kept?"
WORDS = ("parser token grammar config lexer module import function class test file read write "
         "error result value option flag model request reply session plan todo memory hook "
         "guard sandbox shell command branch commit").split()


def fill(store: SessionStore, session_id: str) -> float:
    """Store the session; returns the seconds per append."""
    store.create_session(session_id, Path("/bench"))
    chooser = random.Random(42)
    roles = ("user", "assistant", "tool")
    start = time.perf_counter()
    for number in range(ENTRIES):
        text = " ".join(chooser.choice(WORDS) for _ in range(45))
        if number == ENTRIES // 2:
            text = "The deployment script lives in ops/release.sh and needs staging credentials."
        store.append(session_id, "message", {"role": roles[number % 3], "content": text})
    return (time.perf_counter() - start) / ENTRIES


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-fts-") as folder:
        store = SessionStore(Path(folder) / "sessions.db")
        per_append = fill(store, "sess_bench")
        expression = match_expression(QUERY)
        query = median_seconds(lambda: store.search("sess_bench", expression, 200), RUNS)
        whole = median_seconds(lambda: relevant_passages(store, "sess_bench", QUERY, 6000), RUNS)
        common = median_seconds(lambda: store.search("sess_bench", '"parser" OR "token"', 200), RUNS)
        store.close()
    print(f"session of {ENTRIES:,} entries; query {QUERY!r}")
    print(f"FTS5 query (BM25, 200 candidates): {query * 1000:.2f} ms (median of {RUNS})")
    print(f"FTS5 query on words in most entries: {common * 1000:.2f} ms (median of {RUNS})")
    print(f"relevant strategy, 6,000-token budget: {whole * 1000:.2f} ms (median of {RUNS})")
    print(f"journal append with the index: {per_append * 1000:.3f} ms per entry")


if __name__ == "__main__":
    main()
