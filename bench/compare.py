#!/usr/bin/env python3
"""sysbench side by side: selkied versus a private MariaDB 10.11 on the same machine.

One command builds selkied (release), installs MariaDB/sysbench/matplotlib if missing, starts
both servers with matched configuration on free loopback ports, prepares identical data, runs the
selected modes and writes report.md, results.json and PNG charts to the output directory.

    bench/compare.py                       # full matrix (hours: run it on a quiet machine)
    bench/compare.py --quick               # a few minutes: a check of the harness
    bench/compare.py --mode sustained      # MDEV-30628: 800 s of oltp_write_only on 7x the pool
    bench/compare.py --mode connections    # 16 .. 4,096 connections

Exit status: 0 all runs succeeded; 1 some run or mode failed (the report says which);
2 bad flags; 3 the environment could not be set up; 130 interrupted (partial report written).
"""

from __future__ import annotations

import signal
import sys
import time
from datetime import datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "tests"))  # harness.py: the shared server launcher
sys.path.insert(0, str(BENCH))

from selkiebench import environment, machine, options, report  # noqa: E402
from selkiebench.modes import PROCEDURES, Bench, BenchError  # noqa: E402

EXIT_OK, EXIT_RUN_FAILED, EXIT_SETUP, EXIT_INTERRUPTED = 0, 1, 3, 130


def _sigterm_as_interrupt(signum, frame):
    raise KeyboardInterrupt


def _all_workloads(s: options.Settings) -> list[str]:
    names = ["oltp_read_write"]  # prepare/prewarm
    if s.matrix:
        names += s.matrix.workloads
    if s.sustained:
        names.append(s.sustained.workload)
    if s.connections:
        names += s.connections.workloads
    return sorted(set(names))


def main(argv: list[str]) -> int:
    settings = options.resolve_or_exit(argv, REPO)
    c = settings.common
    started = time.monotonic()
    try:
        environment.ensure_packages()
        environment.ensure_matplotlib()
        selkied = None  # not needed when only MariaDB is measured
        if "selkie" in c.servers:
            if c.build:
                selkied = environment.build_selkied(REPO, c.target_dir)
            else:
                selkied = environment.locate_selkied(c.selkied, c.target_dir, REPO)
        environment.check_workload_scripts(_all_workloads(settings))
        nofile = environment.raise_open_files_limit(settings.max_client_threads())
    except environment.BenchSetupError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return EXIT_SETUP

    c.out_dir.mkdir(parents=True, exist_ok=True)
    bench = Bench(settings, selkied)
    meta = {
        "started": datetime.now().isoformat(timespec="seconds"),
        "command": c.command_line,
        "quick": c.quick,
        "modes": list(c.modes),
        "servers": list(c.servers),
        "ps_mode": c.ps_mode,
        "rand_type": c.rand_type,
        "flush_at_commit": c.flush_at_commit,
        "open_files_limit": nofile,
        "data_dir": str(bench.data_root),
        "machine": machine.describe(bench.data_root, selkied, REPO),
    }
    results = {"meta": meta, "modes": {}}
    print(f"== output: {c.out_dir}\n== data:   {bench.data_root}", flush=True)
    for line in machine.summary_lines(meta["machine"]):
        print("   " + line[2:], flush=True)

    previous = signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    status = EXIT_OK
    try:
        for mode in c.modes:
            result: dict = {}
            results["modes"][mode] = result
            try:
                PROCEDURES[mode](bench, result)
            except BenchError as e:
                result["error"] = str(e)
                print(f"== {mode} failed: {e}", file=sys.stderr, flush=True)
            report.write_json(results, c.out_dir)  # a checkpoint after each mode
    except KeyboardInterrupt:
        meta["interrupted"] = True
        status = EXIT_INTERRUPTED
        print("\n== interrupted: writing a partial report", file=sys.stderr, flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
        bench.cleanup()
        meta["load_average_end"] = machine.load_average()
        meta["machine"]["load_average_end"] = meta["load_average_end"]
        meta["elapsed_s"] = round(time.monotonic() - started, 1)
        report.write_json(results, c.out_dir)
        charts = report.draw_charts(results, c.out_dir)
        md = report.write_markdown(results, charts, c.out_dir)
        print(f"== report: {md}", flush=True)

    if status == EXIT_OK and _any_failure(results):
        status = EXIT_RUN_FAILED
    return status


def _any_failure(results: dict) -> bool:
    for mode in results["modes"].values():
        if mode.get("error") or any(not r["ok"] for r in mode.get("runs", [])):
            return True
        if any(not info.get("stop", {}).get("clean", True) for info in mode.get("servers", {}).values()):
            return True
    return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
