"""Repetitions -> one figure per (workload, threads, server): the median, with min and max.

The median, not the mean: on a shared machine one disturbed repetition should not move the figure.
Ratios are always Selkie / MariaDB of the medians (>1 means Selkie is faster for throughput,
slower for latency and CPU per query).
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass

# Figures summarized per cell, as named in the per-run records.
METRICS = ("tps", "qps", "p95_ms", "cpu_us_per_query")


@dataclass(frozen=True)
class Spread:
    median: float
    min: float
    max: float
    n: int


def spread(values: list[float]) -> Spread | None:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return Spread(median=statistics.median(values), min=min(values), max=max(values), n=len(values))


def ratio(selkie: Spread | None, mariadb: Spread | None) -> float | None:
    if selkie is None or mariadb is None or mariadb.median == 0:
        return None
    return selkie.median / mariadb.median


def summarize(runs: list[dict], servers: list[str], group_key: str = "threads") -> list[dict]:
    """Groups successful measured runs by (workload, group_key) and summarizes each server.

    `runs` are the per-run records the modes produce; failed runs are counted, not averaged.
    Cells keep the order in which their first run appears (the plan's order).
    """
    cells: dict[tuple, dict] = {}
    for r in runs:
        if r.get("warmup"):
            continue
        key = (r["workload"], r[group_key])
        cell = cells.setdefault(key, {"workload": r["workload"], group_key: r[group_key],
                                      "_runs": {s: [] for s in servers}, "_failed": {s: [] for s in servers}})
        (cell["_runs"] if r["ok"] else cell["_failed"])[r["server"]].append(r)
    out = []
    for cell in cells.values():
        figures = {s: {m: spread([r.get(m) for r in cell["_runs"][s]]) for m in METRICS} for s in servers}
        summary = {"workload": cell["workload"], group_key: cell[group_key], "servers": {
            s: {**{m: (asdict(v) if v else None) for m, v in figures[s].items()},
                "ok_runs": len(cell["_runs"][s]),
                "failed_runs": len(cell["_failed"][s]),
                "errors": sorted({r.get("error") or "unknown error" for r in cell["_failed"][s]})}
            for s in servers}}
        if "selkie" in figures and "mariadb" in figures:
            for m in METRICS:
                summary[f"ratio_{m}"] = ratio(figures["selkie"][m], figures["mariadb"][m])
        out.append(summary)
    return out


def window_mean(intervals: list[dict], start_s: float, end_s: float) -> float | None:
    """Mean TPS of the interval reports whose period lies inside [start_s, end_s].

    sysbench stamps each report with the end of its period, so a report at t covers
    (t - interval, t].
    """
    picked = [iv["tps"] for iv in intervals if start_s < iv["t"] <= end_s + 1e-9]
    return sum(picked) / len(picked) if picked else None


def sustained_summary(intervals: list[dict], window_s: float) -> dict:
    """TPS in the first and in the last window of a long run and their ratio (last / first)."""
    if not intervals:
        return {"first_window_tps": None, "last_window_tps": None, "last_over_first": None}
    end = max(iv["t"] for iv in intervals)
    first = window_mean(intervals, 0, window_s)
    last = window_mean(intervals, end - window_s, end)
    return {
        "first_window_tps": first,
        "last_window_tps": last,
        "last_over_first": (last / first) if first and last is not None else None,
        "window_s": window_s,
        "reported_until_s": end,
        "min_interval_tps": min(iv["tps"] for iv in intervals),
        "max_interval_tps": max(iv["tps"] for iv in intervals),
    }


def peak(cells: list[dict], server: str, key: str = "connections") -> dict | None:
    """Where a server's median throughput peaks over a series, and what it keeps at the top."""
    points = [(c[key], c["servers"][server]["tps"]["median"]) for c in cells
              if c["servers"].get(server) and c["servers"][server]["tps"]]
    if not points:
        return None
    best_at, best = max(points, key=lambda p: p[1])
    top_at, top = max(points, key=lambda p: p[0])
    return {"peak_at": best_at, "peak_tps": best, "top_at": top_at, "top_tps": top,
            "top_over_peak": top / best if best else None}
