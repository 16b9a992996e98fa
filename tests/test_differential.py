r"""Differential corpus: every file in tests/corpus/*.sql runs on selkied and on a private MariaDB
10.11, statement by statement, and every outcome must be the same on both: result rows (and
column names), affected rows, error code, SQLSTATE and message, warnings, and the result column
metadata a driver reads (PyMySQL's cursor.description and the raw column definition packets:
type code, column length, decimals, charset number and the flags NOT_NULL, PRI_KEY, UNIQUE_KEY,
MULTIPLE_KEY, BLOB, UNSIGNED, ZEROFILL, BINARY, ENUM, AUTO_INCREMENT and SET).

Corpus format (one topic per file):
- Statements end with `;` at the end of a line; lines starting with `--` are comments, except:
- `-- connection NAME` switches to (and opens, the first time) another session on the same
  database: interleavings across sessions are written out in file order. `-- connection NAME
  found_rows` opens it with CLIENT_FOUND_ROWS (affected rows count matched rows, as Django's and
  Rails' connections ask).
- `-- sorted` before a statement compares its rows as a multiset (no ORDER BY in the statement).
- `-- bytes` before a statement sends each `\xNN` in it as that raw byte, as drivers send binary
  parameters (mysqlclient's `_binary'...'` holds the bytes themselves, escaped only for `\0`, `'`,
  `\\`, newline, `\r` and ^Z); SQL itself has no `\x` escape.

Each file runs in a fresh database named after it. A difference fails the test unless
tests/corpus/allowlist.txt lists it with the reason (reviewed like code), one entry a line:
- `file:line reason` allows any difference in the statement starting at that line;
- `file:line:meta reason` allows only a difference in column metadata (rows, errors and
  warnings must still match).
The allow-list is a list of known gaps that shrinks as features land: an entry whose statement
now matches MariaDB (or that names no statement) fails the test as a stale allow-list entry.
scripts/corpus_allowlist.py prints the current differences of a file in allow-list form (and
--write rewrites the file's block): run it after editing a file (entries name line numbers) or
changing the reference's configuration (collation-server=utf8mb4_general_ci, MariaDB's default, tests/harness.py).
Text that is not valid UTF-8 is read with surrogateescape rather than failing the driver.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pymysql
from pymysql.constants import CLIENT
import pytest

CORPUS = Path(__file__).resolve().parent / "corpus"


def _utf8_lenient(name: str):
    """A codec for the connections: UTF-8 whose undecodable bytes become lone surrogates
    (surrogateescape), so that a server sending bytes that are not UTF-8 in a text column shows
    as a difference in the rows instead of an exception inside the driver mid-result."""
    if name != "utf8_lenient":
        return None
    utf8 = codecs.lookup("utf-8")
    return codecs.CodecInfo(name="utf8_lenient", encode=lambda s, errors="strict": utf8.encode(s, "surrogateescape"),
                            decode=lambda b, errors="strict": utf8.decode(b, "surrogateescape"))


codecs.register(_utf8_lenient)


def parse_corpus(path: Path) -> list[tuple[int, str, str | bytes, bool]]:
    """Returns (line number, connection, statement, sorted) for each statement of a file; a
    connection opened with CLIENT_FOUND_ROWS is named NAME+found_rows, a `-- bytes` statement is
    bytes."""
    out = []
    conn, sort_next, bytes_next, buf, start = "a", False, False, [], 0
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if not buf and stripped.startswith("--"):
            m = re.match(r"--\s*connection\s+(\w+)(\s+found_rows)?\s*$", stripped)
            if m:
                conn = m.group(1) + ("+found_rows" if m.group(2) else "")
            elif re.match(r"--\s*sorted\s*$", stripped):
                sort_next = True
            elif re.match(r"--\s*bytes\s*$", stripped):
                bytes_next = True
            continue
        if not buf and not stripped:
            continue
        if not buf:
            start = n
        buf.append(line)
        if stripped.endswith(";"):
            stmt = "\n".join(buf).strip()[:-1]
            if bytes_next:
                stmt = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes.fromhex(m.group(1).decode()), stmt.encode())
            out.append((start, conn, stmt, sort_next))
            buf, sort_next, bytes_next = [], False, False
    assert not buf, f"{path.name}: statement without a final ';'"
    return out


def allowlist() -> dict[str, str]:
    """`file:line` or `file:line:meta` -> reason."""
    entries = {}
    f = CORPUS / "allowlist.txt"
    if f.exists():
        for line in f.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                where, _, reason = line.partition(" ")
                assert reason.strip(), f"allowlist entry {where} has no reason"
                assert re.fullmatch(r"[\w.-]+\.sql:\d+(:meta)?", where), f"allowlist entry {where}: not file:line[:meta]"
                assert where not in entries, f"allowlist entry {where} listed twice"
                entries[where] = reason.strip()
    return entries


# The column flags drivers act on (MariaDB's include/mysql_com.h): nullability, keys, BLOB,
# UNSIGNED, ZEROFILL, BINARY (bytes rather than text), ENUM, AUTO_INCREMENT, SET. TIMESTAMP,
# NO_DEFAULT_VALUE, ON_UPDATE_NOW and NUM are left out: clients do not read them.
DRIVER_FLAGS = {"NOT_NULL": 1, "PRI_KEY": 2, "UNIQUE_KEY": 4, "MULTIPLE_KEY": 8, "BLOB": 16, "UNSIGNED": 32,
                "ZEROFILL": 64, "BINARY": 128, "ENUM": 256, "AUTO_INCREMENT": 512, "SET": 2048}


def column_metadata(cur) -> list[tuple]:
    """Per result column: (name, type code, length, decimals, charset number, flag names), from
    the column definition packets; cursor.description is derived from the same fields (its
    internal_size divides the length by the charset's bytes per character, its null_ok is
    NOT_NULL), so it is checked against them rather than compared a second time."""
    meta = []
    for field, desc in zip(cur._result.fields, cur.description):
        assert desc[1] == field.type_code and desc[5] == field.scale and desc[6] == (not field.flags & 1)
        flags = "|".join(name for name, bit in DRIVER_FLAGS.items() if field.flags & bit)
        meta.append((field.name, field.type_code, field.length, field.scale, field.charsetnr, flags))
    return meta


def outcome(cur, stmt: str, sort: bool):
    """What a client sees of one statement, in comparable form: (outcome, column metadata or
    None when there is no result set)."""
    try:
        cur.execute(stmt)
    except pymysql.err.MySQLError as e:
        code, message = (e.args + ("",))[:2]
        return ("error", code, message), None
    warnings = []
    if cur._result is not None and cur._result.warning_count:
        cur.connection.query("SHOW WARNINGS")
        warnings = [tuple(str(v) for v in w) for w in cur.connection._result.rows]
    if cur.description is not None:
        names = [d[0] for d in cur.description]
        meta = column_metadata(cur)
        rows = [tuple(None if v is None else str(v) for v in r) for r in cur.fetchall()]
        if sort:
            rows.sort(key=lambda r: [("" if v is None else v) for v in r])
        return ("rows", names, rows, warnings), meta
    return ("ok", cur.rowcount, warnings), None


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
                # read_timeout: a statement that hangs (a lock wait gone wrong) fails the file
                # rather than the whole run.
                flags = CLIENT.FOUND_ROWS if name.endswith("+found_rows") else 0
                conns[name] = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                                              database=db, autocommit=True, read_timeout=120, client_flag=flags)
                conns[name].encoding = "utf8_lenient"
            with conns[name].cursor() as cur:
                results.append((line, stmt, outcome(cur, stmt, sort)))
    finally:
        for c in conns.values():
            c.close()
        with admin.cursor() as c:
            c.execute(f"DROP DATABASE IF EXISTS {db}")
        admin.close()
    return results


def differences(path: Path, ours: list, theirs: list, allowed: dict[str, str]) -> tuple[list[str], list[str]]:
    """(differences not allowed, stale allow-list entries of this file)."""
    diffs, stale = [], []
    lines = set()
    for (line, stmt, (a, meta_a)), (_, _, (b, meta_b)) in zip(ours, theirs):
        where = f"{path.name}:{line}"
        lines.add(line)
        if a != b:
            if where not in allowed:
                diffs.append(f"{where}: {stmt}\n  selkie:  {a}\n  mariadb: {b}")
        elif meta_a != meta_b:
            if where not in allowed and where + ":meta" not in allowed:
                diffs.append(f"{where}: {stmt}\n  column metadata differs (name, type, length, decimals, charsetnr, flags)"
                             f"\n  selkie:  {meta_a}\n  mariadb: {meta_b}")
        else:
            stale += [f"{w} ({stmt.splitlines()[0][:80]})" for w in (where, where + ":meta") if w in allowed]
        if a != b and where + ":meta" in allowed:
            stale.append(f"{where}:meta (the statement differs beyond metadata: list it as {where})")
    for w in allowed:
        file, line = w.split(":")[:2]
        if file == path.name and int(line) not in lines:
            stale.append(f"{w} (no statement starts on that line)")
    return diffs, stale


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.sql")), ids=lambda p: p.stem)
def test_corpus_matches_mariadb(selkie, mariadb, path):
    allowed = allowlist()
    ours = run_file(selkie.port, path)
    theirs = run_file(mariadb.port, path)
    diffs, stale = differences(path, ours, theirs, allowed)
    message = []
    if diffs:
        message.append("differences from MariaDB 10.11:\n" + "\n".join(diffs))
    if stale:
        message.append("stale allow-list entry (the statement matches MariaDB now: remove it from "
                       "tests/corpus/allowlist.txt):\n  " + "\n  ".join(stale))
    assert not message, "\n".join(message)


def test_allowlist_names_corpus_files():
    """An entry for a file that is gone (renamed, removed) is stale too."""
    files = {p.name for p in CORPUS.glob("*.sql")}
    stale = [w for w in allowlist() if w.split(":")[0] not in files]
    assert not stale, "stale allow-list entry (no such corpus file): " + ", ".join(stale)
