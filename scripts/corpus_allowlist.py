#!/usr/bin/env python3
"""Prints (or writes) the allow-list entries of differential corpus files: every statement whose
outcome on selkied differs from a private MariaDB 10.11, as `file:line[:meta] reason`, the reason
saying what differs. The allow-list is reviewed like code: read what this prints before keeping it.

    python3 scripts/corpus_allowlist.py tests/corpus/schema_types_app.sql          # print
    python3 scripts/corpus_allowlist.py --write tests/corpus/schema_*.sql          # rewrite blocks
    python3 scripts/corpus_allowlist.py --selkie-port 3307 --mariadb-port 3306 FILE  # running servers

Without ports it starts a selkied (SELKIED or CARGO_TARGET_DIR/release/selkied) and a MariaDB
with the test harness's configuration. With --write, each file's block in tests/corpus/allowlist.txt
(from its `# == FILE` header to the next header) gets the fresh entries; the block's own comment
lines are kept, entries for the file elsewhere are dropped, a missing block is appended.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from harness import MariaDBServer, SelkieServer  # noqa: E402
from test_differential import CORPUS, DRIVER_FLAGS, run_file  # noqa: E402

# Which item of issue 14 a corpus file measures, by its name.
ITEMS = [(r"charset|collat", 1), (r"alter", 2), (r"type", 3), (r"constraint|fk|check", 4),
         (r"table|temporary|sequence|generated", 5), (r"introspect|show|information", 6), (r"orm|returning|tz", 7)]


def item_of(path: Path) -> str:
    for pattern, n in ITEMS:
        if re.search(pattern, path.stem):
            return f"issue 14 item {n}"
    return "issue 14 item 3 (result metadata)"


def short(value, limit: int = 90) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe_outcome(a, b) -> str:
    """What differs between selkie's outcome `a` and MariaDB's `b` (see test_differential.outcome)."""
    if a[0] == "error" and b[0] != "error":
        return f"selkie fails: {a[1]} {short(a[2])}"
    if b[0] == "error" and a[0] != "error":
        return f"selkie accepts what MariaDB refuses with {b[1]} {short(b[2])}"
    if a[0] == "error":
        if a[1] != b[1]:
            return f"error {a[1]} where MariaDB gives {b[1]} {short(b[2])}"
        return f"error {a[1]} message differs: MariaDB says {short(b[2])}"
    if a[0] != b[0]:
        return f"selkie gives {'a result set' if a[0] == 'rows' else 'no result set'}, MariaDB does not"
    parts = []
    if a[0] == "rows":
        if a[1] != b[1]:
            parts.append(f"column names {short(a[1], 60)} vs MariaDB {short(b[1], 60)}")
        if a[2] != b[2]:
            if len(a[2]) != len(b[2]):
                parts.append(f"{len(a[2])} rows where MariaDB gives {len(b[2])}")
            else:
                first = next(i for i, (x, y) in enumerate(zip(a[2], b[2])) if x != y)
                parts.append(f"row {first + 1} is {short(a[2][first], 70)}, MariaDB {short(b[2][first], 70)}")
        warn_a, warn_b = a[3], b[3]
    else:
        if a[1] != b[1]:
            parts.append(f"affected rows {a[1]} vs MariaDB {b[1]}")
        warn_a, warn_b = a[2], b[2]
    if warn_a != warn_b:
        parts.append(f"warnings {short(warn_a, 60)} vs MariaDB {short(warn_b, 60)}")
    return "; ".join(parts)


def describe_metadata(a: list | None, b: list | None) -> str:
    if a is None or b is None or len(a) != len(b):
        return f"column metadata: {short(a)} vs MariaDB {short(b)}"
    parts = []
    for x, y in zip(a, b):
        what = []
        for label, i in (("type", 1), ("length", 2), ("decimals", 3), ("charset", 4)):
            if x[i] != y[i]:
                what.append(f"{label} {x[i]}/{y[i]}")
        fa, fb = set(filter(None, x[5].split("|"))), set(filter(None, y[5].split("|")))
        what += [f"extra {f}" for f in DRIVER_FLAGS if f in fa - fb] + [f"no {f}" for f in DRIVER_FLAGS if f in fb - fa]
        if x[0] != y[0]:
            what.append(f"name {x[0]!r}/{y[0]!r}")
        if what:
            parts.append(f"{short(y[0], 30)}: {' '.join(what)}")
    return "metadata (selkie/MariaDB): " + "; ".join(parts)


def entries_for(path: Path, ours: list, theirs: list) -> list[str]:
    item = item_of(path)
    out = []
    for (line, _, (a, meta_a)), (_, _, (b, meta_b)) in zip(ours, theirs):
        if a != b:
            extra = "; metadata differs too" if meta_a != meta_b and a[0] == b[0] == "rows" else ""
            out.append(f"{path.name}:{line} {item}: {describe_outcome(a, b)}{extra}")
        elif meta_a != meta_b:
            out.append(f"{path.name}:{line}:meta {item}: {describe_metadata(meta_a, meta_b)}")
    # One entry a line, whatever the messages hold.
    return [entry.replace("\r", "\\r").replace("\n", "\\n") for entry in out]


def write_block(allowlist: Path, name: str, entries: list[str]) -> None:
    lines = allowlist.read_text().splitlines() if allowlist.exists() else []
    header = f"# == {name}"
    kept, block_comments, start = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == header or line.startswith(header + " "):
            start = len(kept)
            kept.append(line)
            i += 1
            block_comments = []
            while i < len(lines) and not lines[i].startswith("# == "):
                if lines[i].startswith("#"):
                    block_comments.append(lines[i])
                i += 1
            kept += block_comments
            continue
        if not re.match(re.escape(name) + r":\d+", line):
            kept.append(line)
        i += 1
    if start is None:
        if kept and kept[-1].strip():
            kept.append("")
        kept += [header] + entries + [""]
    else:
        at = start + 1 + len(block_comments)
        kept[at:at] = entries + [""]
    text = "\n".join(kept).rstrip("\n") + "\n"
    allowlist.write_text(re.sub(r"\n{3,}", "\n\n", text))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--selkie-port", type=int)
    parser.add_argument("--mariadb-port", type=int)
    parser.add_argument("--write", action="store_true", help="rewrite the files' blocks in allowlist.txt")
    args = parser.parse_args()
    servers = []
    try:
        if args.selkie_port is None:
            servers.append(SelkieServer(extra_args=["--buffer-pool-size", "256M"]).start())
            args.selkie_port = servers[-1].port
        if args.mariadb_port is None:
            servers.append(MariaDBServer(buffer_pool="256M").start(load_time_zones=True))
            args.mariadb_port = servers[-1].port
        for path in args.files:
            entries = entries_for(path, run_file(args.selkie_port, path), run_file(args.mariadb_port, path))
            if args.write:
                write_block(CORPUS / "allowlist.txt", path.name, entries)
                print(f"{path.name}: {len(entries)} entries written")
            else:
                print(f"# == {path.name}")
                print("\n".join(entries))
    finally:
        for server in servers:
            server.stop()
            server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
