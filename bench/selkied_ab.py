#!/usr/bin/env python3
"""Two selkied builds side by side under sysbench: did a change make the in-memory paths slower?

Both servers run on the same machine with the same configuration and identical prepared data;
runs alternate A B B A ... so drift (page cache, thermal, other load) hits both builds alike.
Prints per-run and median transactions/s per workload.

    cp target/release/selkied /tmp/selkied.before       # build the baseline first
    bench/selkied_ab.py --a /tmp/selkied.before --b target/release/selkied
    bench/selkied_ab.py --a OLD --b NEW --workloads oltp_read_only --time 60 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from harness import SelkieServer, mariadb_cli, sysbench  # noqa: E402


def start(binary: str, pool: str) -> SelkieServer:
    os.environ["SELKIED"] = binary
    server = SelkieServer(extra_args=["--buffer-pool-size", pool, "--flush-at-commit", "2"])
    return server.start()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", required=True, help="baseline selkied binary")
    p.add_argument("--b", required=True, help="selkied binary under test")
    p.add_argument("--workloads", default="oltp_read_only,oltp_read_write")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--time", type=int, default=30, help="seconds per run")
    p.add_argument("--rounds", type=int, default=3, help="A B B A pairs per workload")
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--table-size", type=int, default=100_000)
    p.add_argument("--pool", default="1G")
    args = p.parse_args()

    servers = {"A": start(args.a, args.pool), "B": start(args.b, args.pool)}
    try:
        for name, s in servers.items():
            mariadb_cli(s.port, "CREATE DATABASE sbtest")
            r = sysbench(s.port, "oltp_read_write", "prepare", tables=args.tables, table_size=args.table_size,
                         threads=min(args.tables, 4), timeout=3600)
            assert r["returncode"] == 0, r["output"][-2000:]
            # Warm the buffer pool so the first measured run is not a cold read.
            sysbench(s.port, "oltp_read_only", "run", tables=args.tables, table_size=args.table_size,
                     threads=args.threads, time_s=10)
        results: dict[str, dict[str, list[float]]] = {}
        for workload in args.workloads.split(","):
            results[workload] = {"A": [], "B": []}
            for rnd in range(args.rounds):
                for name in ("A", "B") if rnd % 2 == 0 else ("B", "A"):
                    r = sysbench(servers[name].port, workload, "run", tables=args.tables, table_size=args.table_size,
                                 threads=args.threads, time_s=args.time, timeout=args.time * 10 + 600)
                    assert r["returncode"] == 0 and not r.get("fatal"), r["output"][-2000:]
                    tps = r["transactions_per_sec"]
                    results[workload][name].append(tps)
                    print(f"{workload} round {rnd + 1} {name}: {tps:.1f} tps  (p95 {r.get('p95', 0):.2f} ms)", flush=True)
        print()
        print(f"| workload | A: {Path(args.a).name} tps (median, runs) | B: {Path(args.b).name} tps (median, runs) | B/A |")
        print("|---|---|---|---|")
        for workload, by in results.items():
            a, b = statistics.median(by["A"]), statistics.median(by["B"])
            runs = lambda xs: ", ".join(f"{x:.0f}" for x in xs)  # noqa: E731
            print(f"| {workload} | {a:.0f} ({runs(by['A'])}) | {b:.0f} ({runs(by['B'])}) | {b / a:.3f} |")
    finally:
        for s in servers.values():
            s.stop()
            s.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
