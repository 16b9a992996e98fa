"""sysbench 1.0.20 (Debian package) with its own Lua scripts, unchanged, against selkied.

Each run must finish with zero errors other than the deadlocks sysbench itself retries, and the
data must afterwards be exactly what the workload must have produced:
- read-only workloads leave every row as prepared (full-table checksum unchanged);
- oltp_update_index adds 1 to SUM(k) per UPDATE; oltp_update_non_index leaves ids and k alone;
- oltp_write_only / oltp_read_write keep every id 1..N (each DELETE is followed by an INSERT of
  the same id in the same transaction);
- oltp_insert / bulk_insert add exactly one row per event;
- the primary key and the secondary index agree (count and SUM(k) through each);
- single-threaded runs with a fixed --rand-seed end with byte-identical tables on selkied and on
  MariaDB 10.11 given the same statement stream.
"""

import hashlib

import pytest

from conftest import pymysql_connect
from harness import sysbench

TABLES = 2
TABLE_SIZE = 2000
RUN_SECONDS = 3


def table_state(port, db, table):
    """(count, sum(k), checksum over all rows in id order) via the PK, checked against the k index."""
    c = pymysql_connect(port, db=db)
    cur = c.cursor()
    cur.execute(f"SELECT id, k, c, pad FROM {table} ORDER BY id")
    rows = cur.fetchall()
    h = hashlib.sha256()
    for r in rows:
        h.update(repr(r).encode())
    cur.execute(f"SELECT COUNT(*), COALESCE(SUM(k), 0) FROM {table}")
    count, sum_k = cur.fetchone()
    assert count == len(rows)
    assert sum_k == sum(r[1] for r in rows)
    cur.execute(f"SHOW INDEX FROM {table}")
    if any(r[2] == f"k_{table[len('sbtest'):]}" for r in cur.fetchall()):
        cur.execute(f"SELECT COUNT(*), COALESCE(SUM(k), 0) FROM {table} FORCE INDEX (k_{table[len('sbtest'):]}) WHERE k >= 0")
        assert cur.fetchone() == (count, sum_k), "secondary index disagrees with the primary key"
    c.close()
    return count, int(sum_k), h.hexdigest(), [r[0] for r in rows]


def run_ok(port, script, command, **kw):
    r = sysbench(port, script, command, **kw)
    assert r["returncode"] == 0 and not r.get("fatal"), r["output"][-3000:]
    return r


def fresh_db(port, db):
    c = pymysql_connect(port)
    c.cursor().execute(f"DROP DATABASE IF EXISTS {db}")
    c.cursor().execute(f"CREATE DATABASE {db}")
    c.close()


OLTP_SCRIPTS = ["oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
                "oltp_update_index", "oltp_update_non_index", "oltp_delete", "oltp_insert",
                "select_random_points", "select_random_ranges"]


@pytest.mark.parametrize("ps_mode", ["auto", "disable"])
@pytest.mark.parametrize("script", OLTP_SCRIPTS)
def test_script_prepare_prewarm_run_cleanup(selkie, script, ps_mode):
    db = f"sb_{script}_{ps_mode}"
    fresh_db(selkie.port, db)
    tables = 1 if script.startswith("select_random") else TABLES  # those scripts support one table
    names = [f"sbtest{i}" for i in range(1, tables + 1)]
    common = dict(db=db, tables=tables, table_size=TABLE_SIZE, ps_mode=ps_mode)
    run_ok(selkie.port, script, "prepare", **common)
    if script.startswith("oltp_"):
        run_ok(selkie.port, script, "prewarm", **common)
    before = {t: table_state(selkie.port, db, t) for t in names}
    if script == "oltp_insert":
        # --auto-inc is on by default: prepare filled the tables; inserts add rows with new ids.
        assert before["sbtest1"][0] == TABLE_SIZE
    r = run_ok(selkie.port, script, "run", threads=4, time_s=RUN_SECONDS, **common)
    assert r["transactions_count"] > 0
    after = {t: table_state(selkie.port, db, t) for t in names}
    writes = int(r.get("write", 0))

    if script in ("oltp_point_select", "oltp_read_only", "select_random_points", "select_random_ranges"):
        assert after == before
        assert writes == 0
    elif script == "oltp_update_index":
        assert sum(a[1] for a in after.values()) - sum(b[1] for b in before.values()) == writes
        assert all(after[t][3] == before[t][3] for t in after)
    elif script == "oltp_update_non_index":
        assert all(after[t][:2] == before[t][:2] and after[t][3] == before[t][3] for t in after)
    elif script in ("oltp_write_only", "oltp_read_write"):
        assert all(after[t][3] == list(range(1, TABLE_SIZE + 1)) for t in after)
    elif script == "oltp_delete":
        deleted = sum(before[t][0] - after[t][0] for t in after)
        assert 0 < deleted <= writes
        assert all(set(after[t][3]) <= set(before[t][3]) for t in after)
    elif script == "oltp_insert":
        assert sum(after[t][0] - before[t][0] for t in after) == writes
        assert all(set(before[t][3]) <= set(after[t][3]) for t in after)
    run_ok(selkie.port, script, "cleanup", **common)
    c = pymysql_connect(selkie.port, db=db)
    cur = c.cursor()
    cur.execute("SHOW TABLES")
    assert cur.fetchall() == ()
    c.close()


@pytest.mark.parametrize("ps_mode", ["auto", "disable"])
def test_oltp_insert_without_auto_inc(selkie, ps_mode):
    db = f"sb_insert_noauto_{ps_mode}"
    fresh_db(selkie.port, db)
    common = dict(db=db, tables=TABLES, table_size=TABLE_SIZE, ps_mode=ps_mode, extra=["--auto-inc=off"])
    run_ok(selkie.port, "oltp_insert", "prepare", **common)
    r = run_ok(selkie.port, "oltp_insert", "run", threads=4, time_s=RUN_SECONDS, **common)
    total = sum(table_state(selkie.port, db, t)[0] for t in ("sbtest1", "sbtest2"))
    assert total == r["write"] > 0
    run_ok(selkie.port, "oltp_insert", "cleanup", **common)


@pytest.mark.parametrize("ps_mode", ["auto", "disable"])
def test_bulk_insert(selkie, ps_mode):
    db = f"sb_bulk_{ps_mode}"
    fresh_db(selkie.port, db)
    threads = 2
    common = dict(db=db, threads=threads, ps_mode=ps_mode)
    run_ok(selkie.port, "bulk_insert", "prepare", **common)
    r = run_ok(selkie.port, "bulk_insert", "run", time_s=RUN_SECONDS, **common)
    c = pymysql_connect(selkie.port, db=db)
    cur = c.cursor()
    total = 0
    for i in range(1, threads + 1):
        cur.execute(f"SELECT COUNT(*), MIN(id), MAX(id), SUM(id = k) FROM sbtest{i}")
        n, lo, hi, same = cur.fetchone()
        total += n
        if n:
            assert (lo, hi, same) == (1, n, n)
    assert total == r["events"] > 1000
    c.close()
    run_ok(selkie.port, "bulk_insert", "cleanup", **common)


@pytest.mark.parametrize("rand_type", ["uniform", "gaussian", "special", "pareto"])
def test_rand_types(selkie, rand_type):
    db = f"sb_rand_{rand_type}"
    fresh_db(selkie.port, db)
    common = dict(db=db, tables=1, table_size=TABLE_SIZE, rand_type=rand_type)
    run_ok(selkie.port, "oltp_read_write", "prepare", **common)
    run_ok(selkie.port, "oltp_read_write", "run", threads=8, time_s=2, **common)
    assert table_state(selkie.port, db, "sbtest1")[3] == list(range(1, TABLE_SIZE + 1))


@pytest.mark.parametrize("threads", [1, 16, 256, 1024])
def test_thread_counts(selkie, threads):
    db = f"sb_threads_{threads}"
    fresh_db(selkie.port, db)
    # sysbench's default table size: with 4 x 2,000 rows, 1,024 writers mostly wait on each other.
    size = 10_000
    common = dict(db=db, tables=4, table_size=size)
    run_ok(selkie.port, "oltp_read_write", "prepare", **common)
    r = run_ok(selkie.port, "oltp_read_write", "run", threads=threads, time_s=4, timeout=240, **common)
    assert r["transactions_count"] >= threads
    for t in ("sbtest1", "sbtest2", "sbtest3", "sbtest4"):
        assert table_state(selkie.port, db, t)[3] == list(range(1, size + 1))


DETERMINISTIC = [("oltp_read_write", "auto"), ("oltp_write_only", "disable"), ("oltp_update_index", "auto"),
                 ("oltp_update_non_index", "disable"), ("oltp_delete", "auto"), ("oltp_insert", "disable")]


def copy_rows(src_port, dst_port, db, table):
    """Makes dst's table hold exactly src's rows (sysbench's prepare ignores --rand-seed)."""
    src = pymysql_connect(src_port, db=db)
    cur = src.cursor()
    cur.execute(f"SELECT id, k, c, pad FROM {table} ORDER BY id")
    rows = cur.fetchall()
    src.close()
    dst = pymysql_connect(dst_port, db=db)
    dcur = dst.cursor()
    dcur.execute(f"DELETE FROM {table}")
    for i in range(0, len(rows), 500):
        dcur.executemany(f"INSERT INTO {table} (id, k, c, pad) VALUES (%s, %s, %s, %s)", rows[i:i + 500])
    dst.close()


@pytest.mark.parametrize("script,ps_mode", DETERMINISTIC)
def test_same_result_as_mariadb(selkie, mariadb, script, ps_mode):
    """Identical data, one thread, fixed seed: sysbench sends the same statements to both servers,
    so the tables must end up identical."""
    db = f"sb_det_{script}"
    common = dict(db=db, tables=1, table_size=500, ps_mode=ps_mode, seed=12345)
    for port in (selkie.port, mariadb.port):
        fresh_db(port, db)
        run_ok(port, script, "prepare", **common)
    copy_rows(selkie.port, mariadb.port, db, "sbtest1")
    assert table_state(selkie.port, db, "sbtest1") == table_state(mariadb.port, db, "sbtest1")
    for port in (selkie.port, mariadb.port):
        run_ok(port, script, "run", threads=1, events=300, **common)
    assert table_state(selkie.port, db, "sbtest1") == table_state(mariadb.port, db, "sbtest1")
