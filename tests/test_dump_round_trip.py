"""mariadb-dump round trip (issue 14, "How to check it"): a database with every column type,
collation, foreign key, CHECK, generated column, sequence and index kind (tests/dump/
schema_every_type.sql) is created on a private MariaDB 10.11 and dumped with the real
mariadb-dump; the dump is restored into selkied and dumped again; the same schema is also
created on selkied directly and dumped. All dumps must be the same text, but for the
`-- Server version` comment line: SHOW CREATE TABLE, the data as mariadb-dump writes it
(hex BLOBs, escaped strings, DECIMAL(65,30), TIME, BIT, UUID/INET) and the restore path
(the dump's SET statements, LOCK TABLES, /*!40000 ALTER TABLE ... DISABLE KEYS */, sequences
restored by SETVAL) all agree with MariaDB byte for byte.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness import mariadb_cli

SCHEMA = Path(__file__).resolve().parent / "dump" / "schema_every_type.sql"
DB_OPTIONS = "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"


def dump(port: int, db: str) -> bytes:
    """The dump as bytes: BLOB columns are written raw (mariadb-dump escapes only what SQL needs)."""
    out = subprocess.run(
        ["mariadb-dump", "-h127.0.0.1", f"-P{port}", "-uroot", "--protocol=TCP", "--skip-dump-date", db],
        capture_output=True, check=True, timeout=120,
    ).stdout
    # The only line that names the server: it differs on purpose.
    return b"\n".join(line for line in out.split(b"\n") if not line.startswith(b"-- Server version"))


def load(port: int, db: str, sql: bytes) -> None:
    mariadb_cli(port, f"DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db} {DB_OPTIONS}")
    result = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--protocol=TCP", f"-D{db}"],
                            input=sql, capture_output=True, timeout=120)
    assert result.returncode == 0, f"loading into {db} on port {port} failed:\n{result.stderr.decode(errors='replace')}"


def first_difference(a: bytes, b: bytes) -> str:
    for n, (x, y) in enumerate(zip(a.split(b"\n"), b.split(b"\n")), 1):
        if x != y:
            return f"line {n}:\n  expected {x[:300]!r}\n  got      {y[:300]!r}"
    newline = b"\n"
    return f"lengths differ: {a.count(newline)} vs {b.count(newline)} lines"


def test_dump_of_mariadb_restores_into_selkied_and_dumps_the_same(selkie, mariadb):
    schema = SCHEMA.read_bytes()
    load(mariadb.port, "dump_rt", schema)
    reference = dump(mariadb.port, "dump_rt")
    assert b"CREATE TABLE `books`" in reference and b"INSERT INTO `books`" in reference

    load(selkie.port, "dump_rt", reference)
    restored = dump(selkie.port, "dump_rt")
    assert restored == reference, "dump after restoring MariaDB's dump differs at " + first_difference(
        reference, restored)

    # Restored again from selkied's own dump: a second generation changes nothing.
    load(selkie.port, "dump_rt", restored)
    assert dump(selkie.port, "dump_rt") == restored


def test_schema_created_on_selkied_dumps_as_on_mariadb(selkie, mariadb):
    schema = SCHEMA.read_bytes()
    load(mariadb.port, "dump_direct", schema)
    load(selkie.port, "dump_direct", schema)
    reference = dump(mariadb.port, "dump_direct")
    ours = dump(selkie.port, "dump_direct")
    assert ours == reference, "selkied's dump differs at " + first_difference(reference, ours)
