"""The outputs of a benchmark: results.json (every raw figure), the PNG charts and report.md.

report.md is written for people deciding whether Selkie can replace their MariaDB: medians with
their spread, the ratio to MariaDB, and an explicit list of where Selkie is behind.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from . import plots
from .machine import summary_lines
from .progress import fmt_duration
from .servers import LABELS
from .sysbench_run import hint_for

JSON_NAME = "results.json"
MARKDOWN_NAME = "report.md"
# Every chart file name starts with one of these (the mode that drew it).
CHART_PREFIXES = ("matrix_", "sustained_", "connections_")


def fmt(x: float | None) -> str:
    """Human-scale number: thousands separators for big values, 3 significant digits for small."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fmt_ratio(r: float | None) -> str:
    return "–" if r is None else f"{r:.2f}×"


def fmt_spread(sp: dict | None, reps: int) -> str:
    if not sp:
        return "failed"
    if reps > 1 and sp["n"] > 1:
        return f"{fmt(sp['median'])} ({fmt(sp['min'])}–{fmt(sp['max'])})"
    return fmt(sp["median"])


def write_json(results: dict, out_dir: Path) -> Path:
    path = out_dir / JSON_NAME
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=1, sort_keys=False, default=str) + "\n")
    tmp.replace(path)
    return path


# -- charts ----------------------------------------------------------------------------------

def draw_charts(results: dict, out_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """Draws every chart the results support; returns {mode: [(caption, file name)]}."""
    charts: dict[str, list[tuple[str, str]]] = {}
    servers = results["meta"]["servers"]
    matrix = results["modes"].get("matrix")
    if matrix and matrix.get("cells"):
        out = charts.setdefault("matrix", [])
        for w in matrix["settings"]["workloads"]:
            name = f"matrix_{w}.png"
            if plots.throughput_vs_threads(matrix["cells"], w, servers, out_dir / name,
                                           f"{w}: throughput vs client threads"):
                out.append((f"{w}: throughput vs threads", name))
            # Throughput over time of the largest thread count (median repetition of each server).
            top = max(matrix["settings"]["threads"])
            series = [(s, _median_run_intervals(matrix["runs"], w, top, s)) for s in servers]
            name = f"matrix_timeseries_{w}.png"
            if plots.throughput_over_time(series, out_dir / name, f"{w}, {top} threads: throughput over time"):
                out.append((f"{w}, {top} threads: throughput over time", name))
    conn = results["modes"].get("connections")
    if conn and conn.get("cells"):
        out = charts.setdefault("connections", [])
        for w in conn["settings"]["workloads"]:
            name = f"connections_{w}.png"
            if plots.throughput_vs_threads(conn["cells"], w, servers, out_dir / name,
                                           f"{w}: throughput vs connections", xlabel="client connections"):
                out.append((f"{w}: throughput vs connections", name))
    sus = results["modes"].get("sustained")
    if sus and sus.get("runs"):
        st = sus["settings"]
        series = [(r["server"], r["intervals"]) for r in sus["runs"]]
        name = "sustained_tps.png"
        end = max((iv["t"] for _, ivs in series for iv in ivs), default=st["time_s"])
        if plots.throughput_over_time(series, out_dir / name,
                                      f"{st['workload']}, {st['threads']} threads, {st['tables']} × {st['table_size']:,} rows, "
                                      f"{st['buffer_pool']} pool", windows=(st["window_s"], end - st["window_s"])):
            charts.setdefault("sustained", []).append(("sustained writes: throughput over time", name))
    return charts


def _median_run_intervals(runs: list[dict], workload: str, threads: int, server: str) -> list[dict]:
    cand = [r for r in runs if r["workload"] == workload and r["threads"] == threads and r["server"] == server
            and r["ok"] and not r.get("warmup")]
    if not cand:
        return []
    cand.sort(key=lambda r: r["tps"])
    return cand[(len(cand) - 1) // 2]["intervals"]


# -- Markdown --------------------------------------------------------------------------------

def _settings_line(st: dict, meta: dict, setup: dict) -> str:
    rand = meta["rand_type"] or "special (sysbench default)"
    return (f"{st['tables']} tables × {st['table_size']:,} rows; buffer pool {setup['buffer_pool']} on both; "
            f"flush at commit {setup['flush_at_commit']} on both; sysbench --db-ps-mode={meta['ps_mode']}, "
            f"--rand-type={rand}; max_connections {setup['max_connections']} on both.")


def _waits(summary: dict) -> str:
    """free_frame_waits of a sustained run: 'during (total at end)'."""
    during, total = summary.get("free_frame_waits_during_run"), summary.get("free_frame_waits")
    if total is None:
        return "–"
    return f"{total:,}" if during is None else f"{during:,} ({total:,})"


def _series_table(cells: list[dict], workload: str, servers: list[str], reps: int, first_col: str) -> list[str]:
    both = len(servers) == 2
    head = [first_col] + [f"{LABELS[s]} TPS" for s in servers]
    if both:
        head.append("Selkie / MariaDB")
    head += [f"{LABELS[s]} QPS" for s in servers]
    head += [f"{LABELS[s]} p95 ms" for s in servers]
    head += [f"{LABELS[s]} CPU µs/query" for s in servers]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for c in cells:
        if c["workload"] != workload:
            continue
        row = [str(c["threads"])]
        row += [fmt_spread(c["servers"][s]["tps"], reps) for s in servers]
        if both:
            row.append(fmt_ratio(c.get("ratio_tps")))
        row += [fmt_spread(c["servers"][s]["qps"], reps) for s in servers]
        row += [fmt(c["servers"][s]["p95_ms"]["median"]) if c["servers"][s]["p95_ms"] else "–" for s in servers]
        row += [fmt(c["servers"][s]["cpu_us_per_query"]["median"]) if c["servers"][s]["cpu_us_per_query"] else "–"
                for s in servers]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _behind(cells: list[dict], unit: str) -> list[str]:
    """Every cell where Selkie's median TPS is lower or its median p95 latency higher, worst first."""
    slow = sorted((c for c in cells if c.get("ratio_tps") is not None and c["ratio_tps"] < 1),
                  key=lambda c: c["ratio_tps"])
    lines = [f"- {c['workload']}, {c['threads']} {unit}: Selkie at {c['ratio_tps']:.2f}× MariaDB's TPS "
             f"({fmt(c['servers']['selkie']['tps']['median'])} vs {fmt(c['servers']['mariadb']['tps']['median'])}; "
             f"{(1 - c['ratio_tps']) * 100:.0f}% behind)" for c in slow]
    laggy = sorted((c for c in cells if c.get("ratio_p95_ms") is not None and c["ratio_p95_ms"] > 1),
                   key=lambda c: -c["ratio_p95_ms"])
    lines += [f"- {c['workload']}, {c['threads']} {unit}: Selkie's p95 latency {c['ratio_p95_ms']:.2f}× MariaDB's "
              f"({fmt(c['servers']['selkie']['p95_ms']['median'])} ms vs "
              f"{fmt(c['servers']['mariadb']['p95_ms']['median'])} ms)" for c in laggy]
    return lines


def _failures(mode: dict) -> list[str]:
    out = []
    for r in mode.get("runs", []):
        if not r["ok"]:
            rep = "warm-up" if r.get("warmup") else f"rep {r.get('rep', 0) + 1}"
            hint = r.get("hint") or hint_for(r.get("error") or "")
            hint = f" *{hint}.*" if hint else ""
            out.append(f"- {LABELS[r['server']]}, {r['workload']}, {r['threads']} clients, {rep}: {r['error']}{hint}")
    return out


def _server_notes(mode: dict) -> list[str]:
    lines = []
    for name, info in mode.get("servers", {}).items():
        stop = info.get("stop", {})
        if not stop.get("clean", True):
            lines.append(f"- {LABELS[name]} did not shut down cleanly: exit {stop.get('exit_code')}"
                         f"{'; ' + stop['note'] if stop.get('note') else ''}. End of its log:")
            lines += ["", "```", (stop.get("log_tail") or "(empty)").strip(), "```", ""]
    return lines


def _config_details(mode: dict) -> list[str]:
    lines = ["<details><summary>Server configuration</summary>", ""]
    for name, info in mode.get("servers", {}).items():
        lines += [f"{LABELS[name]} ({info.get('version', 'unknown')}):", "", "```", info.get("config", "").strip(), "```", ""]
    lines += ["</details>", ""]
    return lines


def _images(charts: list[tuple[str, str]], prefix: str) -> list[str]:
    return [f"![{caption}]({prefix}{name})" for caption, name in charts] + ([""] if charts else [])


def markdown(results: dict, charts: dict[str, list[tuple[str, str]]], image_prefix: str = "") -> str:
    meta = results["meta"]
    servers = meta["servers"]
    lines = ["# Selkie vs MariaDB 10.11: sysbench", ""]
    lines += [f"Generated {meta['started']} (took {fmt_duration(meta.get('elapsed_s', 0))}) by:", "",
              "```", meta["command"], "```", ""]
    if meta.get("quick"):
        lines += ["*Quick mode: tiny data and short runs; a check of the harness, not a measurement.*", ""]
    if meta.get("interrupted"):
        lines += ["**Interrupted: partial results.**", ""]
    lines += ["## Machine", ""] + summary_lines(meta["machine"]) + [""]

    m = results["modes"].get("matrix")
    if m:
        lines += ["## Matrix", ""]
        if m.get("error"):
            lines += [f"**Mode failed:** {m['error']}", ""]
        st = m.get("settings", {})
        if "cells" in m:
            lines += [_settings_line(st, meta, m["server_setup"]) + " "
                      f"{st['time_s']} s per run, {st['reps']} repetition(s), runs alternating between the servers"
                      f"{', each workload warmed up ' + str(st['warmup_s']) + ' s per server first' if st['warmup_s'] else ''}. "
                      "Figures are medians (min–max over repetitions); the ratio is Selkie / MariaDB of the median TPS "
                      "(above 1: Selkie faster). CPU µs/query is server-process CPU (user+system, all threads) per "
                      "sysbench query.", ""]
            by_workload = {name: [] for name in st["workloads"]}
            for caption, name in charts.get("matrix", []):
                for w in by_workload:
                    if name in (f"matrix_{w}.png", f"matrix_timeseries_{w}.png"):
                        by_workload[w].append((caption, name))
            for w in st["workloads"]:
                lines += [f"### {w}", ""] + _series_table(m["cells"], w, servers, st["reps"], "threads") + [""]
                lines += _images(by_workload[w], image_prefix)
            if len(servers) == 2:
                behind = _behind(m["cells"], "threads")
                lines += ["### Where Selkie is behind MariaDB", ""]
                lines += behind or ["- Nowhere in this matrix (every median TPS ratio ≥ 1, every p95 ratio ≤ 1)."]
                lines += [""]
        lines += _section_tail(m)

    s = results["modes"].get("sustained")
    if s:
        st = s.get("settings", {})
        lines += ["## Sustained writes (MDEV-30628)", ""]
        if s.get("error"):
            lines += [f"**Mode failed:** {s['error']}", ""]
        if s.get("runs"):
            lines += [_settings_line(st, meta, s["server_setup"]) +
                      f" {st['workload']}, {st['threads']} threads, {st['time_s']} s, --report-interval={st['report_interval_s']}; "
                      "each server alone on the machine in turn. The ratio compares the mean TPS of the last "
                      f"{st['window_s']} s with the first {st['window_s']} s (1.0 = no decay). free_frame_waits: "
                      "user threads that had to find a free buffer-pool page themselves (Selkie's free_frame_waits, "
                      "reported as Innodb_buffer_pool_wait_free by both servers), during the measured run and, in "
                      "brackets, the total at the end of the run (including loading the data).", ""]
            head = ["server", f"first {st['window_s']} s TPS", f"last {st['window_s']} s TPS", "last / first",
                    "overall TPS", "p95 ms", "free_frame_waits during run (total)"]
            lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
            for r in s["runs"]:
                sm = s["summary"].get(r["server"], {})
                lof = sm.get("last_over_first")
                lines.append("| " + " | ".join([
                    LABELS[r["server"]], fmt(sm.get("first_window_tps")), fmt(sm.get("last_window_tps")),
                    "–" if lof is None else f"{lof:.3f}", fmt(r.get("tps")), fmt(r.get("p95_ms")),
                    _waits(sm)]) + " |")
            lines += [""] + _images(charts.get("sustained", []), image_prefix)
        lines += _section_tail(s)

    c = results["modes"].get("connections")
    if c:
        st = c.get("settings", {})
        lines += ["## Connections", ""]
        if c.get("error"):
            lines += [f"**Mode failed:** {c['error']}", ""]
        if "cells" in c:
            lines += [_settings_line(st, meta, c["server_setup"]) +
                      f" {st['time_s']} s per run, {st['reps']} repetition(s), alternating between the servers.", ""]
            by_workload = {w: [(cap, n) for cap, n in charts.get("connections", []) if n == f"connections_{w}.png"]
                           for w in st["workloads"]}
            for w in st["workloads"]:
                lines += [f"### {w}", ""] + _series_table(c["cells"], w, servers, st["reps"], "connections") + [""]
                for name in servers:
                    pk = c.get("peaks", {}).get(w, {}).get(name)
                    if pk:
                        keep = "–" if pk["top_over_peak"] is None else f"{pk['top_over_peak'] * 100:.0f}%"
                        lines.append(f"- {LABELS[name]} peaks at {pk['peak_at']} connections ({fmt(pk['peak_tps'])} TPS) "
                                     f"and keeps {fmt(pk['top_tps'])} TPS ({keep} of its peak) at {pk['top_at']}.")
                lines += [""] + _images(by_workload[w], image_prefix)
            if len(servers) == 2:
                lines += ["### Where Selkie is behind MariaDB", ""]
                lines += _behind(c["cells"], "connections") or ["- Nowhere in this series."]
                lines += [""]
        lines += _section_tail(c)
    lines += [f"Raw figures (every run, every report interval): `{JSON_NAME}`.", ""]
    return "\n".join(lines)


def _prepare_line(mode: dict) -> list[str]:
    prep = mode.get("prepare") or {}
    if not prep:
        return []
    parts = [f"{LABELS[name]} {fmt_duration(t['prepare_s'])} (prewarm {fmt_duration(t['prewarm_s'])})"
             for name, t in prep.items() if "prepare_s" in t]
    return [f"Loading the data (sysbench prepare, parallel by table): {'; '.join(parts)}.", ""] if parts else []


def _section_tail(mode: dict) -> list[str]:
    lines = _prepare_line(mode)
    failures = _failures(mode)
    if failures:
        lines += ["### Failed runs", ""] + failures + [""]
    notes = _server_notes(mode)
    if notes:
        lines += notes + [""]
    if mode.get("servers"):
        lines += _config_details(mode)
    return lines


def write_markdown(results: dict, charts: dict, out_dir: Path) -> Path:
    path = out_dir / MARKDOWN_NAME
    path.write_text(markdown(results, charts))
    return path
