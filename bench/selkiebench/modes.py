"""The three benchmark procedures: matrix, sustained writes (MDEV-30628) and connection scaling.

Each fills a JSON-ready dict in place (so that an interrupted benchmark keeps what it measured)
with its settings, every raw run and the summaries the report and the plots are drawn from.
Procedures share two rules:
- both servers get identical data (same sysbench prepare, then prewarm) before anything is timed;
- in the matrix and connections modes runs alternate between the servers (A B A B ...) so that
  drift on a shared machine (other jobs, thermal state, background flushing) hits both.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import shutil
import tempfile
from pathlib import Path

from . import servers as srv
from . import stats, sysbench_run
from .options import Settings
from .progress import Progress, fmt_duration
from .servers import BENCH_DB, BenchServer, ServerSetup

# Parallel sysbench connections for prepare and prewarm (each thread loads whole tables).
PREPARE_THREADS_MAX = 8
PREPARE_TIMEOUT_S = 6 * 3600
# Matrix warm-up runs use this many clients (or the largest count in the matrix, if smaller).
WARMUP_THREADS = 16
# Runs at least this long echo sysbench's interval lines on the terminal as they arrive.
LIVE_INTERVALS_MIN_S = 60
SERVER_LOG_TAIL_LINES = 30


class BenchError(RuntimeError):
    """A mode cannot continue (a server does not start, prepare fails)."""


class Bench:
    """What every procedure needs: the settings, the selkied binary and where data goes."""

    def __init__(self, settings: Settings, selkied: Path | None):
        self.settings = settings
        self.common = settings.common
        self.selkied = selkied
        parent = self.common.workdir
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
        self.data_root = Path(tempfile.mkdtemp(prefix="selkie-bench-", dir=parent))

    def cleanup(self) -> None:
        if not self.common.keep_data:
            shutil.rmtree(self.data_root, ignore_errors=True)

    # -- servers ----------------------------------------------------------------------------

    def setup_for(self, buffer_pool: str, clients: int) -> ServerSetup:
        c = self.common
        return ServerSetup.for_clients(buffer_pool, c.flush_at_commit, clients, c.selkie_args, c.mariadb_options)

    def start(self, name: str, setup: ServerSetup, tag: str) -> BenchServer:
        base = self.data_root / tag
        print(f"== starting {srv.LABELS[name]} (buffer pool {setup.buffer_pool}, "
              f"flush at commit {setup.flush_at_commit}) in {base / name}", flush=True)
        try:
            return srv.start(name, setup, base, self.selkied)
        except Exception as e:
            raise BenchError(f"{srv.LABELS[name]} did not start: {e}") from e

    def prepare(self, server: BenchServer, tables: int, table_size: int) -> dict:
        """sysbench prepare + prewarm; identical data on every server (prepare ignores --rand-seed,
        but row counts, key ranges and value lengths are the same)."""
        threads = min(tables, PREPARE_THREADS_MAX)
        timings = {}
        for command in ("prepare", "prewarm"):
            print(f"== {command}: {server.label}, {tables} tables x {table_size} rows", flush=True)
            args = sysbench_run.sysbench_args(server.port, "oltp_read_write", command, db=BENCH_DB,
                                              tables=tables, table_size=table_size, threads=threads)
            res = sysbench_run.run(args, timeout_s=PREPARE_TIMEOUT_S)
            if not res.ok:
                raise BenchError(f"sysbench {command} failed on {server.label}: {res.error}\n"
                                 f"{res.output_tail[-2000:]}\n{server.log_tail()}")
            timings[f"{command}_s"] = res.wall_s
            print(f"   {command} took {fmt_duration(res.wall_s)}", flush=True)
        return timings

    # -- one measured run -------------------------------------------------------------------

    def run_once(self, server: BenchServer, running: list[BenchServer], *, workload: str, threads: int,
                 time_s: int, report_interval_s: int, tables: int, table_size: int,
                 progress: Progress, description: str, live: bool) -> dict:
        c = self.common
        progress.begin(description, time_s)
        settle_s = srv.wait_until_idle(running, c.settle_max_s) if c.settle_max_s > 0 else 0.0
        args = sysbench_run.sysbench_args(server.port, workload, "run", db=BENCH_DB, tables=tables,
                                          table_size=table_size, threads=threads, time_s=time_s,
                                          ps_mode=c.ps_mode, rand_type=c.rand_type,
                                          report_interval_s=report_interval_s)

        def echo(iv: sysbench_run.Interval) -> None:
            progress.print(f"    {server.name:<7} [{iv.t:>6.0f}s] {iv.tps:>10.1f} tps {iv.qps:>11.1f} qps  "
                           f"p95 {iv.lat_ms:>8.2f} ms  err/s {iv.err_per_s:.1f}  "
                           f"({fmt_duration(max(0, time_s - iv.t))} of this run left)")

        load = list(os.getloadavg())
        cpu0 = server.cpu_seconds()
        client0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res = sysbench_run.run(args, timeout_s=sysbench_run.timeout_for(time_s, threads),
                               on_interval=echo if live else None)
        client1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        alive = server.alive()
        server_cpu = server.cpu_seconds() - cpu0 if alive else None

        record = {
            "server": server.name, "workload": workload, "threads": threads, "time_s": time_s,
            "ok": res.ok, "error": res.error,
            "tps": res.tps, "qps": res.qps, "transactions": res.transactions, "queries": res.queries,
            "p95_ms": res.p95_ms, "ignored_errors": res.ignored_errors, "reconnects": res.reconnects,
            "total_time_s": res.total_time_s, "wall_s": res.wall_s, "settle_s": settle_s,
            "server_cpu_s": round(server_cpu, 3) if server_cpu is not None else None,
            "client_cpu_s": round((client1.ru_utime + client1.ru_stime) - (client0.ru_utime + client0.ru_stime), 3),
            "load_average_before": [round(x, 2) for x in load],
            "intervals": [dataclasses.asdict(iv) for iv in res.intervals],
            "args": res.args,
        }
        record["cpu_us_per_query"] = (server_cpu / res.queries * 1e6) if server_cpu is not None and res.queries else None
        record["cpu_us_per_transaction"] = (server_cpu / res.transactions * 1e6
                                            if server_cpu is not None and res.transactions else None)
        if not res.ok:
            record["output_tail"] = res.output_tail
            record["hint"] = res.hint
        if not alive:
            record["ok"] = False
            record["error"] = (res.error or "") + f"; {server.label} exited during the run"
            record["server_log_tail"] = server.log_tail(SERVER_LOG_TAIL_LINES)
        if record["ok"]:
            cpu = f", server CPU {record['cpu_us_per_query']:.1f} us/query" if record["cpu_us_per_query"] else ""
            progress.end(f"{res.tps:,.1f} tps, {res.qps:,.1f} qps, p95 {res.p95_ms} ms{cpu}"
                         + (f", settled {settle_s:.1f}s first" if settle_s >= 1 else ""))
        else:
            progress.end(f"FAILED: {record['error']}" + (f" ({res.hint})" if res.hint else ""))
        return record

    def run_series(self, title: str, running: dict[str, BenchServer], *, workloads: tuple[str, ...],
                   thread_counts: tuple[int, ...], reps: int, time_s: int, report_interval_s: int,
                   tables: int, table_size: int, records: list[dict], warmup_s: int = 0,
                   unit: str = "threads") -> None:
        """Workloads x thread counts x repetitions, alternating between the servers; appends one
        record per run to `records` as it finishes (an interrupted benchmark keeps what it did)."""
        order = [s for s in self.common.servers if s in running]
        warm_threads = min(WARMUP_THREADS, max(thread_counts))
        plan = []  # (workload, threads, rep or None for warm-up, server)
        for w in workloads:
            if warmup_s > 0:
                plan += [(w, warm_threads, None, s) for s in order]
            for t in thread_counts:
                for rep in range(reps):
                    plan += [(w, t, rep, s) for s in order]
        progress = Progress(title, [warmup_s if rep is None else time_s for (_, _, rep, _) in plan])
        progress.print(f"== {title}: {len(plan)} runs planned, about {fmt_duration(progress.left_s())}")
        for w, t, rep, name in plan:
            server = running[name]
            run_s = warmup_s if rep is None else time_s
            what = "warm-up" if rep is None else f"rep {rep + 1}/{reps}"
            description = f"{w} {unit}={t} {what} on {server.label}"
            if not server.alive():
                reason = f"{server.label} had exited"
                progress.skip(description, run_s, reason)
                records.append({"server": name, "workload": w, "threads": t, "rep": rep, "warmup": rep is None,
                                "ok": False, "error": f"not run: {reason}"})
                continue
            rec = self.run_once(server, list(running.values()), workload=w, threads=t, time_s=run_s,
                                report_interval_s=report_interval_s, tables=tables, table_size=table_size,
                                progress=progress, live=run_s >= LIVE_INTERVALS_MIN_S, description=description)
            rec["rep"] = rep
            rec["warmup"] = rep is None
            records.append(rec)

    def finish(self, running: dict[str, BenchServer]) -> dict:
        """End-of-mode status counters and a clean shutdown of every server."""
        out = {}
        for name, server in running.items():
            info: dict = {"version": server.version, "config": server.config_text}
            if server.alive():
                try:
                    status = server.status()
                    info["status_end"] = status
                    info["free_frame_waits"] = server.free_frame_waits(status)
                except Exception as e:  # a status failure must not lose the results
                    info["status_error"] = str(e)[:2000]
            info["stop"] = server.stop()
            out[name] = info
        return out

    def start_all(self, setup: ServerSetup, tag: str) -> dict[str, BenchServer]:
        running: dict[str, BenchServer] = {}
        try:
            for name in self.common.servers:
                running[name] = self.start(name, setup, tag)
        except BaseException:
            for s in running.values():
                s.kill()
            raise
        return running


def run_matrix(bench: Bench, result: dict) -> None:
    """Fills `result` in place, so that an interrupted run still reports what it measured."""
    m = bench.settings.matrix
    assert m is not None
    setup = bench.setup_for(m.buffer_pool, max(m.threads))
    result.update({"settings": dataclasses.asdict(m), "server_setup": dataclasses.asdict(setup), "runs": []})
    running = bench.start_all(setup, "matrix")
    try:
        result["prepare"] = {name: bench.prepare(s, m.tables, m.table_size) for name, s in running.items()}
        bench.run_series("matrix", running, workloads=m.workloads, thread_counts=m.threads, reps=m.reps,
                         time_s=m.time_s, report_interval_s=m.report_interval_s, tables=m.tables,
                         table_size=m.table_size, records=result["runs"], warmup_s=m.warmup_s)
    finally:
        result["cells"] = stats.summarize(result["runs"], list(running))
        result["servers"] = bench.finish(running)


def run_connections(bench: Bench, result: dict) -> None:
    c = bench.settings.connections
    assert c is not None
    setup = bench.setup_for(c.buffer_pool, max(c.counts))
    result.update({"settings": dataclasses.asdict(c), "server_setup": dataclasses.asdict(setup), "runs": []})
    running = bench.start_all(setup, "connections")
    try:
        result["prepare"] = {name: bench.prepare(s, c.tables, c.table_size) for name, s in running.items()}
        bench.run_series("connections", running, workloads=c.workloads, thread_counts=c.counts,
                         reps=c.reps, time_s=c.time_s, report_interval_s=c.report_interval_s,
                         tables=c.tables, table_size=c.table_size, records=result["runs"], unit="connections")
    finally:
        cells = stats.summarize(result["runs"], list(running))
        result["cells"] = cells
        result["peaks"] = {w: {name: stats.peak([x for x in cells if x["workload"] == w], name, "threads")
                               for name in running} for w in c.workloads}
        result["servers"] = bench.finish(running)


def run_sustained(bench: Bench, result: dict) -> None:
    """Each server alone on the machine in turn: a long run must not share the cores with the
    other server's background flushing, and there is nothing to alternate within one run."""
    s = bench.settings.sustained
    assert s is not None
    setup = bench.setup_for(s.buffer_pool, s.threads)
    result.update({"settings": dataclasses.asdict(s), "server_setup": dataclasses.asdict(setup), "servers": {},
                   "runs": [], "summary": {}, "prepare": {}})
    progress = Progress("sustained", [s.time_s for _ in bench.common.servers])
    for name in bench.common.servers:
        server = bench.start(name, setup, "sustained")
        try:
            result["prepare"][name] = bench.prepare(server, s.tables, s.table_size)
            # Loading data several times the pool evicts pages too: count only the run's waits.
            waits_before = server.free_frame_waits(server.status())
            rec = bench.run_once(server, [server], workload=s.workload, threads=s.threads, time_s=s.time_s,
                                 report_interval_s=s.report_interval_s, tables=s.tables, table_size=s.table_size,
                                 progress=progress, live=True,
                                 description=f"{s.workload} threads={s.threads} on {server.label}")
            rec["rep"] = 0
            result["runs"].append(rec)
            summary = stats.sustained_summary(rec["intervals"], s.window_s)
            summary["free_frame_waits_before_run"] = waits_before
            result["summary"][name] = summary
            if summary["last_over_first"] is not None:
                progress.print(f"    {server.label}: first {s.window_s} s {summary['first_window_tps']:.1f} tps, "
                               f"last {s.window_s} s {summary['last_window_tps']:.1f} tps, "
                               f"last / first {summary['last_over_first']:.3f}")
        finally:
            result["servers"].update(bench.finish({name: server}))
            summary = result["summary"].setdefault(name, {})
            at_end = result["servers"][name].get("free_frame_waits")
            before = summary.get("free_frame_waits_before_run")
            summary["free_frame_waits"] = at_end
            summary["free_frame_waits_during_run"] = (at_end - before
                                                      if at_end is not None and before is not None else None)


PROCEDURES = {"matrix": run_matrix, "sustained": run_sustained, "connections": run_connections}
