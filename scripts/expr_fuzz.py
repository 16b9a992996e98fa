#!/usr/bin/env python3
"""Generated-query differential check of expression semantics: selkied against MariaDB 10.11.

Runs on demand, not in the default test suite. Start a selkied and have a MariaDB 10.11 at hand:

    cargo build -p selkie-server --bin selkied
    target/debug/selkied --datadir /tmp/fuzz-data --port 3421 &
    python3 scripts/expr_fuzz.py --selkie-port 3421 --mariadb-port 3499 --seed 1 --count 500

It creates the same table (`fz`, columns of many types, rows with edge values) in database
`--database` on both servers, then generates random expressions (comparisons, IN, BETWEEN,
GREATEST/LEAST, NULLIF, CASE, IF, IFNULL, COALESCE, arithmetic, DIV/MOD, bit operations, string
functions, CAST, LIKE) inside random query shapes (select list, WHERE, GROUP BY with aggregates,
DISTINCT, UNION, ORDER BY), runs each query on both servers and compares the rows (as the text
the server sent), the error code and the warning count. Each mismatch is shrunk (subexpressions
replaced by their operands or by a constant while the same kind of mismatch remains) and printed
with both outcomes; at the end a summary counts the mismatches by kind and outermost operator.
The same seed generates the same queries.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

import pymysql

TABLE = """CREATE TABLE fz (
  id INT PRIMARY KEY,
  ti TINYINT, i INT, u BIGINT UNSIGNED, bi BIGINT,
  dc DECIMAL(10,3), f FLOAT, d DOUBLE,
  cg VARCHAR(20) COLLATE utf8mb4_general_ci, cb VARCHAR(20) COLLATE utf8mb4_bin,
  ch CHAR(8), l1 VARCHAR(20) CHARACTER SET latin1, vb VARBINARY(20),
  dt DATE, dtm DATETIME(3), tm TIME, y YEAR, b BIT(5),
  e ENUM('a','b','10'), s SET('x','y','1'), j JSON)"""

COLUMNS = ["ti", "i", "u", "bi", "dc", "f", "d", "cg", "cb", "ch", "l1", "vb",
           "dt", "dtm", "tm", "y", "b", "e", "s", "j"]

ROWS = [
    "(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(2, 0, 0, 0, 0, 0, 0, 0, '', '', '', '', '', '0000-00-00', '0000-00-00 00:00:00', '00:00:00', 0, b'0', 'a', '', '0')",
    "(3, -1, -1, 1, -1, -1.5, -0.5, -1e0, ' 1', '1abc', '0.5', 'é', x'00ff', '2020-02-29', '2020-02-29 23:59:59.999', '-01:02:03', 1999, b'1', 'b', 'x', '\"1\"')",
    "(4, 127, 2147483647, 18446744073709551615, 9223372036854775807, 9999999.999, 3.4e38, 1.7e308, '1abc', 'abc', '-2', 'ABC', 'abc', '1000-01-01', '9999-12-31 23:59:59.999', '838:59:59', 2155, b'11111', '10', 'x,y', '[1, \"a\"]')",
    "(5, -128, -2147483648, 9223372036854775808, -9223372036854775808, -9999999.999, 1.5, 0.1, 'a', 'A', '1e3', 'a ', '1', '2001-01-00', '2001-01-01 00:00:00.5', '12:34:56', 1901, b'10000', 'a', 'y,1', '{\"a\": 1}')",
    "(6, 1, 10, 10, 10, 0.5, 0.1, 2.5, '10', '9', ' 1', '10', '9', '2024-05-06', '2024-05-06 07:08:09', '23:59:59', 70, b'01010', '10', '1', '2.5')",
    "(7, 2, 3, 2, 3, 2.500, 1e-5, -0.0, 'b', 'B', 'b', 'b', 'B', '2000-01-01', '2000-01-01 00:00:00', '00:00:01', 2000, b'00010', 'b', 'x,1', 'null')",
]

STRING_LITERALS = ["''", "' 1'", "'1abc'", "'0.5'", "'a'", "'A'", "'abc'", "'10'", "'9'", "'1e3'",
                   "'-1'", "'2020-02-29'", "'2020-02-29 23:59:59'", "'12:34:56'", "'x,y'", "'b'",
                   "'é'", "'18446744073709551616'", "' '", "'0x10'", "'1.5e1'"]
NUMBER_LITERALS = ["0", "1", "-1", "2", "10", "127", "255", "0.5", "-1.5", "2.500", "1e0", "1.5e0",
                   "-0.0", "9223372036854775807", "18446744073709551615", "-9223372036854775808",
                   "99999999999999999999", "0.1", "1e308", "3"]
OTHER_LITERALS = ["NULL", "TRUE", "x'41'", "b'101'", "DATE'2020-01-01'", "TIMESTAMP'2020-01-01 10:00:00'",
                  "TIME'10:00:00'", "_latin1'a'", "_binary'a'", "'a' COLLATE utf8mb4_bin"]

# (template, arity); {0}, {1}... are the operands.
OPERATORS = [
    ("({0} = {1})", 2), ("({0} <> {1})", 2), ("({0} < {1})", 2), ("({0} >= {1})", 2), ("({0} <=> {1})", 2),
    ("({0} IN ({1}, {2}))", 3), ("({0} NOT IN ({1}, {2}, {3}))", 4), ("({0} BETWEEN {1} AND {2})", 3),
    ("GREATEST({0}, {1})", 2), ("LEAST({0}, {1}, {2})", 3), ("NULLIF({0}, {1})", 2),
    ("CASE WHEN {0} THEN {1} ELSE {2} END", 3), ("CASE {0} WHEN {1} THEN {2} END", 3),
    ("IF({0}, {1}, {2})", 3), ("IFNULL({0}, {1})", 2), ("COALESCE({0}, {1}, {2})", 3),
    ("({0} + {1})", 2), ("({0} - {1})", 2), ("({0} * {1})", 2), ("({0} / {1})", 2), ("(-{0})", 1),
    ("({0} DIV {1})", 2), ("({0} MOD {1})", 2), ("({0} % {1})", 2),
    ("({0} & {1})", 2), ("({0} | {1})", 2), ("({0} ^ {1})", 2), ("(~{0})", 1), ("({0} << {1})", 2), ("({0} >> {1})", 2),
    ("({0} AND {1})", 2), ("({0} OR {1})", 2), ("(NOT {0})", 1), ("({0} XOR {1})", 2), ("({0} IS NULL)", 1),
    ("({0} IS TRUE)", 1),
    ("CONCAT({0}, {1})", 2), ("CONCAT_WS({0}, {1}, {2})", 3), ("LENGTH({0})", 1), ("CHAR_LENGTH({0})", 1),
    ("UPPER({0})", 1), ("LOWER({0})", 1), ("SUBSTRING({0}, {1}, {2})", 3), ("LEFT({0}, {1})", 2),
    ("RIGHT({0}, {1})", 2), ("TRIM({0})", 1), ("LPAD({0}, {1}, {2})", 3), ("REPEAT({0}, {1})", 2),
    ("REPLACE({0}, {1}, {2})", 3), ("LOCATE({0}, {1})", 2), ("INSTR({0}, {1})", 2), ("REVERSE({0})", 1),
    ("HEX({0})", 1), ("STRCMP({0}, {1})", 2), ("FIELD({0}, {1}, {2})", 3), ("ELT({0}, {1}, {2})", 3),
    ("({0} LIKE {1})", 2), ("({0} LIKE CONCAT({1}, '%'))", 2),
    ("ABS({0})", 1), ("SIGN({0})", 1), ("ROUND({0})", 1), ("ROUND({0}, {1})", 2), ("TRUNCATE({0}, {1})", 2),
    ("FLOOR({0})", 1), ("CEIL({0})", 1), ("MOD({0}, {1})", 2), ("POW({0}, 2)", 1), ("SQRT({0})", 1),
    ("CAST({0} AS SIGNED)", 1), ("CAST({0} AS UNSIGNED)", 1), ("CAST({0} AS DECIMAL(10,2))", 1),
    ("CAST({0} AS CHAR)", 1), ("CAST({0} AS DOUBLE)", 1), ("CAST({0} AS DATE)", 1), ("CAST({0} AS BINARY)", 1),
    ("CAST({0} AS TIME)", 1), ("CAST({0} AS DATETIME)", 1),
    ("({0} + 0)", 1), ("CONCAT({0})", 1), ("({0} = 0)", 1), ("({0} = '')", 1),
]

AGGREGATES = ["MIN({0})", "MAX({0})", "SUM({0})", "AVG({0})", "COUNT({0})", "COUNT(DISTINCT {0})",
              "GROUP_CONCAT({0} ORDER BY id)", "BIT_OR({0})", "BIT_AND({0})", "BIT_XOR({0})"]


class Node:
    """An expression: a template with operands (a leaf has none)."""

    def __init__(self, template: str, children: list["Node"] | None = None):
        self.template = template
        self.children = children or []

    def sql(self) -> str:
        return self.template.format(*(c.sql() for c in self.children))

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)

    def name(self) -> str:
        t = self.template
        if not self.children:
            return "leaf"
        head = t.split("(")[0].strip() or t.replace("{0}", "").replace("{1}", "").split()[0].strip("() ")
        if head in ("CASE", "CAST") or head == "":
            return " ".join(t.replace("{0}", "x").replace("{1}", "y").replace("{2}", "z").split()[:4])
        return head


def leaf(rng: random.Random) -> Node:
    r = rng.random()
    if r < 0.5:
        return Node(rng.choice(COLUMNS))
    if r < 0.7:
        return Node(rng.choice(STRING_LITERALS))
    if r < 0.9:
        return Node(rng.choice(NUMBER_LITERALS))
    return Node(rng.choice(OTHER_LITERALS))


def expression(rng: random.Random, depth: int) -> Node:
    if depth <= 0 or rng.random() < 0.25:
        return leaf(rng)
    template, arity = rng.choice(OPERATORS)
    return Node(template, [expression(rng, depth - 1) for _ in range(arity)])


class Query:
    """A query shape around expressions; `ordered` says whether row order is part of the answer."""

    def __init__(self, shape: str, exprs: list[Node], ordered: bool):
        self.shape = shape
        self.exprs = exprs
        self.ordered = ordered

    def sql(self) -> str:
        return self.shape.format(*(e.sql() for e in self.exprs))


def query(rng: random.Random) -> Query:
    e = expression(rng, rng.choice([1, 2, 2, 3]))
    kind = rng.random()
    if kind < 0.4:
        return Query("SELECT id, {0} FROM fz ORDER BY id", [e], True)
    if kind < 0.55:
        return Query("SELECT id FROM fz WHERE {0} ORDER BY id", [e], True)
    if kind < 0.65:
        return Query("SELECT {0} AS r, COUNT(*) FROM fz GROUP BY r", [e], False)
    if kind < 0.72:
        return Query("SELECT DISTINCT {0} FROM fz", [e], False)
    if kind < 0.85:
        agg = rng.choice(AGGREGATES)
        return Query(f"SELECT {agg} FROM fz", [e], True)
    if kind < 0.93:
        other = expression(rng, rng.choice([0, 1, 2]))
        return Query("SELECT {0} FROM fz UNION SELECT {1} FROM fz", [e, other], False)
    return Query("SELECT id FROM fz ORDER BY {0}, id", [e], True)


def connect(port: int, database: str | None, host: str):
    return pymysql.connect(host=host, port=port, user="root", database=database, conv={},
                           charset="utf8mb4", autocommit=True, read_timeout=20, write_timeout=20)


def run(conn, sql: str):
    """(kind, payload, warning count): ('rows', rows) or ('error', code)."""
    cur = conn.cursor()
    try:
        cur.execute(sql)
        # Text, whether the driver decoded it or not: a binary-vs-text result type is metadata.
        rows = [tuple(v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v for v in row)
                for row in cur.fetchall()]
        return ("rows", rows, cur._result.warning_count if cur._result else 0)
    except pymysql.err.OperationalError as exc:
        if exc.args and exc.args[0] in (2013, 2006, 2003):
            raise
        return ("error", exc.args[0], 0)
    except pymysql.err.MySQLError as exc:
        return ("error", exc.args[0] if exc.args else -1, 0)


def mismatch(a, b, ordered: bool) -> str | None:
    """The kind of difference between selkie's outcome `a` and MariaDB's `b`, or None."""
    if a[0] != b[0]:
        return "error" if a[0] == "error" else "accepts"
    if a[0] == "error":
        return None if a[1] == b[1] else "errcode"
    ra, rb = a[1], b[1]
    if not ordered:
        ra, rb = sorted(ra, key=repr), sorted(rb, key=repr)
    if ra != rb:
        return "rows"
    if a[2] != b[2]:
        return "warnings"
    return None


class Checker:
    def __init__(self, args):
        self.args = args
        self.selkie = connect(args.selkie_port, args.database, args.host)
        self.maria = connect(args.mariadb_port, args.database, args.host)

    def outcomes(self, q: Query):
        sql = q.sql()
        return run(self.selkie, sql), run(self.maria, sql)

    def kind(self, q: Query) -> str | None:
        a, b = self.outcomes(q)
        return mismatch(a, b, q.ordered)


def setup(args):
    for port in (args.selkie_port, args.mariadb_port):
        conn = connect(port, None, args.host)
        cur = conn.cursor()
        cur.execute(f"DROP DATABASE IF EXISTS {args.database}")
        cur.execute(f"CREATE DATABASE {args.database}")
        cur.execute(f"USE {args.database}")
        cur.execute(TABLE)
        for row in ROWS:
            cur.execute(f"INSERT INTO fz VALUES {row}")
        conn.close()


def subtrees(node: Node):
    """(parent, index) of every operand position under `node`."""
    for i, c in enumerate(node.children):
        yield node, i
        yield from subtrees(c)


def shrink(checker: Checker, q: Query, kind: str) -> Query:
    """Smaller queries with the same kind of mismatch: each operator replaced by one of its
    operands or by a constant, while the mismatch stays."""
    simple = [Node(s) for s in ("1", "0", "NULL", "'a'", "''", "'1abc'", "1.5", "i", "cg")]
    changed = True
    while changed:
        changed = False
        for qi in range(len(q.exprs)):
            root = Node("{0}", [q.exprs[qi]])
            for parent, idx in list(subtrees(root)):
                node = parent.children[idx]
                if node.children:
                    candidates = list(node.children) + simple
                elif node.sql() not in {s.sql() for s in simple}:
                    # A leaf becomes a simpler one, never back (no cycle).
                    candidates = simple[:3]
                else:
                    candidates = []
                for cand in candidates:
                    parent.children[idx] = cand
                    try:
                        same = checker.kind(Query(q.shape, [root.children[0] if j == qi else e for j, e in enumerate(q.exprs)], q.ordered)) == kind
                    except pymysql.err.OperationalError:
                        same = False
                    if same:
                        q = Query(q.shape, [root.children[0] if j == qi else e for j, e in enumerate(q.exprs)], q.ordered)
                        changed = True
                        break
                    parent.children[idx] = node
                if changed:
                    break
            if changed:
                break
    return q


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--selkie-port", type=int, default=3421)
    ap.add_argument("--mariadb-port", type=int, default=3499)
    ap.add_argument("--database", default="h_expr")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--kinds", default="rows,error,accepts,errcode,warnings",
                    help="which mismatch kinds to report (comma-separated)")
    args = ap.parse_args()
    setup(args)
    checker = Checker(args)
    rng = random.Random(args.seed)
    wanted = set(args.kinds.split(","))
    found: Counter = Counter()
    seen: set = set()
    for n in range(args.count):
        q = query(rng)
        try:
            kind = checker.kind(q)
        except pymysql.err.OperationalError as exc:
            print(f"-- connection lost ({exc}) at query {n}: {q.sql()}")
            return 2
        if kind is None or kind not in wanted:
            continue
        if not args.no_shrink:
            q = shrink(checker, q, kind)
        sql = q.sql()
        if sql in seen:
            continue
        seen.add(sql)
        op = q.exprs[0].name()
        found[(kind, op)] += 1
        a, b = checker.outcomes(q)
        print(f"-- [{kind}] {op}\n{sql};\n--   selkie:  {str(a)[:300]}\n--   mariadb: {str(b)[:300]}")
        sys.stdout.flush()
    print("-- summary (kind, outermost operator): count")
    for (kind, op), c in sorted(found.items(), key=lambda kv: (["rows", "error", "accepts", "errcode", "warnings"].index(kv[0][0]), -kv[1])):
        print(f"--   {kind:9} {op:30} {c}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
