"""How bin/test hands tests to its workers: one at a time, except the files that share a costly start.

The tests that draw a page in Chromium share one browser (tests/conftest.py's `chromium`), about
1.8 s of CPU a start: spread over four workers they started four. Here each of ONE_WORKER's
files is one unit of work, handed whole to one worker, first (xdist orders units by size); every
other test is a unit of its own, handed to whichever worker has fewer than three waiting, the
slow ones first (tests/conftest.py). xdist's own `--dist loadgroup` would do it with a mark, but
with pytest 9 its mark no longer reaches the test ids it groups by.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

ONE_WORKER = ("tests/test_page_browser.py", "tests/test_screens.py")
UNIT = "chromium"


class OneAtATime(LoadScopeScheduling):
    """xdist's scope scheduling, with a test its own scope unless its file is one of ONE_WORKER."""

    def _split_scope(self, nodeid: str) -> str:
        return UNIT if nodeid.split("::", 1)[0] in ONE_WORKER else nodeid

    def mark_test_complete(self, node: WorkerController, item_index: int, duration: float = 0) -> None:
        """As xdist does, then forget a unit whose tests have all run: xdist counts what a worker
        still has to do over every unit it was ever given, after each test, which grows with the
        square of the tests when each is a unit (865 tests: 110,000 units looked at, now 1,800)."""
        super().mark_test_complete(node, item_index, duration)
        given = self.assigned_work[node]
        unit = self._split_scope(self.registered_collections[node][item_index])
        if unit in given and all(given[unit].values()):
            del given[unit]
