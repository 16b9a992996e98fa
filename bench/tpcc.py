#!/usr/bin/env python3
"""TPC-C with go-tpc (unmodified) against selkied and a private MariaDB 10.11, side by side.

Starts both servers itself on free loopback ports (same buffer pool, both flushing the log at
every commit), loads N warehouses into each with `go-tpc tpcc prepare`, then runs
`go-tpc tpcc run` for T seconds with C threads, alternating the servers (M S S M ...) so that
drift hits both alike, and finally `go-tpc tpcc check` on each. Prints tpmC of both, their
ratio, and per transaction type the count and error count, with the MySQL error codes seen.
go-tpc counts a transaction cut off by the end of the run (context canceled, not printed) as
an error of its type: up to one per thread per run is that, not the server.

    go install github.com/pingcap/go-tpc/cmd/go-tpc@latest      # once
    cargo build --release -p selkie-server --bin selkied
    bench/tpcc.py --warehouses 1 --threads 4 --time 60 --rounds 3

go-tpc's consistency condition 3.3.2.10 (a correlated subquery per customer over HISTORY,
whose only indexes are on the warehouse columns) reads HISTORY once per customer on both
servers: minutes per warehouse. `--check-timeout` bounds the check; conditions finished by
then are reported, the one running is named.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from harness import MariaDBServer, SelkieServer, mariadb_cli  # noqa: E402

SUMMARY = re.compile(r"^\[Summary\] (\w+) - Takes\(s\): [\d.]+, Count: (\d+), TPM: ([\d.]+)")
TPMC = re.compile(r"^tpmC: ([\d.]+)")
ERROR_CODE = re.compile(r"Error (\d{4})")
CHECK_BEGIN = re.compile(r"begin to check warehouse (\d+) at condition ([\d.]+)")


def go_tpc_binary(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    found = shutil.which("go-tpc")
    if found:
        return found
    home = Path.home() / "go" / "bin" / "go-tpc"
    return str(home) if home.exists() else None


def go_tpc(binary: str, port: int, args: list[str], timeout: float) -> tuple[int | None, str]:
    """Runs go-tpc against 127.0.0.1:port; returns (exit code or None on timeout, output)."""
    cmd = [binary, "tpcc", "-H", "127.0.0.1", "-P", str(port), "-U", "root", "-D", "tpcc"] + args
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        return None, out.decode(errors="replace") if isinstance(out, bytes) else out


def parse_run(output: str) -> dict:
    """tpmC, per transaction type {count, errors}, and the error codes go-tpc printed."""
    types: dict[str, dict[str, int]] = {}
    tpmc = 0.0
    for line in output.splitlines():
        if m := SUMMARY.match(line):
            name, count = m.group(1), int(m.group(2))
            if name.endswith("_ERR"):
                types.setdefault(name[: -len("_ERR")], {"count": 0, "errors": 0})["errors"] = count
            else:
                types.setdefault(name, {"count": 0, "errors": 0})["count"] = count
        elif m := TPMC.match(line):
            tpmc = float(m.group(1))
    codes = Counter(ERROR_CODE.findall(output))
    return {"tpmc": tpmc, "types": types, "codes": codes}


def check(binary: str, port: int, warehouses: int, threads: int, timeout: float) -> str:
    """go-tpc tpcc check; the verdict in words."""
    rc, out = go_tpc(binary, port, ["check", "--warehouses", str(warehouses), "--threads", str(threads)], timeout)
    begun = [m.groups() for m in map(CHECK_BEGIN.search, out.splitlines()) if m]
    if rc == 0:
        return f"passed ({len(begun)} conditions)"
    if rc is None:
        running = f"3.3.2.{begun[-1][1].split('.')[-1]}" if begun else "?"
        return f"timed out after {timeout:.0f}s: {max(len(begun) - 1, 0)} conditions passed, {running} running"
    failure = [line for line in out.splitlines() if "failed" in line or "Error" in line]
    return f"FAILED: {(failure or out.splitlines()[-1:] or ['?'])[-1][:300]}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--selkied", help="selkied binary (default: $SELKIED or target/release/selkied)")
    p.add_argument("--go-tpc", help="go-tpc binary (default: on PATH or ~/go/bin/go-tpc)")
    p.add_argument("--warehouses", type=int, default=1)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--time", type=int, default=60, help="seconds per run")
    p.add_argument("--rounds", type=int, default=1, help="runs per server, alternating")
    p.add_argument("--pool", default="1G", help="buffer pool of both servers")
    p.add_argument("--check-timeout", type=float, default=300, help="seconds for go-tpc check per server")
    p.add_argument("--no-check", action="store_true", help="skip go-tpc check")
    args = p.parse_args()

    binary = go_tpc_binary(args.go_tpc)
    if binary is None:
        print("go-tpc not found: go install github.com/pingcap/go-tpc/cmd/go-tpc@latest", file=sys.stderr)
        return 2
    if args.selkied:
        os.environ["SELKIED"] = args.selkied

    servers = {
        "MariaDB": MariaDBServer(buffer_pool=args.pool, flush_at_commit=1),
        "selkied": SelkieServer(extra_args=["--buffer-pool-size", args.pool, "--flush-at-commit", "1"]),
    }
    try:
        for name, s in servers.items():
            s.start()
            mariadb_cli(s.port, "CREATE DATABASE tpcc")
            # --no-check: prepare's own check includes the slow 3.3.2.10 (see above); the
            # check after the runs covers the loaded data as well.
            rc, out = go_tpc(binary, s.port, ["prepare", "--warehouses", str(args.warehouses), "--no-check",
                                              "--threads", str(min(args.warehouses, 4))], 3600)
            if rc != 0:
                print(f"{name}: prepare failed:\n{out[-3000:]}", file=sys.stderr)
                return 1
            print(f"{name}: prepared {args.warehouses} warehouse(s) on port {s.port}", flush=True)

        runs: dict[str, list[dict]] = {name: [] for name in servers}
        for rnd in range(args.rounds):
            order = ("MariaDB", "selkied") if rnd % 2 == 0 else ("selkied", "MariaDB")
            for name in order:
                rc, out = go_tpc(binary, servers[name].port,
                                 # --ignore-error: without it a thread that gets a deadlock
                                 # (1213) stops for the rest of the run.
                                 ["run", "--warehouses", str(args.warehouses), "--threads", str(args.threads),
                                  "--time", f"{args.time}s", "--ignore-error"], args.time * 3 + 300)
                r = parse_run(out)
                r["rc"] = rc
                runs[name].append(r)
                errors = sum(t["errors"] for t in r["types"].values())
                print(f"round {rnd + 1} {name}: tpmC {r['tpmc']:.1f}, errors {errors} {dict(r['codes'])}"
                      + ("" if rc == 0 else f" (go-tpc exit {rc})"), flush=True)

        verdicts = {}
        if not args.no_check:
            for name, s in servers.items():
                verdicts[name] = check(binary, s.port, args.warehouses, min(args.warehouses, 4), args.check_timeout)
                print(f"{name}: check {verdicts[name]}", flush=True)

        print()
        med = {name: statistics.median(r["tpmc"] for r in rs) for name, rs in runs.items()}
        each = {name: ", ".join(f"{r['tpmc']:.0f}" for r in rs) for name, rs in runs.items()}
        print(f"{args.warehouses} warehouse(s), {args.threads} threads, {args.time}s x {args.rounds}")
        print("| server | tpmC (median) | runs |")
        print("|---|---|---|")
        for name in servers:
            print(f"| {name} | {med[name]:.0f} | {each[name]} |")
        ratio = med["selkied"] / med["MariaDB"] if med["MariaDB"] else float("nan")
        print(f"selkied / MariaDB: {ratio:.3f}")
        print()
        print("| transaction | MariaDB count | MariaDB errors | selkied count | selkied errors |")
        print("|---|---|---|---|---|")
        kinds = sorted({k for rs in runs.values() for r in rs for k in r["types"]})
        for k in kinds:
            cells = []
            for name in servers:
                cells.append(str(sum(r["types"].get(k, {}).get("count", 0) for r in runs[name])))
                cells.append(str(sum(r["types"].get(k, {}).get("errors", 0) for r in runs[name])))
            print(f"| {k} | " + " | ".join(cells) + " |")
        for name in servers:
            codes = sum((r["codes"] for r in runs[name]), Counter())
            print(f"{name} error codes: {dict(codes) or 'none'}" + (f"; check: {verdicts[name]}" if verdicts else ""))
    finally:
        for s in servers.values():
            s.stop()
            s.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
