"""Real clients nobody here wrote: the mariadb CLI, PyMySQL, mysql-connector-python (pure mode)."""

import datetime
import os
import pty
import select
import subprocess
import time
from decimal import Decimal

import pytest

from conftest import pymysql_connect
from harness import mariadb_cli

# One table with every supported type, and the Python values that must round-trip through it.
ALL_TYPES_DDL = """
CREATE TABLE all_types (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  de DECIMAL(20,6), fl FLOAT, db DOUBLE,
  ch CHAR(10), vc VARCHAR(100), tx TEXT,
  bn BINARY(4), vb VARBINARY(50), bl BLOB,
  d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL DEFAULT NULL
)
"""
ALL_TYPES_COLUMNS = ["id", "ti", "tiu", "si", "siu", "mi", "i", "iu", "bi", "biu", "de", "fl", "db", "ch", "vc",
                     "tx", "bn", "vb", "bl", "d", "dt", "dt6", "ts"]
ALL_TYPES_ROWS = [
    (1, -128, 255, -32768, 65535, -8388608, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
     Decimal("-12345678901234.123456"), 1.5, 2.25, "abc", "héllo wörld ✓", "long text " * 100,
     b"\x00\x01\x02\x03", b"\xff\x00binary", bytes(range(256)) * 10,
     datetime.date(2024, 2, 29), datetime.datetime(1999, 12, 31, 23, 59, 59),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), datetime.datetime(2020, 6, 7, 8, 9, 10)),
    (2, 127, 0, 32767, 0, 8388607, 2147483647, 0, 9223372036854775807, 0,
     Decimal("0.000001"), -0.5, -1e300, "", "", "", b"\x00\x00\x00\x00", b"", b"",
     datetime.date(1000, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59),
     datetime.datetime(1970, 1, 1, 0, 0, 0, 1), None),
    (3,) + (None,) * 22,
]


def check_all_types_rows(rows):
    assert len(rows) == len(ALL_TYPES_ROWS)
    for got, want in zip(rows, ALL_TYPES_ROWS):
        assert len(got) == len(want)
        for name, g, w in zip(ALL_TYPES_COLUMNS, got, want):
            if isinstance(w, float):
                assert g == pytest.approx(w, rel=1e-6), name
            elif isinstance(w, bytes):
                assert bytes(g) == w, name
            else:
                assert g == w, (name, g, w)


# ---------------------------------------------------------------- mariadb CLI

def test_cli_batch_statements(selkie):
    p = mariadb_cli(selkie.port, "select @@version_comment limit 1; SET NAMES utf8mb4; "
                    "CREATE DATABASE cli1; USE cli1; CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(20)); "
                    "INSERT INTO t VALUES (1,'x'),(2,NULL); SELECT DATABASE(); SHOW TABLES; "
                    "SELECT a, b FROM t ORDER BY a", extra=["--batch"])
    lines = p.stdout.splitlines()
    assert "cli1" in lines
    assert "Tables_in_cli1" in lines and "t" in lines
    assert lines[-3:] == ["a\tb", "1\tx", "2\tNULL"]
    p = mariadb_cli(selkie.port, "SHOW DATABASES", extra=["--batch", "--skip-column-names"])
    assert "cli1" in p.stdout.split() and "information_schema" in p.stdout.split()


def test_cli_errors_have_mysql_codes(selkie):
    p = mariadb_cli(selkie.port, "SELECT * FROM nosuchdb.t", check=False)
    assert p.returncode != 0
    assert "ERROR 1146 (42S02)" in p.stderr
    p = mariadb_cli(selkie.port, "SELEC 1", check=False)
    assert "ERROR 1064 (42000)" in p.stderr
    p = mariadb_cli(selkie.port, "SELECT 1", database="no_such_database", check=False)
    assert "1049" in p.stderr


def test_cli_interactive_session(selkie):
    """The client in interactive mode (on a pty) sends its connect-time queries and completion lookups."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("mariadb", ["mariadb", "-h127.0.0.1", f"-P{selkie.port}", "-uroot", "--protocol=TCP"])
    out = b""

    def read_until(marker: bytes, start: int = 0, timeout=30.0):
        nonlocal out
        deadline = time.monotonic() + timeout
        while marker not in out[start:]:
            r, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not r:
                raise TimeoutError(f"waiting for {marker!r}; got {out[-500:]!r}")
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out

    try:
        read_until(b"]> ")
        for cmd, marker in [(b"CREATE DATABASE inter1;", b"Query OK"),
                            (b"USE inter1;", b"Database changed"),
                            (b"CREATE TABLE t (a INT PRIMARY KEY);", b"Query OK, 0 rows affected"),
                            (b"INSERT INTO t VALUES (7),(8);", b"2 rows affected"),
                            (b"SELECT SUM(a) AS total FROM t;", b"| total |"),
                            (b"SELECT DATABASE();", b"| inter1     |")]:
            before = len(out)
            os.write(fd, cmd + b"\n")
            read_until(b"]> ", start=before + len(cmd))
            assert marker in out[before:], (cmd, out[before:])
        assert b"| 15 |" in out or b"|    15 |" in out
        os.write(fd, b"\\q\n")
    finally:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)


# ---------------------------------------------------------------- PyMySQL

def test_pymysql_ddl_dml_transactions(selkie):
    c = pymysql_connect(selkie.port)
    cur = c.cursor()
    cur.execute("CREATE DATABASE py1")
    cur.execute("USE py1")
    cur.execute("CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, owner VARCHAR(30) NOT NULL, bal BIGINT NOT NULL DEFAULT 0, KEY (owner))")
    cur.executemany("INSERT INTO acct (owner, bal) VALUES (%s, %s)", [("ann", 100), ("bob", 50), ("cy", 0)])
    assert cur.rowcount == 3
    cur.execute("SELECT LAST_INSERT_ID()")
    assert cur.fetchone()[0] in (1, 3)  # executemany may batch into one multi-row INSERT (first id) or not

    other = pymysql_connect(selkie.port, db="py1")
    ocur = other.cursor()
    c.begin()
    cur.execute("UPDATE acct SET bal = bal - 30 WHERE owner = %s", ("ann",))
    cur.execute("UPDATE acct SET bal = bal + 30 WHERE owner = %s", ("bob",))
    ocur.execute("SELECT owner, bal FROM acct ORDER BY id")
    assert ocur.fetchall() == (("ann", 100), ("bob", 50), ("cy", 0)), "uncommitted change visible"
    c.commit()
    ocur.execute("SELECT owner, bal FROM acct ORDER BY id")
    assert ocur.fetchall() == (("ann", 70), ("bob", 80), ("cy", 0))

    c.begin()
    cur.execute("DELETE FROM acct WHERE owner = 'cy'")
    assert cur.rowcount == 1
    c.rollback()
    cur.execute("SELECT COUNT(*), SUM(bal) FROM acct")
    assert cur.fetchone() == (3, Decimal(150))

    with pytest.raises(Exception) as e:
        cur.execute("INSERT INTO acct (id, owner) VALUES (1, 'dup')")
    assert e.value.args[0] == 1062
    with pytest.raises(Exception) as e:
        cur.execute("INSERT INTO acct (owner) VALUES (NULL)")
    assert e.value.args[0] == 1048
    with pytest.raises(Exception) as e:
        cur.execute("SELECT nosuchcol FROM acct")
    assert e.value.args[0] == 1054
    cur.execute("SELECT 1")  # connection still usable after errors
    assert cur.fetchone() == (1,)
    other.close()
    c.close()


def test_pymysql_types_round_trip(selkie):
    c = pymysql_connect(selkie.port)
    cur = c.cursor()
    cur.execute("CREATE DATABASE py2")
    cur.execute("USE py2")
    cur.execute(ALL_TYPES_DDL)
    placeholders = ",".join(["%s"] * len(ALL_TYPES_COLUMNS))
    cur.executemany(f"INSERT INTO all_types VALUES ({placeholders})", ALL_TYPES_ROWS)
    cur.execute("SELECT * FROM all_types ORDER BY id")
    check_all_types_rows(cur.fetchall())
    cur.execute("SELECT id FROM all_types WHERE ti IS NULL")
    assert cur.fetchall() == ((3,),)
    c.close()


# ---------------------------------------------------------------- mysql-connector-python (pure)

def connector_connect(port, db=None):
    import mysql.connector
    return mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database=db,
                                   use_pure=True, autocommit=True)


def test_connector_prepared_statements_types(selkie):
    conn = connector_connect(selkie.port)
    cur = conn.cursor()
    cur.execute("CREATE DATABASE cn1")
    cur.execute("USE cn1")
    cur.execute(ALL_TYPES_DDL)
    pcur = conn.cursor(prepared=True)  # COM_STMT_PREPARE / EXECUTE, binary protocol
    placeholders = ",".join(["%s"] * len(ALL_TYPES_COLUMNS))
    for row in ALL_TYPES_ROWS:
        pcur.execute(f"INSERT INTO all_types VALUES ({placeholders})", row)
    pcur.execute("SELECT * FROM all_types WHERE id >= %s ORDER BY id", (1,))
    rows = pcur.fetchall()
    check_all_types_rows([tuple(r) for r in rows])
    # Re-execute the same prepared statement with other parameters.
    for want in (1, 2, 3):
        pcur.execute("SELECT id, vc FROM all_types WHERE id = %s", (want,))
        got = pcur.fetchall()
        assert [tuple(r)[0] for r in got] == [want]
    cur.execute("SELECT * FROM all_types ORDER BY id")  # text protocol
    check_all_types_rows([tuple(r) for r in cur.fetchall()])
    conn.close()


def test_connector_transactions(selkie):
    conn = connector_connect(selkie.port)
    cur = conn.cursor()
    cur.execute("CREATE DATABASE cn2")
    cur.execute("USE cn2")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.autocommit = False
    cur.execute("INSERT INTO t VALUES (1, 10)")
    conn.rollback()
    cur.execute("INSERT INTO t VALUES (2, 20)")
    conn.commit()
    cur.execute("SELECT id, v FROM t")
    assert cur.fetchall() == [(2, 20)]
    conn.close()
