#!/usr/bin/env python3
"""Redraws the charts and report.md of a finished benchmark from its results.json.

    bench/render.py bench/out/<timestamp>

For when the report code changed after a long run, or a run's report is to be regenerated
without re-measuring; the figures come only from results.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))
sys.path.insert(0, str(BENCH))

from selkiebench import report  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    try:
        results = json.loads((out_dir / report.JSON_NAME).read_text())
    except (OSError, ValueError) as e:
        print(f"render.py: cannot read {out_dir / report.JSON_NAME}: {e}", file=sys.stderr)
        return 2
    # Charts the results no longer support (e.g. too few report intervals) must not linger.
    for prefix in report.CHART_PREFIXES:
        for old in out_dir.glob(f"{prefix}*.png"):
            old.unlink()
    charts = report.draw_charts(results, out_dir)
    print(report.write_markdown(results, charts, out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
