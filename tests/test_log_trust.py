"""Recovery refuses a log it cannot trust, through the real server (issue 11 item 2): after a
SIGKILL, with the redo log emptied, selkied does not start — it says why, naming the LSNs — and
leaves every file as it was; `--force-recovery` starts it read-only to salvage the data: reads
work, writes get 1836."""

import hashlib
from pathlib import Path

import pymysql
import pytest

from harness import SelkieServer, mariadb_cli


def digest(datadir: Path) -> dict[str, str]:
    return {str(p.relative_to(datadir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(datadir.rglob("*")) if p.is_file()}


def test_untrusted_log_is_refused_then_salvaged_read_only():
    server = SelkieServer(extra_args=["--buffer-pool-size", "64M"])
    try:
        server.start()
        mariadb_cli(server.port, "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        values = ",".join(f"({i}, {i})" for i in range(1, 2001))
        mariadb_cli(server.port, f"INSERT INTO d.t VALUES {values}")
        server.stop()  # a clean shutdown: the rows are in the data file
        server.start()
        mariadb_cli(server.port, "INSERT INTO d.t VALUES (5000, 5000)")
        server.kill()
        for seg in (server.datadir / "redo").glob("*.log"):
            seg.write_bytes(b"")
        before = digest(server.datadir)

        with pytest.raises(RuntimeError) as refused:
            server.start(timeout=60)
        message = str(refused.value)
        assert "refusing to recover" in message and "force-recovery" in message, message
        assert "LSN" in message
        assert digest(server.datadir) == before, "a refused start changed files"

        server.extra_args += ["--force-recovery"]
        server.start(timeout=60)
        conn = pymysql.connect(host="127.0.0.1", port=server.port, user="root", password="", autocommit=True)
        with conn.cursor() as c:
            c.execute("SELECT COUNT(*), SUM(v) FROM d.t WHERE id <= 2000")
            assert c.fetchone() == (2000, 2001000)
            with pytest.raises(pymysql.err.OperationalError) as e:
                c.execute("INSERT INTO d.t VALUES (6000, 6000)")
            assert e.value.args[0] == 1836, e.value.args
            with pytest.raises(pymysql.err.OperationalError) as e:
                c.execute("CREATE TABLE d.u (x INT)")
            assert e.value.args[0] == 1836, e.value.args
        conn.close()
        assert server.stop() == 0
        assert digest(server.datadir) == before, "salvage mode changed files"
    finally:
        server.cleanup()
