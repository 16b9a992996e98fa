#!/usr/bin/env python3
"""Bounded memory for big work (issue 11, "Done means"): one transaction that changes every row of
a 10-million-row table with a 256 MiB buffer pool, rolled back, then committed; a GROUP BY over
10 million distinct keys and an ORDER BY over 10 million rows. Reports time and the server's peak
RSS (VmHWM, reset before each step through /proc/PID/clear_refs) for each step.

    bench/big_transaction.py                      # 10,240,000 rows, 256 MiB pool
    bench/big_transaction.py --rows 200000 --pool 16M --max-rss-mib 400   # the CI variant's size

The table is loaded with one multi-row INSERT of `--batch` rows, then doubled with INSERT ...
SELECT until it holds `--rows` rows (rounded up to batch * 2^n).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from harness import SelkieServer  # noqa: E402


def vm_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def reset_peak(pid: int) -> None:
    # Writing 5 to clear_refs resets the peak resident set size (VmHWM) to the current one.
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


def run(rows: int, batch: int, pool: str, extra: list[str]) -> list[tuple[str, float, int]]:
    import pymysql

    results = []
    with SelkieServer(extra_args=["--buffer-pool-size", pool, "--flush-at-commit", "2", *extra]) as s:
        pid = s.proc.pid
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True,
                               read_timeout=36000, write_timeout=36000)
        cur = conn.cursor()

        def step(name: str, *sqls: str) -> None:
            reset_peak(pid)
            t0 = time.time()
            for sql in sqls:
                cur.execute(sql)
                if cur.description is not None:
                    cur.fetchall()
            seconds = time.time() - t0
            peak = vm_kib(pid, "VmHWM") // 1024
            results.append((name, seconds, peak))
            print(f"{name}: {seconds:.1f} s, peak RSS {peak} MiB", flush=True)

        cur.execute("CREATE DATABASE big")
        cur.execute("USE big")
        cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, k INT NOT NULL, g BIGINT NOT NULL, c CHAR(40) NOT NULL)")
        values = ",".join(f"({i}, {i % 1000}, {i}, 'row {i:034d}')" for i in range(1, batch + 1))
        n = batch
        load = [f"INSERT INTO t VALUES {values}"]
        while n < rows:
            load.append(f"INSERT INTO t SELECT id + {n}, k, g + {n}, c FROM t")
            n *= 2
        step(f"load {n:,} rows", *load)
        step("BEGIN; UPDATE t SET k = k + 1 (all rows)", "BEGIN", "UPDATE t SET k = k + 1")
        step("ROLLBACK", "ROLLBACK")
        step("BEGIN; UPDATE t SET k = k + 1; COMMIT", "BEGIN", "UPDATE t SET k = k + 1", "COMMIT")
        step(f"GROUP BY over {n:,} distinct keys", "SELECT g, COUNT(*) FROM t GROUP BY g")
        step(f"ORDER BY over {n:,} rows", "SELECT id, c FROM t ORDER BY c DESC, id")
        cur.execute("SELECT SUM(k) FROM t")
        total = cur.fetchone()[0]
        expected = sum(i % 1000 for i in range(1, batch + 1)) * (n // batch) + n
        assert int(total) == expected, f"SUM(k) {total} != {expected}: the rollback or the commit went wrong"
        conn.close()
    return results


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--batch", type=int, default=10_000)
    p.add_argument("--pool", default="256M")
    p.add_argument("--max-rss-mib", type=int, default=1024, help="fail if any step's peak RSS exceeds this")
    p.add_argument("extra", nargs="*", help="extra selkied arguments")
    args = p.parse_args()
    results = run(args.rows, args.batch, args.pool, args.extra)
    print("\n| step | seconds | peak RSS MiB |\n|---|---|---|")
    for name, seconds, peak in results:
        print(f"| {name} | {seconds:.1f} | {peak} |")
    worst = max(peak for _, _, peak in results)
    if worst > args.max_rss_mib:
        print(f"FAIL: peak RSS {worst} MiB > {args.max_rss_mib} MiB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
