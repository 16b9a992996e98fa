"""PNG charts: throughput versus client threads (both servers on one chart, min-max bars around
the median) and throughput over time from sysbench's --report-interval lines.
"""

from __future__ import annotations

from pathlib import Path

from .environment import ensure_matplotlib
from .servers import LABELS

COLORS = {"selkie": "#1f6fb4", "mariadb": "#c8372d"}
MARKERS = {"selkie": "o", "mariadb": "s"}
DPI = 110
SIZE_IN = (8, 4.8)
FEW_POINTS = 40
# Fewer report intervals than this are not a curve worth a chart.
MIN_TIMESERIES_POINTS = 3


def _pyplot():
    ensure_matplotlib()
    import matplotlib.pyplot as plt
    return plt


def _thousands(ax) -> None:
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))


def throughput_vs_threads(cells: list[dict], workload: str, servers: list[str], path: Path,
                          title: str, xlabel: str = "client threads") -> bool:
    """Median TPS per thread count with min..max error bars; False if there is nothing to draw."""
    rows = [c for c in cells if c["workload"] == workload]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SIZE_IN)
    drawn = False
    for s in servers:
        pts = [(c["threads"], c["servers"][s]["tps"]) for c in rows if c["servers"].get(s, {}).get("tps")]
        if not pts:
            continue
        xs = [p[0] for p in pts]
        med = [p[1]["median"] for p in pts]
        lo = [p[1]["median"] - p[1]["min"] for p in pts]
        hi = [p[1]["max"] - p[1]["median"] for p in pts]
        ax.errorbar(xs, med, yerr=[lo, hi], label=LABELS[s], color=COLORS[s], marker=MARKERS[s],
                    capsize=3, linewidth=1.6)
        drawn = True
    if not drawn:
        plt.close(fig)
        return False
    threads = sorted({c["threads"] for c in rows})
    if len(threads) > 1:
        ax.set_xscale("log", base=2)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("transactions / s (median, min-max)")
    _thousands(ax)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def throughput_over_time(series: list[tuple[str, list[dict]]], path: Path, title: str,
                         windows: tuple[float, float] | None = None) -> bool:
    """TPS per report interval for each (server, intervals) pair; `windows` = (first window
    length, last window start) shades the periods the sustained summary compares."""
    series = [(s, ivs) for s, ivs in series if len(ivs) >= MIN_TIMESERIES_POINTS]
    if not series:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SIZE_IN)
    for s, ivs in series:
        # Markers only where the points are few enough to be seen one by one.
        ax.plot([iv["t"] for iv in ivs], [iv["tps"] for iv in ivs], label=LABELS[s], color=COLORS[s], linewidth=1.4,
                marker=MARKERS[s] if len(ivs) <= FEW_POINTS else None, markersize=3)
    if windows is not None:
        first_len, last_start = windows
        ax.axvspan(0, first_len, color="#999999", alpha=0.15, label="compared windows")
        end = max(iv["t"] for _, ivs in series for iv in ivs)
        ax.axvspan(last_start, end, color="#999999", alpha=0.15)
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.set_xlabel("seconds since start")
    ax.set_ylabel("transactions / s")
    _thousands(ax)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True
