"""Differential corpus: every file in tests/corpus/*.sql runs on selkied and on a private MariaDB
10.11, statement by statement, and every outcome must be the same on both: result rows (and
column names), affected rows, error code, SQLSTATE and message, and warnings.

Corpus format (one topic per file):
- Statements end with `;` at the end of a line; lines starting with `--` are comments, except:
- `-- connection NAME` switches to (and opens, the first time) another session on the same
  database: interleavings across sessions are written out in file order.
- `-- sorted` before a statement compares its rows as a multiset (no ORDER BY in the statement).

Each file runs in a fresh database named after it. A difference fails the test unless
tests/corpus/allowlist.txt lists `file:line` with the reason (reviewed like code).
"""

from __future__ import annotations

import re
from pathlib import Path

import pymysql
import pytest

CORPUS = Path(__file__).resolve().parent / "corpus"


def parse_corpus(path: Path) -> list[tuple[int, str, str, bool]]:
    """Returns (line number, connection, statement, sorted) for each statement of a file."""
    out = []
    conn, sort_next, buf, start = "a", False, [], 0
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if not buf and stripped.startswith("--"):
            m = re.match(r"--\s*connection\s+(\w+)\s*$", stripped)
            if m:
                conn = m.group(1)
            elif re.match(r"--\s*sorted\s*$", stripped):
                sort_next = True
            continue
        if not buf and not stripped:
            continue
        if not buf:
            start = n
        buf.append(line)
        if stripped.endswith(";"):
            stmt = "\n".join(buf).strip()[:-1]
            out.append((start, conn, stmt, sort_next))
            buf, sort_next = [], False
    assert not buf, f"{path.name}: statement without a final ';'"
    return out


def allowlist() -> dict[str, str]:
    entries = {}
    f = CORPUS / "allowlist.txt"
    if f.exists():
        for line in f.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                where, _, reason = line.partition(" ")
                assert reason.strip(), f"allowlist entry {where} has no reason"
                entries[where] = reason.strip()
    return entries


def outcome(cur, stmt: str, sort: bool):
    """What a client sees of one statement, in comparable form."""
    try:
        cur.execute(stmt)
    except pymysql.err.MySQLError as e:
        code, message = (e.args + ("",))[:2]
        return ("error", code, message)
    warnings = []
    if cur._result is not None and cur._result.warning_count:
        cur.connection.query("SHOW WARNINGS")
        warnings = [tuple(str(v) for v in w) for w in cur.connection._result.rows]
    if cur.description is not None:
        names = [d[0] for d in cur.description]
        rows = [tuple(None if v is None else str(v) for v in r) for r in cur.fetchall()]
        if sort:
            rows.sort(key=lambda r: [("" if v is None else v) for v in r])
        return ("rows", names, rows, warnings)
    return ("ok", cur.rowcount, warnings)


def run_file(port: int, path: Path) -> list:
    db = "corpus_" + re.sub(r"\W", "_", path.stem)
    admin = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    with admin.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {db}")
        c.execute(f"CREATE DATABASE {db}")
    conns = {}
    results = []
    try:
        for line, name, stmt, sort in parse_corpus(path):
            if name not in conns:
                conns[name] = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                                              database=db, autocommit=True)
            with conns[name].cursor() as cur:
                results.append((line, stmt, outcome(cur, stmt, sort)))
    finally:
        for c in conns.values():
            c.close()
        with admin.cursor() as c:
            c.execute(f"DROP DATABASE IF EXISTS {db}")
        admin.close()
    return results


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.sql")), ids=lambda p: p.stem)
def test_corpus_matches_mariadb(selkie, mariadb, path):
    allowed = allowlist()
    ours = run_file(selkie.port, path)
    theirs = run_file(mariadb.port, path)
    diffs = []
    for (line, stmt, a), (_, _, b) in zip(ours, theirs):
        if a != b and f"{path.name}:{line}" not in allowed:
            diffs.append(f"{path.name}:{line}: {stmt}\n  selkie:  {a}\n  mariadb: {b}")
    assert not diffs, "differences from MariaDB 10.11:\n" + "\n".join(diffs)
