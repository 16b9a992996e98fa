"""A client that does not read its result must not make the server hold the whole result set
(issue 11, bounded memory): past 16 MiB of unsent output the statement waits for the client, as
MariaDB's thread waits in its network write. Then the client reads everything, and it is all
there.
"""

import time

import pymysql
import pymysql.cursors

from harness import SelkieServer

ROWS = 200 * 2**10  # 204,800 rows of about 330 bytes on the wire: ~65 MiB of result


def test_unread_result_is_not_buffered_whole():
    with SelkieServer(extra_args=["--buffer-pool-size", "64M", "--flush-at-commit", "2"]) as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        cur = conn.cursor()
        cur.execute("CREATE DATABASE r")
        cur.execute("USE r")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(400) NOT NULL)")
        cur.execute("INSERT INTO t VALUES " + ",".join(f"({i}, REPEAT('x', 300))" for i in range(200)))
        n = 200
        while n < ROWS:
            cur.execute(f"INSERT INTO t SELECT id + {n}, c FROM t")
            n *= 2

        reader = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", database="r",
                                 cursorclass=pymysql.cursors.SSCursor, read_timeout=120)
        before = s.rss_kib()
        rc = reader.cursor()
        rc.execute("SELECT id, c FROM t")  # unbuffered: reads the first packets only
        time.sleep(3)  # the server would have produced every row by now
        grown_mib = (s.rss_kib() - before) / 1024
        # Meanwhile the server serves others.
        cur.execute("SELECT COUNT(*) FROM t")
        assert cur.fetchone()[0] == n
        count = sum(1 for _ in rc)
        assert count == n
        print(f"result ~{n * 330 >> 20} MiB; server RSS grew {grown_mib:.0f} MiB while the client did not read")
        assert grown_mib < 40, f"the server buffered {grown_mib:.0f} MiB of an unread result"
        reader.close()
        conn.close()
