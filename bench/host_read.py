"""What keeping a file's access time costs Read: a plain O_NOATIME read against the read-only view.

A file stepagent's user owns is read with O_NOATIME in the process; a file
someone else owns is read by `head` in a bubblewrap view of that file alone
(tools/read_view.py). Both are timed on the same files, so the difference is
the view's cost per Read: one bubblewrap and one head started and waited for.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from tools.read_view import read_through_view, view_reader
from tools.safe_read import MAX_READ_BYTES, read_capped

RUNS = 30
SIZES = {"4 KB": 4_000, "1 MB": 1_000_000}


def through_view(reader: list[str], path: Path) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return read_through_view(reader, descriptor, MAX_READ_BYTES + 1)
    finally:
        os.close(descriptor)


def main() -> None:
    reader = view_reader()
    if reader is None:
        print("bubblewrap does not run here: a file another user owns is read plainly (its access time may move)")
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-read-") as folder:
        for label, size in SIZES.items():
            path = Path(folder) / f"{size}.txt"
            path.write_text(("x" * 79 + "\n") * (size // 80))
            plain = median_seconds(lambda: read_capped(path), RUNS)
            line = f"Read of a {label} file: O_NOATIME in process {plain * 1000:.2f} ms"
            if reader:
                viewed = median_seconds(lambda: through_view(reader, path), RUNS)
                line += (f", through the read-only view {viewed * 1000:.2f} ms "
                         f"(+{(viewed - plain) * 1000:.1f} ms)")
            print(line + f" (median of {RUNS})")


if __name__ == "__main__":
    main()
