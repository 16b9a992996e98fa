"""The servers under test, started through tests/harness.py with matched configuration.

Fairness rules, applied in one place so that no mode can forget one:
- the same buffer pool size (selkied --buffer-pool-size = innodb_buffer_pool_size);
- the same durability (selkied --flush-at-commit = innodb_flush_log_at_trx_commit);
- connection limits above the largest client count on both;
- MariaDB with binary log and performance_schema off and max_prepared_stmt_count raised (the
  harness's MariaDBServer config), so it is measured as a tuned user would run it;
- both data directories on the same filesystem, both on loopback TCP.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from harness import MariaDBServer, SelkieServer, global_status, mariadb_cli, tail

LABELS = {"selkie": "Selkie", "mariadb": "MariaDB 10.11"}
BENCH_DB = "sbtest"
# Connections beyond the benchmark's clients: status queries, prepare threads, a margin.
CONNECTION_MARGIN = 128
# Neither server's default may cap a benchmark below this (the harness's MariaDB default).
MIN_MAX_CONNECTIONS = 5000
START_TIMEOUT_S = 300
STOP_TIMEOUT_S = 300
# A server counts as idle when it uses less than this share of one core.
IDLE_CPU_SHARE = 0.10
IDLE_SAMPLE_S = 0.5
# The status variable behind Selkie's free_frame_waits counter (architecture.md 4.2) and
# MariaDB's equivalent: user threads that had to wait for a free buffer pool page.
FREE_FRAME_WAIT_STATUS = ("free_frame_waits", "Innodb_buffer_pool_wait_free")


@dataclass(frozen=True)
class ServerSetup:
    buffer_pool: str
    flush_at_commit: int
    max_connections: int
    selkie_args: tuple[str, ...] = ()
    mariadb_options: tuple[tuple[str, str | None], ...] = ()

    @staticmethod
    def for_clients(buffer_pool: str, flush_at_commit: int, clients: int, selkie_args=(), mariadb_options=()):
        return ServerSetup(buffer_pool=buffer_pool, flush_at_commit=flush_at_commit,
                           max_connections=max(MIN_MAX_CONNECTIONS, clients + CONNECTION_MARGIN),
                           selkie_args=tuple(selkie_args), mariadb_options=tuple(mariadb_options))

    def selkie_argv(self) -> list[str]:
        return ["--buffer-pool-size", self.buffer_pool, "--flush-at-commit", str(self.flush_at_commit),
                "--max-connections", str(self.max_connections), *self.selkie_args]

    def mariadb_config(self) -> dict[str, str | None]:
        config: dict[str, str | None] = {"max_connections": str(self.max_connections)}
        config.update(dict(self.mariadb_options))
        return config


class BenchServer:
    """One running server: its port, CPU time, status counters and log, whatever its kind."""

    def __init__(self, name: str, impl, config_text: str):
        assert name in LABELS, name
        self.name = name
        self.label = LABELS[name]
        self.impl = impl
        self.config_text = config_text
        self.version = "unknown"

    @property
    def port(self) -> int:
        return self.impl.port

    @property
    def pid(self) -> int:
        return self.impl.proc.pid

    def alive(self) -> bool:
        return self.impl.proc is not None and self.impl.proc.poll() is None

    def cpu_seconds(self) -> float:
        """User + system CPU of the whole server process (all threads), from /proc/<pid>/stat."""
        return self.impl.cpu_seconds()

    def status(self) -> dict[str, str]:
        return global_status(self.port)

    def free_frame_waits(self, status: dict[str, str]) -> int | None:
        lowered = {k.lower(): v for k, v in status.items()}
        for name in FREE_FRAME_WAIT_STATUS:
            value = lowered.get(name.lower())
            if value is not None and value.strip().isdigit():
                return int(value)
        return None

    def log_tail(self, lines: int = 30) -> str:
        return tail(self.impl.log, lines)

    def stop(self) -> dict:
        """Clean shutdown; returns what happened (a crash or a hang is a finding, not an error)."""
        if not self.alive():
            code = self.impl.proc.returncode if self.impl.proc else None
            return {"exit_code": code, "clean": False, "note": "had already exited", "log_tail": self.log_tail()}
        started = time.monotonic()
        try:
            if self.name == "selkie":
                code = self.impl.stop(STOP_TIMEOUT_S)
            else:
                self.impl.stop(STOP_TIMEOUT_S)
                code = self.impl.proc.returncode
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            self.impl.cleanup()
            return {"exit_code": None, "clean": False, "note": f"did not stop cleanly: {e}"[:2000],
                    "log_tail": self.log_tail()}
        result = {"exit_code": code, "clean": code == 0, "shutdown_s": round(time.monotonic() - started, 1)}
        if code != 0:
            result["log_tail"] = self.log_tail()
        return result

    def kill(self) -> None:
        self.impl.cleanup()


def start(name: str, setup: ServerSetup, base: Path, selkied: Path | None) -> BenchServer:
    """Starts one server with its data under base/<name>/ and creates the benchmark database."""
    if name == "selkie":
        assert selkied is not None, "selkie measured without a binary"
        # The harness finds the binary through SELKIED (the way the test suite is pointed at a build).
        os.environ["SELKIED"] = str(selkied)
        impl = SelkieServer(datadir=base / "selkie" / "data", extra_args=setup.selkie_argv())
        text = "selkied " + " ".join(setup.selkie_argv())
    else:
        impl = MariaDBServer(buffer_pool=setup.buffer_pool, flush_at_commit=setup.flush_at_commit,
                             extra_config=setup.mariadb_config(), basedir=base / "mariadb")
        text = impl.cnf.read_text()
    server = BenchServer(name, impl, text)
    try:
        impl.start(timeout=START_TIMEOUT_S)
        mariadb_cli(server.port, f"CREATE DATABASE IF NOT EXISTS {BENCH_DB}")
        server.version = mariadb_cli(server.port, "SELECT VERSION()", extra=["--batch", "--skip-column-names"]).stdout.strip()
    except Exception:
        impl.cleanup()
        raise
    return server


def wait_until_idle(servers: list[BenchServer], max_wait_s: float) -> float:
    """Waits (at most max_wait_s) until no server burns CPU in the background.

    After a write run one server may still be flushing or purging while the other is measured;
    on a small machine that steals the measured server's cores. Returns the seconds waited.
    """
    started = time.monotonic()
    while time.monotonic() - started < max_wait_s:
        before = [s.cpu_seconds() for s in servers if s.alive()]
        time.sleep(IDLE_SAMPLE_S)
        after = [s.cpu_seconds() for s in servers if s.alive()]
        if len(before) == len(after) and all((t1 - t0) / IDLE_SAMPLE_S < IDLE_CPU_SHARE
                                             for t0, t1 in zip(before, after)):
            break
    return round(time.monotonic() - started, 2)
