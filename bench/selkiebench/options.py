"""Command-line flags -> validated, immutable settings for each benchmark mode.

Every figure a mode uses has three layers: the mode's full default (what a quiet machine should
run), the `--quick` default (a few minutes in total, also the CI smoke test), and an explicit flag,
which always wins. Keeping the layers in tables rather than in argparse defaults lets the report
say exactly which values a run used.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

MODES = ("matrix", "sustained", "connections")
SERVERS = ("selkie", "mariadb")

# The sysbench 1.0.20 OLTP scripts that take --tables/--table-size and share oltp_common.lua's
# prepare/prewarm, so one prepared data set serves them all.
OLTP_WORKLOADS = ("oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
                  "oltp_update_index", "oltp_update_non_index", "oltp_delete", "oltp_insert")
RAND_TYPES = ("uniform", "gaussian", "special", "pareto")
PS_MODES = ("auto", "disable")

# Explicit limits: beyond these a run is a typo, not a benchmark.
MAX_CLIENT_THREADS = 8192
MAX_RUN_SECONDS = 24 * 3600
MAX_REPETITIONS = 100
MAX_TABLES = 256
MAX_TABLE_SIZE = 100_000_000
MIN_BUFFER_POOL_BYTES = 8 << 20
MAX_SETTLE_SECONDS = 600
# Without --report-interval a run reports about this many times (at most every
# MAX_AUTO_INTERVAL_S seconds), so that every run has a throughput-over-time curve.
AUTO_INTERVAL_POINTS = 20
MAX_AUTO_INTERVAL_S = 10

MATRIX_DEFAULTS = {
    "workloads": ("oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
                  "oltp_update_index", "oltp_update_non_index"),
    "threads": (1, 4, 16, 64, 256, 1024),
    "time": 60, "reps": 3, "tables": 8, "table_size": 100_000, "buffer_pool": "1G",
    "warmup": 10,
}
MATRIX_QUICK = {
    "workloads": ("oltp_point_select", "oltp_read_write"),
    "threads": (1, 4, 16),
    "time": 5, "reps": 1, "tables": 2, "table_size": 10_000, "buffer_pool": "128M",
    "warmup": 0,
}
# Reproduces MDEV-30628: a write-only load on data several times the buffer pool, long enough for
# the pool to fill with dirty pages; MariaDB's throughput then decays while user threads wait for
# free frames.
SUSTAINED_DEFAULTS = {
    "workload": "oltp_write_only", "threads": 64, "time": 800, "tables": 20, "table_size": 100_000,
    "buffer_pool": "64M", "report_interval": 10, "window": 100,
}
SUSTAINED_QUICK = {
    "workload": "oltp_write_only", "threads": 8, "time": 20, "tables": 4, "table_size": 20_000,
    "buffer_pool": "8M", "report_interval": 1, "window": 5,
}
CONNECTIONS_DEFAULTS = {
    "workloads": ("oltp_point_select", "oltp_read_write"),
    "counts": (16, 64, 256, 1024, 2048, 4096),
    "time": 30, "reps": 1, "tables": 8, "table_size": 100_000, "buffer_pool": "1G",
}
CONNECTIONS_QUICK = {
    "workloads": ("oltp_point_select",),
    "counts": (16, 64, 256),
    "time": 5, "reps": 1, "tables": 2, "table_size": 10_000, "buffer_pool": "128M",
}


class OptionError(ValueError):
    """A flag value that cannot be benchmarked; the message names the flag."""


@dataclass(frozen=True)
class Common:
    """Settings shared by every mode of one invocation."""
    modes: tuple[str, ...]
    quick: bool
    out_dir: Path
    workdir: Path | None
    keep_data: bool
    selkied: Path | None
    build: bool
    target_dir: Path | None
    servers: tuple[str, ...]
    flush_at_commit: int
    ps_mode: str
    rand_type: str | None
    selkie_args: tuple[str, ...]
    mariadb_options: tuple[tuple[str, str | None], ...]
    settle_max_s: float
    command_line: str


@dataclass(frozen=True)
class MatrixSettings:
    workloads: tuple[str, ...]
    threads: tuple[int, ...]
    time_s: int
    reps: int
    tables: int
    table_size: int
    buffer_pool: str
    warmup_s: int
    report_interval_s: int


@dataclass(frozen=True)
class SustainedSettings:
    workload: str
    threads: int
    time_s: int
    tables: int
    table_size: int
    buffer_pool: str
    report_interval_s: int
    window_s: int


@dataclass(frozen=True)
class ConnectionsSettings:
    workloads: tuple[str, ...]
    counts: tuple[int, ...]
    time_s: int
    reps: int
    tables: int
    table_size: int
    buffer_pool: str
    report_interval_s: int


@dataclass(frozen=True)
class Settings:
    common: Common
    matrix: MatrixSettings | None
    sustained: SustainedSettings | None
    connections: ConnectionsSettings | None

    def max_client_threads(self) -> int:
        """The most concurrent sysbench connections any selected mode opens."""
        most = 16  # prepare/prewarm and status queries
        if self.matrix:
            most = max(most, *self.matrix.threads)
        if self.sustained:
            most = max(most, self.sustained.threads)
        if self.connections:
            most = max(most, *self.connections.counts)
        return most


def parse_size(text: str, flag: str) -> int:
    """'64M', '1G', '512K', '1048576' -> bytes (binary units, as both servers read them)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not m:
        raise OptionError(f"{flag}: '{text}' is not a size (use e.g. 64M or 1G)")
    shift = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]
    return int(m.group(1)) << shift


def format_size(n: int) -> str:
    """Bytes -> the largest exact binary unit, a form both selkied and mariadbd accept."""
    for suffix, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def _int_list(text: str, flag: str, lo: int, hi: int) -> tuple[int, ...]:
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise OptionError(f"{flag}: '{part}' is not a whole number")
        v = int(part)
        if not lo <= v <= hi:
            raise OptionError(f"{flag}: {v} is outside {lo}..{hi}")
        values.append(v)
    if not values:
        raise OptionError(f"{flag}: empty list")
    if len(set(values)) != len(values):
        raise OptionError(f"{flag}: repeated value in '{text}'")
    return tuple(sorted(values))


def _workload_list(text: str, flag: str) -> tuple[str, ...]:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    if not names:
        raise OptionError(f"{flag}: empty list")
    for n in names:
        _check_workload(n, flag)
    if len(set(names)) != len(names):
        raise OptionError(f"{flag}: repeated workload in '{text}'")
    return names


def _check_workload(name: str, flag: str) -> str:
    if name not in OLTP_WORKLOADS:
        raise OptionError(f"{flag}: unknown workload '{name}' (one of {', '.join(OLTP_WORKLOADS)})")
    return name


def _bounded(value: int, flag: str, lo: int, hi: int) -> int:
    if not lo <= value <= hi:
        raise OptionError(f"{flag}: {value} is outside {lo}..{hi}")
    return value


def _pool(text: str, flag: str) -> str:
    n = parse_size(text, flag)
    if n < MIN_BUFFER_POOL_BYTES:
        raise OptionError(f"{flag}: {text} is below the minimum of {format_size(MIN_BUFFER_POOL_BYTES)}")
    return format_size(n)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bench/compare.py",
        description="sysbench side by side: selkied versus a private MariaDB 10.11, same data, same "
                    "buffer pool, same durability. Writes report.md, results.json and PNG plots.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--mode", default="matrix",
                   help="comma-separated: matrix (workloads x threads), sustained (MDEV-30628 "
                        "write-only decay), connections (16..4096 connections)")
    p.add_argument("--quick", action="store_true",
                   help="small data, short runs: a few minutes in total (CI smoke test)")
    p.add_argument("--out", type=Path, help="output directory (default bench/out/<timestamp>)")
    p.add_argument("--workdir", type=Path, help="parent of the servers' data directories (default: a temporary directory)")
    p.add_argument("--keep-data", action="store_true", help="keep the data directories afterwards")
    p.add_argument("--selkied", type=Path, help="use this selkied binary instead of building one (also: SELKIED env)")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build; use the existing release binary")
    p.add_argument("--target-dir", type=Path, help="cargo target dir (default: CARGO_TARGET_DIR or ./target)")
    p.add_argument("--servers", default=",".join(SERVERS), help="which servers to measure")
    p.add_argument("--flush-at-commit", type=int, default=1, choices=(0, 1, 2),
                   help="selkied --flush-at-commit = MariaDB innodb_flush_log_at_trx_commit")
    p.add_argument("--ps-mode", default="auto", choices=PS_MODES, help="sysbench --db-ps-mode")
    p.add_argument("--rand-type", choices=RAND_TYPES, help="sysbench --rand-type (default: sysbench's, special)")
    p.add_argument("--selkie-arg", action="append", default=[], metavar="ARG",
                   help="extra selkied argument (repeatable)")
    p.add_argument("--mariadb-option", action="append", default=[], metavar="KEY[=VALUE]",
                   help="extra my.cnf line for MariaDB (repeatable)")
    p.add_argument("--settle-max", type=float,
                   help="before each run wait up to this many seconds for both servers to go idle "
                        "(default 20, quick 2)")

    g = p.add_argument_group("matrix and connections modes")
    g.add_argument("--workloads", help=f"matrix workloads (default {','.join(MATRIX_DEFAULTS['workloads'])})")
    g.add_argument("--threads", help="matrix thread counts (default 1,4,16,64,256,1024)")
    g.add_argument("--time", type=int, help="seconds per matrix run (default 60, quick 5)")
    g.add_argument("--reps", type=int, help="repetitions per figure; the report gives median, min, max (default 3)")
    g.add_argument("--tables", type=int, help="sysbench --tables (default 8)")
    g.add_argument("--table-size", type=int, help="sysbench --table-size (default 100000)")
    g.add_argument("--buffer-pool", help="buffer pool of both servers (default 1G)")
    g.add_argument("--warmup", type=int, help="unrecorded seconds per workload and server before its runs (default 10)")
    g.add_argument("--report-interval", type=int,
                   help=f"sysbench --report-interval (default: run length / {AUTO_INTERVAL_POINTS}, 1..{MAX_AUTO_INTERVAL_S} s)")
    g.add_argument("--connection-workloads", help="connections-mode workloads (default oltp_point_select,oltp_read_write)")
    g.add_argument("--connection-counts", help="connections-mode client counts (default 16,64,256,1024,2048,4096)")
    g.add_argument("--connection-time", type=int, help="seconds per connections-mode run (default 30)")

    s = p.add_argument_group("sustained mode (MDEV-30628)")
    s.add_argument("--sustained-workload", help="default oltp_write_only")
    s.add_argument("--sustained-threads", type=int, help="default 64")
    s.add_argument("--sustained-time", type=int, help="seconds (default 800)")
    s.add_argument("--sustained-tables", type=int, help="default 20")
    s.add_argument("--sustained-table-size", type=int, help="default 100000")
    s.add_argument("--sustained-buffer-pool", help="default 64M")
    s.add_argument("--sustained-interval", type=int, help="sysbench --report-interval (default 10)")
    s.add_argument("--sustained-window", type=int,
                   help="seconds compared at the start and at the end of the run (default 100)")
    return p


def auto_interval(time_s: int) -> int:
    """The sysbench --report-interval that gives a run about AUTO_INTERVAL_POINTS reports."""
    return max(1, min(MAX_AUTO_INTERVAL_S, time_s // AUTO_INTERVAL_POINTS))


def _interval(explicit: int | None, time_s: int, flag: str) -> int:
    if explicit is None:
        return auto_interval(time_s)
    return _bounded(explicit, flag, 1, 3600)


def _pick(explicit, key: str, quick: bool, full: dict, small: dict):
    if explicit is not None:
        return explicit
    return small[key] if quick else full[key]


def resolve(argv: list[str], repo: Path, now: datetime | None = None) -> Settings:
    """Parses and validates the flags; raises OptionError with a message for the user."""
    a = build_parser().parse_args(argv)
    modes = tuple(m.strip() for m in a.mode.split(",") if m.strip())
    for m in modes:
        if m not in MODES:
            raise OptionError(f"--mode: unknown mode '{m}' (one of {', '.join(MODES)})")
    if not modes or len(set(modes)) != len(modes):
        raise OptionError(f"--mode: '{a.mode}' must name each mode at most once")
    servers = tuple(s.strip() for s in a.servers.split(",") if s.strip())
    if not servers or any(s not in SERVERS for s in servers) or len(set(servers)) != len(servers):
        raise OptionError(f"--servers: '{a.servers}' must be a subset of {','.join(SERVERS)}")
    servers = tuple(s for s in SERVERS if s in servers)  # fixed A B order: selkie first

    mariadb_options = []
    for opt in a.mariadb_option:
        key, sep, value = opt.partition("=")
        if not re.fullmatch(r"[A-Za-z0-9_\-]+", key.strip()):
            raise OptionError(f"--mariadb-option: '{opt}' is not KEY or KEY=VALUE")
        mariadb_options.append((key.strip(), value.strip() if sep else None))

    settle = a.settle_max if a.settle_max is not None else (2.0 if a.quick else 20.0)
    if not 0 <= settle <= MAX_SETTLE_SECONDS:
        raise OptionError(f"--settle-max: {settle} is outside 0..{MAX_SETTLE_SECONDS}")

    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    common = Common(
        modes=modes, quick=a.quick,
        out_dir=(a.out or repo / "bench" / "out" / stamp).resolve(),
        workdir=a.workdir.resolve() if a.workdir else None, keep_data=a.keep_data,
        selkied=a.selkied.resolve() if a.selkied else None, build=not a.no_build and a.selkied is None,
        target_dir=a.target_dir.resolve() if a.target_dir else None,
        servers=servers, flush_at_commit=a.flush_at_commit, ps_mode=a.ps_mode, rand_type=a.rand_type,
        selkie_args=tuple(a.selkie_arg), mariadb_options=tuple(mariadb_options), settle_max_s=settle,
        command_line=" ".join(shlex.quote(x) for x in ["bench/compare.py", *argv]),
    )

    q = a.quick
    matrix = sustained = connections = None
    if "matrix" in modes:
        f, s = MATRIX_DEFAULTS, MATRIX_QUICK
        time_s = _bounded(_pick(a.time, "time", q, f, s), "--time", 1, MAX_RUN_SECONDS)
        matrix = MatrixSettings(
            workloads=_workload_list(a.workloads, "--workloads") if a.workloads else (s if q else f)["workloads"],
            threads=_int_list(a.threads, "--threads", 1, MAX_CLIENT_THREADS) if a.threads else (s if q else f)["threads"],
            time_s=time_s,
            reps=_bounded(_pick(a.reps, "reps", q, f, s), "--reps", 1, MAX_REPETITIONS),
            tables=_bounded(_pick(a.tables, "tables", q, f, s), "--tables", 1, MAX_TABLES),
            table_size=_bounded(_pick(a.table_size, "table_size", q, f, s), "--table-size", 1, MAX_TABLE_SIZE),
            buffer_pool=_pool(_pick(a.buffer_pool, "buffer_pool", q, f, s), "--buffer-pool"),
            warmup_s=_bounded(_pick(a.warmup, "warmup", q, f, s), "--warmup", 0, MAX_RUN_SECONDS),
            report_interval_s=_interval(a.report_interval, time_s, "--report-interval"),
        )
    if "sustained" in modes:
        f, s = SUSTAINED_DEFAULTS, SUSTAINED_QUICK
        time_s = _bounded(_pick(a.sustained_time, "time", q, f, s), "--sustained-time", 2, MAX_RUN_SECONDS)
        interval = _bounded(_pick(a.sustained_interval, "report_interval", q, f, s), "--sustained-interval", 1, 3600)
        window = _bounded(_pick(a.sustained_window, "window", q, f, s), "--sustained-window", interval, MAX_RUN_SECONDS)
        if 2 * window > time_s:
            raise OptionError(f"--sustained-window: {window} s start and end windows overlap in a {time_s} s run")
        sustained = SustainedSettings(
            workload=_check_workload(_pick(a.sustained_workload, "workload", q, f, s), "--sustained-workload"),
            threads=_bounded(_pick(a.sustained_threads, "threads", q, f, s), "--sustained-threads", 1, MAX_CLIENT_THREADS),
            time_s=time_s,
            tables=_bounded(_pick(a.sustained_tables, "tables", q, f, s), "--sustained-tables", 1, MAX_TABLES),
            table_size=_bounded(_pick(a.sustained_table_size, "table_size", q, f, s), "--sustained-table-size", 1, MAX_TABLE_SIZE),
            buffer_pool=_pool(_pick(a.sustained_buffer_pool, "buffer_pool", q, f, s), "--sustained-buffer-pool"),
            report_interval_s=interval, window_s=window,
        )
    if "connections" in modes:
        f, s = CONNECTIONS_DEFAULTS, CONNECTIONS_QUICK
        conn_time = _bounded(_pick(a.connection_time, "time", q, f, s), "--connection-time", 1, MAX_RUN_SECONDS)
        connections = ConnectionsSettings(
            workloads=(_workload_list(a.connection_workloads, "--connection-workloads")
                       if a.connection_workloads else (s if q else f)["workloads"]),
            counts=(_int_list(a.connection_counts, "--connection-counts", 1, MAX_CLIENT_THREADS)
                    if a.connection_counts else (s if q else f)["counts"]),
            time_s=conn_time,
            reps=_bounded(_pick(a.reps, "reps", q, f, s), "--reps", 1, MAX_REPETITIONS),
            tables=_bounded(_pick(a.tables, "tables", q, f, s), "--tables", 1, MAX_TABLES),
            table_size=_bounded(_pick(a.table_size, "table_size", q, f, s), "--table-size", 1, MAX_TABLE_SIZE),
            buffer_pool=_pool(_pick(a.buffer_pool, "buffer_pool", q, f, s), "--buffer-pool"),
            report_interval_s=_interval(a.report_interval, conn_time, "--report-interval"),
        )
    return Settings(common=common, matrix=matrix, sustained=sustained, connections=connections)


def resolve_or_exit(argv: list[str], repo: Path) -> Settings:
    try:
        return resolve(argv, repo)
    except OptionError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        raise SystemExit(2)
