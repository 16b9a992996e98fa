#!/usr/bin/env python3
"""Peak RSS of one big UPDATE / DELETE / INSERT ... SELECT, for one or more selkied builds.

Each binary gets a fresh server (256 MiB buffer pool) and sysbench data, then runs the statements
in one transaction each (ROLLBACK, so every statement sees the same table), and reports the
server's peak RSS (VmHWM) after each. Run it for the build before and after a change to see what
the SQL layer's buffers cost: the engine's undo and row locks are the same in both.

    bench/dml_memory.py --rows 1000000 /tmp/selkied.before target/release/selkied
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from harness import SelkieServer, mariadb_cli, sysbench  # noqa: E402

STATEMENTS = [
    "UPDATE sbtest1 SET k = k",                           # matches every row, changes none: no undo
    "UPDATE sbtest1 SET k = k + 1",                       # streams
    "UPDATE sbtest1 SET id = id + 100000000",             # moves every row: keys buffered
    "DELETE FROM sbtest1 WHERE id > 0",                   # streams
    "INSERT INTO sbtest2 SELECT * FROM sbtest1",          # streams
]


def vm_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binaries", nargs="+")
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--pool", default="256M")
    p.add_argument("--only", help="run only this statement (exactly as listed)")
    args = p.parse_args()
    print(f"| build | statement | seconds | peak RSS MiB (before → after) |")
    print("|---|---|---|---|")
    for binary in args.binaries:
        os.environ["SELKIED"] = binary
        for sql in STATEMENTS:
            if args.only and args.only != sql:
                continue
            # A fresh server per statement: VmHWM only grows, so each figure is that statement's.
            with SelkieServer(extra_args=["--buffer-pool-size", args.pool, "--flush-at-commit", "2"]) as s:
                mariadb_cli(s.port, "CREATE DATABASE sbtest")
                r = sysbench(s.port, "oltp_read_only", "prepare", table_size=args.rows, timeout=7200)
                assert r["returncode"] == 0, r["output"][-2000:]
                mariadb_cli(s.port, "CREATE TABLE sbtest2 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
                            "k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', "
                            "pad CHAR(60) NOT NULL DEFAULT '', KEY k_2 (k))", database="sbtest")
                before = vm_kib(s.proc.pid, "VmHWM")
                started = time.monotonic()
                out = mariadb_cli(s.port, f"BEGIN; {sql}; ROLLBACK", database="sbtest", timeout=7200, check=False)
                elapsed = time.monotonic() - started
                peak = vm_kib(s.proc.pid, "VmHWM")
                status = "" if out.returncode == 0 else f" (failed: {out.stderr.strip()[:80]})"
                print(f"| {Path(binary).name} | `{sql}`{status} | {elapsed:.1f} | {before // 1024} → {peak // 1024} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
