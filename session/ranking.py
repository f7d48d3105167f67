"""BM25 within one session: the order in which ReadSessionContext's candidates are tried.

Part of the session store's search (store.py finds the rows, this orders them).
FTS5's own bm25() weighs a word by how many rows of the whole table hold it, so
it reads the word's matches in every stored session before it ranks one: a query
of common words costs more with every session kept. Here a word is weighed by
the messages of the searched session that hold it, so the cost is that
session's alone, and the weights are the session's own. Each message counts a
word once (how often it repeats would need every candidate's text), and its
length, in tokens as FTS5 counted them, is compared with the average of the
messages that match, as in BM25.
"""

from __future__ import annotations

import math

K1 = 1.2
B = 0.75
SMALLEST_WEIGHT = 1e-6


def bm25_order(holders: list[list[int]], lengths: dict[int, int], messages: int) -> list[int]:
    """Row ids best first, ties in stored order.

    `holders[i]` lists the rows holding word i, `lengths` gives each such row's length in
    tokens, `messages` is how many messages the session has."""
    if not lengths:
        return []
    average = sum(lengths.values()) / len(lengths) or 1.0
    scores = dict.fromkeys(sorted(lengths), 0.0)
    fit = {row: (K1 + 1) / (1 + K1 * (1 - B + B * length / average)) for row, length in lengths.items()}
    for rows in holders:
        weight = max(SMALLEST_WEIGHT, math.log((messages - len(rows) + 0.5) / (len(rows) + 0.5)))
        for row in rows:
            scores[row] += weight * fit[row]
    return sorted(scores, key=scores.__getitem__, reverse=True)
