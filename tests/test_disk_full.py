"""Disk full, black box: selkied with its data directory on a 192 MiB tmpfs, filled by inserts
from several connections (docs/architecture.md §4.10).

What must hold: the statement that finds the disk full fails with MariaDB's 1114 ("The table
't' is full"), never 1030; reads and other sessions go on; what was acknowledged is there and
nothing else; once the filesystem grows, writes succeed again within seconds; after SIGKILL the
restart recovers exactly the acknowledged rows.

Needs root (to mount a tmpfs); skipped with the reason otherwise. About 5 s; SELKIE_STRESS=1
repeats the grow, fill, kill and restart cycle three times (`SELKIE_STRESS=1 python3 -m pytest
tests/test_disk_full.py`).
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import pymysql
import pytest

from conftest import pymysql_connect
from harness import SelkieServer

FS_SIZE_MIB = 192
GROWTH_MIB = 128
CYCLES = 3 if os.environ.get("SELKIE_STRESS") == "1" else 1
THREADS = 4
ROWS_PER_INSERT = 25
ROW_BYTES = 3000
# Well past what 192 MiB holds: the load stops at the first error, not at this bound.
MAX_INSERTS_PER_THREAD = 10_000


@pytest.fixture
def small_fs(tmp_path):
    mnt = tmp_path / "fs"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={FS_SIZE_MIB}m", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a size-limited tmpfs (root needed): {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill_until_full(port: int, thread: int, acked: list, errors: list) -> None:
    """Autocommit multi-row inserts until the first error; `acked` gets the ids of every
    statement that succeeded (a failed statement inserts nothing)."""
    conn = pymysql_connect(port, "d")
    payload = "x" * ROW_BYTES
    try:
        with conn.cursor() as cur:
            for n in range(MAX_INSERTS_PER_THREAD):
                first = (thread * MAX_INSERTS_PER_THREAD + n) * ROWS_PER_INSERT
                ids = range(first, first + ROWS_PER_INSERT)
                values = ",".join(f"({i},'{payload}')" for i in ids)
                try:
                    cur.execute(f"INSERT INTO t (id, c) VALUES {values}")
                except pymysql.MySQLError as e:
                    errors.append((e.args[0], e.args[1] if len(e.args) > 1 else ""))
                    return
                acked.extend(ids)
    finally:
        conn.close()


def count_and_sum(port: int) -> tuple[int, int]:
    conn = pymysql_connect(port, "d")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*), COALESCE(SUM(id), 0) FROM t")
            count, total = cur.fetchone()
            return int(count), int(total)
    finally:
        conn.close()


def insert_batch(port: int, batch: int) -> list[int]:
    """One multi-row insert that needs new pages (a few rows could fit in a leaf's free space);
    returns its ids once it succeeded. Batches use ids beyond every writer's."""
    first = ((THREADS + 2 * CYCLES + 1) * MAX_INSERTS_PER_THREAD + batch) * ROWS_PER_INSERT
    ids = list(range(first, first + ROWS_PER_INSERT))
    values = ",".join(f"({i},'{'y' * ROW_BYTES}')" for i in ids)
    conn = pymysql_connect(port, "d")
    try:
        with conn.cursor() as cur:
            cur.execute(f"INSERT INTO t (id, c) VALUES {values}")
    finally:
        conn.close()
    return ids


def test_disk_full_fails_cleanly_and_writes_resume_when_space_returns(small_fs, tmp_path):
    server = SelkieServer(datadir=small_fs / "data",
                          extra_args=["--buffer-pool-size", "64M", "--log-file-size", "32M"])
    # The server's own log lives off the small filesystem, so that it can say what happened.
    server.log = tmp_path / "selkied.log"
    with server:
        port = server.port
        conn = pymysql_connect(port)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE d")
            cur.execute("CREATE TABLE d.t (id BIGINT PRIMARY KEY, c VARCHAR(4000))")
        conn.close()

        started = time.monotonic()
        acked: list[int] = []
        errors: list[tuple[int, str]] = []
        threads = [threading.Thread(target=fill_until_full, args=(port, i, acked, errors)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads), "a writer hung instead of failing"
        fill_seconds = time.monotonic() - started
        assert len(errors) == THREADS, f"not every writer hit the limit: {errors}"
        assert {code for code, _ in errors} == {1114}, f"disk full must be 1114, got {errors}"
        assert all(msg == "The table 't' is full" for _, msg in errors), errors
        # The log (32 MiB), the doublewrite area and page overhead take the rest.
        data_file = (small_fs / "data" / "data.sdb").stat().st_size
        assert data_file > 120 << 20, f"the data file is only {data_file} bytes: the limit came early"
        assert len(acked) * ROW_BYTES > 80 << 20, f"only {len(acked)} rows fit: the limit came early"

        # Reads and another session go on, and see exactly what was acknowledged.
        assert count_and_sum(port) == (len(acked), sum(acked))
        # The failed statements' rollbacks may have given pages back (emptied leaves merge), so
        # another statement may fit; the next one that needs new pages gets 1114 again.
        still_full: list[tuple[int, str]] = []
        fill_until_full(port, THREADS + 2 * CYCLES, acked, still_full)
        assert [code for code, _ in still_full] == [1114], still_full
        assert count_and_sum(port) == (len(acked), sum(acked))

        size = FS_SIZE_MIB
        for cycle in range(CYCLES):
            # Space returns: writes succeed again within seconds.
            size += GROWTH_MIB
            subprocess.run(["mount", "-o", f"remount,size={size}m", str(small_fs)], check=True)
            grown = time.monotonic()
            while True:
                try:
                    acked.extend(insert_batch(port, 1 + 2 * cycle))
                    break
                except pymysql.MySQLError as e:
                    assert e.args[0] == 1114, e
                    assert time.monotonic() - grown < 5, "writes did not resume within 5 s of growing the filesystem"
                    time.sleep(0.1)
            resumed_after = time.monotonic() - grown
            fill_until_full(port, THREADS + cycle, acked, errors)  # more rows, until the bigger disk fills up
            assert len(errors) == THREADS + 1 + cycle and errors[-1][0] == 1114, errors[-1:]
            assert count_and_sum(port) == (len(acked), sum(acked))

            # A power cut, then a restart on the (full) filesystem: exactly the acknowledged rows.
            server.kill()
            server.start()
            assert count_and_sum(port) == (len(acked), sum(acked))
            # The restart may give pages back (the undo pages of finished transactions), so a
            # few more rows may fit: writes go on until the disk is full again, then 1114.
            after_restart: list[tuple[int, str]] = []
            fill_until_full(port, THREADS + CYCLES + cycle, acked, after_restart)
            assert [code for code, _ in after_restart] == [1114], after_restart
            assert count_and_sum(port) == (len(acked), sum(acked))
            print(f"cycle {cycle}: writes resumed {resumed_after:.2f}s after growing to {size} MiB")
        print(f"filled {FS_SIZE_MIB} MiB in {fill_seconds:.1f}s")
