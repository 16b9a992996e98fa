"""CREATE INDEX on a big table does not stop other tables' work (issue 11 item 11), black-box:
a real selkied, PyMySQL clients. While one connection builds an index over a table of 400,000
rows, other connections keep reading and writing another table with bounded latency; a writer
of the indexed table goes on during the build (MariaDB's LOCK=NONE, its default for CREATE
INDEX), and its row is found through the new index.
"""

import threading
import time

import pymysql

from harness import SelkieServer

ROWS_LOG2 = 12  # 200 * 2^11 = 409,600 rows


def connect(port: int) -> pymysql.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database="o",
                           autocommit=True, read_timeout=600, write_timeout=600)


def test_create_index_lets_other_tables_work():
    with SelkieServer(extra_args=["--flush-at-commit", "2"]) as s:
        setup = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        cur = setup.cursor()
        cur.execute("CREATE DATABASE o")
        cur.execute("USE o")
        cur.execute("CREATE TABLE big (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(60) NOT NULL)")
        cur.execute("CREATE TABLE other (id INT PRIMARY KEY, v INT NOT NULL)")
        cur.execute("INSERT INTO other VALUES " + ",".join(f"({i}, 0)" for i in range(1, 101)))
        cur.execute("INSERT INTO big VALUES " + ",".join(f"({i}, {i % 977}, 'row {i:050d}')" for i in range(200)))
        n = 200
        for _ in range(ROWS_LOG2 - 1):
            cur.execute(f"INSERT INTO big SELECT id + {n}, (id + {n}) % 977, c FROM big")
            n *= 2

        # Baseline latency of the other table's work.
        stop = threading.Event()
        samples: list[tuple[float, float]] = []  # (start time, latency)
        errors: list[BaseException] = []

        def other_work(worker: int) -> None:
            try:
                conn = connect(s.port)
                c = conn.cursor()
                i = 0
                while not stop.is_set():
                    i += 1
                    t0 = time.monotonic()
                    c.execute("SELECT v FROM other WHERE id = %s", (1 + (i * 7 + worker) % 100,))
                    c.fetchall()
                    c.execute("UPDATE other SET v = v + 1 WHERE id = %s", (1 + (i * 13 + worker) % 100,))
                    samples.append((t0, time.monotonic() - t0))
                conn.close()
            except BaseException as e:  # noqa: BLE001 - reported by the main thread
                errors.append(e)

        workers = [threading.Thread(target=other_work, args=(w,)) for w in range(3)]
        for w in workers:
            w.start()
        time.sleep(1.0)

        # A writer of `big` started during the build goes on; the build applies its row at the end.
        writer_done: list[float] = []

        def big_writer() -> None:
            conn = connect(s.port)
            conn.cursor().execute("INSERT INTO big VALUES (-1, 123456, 'during the build')")
            writer_done.append(time.monotonic())
            conn.close()

        build_start = time.monotonic()
        builder = threading.Thread(target=lambda: connect(s.port).cursor().execute("CREATE INDEX kc ON big (k, c)"))
        builder.start()
        time.sleep(0.2)
        writer = threading.Thread(target=big_writer)
        writer.start()
        builder.join()
        build_end = time.monotonic()
        writer.join()
        time.sleep(0.5)
        stop.set()
        for w in workers:
            w.join()
        assert not errors, errors

        during = [lat for t0, lat in samples if build_start + 0.1 <= t0 and t0 + lat <= build_end - 0.1]
        before = sorted(lat for t0, lat in samples if t0 + lat < build_start)
        build_s = build_end - build_start
        print(f"build {build_s:.2f} s; other-table ops before: {len(before)}, during: {len(during)}, "
              f"max latency during {max(during, default=0) * 1000:.0f} ms")
        if build_s > 0.5:
            # The build stopped nobody: the other table's work went on through it, each operation
            # far shorter than the build.
            assert len(during) >= 10, (build_s, len(during))
            assert max(during) < max(0.5, build_s / 2), (build_s, max(during))
            # The writer did not wait for the build.
            assert writer_done[0] < build_end, (writer_done[0] - build_start, build_s)
        assert writer_done
        cur.execute("SELECT id FROM big WHERE k = 123456")
        assert cur.fetchall() == ((-1,),)
        cur.execute("SELECT COUNT(*) FROM big")
        assert cur.fetchone()[0] == n + 1
        cur.execute("SELECT SUM(v) FROM other")
        assert int(cur.fetchone()[0]) == len(samples)
