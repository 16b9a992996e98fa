"""One sysbench 1.0.x invocation, streamed line by line, with its per-interval and summary figures.

tests/harness.py's sysbench() waits for the whole run; a benchmark needs the
`--report-interval` lines as they arrive (progress on the terminal, throughput over time), so this
module runs the process itself but parses the summary with the harness's own patterns, keeping one
definition of what each sysbench figure means.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Callable

from harness import SYSBENCH_SUMMARY

# sysbench 1.0.20 interval line, e.g.
# [ 10s ] thds: 64 tps: 1234.56 qps: 24691.23 (r/w/o: 0.00/16460.82/8230.41) lat (ms,95%): 80.03 err/s: 0.00 reconn/s: 0.00
INTERVAL_LINE = re.compile(
    r"^\[\s*(?P<t>\d+(?:\.\d+)?)s\s*\]\s+thds:\s+(?P<thds>\d+)\s+tps:\s+(?P<tps>[\d.]+)\s+"
    r"qps:\s+(?P<qps>[\d.]+)\s+\(r/w/o:\s+[\d.]+/[\d.]+/[\d.]+\)\s+"
    r"lat \(ms,(?P<pct>[\d.]+)%\):\s+(?P<lat>[\d.]+)\s+err/s:\s+(?P<err>[\d.]+)\s+reconn/s:\s+(?P<reconn>[\d.]+)")
TOTAL_TIME = re.compile(r"total time:\s+([\d.]+)s")

# Seconds sysbench may take beyond --time: connecting thousands of clients, then closing them.
GRACE_SECONDS = 120
GRACE_PER_THREAD_S = 0.05
# sysbench failures whose cause is sysbench itself, with what to do about them.
KNOWN_FAILURES = {
    "Worker threads failed to initialize within": (
        "sysbench 1.0.20 gives its clients a fixed 30 s to start (Lua state, connection, "
        "statements: tables x ~9 per client for read_write); at this client count this machine "
        "could not. Run it on more cores; fewer --tables or --ps-mode disable shorten the start"),
}
OUTPUT_TAIL_CHARS = 4000
OUTPUT_KEEP_LINES = 400


@dataclass
class Interval:
    t: float
    threads: int
    tps: float
    qps: float
    lat_ms: float
    err_per_s: float
    reconn_per_s: float


@dataclass
class SysbenchResult:
    args: list[str]
    returncode: int
    ok: bool
    wall_s: float
    tps: float | None = None
    qps: float | None = None
    transactions: int | None = None
    queries: int | None = None
    p95_ms: float | None = None
    ignored_errors: int | None = None
    reconnects: int | None = None
    total_time_s: float | None = None
    intervals: list[Interval] = field(default_factory=list)
    error: str | None = None
    hint: str | None = None
    output_tail: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def parse_interval(line: str) -> Interval | None:
    m = INTERVAL_LINE.match(line.strip())
    if not m:
        return None
    return Interval(t=float(m["t"]), threads=int(m["thds"]), tps=float(m["tps"]), qps=float(m["qps"]),
                    lat_ms=float(m["lat"]), err_per_s=float(m["err"]), reconn_per_s=float(m["reconn"]))


def parse_summary(output: str, into: SysbenchResult) -> None:
    """Fills the summary figures of a finished run from sysbench's final report."""
    for key, rx in SYSBENCH_SUMMARY.items():
        m = rx.search(output)
        if not m:
            continue
        if key == "transactions":
            into.transactions, into.tps = int(m.group(1)), float(m.group(2))
        elif key == "queries":
            into.queries, into.qps = int(m.group(1)), float(m.group(2))
        elif key == "p95":
            into.p95_ms = float(m.group(1))
        elif key == "ignored_errors":
            into.ignored_errors = int(m.group(1))
        elif key == "reconnects":
            into.reconnects = int(m.group(1))
    m = TOTAL_TIME.search(output)
    if m:
        into.total_time_s = float(m.group(1))


def sysbench_args(port: int, script: str, command: str, *, db: str, tables: int, table_size: int,
                  threads: int, time_s: int | None = None, ps_mode: str = "auto", rand_type: str | None = None,
                  report_interval_s: int | None = None, extra: list[str] | None = None) -> list[str]:
    args = ["sysbench", script, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={port}",
            "--mysql-user=root", "--mysql-password=", f"--mysql-db={db}", f"--tables={tables}",
            f"--table-size={table_size}", f"--threads={threads}", f"--db-ps-mode={ps_mode}",
            "--percentile=95"]
    if time_s is not None:
        args += [f"--time={time_s}", "--events=0"]
    if rand_type:
        args.append(f"--rand-type={rand_type}")
    if report_interval_s:
        args.append(f"--report-interval={report_interval_s}")
    args += list(extra or [])
    args.append(command)
    return args


def run(args: list[str], *, timeout_s: float, on_interval: Callable[[Interval], None] | None = None) -> SysbenchResult:
    """Runs sysbench to completion (or kills it after timeout_s) and parses what it printed."""
    started = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", bufsize=1)
    timed_out = threading.Event()

    def kill_on_timeout():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout_s, kill_on_timeout)
    timer.daemon = True
    timer.start()
    # Interval lines are consumed as they come; only a bounded tail of other output is kept
    # (a 4,096-thread run prints a line per thread on some errors).
    kept: deque[str] = deque(maxlen=OUTPUT_KEEP_LINES)
    intervals: list[Interval] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            iv = parse_interval(line)
            if iv is not None:
                intervals.append(iv)
                if on_interval is not None:
                    on_interval(iv)
            else:
                kept.append(line)
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    output = "".join(kept)
    result = SysbenchResult(args=args, returncode=proc.returncode, ok=False,
                            wall_s=round(time.monotonic() - started, 3), intervals=intervals,
                            output_tail=output[-OUTPUT_TAIL_CHARS:])
    parse_summary(output, result)
    if timed_out.is_set():
        result.error = f"sysbench killed after {timeout_s:.0f} s (server hung?)"
    elif proc.returncode != 0 or "FATAL" in output:
        fatal = next((ln.strip() for ln in output.splitlines() if "FATAL" in ln), None)
        result.error = fatal or f"sysbench exited with {proc.returncode}"
    result.ok = result.error is None
    if result.error:
        result.hint = hint_for(output)
    return result


def hint_for(text: str) -> str | None:
    """What to do about a failure sysbench itself causes, if `text` shows one."""
    return next((h for marker, h in KNOWN_FAILURES.items() if marker in text), None)


def timeout_for(time_s: float, threads: int) -> float:
    return time_s + GRACE_SECONDS + threads * GRACE_PER_THREAD_S
