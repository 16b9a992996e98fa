#!/usr/bin/env python3
"""Prints `VarDef` lines for crates/sql/src/variables/table.rs from a MariaDB's
information_schema.SYSTEM_VARIABLES, for the variables the table does not have yet.

    python3 scripts/gen_system_variables.py -h127.0.0.1 -P3414 -uroot > /tmp/new.rs

The lines are then merged into the table by hand (it is kept sorted by name) and checked in:
the build never asks a MariaDB. Defaults are the dumped server's values (a default install),
else its DEFAULT_VALUE; paths in the dumped server's data directory are left out.
"""
import re
import subprocess
import sys

TABLE = "crates/sql/src/variables/table.rs"
COLUMNS = ("VARIABLE_NAME, VARIABLE_SCOPE, VARIABLE_TYPE, NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, "
           "NUMERIC_BLOCK_SIZE, ENUM_VALUE_LIST, READ_ONLY, DEFAULT_VALUE, GLOBAL_VALUE, SESSION_VALUE")


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def members(text):
    return [m for m in (text or "").split(",") if m != ""]


def number(text, fallback):
    """An integer from its text, exactly (no float on the way: 2^63-1 stays itself)."""
    if text is None:
        return fallback
    try:
        return int(text)
    except ValueError:
        return int(float(text))


def main():
    args = sys.argv[1:]
    sql = f"SELECT {COLUMNS} FROM information_schema.SYSTEM_VARIABLES ORDER BY VARIABLE_NAME"
    out = subprocess.run(["mariadb", *args, "-N", "-B", "-r", "-e", sql], check=True, capture_output=True, text=True)
    known = set(re.findall(r'VarDef \{ name: "([a-z0-9_]+)"', open(TABLE).read()))
    datadir = subprocess.run(["mariadb", *args, "-N", "-B", "-e", "SELECT @@datadir"], capture_output=True,
                             text=True).stdout.strip().rstrip("/")
    for line in out.stdout.splitlines():
        f = [None if v == "NULL" else v for v in line.split("\t")]
        name, scope, ty, lo, hi, block, enum, ro, default, gval, sval = f
        name = name.lower()
        if name in known:
            continue
        # The value of a default install where it has one (DEFAULT_VALUE is what the variable
        # would be reset to, which for some differs from what the server starts with).
        value = next((v for v in (gval, sval, default) if v is not None), None)
        if value is not None and datadir and datadir in value:
            value = ""
        scope = {"GLOBAL": "Scope::Global", "SESSION": "Scope::Both", "SESSION ONLY": "Scope::SessionOnly"}[scope]
        access = "Access::ReadOnly" if ro == "YES" else "Access::ReadWrite"
        if ty == "BOOLEAN":
            kind, init = "Kind::Bool", f"Init::Bool({'true' if (value or '').upper() in ('ON', '1', 'TRUE') else 'false'})"
        elif ty in ("BIGINT UNSIGNED", "INT UNSIGNED"):
            lo_i, hi_i, blk = int(lo), int(hi), int(block or 1)
            v = min(max(number(value, lo_i), lo_i), hi_i)
            kind, init = f"Kind::UInt {{ min: {lo_i}, max: {hi_i}, block: {blk} }}", f"Init::UInt({v})"
        elif ty in ("BIGINT", "INT"):
            lo_i, hi_i = int(lo), int(hi)
            v = min(max(number(value, lo_i), lo_i), hi_i)
            kind, init = f"Kind::Int {{ min: {lo_i}, max: {hi_i} }}", f"Init::Int({v})"
        elif ty == "DOUBLE":
            lo_f, hi_f = float(lo), float(hi)
            v = min(max(float(value or lo_f), lo_f), hi_f)
            kind, init = f"Kind::Double {{ min: {lo_f!r}, max: {hi_f!r} }}", f"Init::Double({v!r})"
        elif ty in ("ENUM", "SET"):
            ms = members(enum)
            lst = "&[" + ", ".join(rust_str(m) for m in ms) + "]"
            if ty == "ENUM":
                v = next((m for m in ms if m.upper() == (value or "").upper()), ms[0])
                kind = f"Kind::Enum({lst})"
            else:
                parts = [p for p in (value or "").split(",") if p]
                v = ",".join(m for m in ms if m.upper() in {p.upper() for p in parts})
                kind = f"Kind::Set({lst})"
            init = f"Init::Str({rust_str(v)})"
        else:  # VARCHAR, FLAGSET
            if value is None:
                kind, init = "Kind::Str { nullable: true }", "Init::Null"
            else:
                kind, init = "Kind::Str { nullable: false }", f"Init::Str({rust_str(value)})"
        print(f'    VarDef {{ name: "{name}", scope: {scope}, access: {access}, kind: {kind}, init: {init} }},')


if __name__ == "__main__":
    main()
