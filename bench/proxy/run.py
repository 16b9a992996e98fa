#!/usr/bin/env python3
"""selkie-proxy overhead: sysbench direct to a backend versus through the proxy.

For each workload (oltp_point_select, oltp_read_only) and connection count (16 .. 1,024) it
runs sysbench against the same single backend four ways:

    direct           sysbench -> backend
    readconnroute    sysbench -> proxy (readconnroute, role = primary) -> backend
    readwritesplit   sysbench -> proxy (readwritesplit; no replica, reads fall back) -> backend
    rws_cache        sysbench -> proxy (readwritesplit + result cache) -> backend

and reports QPS, the ratio to direct, and the proxy's CPU time per query (user + system
seconds of the proxy process from /proc, divided by the queries sysbench completed).

One backend and no replica keep the comparison about the proxy: every statement reaches the same
server whichever way it goes. The results go to OUT/results.json and OUT/report.md, and (unless
--no-docs) replace the "## Proxy" section at the end of docs/benchmarks.md.

    bench/proxy/run.py                       # 16, 64, 256, 1024 connections, 10 s per run
    bench/proxy/run.py --quick               # 16 and 64 connections, 3 s per run
    bench/proxy/run.py --backend selkied     # selkied instead of MariaDB 10.11
    bench/proxy/run.py --render OUT          # rebuild the report from OUT/results.json

Writing the docs replaces everything from "## Proxy" to the end of docs/benchmarks.md (notes
added there by hand included). The proxy's log is kept as OUT/proxy.log.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent.parent
sys.path.insert(0, str(REPO / "tests"))

from harness import (MariaDBServer, ProxyConfig, SelkieProxy, SelkieServer, free_port, mariadb_cli,  # noqa: E402
                     selkie_proxy_binary, sysbench)

MODES = ["direct", "readconnroute", "readwritesplit", "rws_cache"]
WORKLOADS = ["oltp_point_select", "oltp_read_only"]
SECTION = "## Proxy"


def proxy_config(backend_port: int, ports: dict[str, int]) -> str:
    # connect_timeout_ms is generous: on a loaded machine a backend busy with 1,024 connections
    # may take seconds to accept one more, and a server taken out of routing would fail every
    # proxied run after it. (Sessions' backend connections use the same timeout.)
    return (ProxyConfig()
            .listener("readconnroute", ports["readconnroute"], "readconnroute", role="primary")
            .listener("readwritesplit", ports["readwritesplit"], "readwritesplit")
            .listener("rws_cache", ports["rws_cache"], "readwritesplit", cache="default")
            .server("backend", backend_port)
            .monitor(user="root", interval_ms=1000, connect_timeout_ms=15000, failcount=3)
            .users("config", ("root", ""))
            .cache(soft_ttl=300, hard_ttl=600, max_size="256M", max_resultset_size="1M", selects="assume_cacheable")
            .text())


def machine() -> dict:
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {"cpus": os.cpu_count(), "cpu_model": model, "load_average": list(os.getloadavg())}


def run_one(port: int, workload: str, threads: int, seconds: int, args, proxy: SelkieProxy | None) -> dict:
    cpu0 = proxy.cpu_seconds() if proxy else 0.0
    r = sysbench(port, workload, "run", tables=args.tables, table_size=args.table_size, threads=threads,
                 time_s=seconds, ps_mode=args.ps_mode, timeout=seconds + 600,
                 extra=["--skip_trx=on"] if args.skip_trx and workload == "oltp_read_only" else None)
    cpu = (proxy.cpu_seconds() - cpu0) if proxy else None
    queries = r.get("queries_count", 0)
    out = {
        "qps": r.get("queries_per_sec", 0.0),
        "queries": queries,
        "p95_ms": r.get("p95"),
        "errors": bool(r.get("fatal")) or r["returncode"] != 0,
        "ignored_errors": r.get("ignored_errors", 0),
    }
    if cpu is not None and queries:
        out["proxy_cpu_us_per_query"] = cpu / queries * 1e6
    if out["errors"]:
        out["output_tail"] = r["output"][-1500:]
    # The machine's load right after the run: on a shared machine it says what the numbers are worth.
    out["load_1min"] = os.getloadavg()[0]
    return out


def report(results: dict, args, info: dict) -> str:
    lines = [SECTION, ""]
    loads = [r["load_1min"] for w in results["runs"].values() for c in w.values() for r in c.values() if "load_1min" in r]
    peak = max(loads, default=info["load_average"][0])
    loaded = max(info["load_average"][0], peak) > 0.5 * (info["cpus"] or 1) or (info["cpus"] or 1) < 8
    load_text = f"load average at start {info['load_average'][0]:.1f}"
    if loads:
        load_text += f", after the runs {min(loads):.1f} to {peak:.1f}"
    lines.append(f"Measured {results['date']} by `bench/proxy/run.py` on {info['cpus']} CPUs ({info['cpu_model']}), "
                 f"{load_text}; backend {args.backend} (one server, no "
                 f"replica: readwritesplit's reads fall back to it), {args.tables} tables x {args.table_size} rows, "
                 f"{args.time} s per run, ps-mode {args.ps_mode}, proxy workers {args.proxy_workers}.")
    if loaded:
        lines.append("")
        lines.append("**Preliminary**: taken on a small or shared machine where sysbench, the proxy and the backend "
                     "compete for the same few cores, so the proxy's share of CPU caps every proxied mode. Ratios "
                     "on a quiet machine with cores to spare will be closer to 1; rerun there before drawing "
                     "conclusions.")
    lines.append("")
    lines.append("QPS (ratio to direct) and the proxy's CPU µs per query (user + system time of the proxy "
                 "process from /proc over the run, divided by the queries sysbench completed). rws_cache stores "
                 "only results of reads outside transactions; reads inside BEGIN ... COMMIT (oltp_read_only "
                 "without --skip-trx) are answered from entries stored earlier, e.g. by the oltp_point_select "
                 "runs, which send the same point-select statement.")
    for workload in args.workloads:
        lines.append("")
        lines.append(f"### {workload}")
        lines.append("")
        lines.append("| connections | " + " | ".join(args.modes) + " |")
        lines.append("|---|" + "---|" * len(args.modes))
        for conns in args.connections:
            cells = []
            row = results["runs"].get(workload, {}).get(str(conns), {})
            direct = row.get("direct", {}).get("qps")
            for mode in args.modes:
                r = row.get(mode)
                if not r:
                    cells.append("-")
                    continue
                if r["errors"]:
                    cells.append("error")
                    continue
                cell = f"{r['qps']:,.0f}"
                if mode != "direct" and direct:
                    cell += f" ({r['qps'] / direct:.2f})"
                if "proxy_cpu_us_per_query" in r:
                    cell += f", {r['proxy_cpu_us_per_query']:.1f} µs"
                cells.append(cell)
            lines.append(f"| {conns} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def write_docs(section: str) -> None:
    docs = REPO / "docs" / "benchmarks.md"
    text = docs.read_text() if docs.exists() else ""
    at = text.find("\n" + SECTION + "\n")
    if at >= 0:
        text = text[: at + 1]
    elif text.startswith(SECTION + "\n"):
        text = ""
    if text and not text.endswith("\n\n"):
        text = text.rstrip("\n") + "\n\n"
    docs.write_text(text + section)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--connections", default="16,64,256,1024")
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--time", type=int, default=10, help="seconds per run")
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--table-size", type=int, default=10000)
    p.add_argument("--ps-mode", default="auto", choices=["auto", "disable"])
    p.add_argument("--skip-trx", action="store_true", help="oltp_read_only without BEGIN/COMMIT")
    p.add_argument("--backend", default="mariadb", choices=["mariadb", "selkied"])
    p.add_argument("--proxy-workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default=str(REPO / "bench" / "out" / "proxy"))
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--no-docs", action="store_true")
    p.add_argument("--quick", action="store_true", help="16 and 64 connections, 3 s per run")
    p.add_argument("--render", metavar="DIR", help="only rebuild the report from DIR/results.json")
    args = p.parse_args(argv)
    if args.render:
        saved = json.loads((Path(args.render) / "results.json").read_text())
        section = report(saved, argparse.Namespace(**saved["settings"]), saved["machine"])
        (Path(args.render) / "report.md").write_text(section)
        if not args.no_docs:
            write_docs(section)
        print(section)
        return 0
    if args.quick:
        args.connections, args.time = "16,64", 3
    args.connections = [int(c) for c in args.connections.split(",")]
    args.workloads = args.workloads.split(",")
    args.modes = args.modes.split(",")
    bad = [m for m in args.modes if m not in MODES] + [w for w in args.workloads if w not in WORKLOADS]
    if bad:
        print(f"unknown modes/workloads: {bad}", file=sys.stderr)
        return 2
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "selkie-proxy"], cwd=REPO, check=True)
    if not selkie_proxy_binary().exists():
        print(f"{selkie_proxy_binary()} missing", file=sys.stderr)
        return 3
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    info = machine()
    results = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": info,
               "settings": {k: v for k, v in vars(args).items() if k != "render"}, "runs": {}}

    backend = (MariaDBServer(buffer_pool="512M", flush_at_commit=2) if args.backend == "mariadb"
               else SelkieServer(extra_args=["--buffer-pool-size", "512M"]))
    proxy = None
    try:
        backend.start()
        if args.backend == "mariadb":
            mariadb_cli(backend.port, "CREATE DATABASE sbtest")
        else:
            import pymysql
            c = pymysql.connect(host="127.0.0.1", port=backend.port, user="root", password="", autocommit=True)
            c.cursor().execute("CREATE DATABASE sbtest")
            c.close()
        prep = sysbench(backend.port, "oltp_read_only", "prepare", tables=args.tables, table_size=args.table_size,
                        threads=min(args.tables, 8), timeout=1800)
        if prep["returncode"] != 0:
            print(prep["output"][-3000:], file=sys.stderr)
            return 1
        ports = {m: free_port() for m in MODES if m != "direct"}
        proxy = SelkieProxy(proxy_config(backend.port, ports), workers=args.proxy_workers, log_level="info")
        proxy.start()
        port_of = {"direct": backend.port, **ports}
        for workload in args.workloads:
            for conns in args.connections:
                for mode in args.modes:
                    # A short warm-up run fills caches (buffer pool, result cache) for every mode alike.
                    run_one(port_of[mode], workload, conns, 1, args, None)
                    r = run_one(port_of[mode], workload, conns, args.time, args, None if mode == "direct" else proxy)
                    results["runs"].setdefault(workload, {}).setdefault(str(conns), {})[mode] = r
                    cpu = r.get("proxy_cpu_us_per_query")
                    print(f"{workload:18} {conns:5} {mode:15} {r['qps']:>10,.0f} qps"
                          + (f"  {cpu:6.1f} µs/query proxy CPU" if cpu is not None else "")
                          + ("  ERRORS" if r["errors"] else ""), flush=True)
    finally:
        if proxy is not None:
            proxy.stop()
            # Kept for the record: a monitor "is down" line explains a failed run.
            (out / "proxy.log").write_text(proxy.log_text())
            proxy.cleanup()
        backend.stop()
        backend.cleanup()
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    section = report(results, args, info)
    (out / "report.md").write_text(section)
    if not args.no_docs:
        write_docs(section)
    print(section)
    failed = any(r["errors"] for w in results["runs"].values() for c in w.values() for r in c.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
