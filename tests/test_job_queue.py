"""Issue 15 item 5: a job queue on SELECT ... FOR UPDATE SKIP LOCKED.

16 workers take rows from one table the way job-queue libraries do (Solid Queue, good_job,
Oban, django-q...): in a transaction, pick the first free job with `ORDER BY id LIMIT 1 FOR
UPDATE SKIP LOCKED`, mark it done, commit. Every job must be processed exactly once, and no
worker may wait on another's lock: a worker that waits shows up as a slow pick, so every pick is
timed against a bound far below innodb_lock_wait_timeout. Runs against selkied (and, with
SELKIE_TESTS_AGAINST_MARIADB=1, against MariaDB 10.11 as a check of the test itself).
"""

import threading
import time

import pymysql

from conftest import pymysql_connect

WORKERS = 16
JOBS = 800
# A pick that waited on another worker's row lock would take at least this long: the lock is
# held while the worker "works" (WORK_SECONDS) before its commit.
WORK_SECONDS = 0.02
SLOW_PICK_SECONDS = 0.5


def test_sixteen_workers_take_every_job_once_without_waiting(selkie):
    setup = pymysql_connect(selkie.port)
    cur = setup.cursor()
    cur.execute("DROP DATABASE IF EXISTS jobq")
    cur.execute("CREATE DATABASE jobq")
    cur.execute("USE jobq")
    cur.execute(
        "CREATE TABLE jobs (id INT PRIMARY KEY AUTO_INCREMENT, payload VARCHAR(40) NOT NULL,"
        " state ENUM('queued','done') NOT NULL DEFAULT 'queued', worker INT NULL, KEY (state, id))"
    )
    cur.execute("CREATE TABLE runs (job_id INT NOT NULL, worker INT NOT NULL)")
    for start in range(0, JOBS, 200):
        cur.execute("INSERT INTO jobs (payload) VALUES " + ",".join(f"('job {i}')" for i in range(start, start + 200)))
    cur.execute("SET GLOBAL innodb_lock_wait_timeout = 50")

    slow_picks = []
    errors = []

    def worker(n):
        conn = pymysql.connect(host="127.0.0.1", port=selkie.port, user="root", password="", database="jobq",
                               autocommit=False)
        c = conn.cursor()
        try:
            while True:
                t0 = time.monotonic()
                c.execute(
                    "SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
                )
                row = c.fetchone()
                picked = time.monotonic() - t0
                if picked > SLOW_PICK_SECONDS:
                    slow_picks.append((n, picked))
                if row is None:
                    conn.rollback()
                    return
                (job,) = row
                time.sleep(WORK_SECONDS)
                c.execute("UPDATE jobs SET state = 'done', worker = %s WHERE id = %s", (n, job))
                c.execute("INSERT INTO runs VALUES (%s, %s)", (job, n))
                conn.commit()
        except Exception as e:  # noqa: BLE001 - reported below with the worker number
            errors.append((n, repr(e)))
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(WORKERS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    elapsed = time.monotonic() - t0
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert not errors, errors
    assert not slow_picks, f"workers waited on locks: {slow_picks[:5]}"

    cur.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM runs")
    runs, distinct = cur.fetchone()
    assert (runs, distinct) == (JOBS, JOBS), f"{runs} runs of {distinct} distinct jobs, expected {JOBS} once each"
    cur.execute("SELECT COUNT(*) FROM jobs WHERE state <> 'done'")
    assert cur.fetchone()[0] == 0
    cur.execute("SELECT COUNT(DISTINCT worker) FROM runs")
    assert cur.fetchone()[0] > 1, "one worker did everything: the others were blocked"
    # Serially the jobs take JOBS * WORK_SECONDS; 16 workers that never wait take a fraction.
    assert elapsed < JOBS * WORK_SECONDS / 2, f"{elapsed:.1f} s for {JOBS} jobs: workers serialized"
    cur.execute("DROP DATABASE jobq")
    setup.close()
