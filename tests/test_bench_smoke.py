"""Smoke test of the benchmark harness (bench/compare.py), not of performance.

One `--quick` invocation with tiny settings runs all three modes (matrix, sustained, connections)
against a real selkied and a private MariaDB, then the outputs are checked for form and internal
consistency: the Markdown tables agree with the JSON medians and ratios, every chart the report
links exists and is a valid PNG (chunk CRCs, decompressed image size). No throughput or latency
level is asserted anywhere. The parsing and statistics helpers are checked against known sysbench
output and hand-computed figures first, without servers.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from harness import REPO, selkied_binary

sys.path.insert(0, str(REPO / "bench"))

from selkiebench import options, report, stats, sysbench_run  # noqa: E402

SMOKE_TIMEOUT_S = 240
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Verbatim sysbench 1.0.20 output (MariaDB, oltp_read_write, 4 threads).
SYSBENCH_OUTPUT = """\
sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 4
Report intermediate results every 1 second(s)
Initializing random number generator from current time


Initializing worker threads...

Threads started!

[ 1s ] thds: 4 tps: 387.74 qps: 7801.79 (r/w/o: 5466.39/1555.93/779.47) lat (ms,95%): 16.41 err/s: 0.00 reconn/s: 0.00
[ 2s ] thds: 4 tps: 401.02 qps: 8020.39 (r/w/o: 5614.27/1604.08/802.04) lat (ms,95%): 15.55 err/s: 1.00 reconn/s: 0.00
SQL statistics:
    queries performed:
        read:                            11088
        write:                           3168
        other:                           1584
        total:                           15840
    transactions:                        792    (395.42 per sec.)
    queries:                             15840  (7908.41 per sec.)
    ignored errors:                      1      (0.50 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0029s
    total number of events:              792

Latency (ms):
         min:                                    4.06
         avg:                                   10.10
         max:                                   36.57
         95th percentile:                       15.83
         sum:                                 7998.21
"""


# -- helpers without servers -------------------------------------------------------------------

def test_parse_interval_and_summary():
    lines = [sysbench_run.parse_interval(line) for line in SYSBENCH_OUTPUT.splitlines()]
    intervals = [iv for iv in lines if iv is not None]
    assert len(intervals) == 2
    first, second = intervals
    assert (first.t, first.threads, first.tps, first.qps, first.lat_ms) == (1.0, 4, 387.74, 7801.79, 16.41)
    assert (second.err_per_s, second.reconn_per_s) == (1.0, 0.0)
    assert sysbench_run.parse_interval("    queries:  15840  (7908.41 per sec.)") is None

    r = sysbench_run.SysbenchResult(args=[], returncode=0, ok=True, wall_s=2.1)
    sysbench_run.parse_summary(SYSBENCH_OUTPUT, r)
    assert (r.transactions, r.tps, r.queries, r.qps) == (792, 395.42, 15840, 7908.41)
    assert (r.p95_ms, r.ignored_errors, r.reconnects, r.total_time_s) == (15.83, 1, 0, 2.0029)


def _run(server, tps, ok=True, threads=4, workload="oltp_read_only"):
    return {"server": server, "workload": workload, "threads": threads, "ok": ok, "tps": tps, "qps": tps * 10,
            "p95_ms": 1.0, "cpu_us_per_query": 50.0, "error": None if ok else "boom"}


def test_summarize_medians_ratios_and_failures():
    # Medians differ from means here (110 vs 170, 190 vs 163.3), so a mean would be caught.
    runs = [_run("selkie", 300), _run("mariadb", 100), _run("selkie", 100), _run("mariadb", 200),
            _run("selkie", 110), _run("mariadb", 190), _run("mariadb", 999, ok=False),
            {**_run("selkie", 5000), "warmup": True}, _run("selkie", 7, threads=16)]
    cell, other = stats.summarize(runs, ["selkie", "mariadb"])
    s, m = cell["servers"]["selkie"], cell["servers"]["mariadb"]
    assert s["tps"] == {"median": 110, "min": 100, "max": 300, "n": 3}  # warm-up ignored
    assert m["tps"] == {"median": 190, "min": 100, "max": 200, "n": 3}  # failed run not averaged
    assert (m["ok_runs"], m["failed_runs"], m["errors"]) == (3, 1, ["boom"])
    assert cell["ratio_tps"] == pytest.approx(110 / 190)
    assert cell["ratio_qps"] == pytest.approx(1100 / 1900)
    # A cell where MariaDB has no successful run has no ratio rather than a made-up one.
    assert other["threads"] == 16 and other["servers"]["mariadb"]["tps"] is None and other["ratio_tps"] is None


def test_report_says_where_selkie_is_behind():
    runs = [_run("selkie", 50, threads=1), _run("mariadb", 100, threads=1),
            _run("selkie", 300, threads=16), _run("mariadb", 100, threads=16)]
    runs[0]["p95_ms"] = 4.0  # Selkie slower and with 4x the p95 latency at 1 thread
    cells = stats.summarize(runs, ["selkie", "mariadb"])
    lines = report._behind(cells, "threads")
    assert lines == ["- oltp_read_only, 1 threads: Selkie at 0.50× MariaDB's TPS (50.0 vs 100; 50% behind)",
                     "- oltp_read_only, 1 threads: Selkie's p95 latency 4.00× MariaDB's (4.00 ms vs 1.00 ms)"]
    assert report.fmt(12345.6) == "12,346" and report.fmt(12.34) == "12.3" and report.fmt(None) == "–"


def test_sustained_windows_and_peak():
    intervals = [{"t": t, "tps": tps} for t, tps in [(10, 100), (20, 300), (30, 50), (40, 60), (50, 40)]]
    sm = stats.sustained_summary(intervals, 20)
    assert sm["first_window_tps"] == 200      # reports at 10 s and 20 s
    assert sm["last_window_tps"] == 50        # reports at 40 s and 50 s
    assert sm["last_over_first"] == 0.25
    cells = [{"workload": "w", "threads": n, "servers": {"selkie": {"tps": {"median": v}}}}
             for n, v in [(16, 10.0), (64, 40.0), (256, 30.0)]]
    assert stats.peak(cells, "selkie", "threads") == {"peak_at": 64, "peak_tps": 40.0, "top_at": 256,
                                                      "top_tps": 30.0, "top_over_peak": 0.75}


def test_options_reject_bad_values(tmp_path):
    good = options.resolve(["--quick", "--threads", "4,1", "--buffer-pool", "64m"], REPO)
    assert good.matrix.threads == (1, 4) and good.matrix.buffer_pool == "64M"
    assert good.matrix.workloads == options.MATRIX_QUICK["workloads"]
    full = options.resolve([], REPO).matrix
    assert full.threads == (1, 4, 16, 64, 256, 1024)
    assert (full.time_s, full.report_interval_s) == (60, 3)  # about 20 reports per run
    for bad in (["--workloads", "oltp_nonsense"], ["--threads", "0"], ["--threads", "4,x"],
                ["--buffer-pool", "1M"], ["--buffer-pool", "lots"], ["--mode", "matrix,bogus"],
                ["--mode", "sustained", "--sustained-time", "100", "--sustained-window", "60"],
                ["--servers", "postgres"], ["--reps", "0"]):
        with pytest.raises(options.OptionError):
            options.resolve(bad, REPO)


# -- the real thing ----------------------------------------------------------------------------

def check_png(path: Path) -> tuple[int, int]:
    """Validates the PNG's structure (signature, chunk CRCs, IHDR first, IEND last, image data that
    inflates to exactly the size IHDR implies); returns (width, height)."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name}: not a PNG"
    pos, chunks, idat = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"{path.name}: bad CRC in {kind!r}"
        chunks.append(kind)
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        if kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", f"{path.name}: chunk order {chunks}"
    assert width > 100 and height > 100
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    assert depth == 8
    assert len(zlib.decompress(idat)) == height * (1 + width * channels), f"{path.name}: truncated image data"
    return width, height


def md_table_rows(md: str, section: str, first_col: str) -> list[list[str]]:
    """The data rows of the first table after `### section` whose header starts with first_col."""
    text = md.split(f"### {section}\n", 1)[1]
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert lines[0].startswith(f"| {first_col} |"), lines[0]
    assert set(lines[1].replace("|", "").replace(":", "")) == {"-"}, lines[1]
    rows = []
    for ln in lines[2:]:
        if not ln.startswith("| ") or not ln.split("|")[1].strip().isdigit():
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return rows


@pytest.fixture(scope="module")
def smoke_output(tmp_path_factory):
    binary = selkied_binary()
    assert binary.exists(), f"{binary} not built (cargo build --release --bin selkied)"
    out = tmp_path_factory.mktemp("bench-smoke") / "out"
    work = out.parent / "data"
    args = [sys.executable, str(REPO / "bench" / "compare.py"), "--quick", "--mode", "matrix,sustained,connections",
            "--selkied", str(binary), "--out", str(out), "--workdir", str(work), "--settle-max", "0",
            "--workloads", "oltp_point_select", "--threads", "1,4", "--time", "3", "--reps", "1",
            "--tables", "1", "--table-size", "1000",
            "--sustained-time", "4", "--sustained-window", "1", "--sustained-interval", "1",
            "--sustained-threads", "4", "--sustained-tables", "2", "--sustained-table-size", "2000",
            "--connection-counts", "2,8", "--connection-time", "2"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    # Progress on the terminal: every run announced with its position and time left.
    assert re.search(r"\[matrix 1/4\] oltp_point_select threads=1 rep 1/1 on Selkie .*left\)", proc.stdout)
    assert "[connections 4/4]" in proc.stdout and "[sustained 2/2]" in proc.stdout
    assert not any(work.iterdir()), "data directories left behind without --keep-data"
    return out


def test_outputs_exist_and_pngs_are_valid(smoke_output):
    md = (smoke_output / report.MARKDOWN_NAME).read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    # (A 3 s matrix run has too few report intervals for a throughput-over-time chart; the
    # sustained chart is one.)
    expected = {"matrix_oltp_point_select.png", "sustained_tps.png", "connections_oltp_point_select.png"}
    assert expected <= set(links), links
    for name in links:
        check_png(smoke_output / name)
    assert set(p.name for p in smoke_output.glob("*.png")) == set(links), "a chart is not linked from the report"


def test_json_has_every_raw_figure(smoke_output):
    res = json.loads((smoke_output / report.JSON_NAME).read_text())
    meta = res["meta"]
    assert meta["servers"] == ["selkie", "mariadb"] and not meta.get("interrupted")
    m = meta["machine"]
    assert m["logical_cpus"] >= 1 and m["memory_gib"] > 0 and m["kernel"] and m["disk"]["path"]
    assert len(m["load_average_start"]) == 3 and len(m["load_average_end"]) == 3

    matrix = res["modes"]["matrix"]
    runs = [r for r in matrix["runs"] if not r["warmup"]]
    assert sorted((r["threads"], r["server"]) for r in runs) == [
        (1, "mariadb"), (1, "selkie"), (4, "mariadb"), (4, "selkie")]
    assert [r["server"] for r in runs] == ["selkie", "mariadb"] * 2, "runs must alternate A B A B"
    for r in runs:
        assert r["ok"], r.get("error")
        assert r["transactions"] > 0 and r["queries"] >= r["transactions"]
        assert r["server_cpu_s"] >= 0 and r["cpu_us_per_query"] == pytest.approx(r["server_cpu_s"] / r["queries"] * 1e6)
        # The last report may show fewer threads: sysbench's clients stop one by one at --time.
        assert len(r["intervals"]) >= 1 and r["intervals"][0]["threads"] == r["threads"]
        assert "--report-interval=1" in r["args"] and "--time=3" in r["args"]
    for info in matrix["servers"].values():
        assert info["stop"]["clean"], info["stop"]
        assert isinstance(info["free_frame_waits"], int)

    sus = res["modes"]["sustained"]
    assert [r["server"] for r in sus["runs"]] == ["selkie", "mariadb"]
    for name, sm in sus["summary"].items():
        run = next(r for r in sus["runs"] if r["server"] == name)
        assert sm["first_window_tps"] == pytest.approx(stats.window_mean(run["intervals"], 0, 1))
        assert sm["last_over_first"] == pytest.approx(sm["last_window_tps"] / sm["first_window_tps"])
        assert isinstance(sm["free_frame_waits"], int)
        assert sm["free_frame_waits_during_run"] == sm["free_frame_waits"] - sm["free_frame_waits_before_run"] >= 0

    conn = res["modes"]["connections"]
    assert sorted({r["threads"] for r in conn["runs"]}) == [2, 8]
    for name in ("selkie", "mariadb"):
        pk = conn["peaks"]["oltp_point_select"][name]
        assert pk["top_at"] == 8 and pk["peak_at"] in (2, 8)


def test_markdown_tables_match_json(smoke_output):
    md = (smoke_output / report.MARKDOWN_NAME).read_text()
    res = json.loads((smoke_output / report.JSON_NAME).read_text())
    assert "## Machine" in md and "- Kernel: " in md and "- CPU: " in md
    assert res["meta"]["command"] in md

    for mode, first_col, key in (("matrix", "threads", "## Matrix"), ("connections", "connections", "## Connections")):
        part = md.split(key, 1)[1]
        cells = res["modes"][mode]["cells"]
        rows = md_table_rows(part, "oltp_point_select", first_col)
        assert [int(r[0]) for r in rows] == [c["threads"] for c in cells]
        for row, cell in zip(rows, cells):
            s, mdb = cell["servers"]["selkie"], cell["servers"]["mariadb"]
            assert row[1] == report.fmt(s["tps"]["median"]) and row[2] == report.fmt(mdb["tps"]["median"])
            assert row[3] == f"{s['tps']['median'] / mdb['tps']['median']:.2f}×"
            assert row[6] == report.fmt(s["p95_ms"]["median"]) and row[7] == report.fmt(mdb["p95_ms"]["median"])
        assert "### Where Selkie is behind MariaDB" in part

    sustained = md.split("## Sustained writes (MDEV-30628)", 1)[1]
    for label, name in (("Selkie", "selkie"), ("MariaDB 10.11", "mariadb")):
        row = next(ln for ln in sustained.splitlines() if ln.startswith(f"| {label} |"))
        cols = [c.strip() for c in row.strip("|").split("|")]
        sm = res["modes"]["sustained"]["summary"][name]
        assert cols[3] == f"{sm['last_over_first']:.3f}"
        assert cols[6] == f"{sm['free_frame_waits_during_run']:,} ({sm['free_frame_waits']:,})"
