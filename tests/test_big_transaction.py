"""Bounded memory for big work, short variant (issue 11 item 8): one transaction changes every row
of a table several times larger than the buffer pool, rolls back, then commits; the server's peak
RSS stays far below what holding the rows, their undo or their locks in memory would cost. The
long variant (10 million rows, 256 MiB pool, peak RSS under 1 GiB) is bench/big_transaction.py.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import big_transaction  # noqa: E402


def test_big_transaction_memory_is_bounded():
    # 409,600 rows of ~90 bytes with a 16 MiB pool: the undo of the UPDATE alone is several times
    # the pool, and the old in-memory undo plus row locks took well over 200 MiB for this.
    results = big_transaction.run(rows=400_000, batch=6_400, pool="16M", extra=[])
    peaks = {name: peak for name, _, peak in results}
    for name, peak in peaks.items():
        assert peak < 200, f"{name}: peak RSS {peak} MiB"
