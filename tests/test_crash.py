"""Crash safety, tested by killing selkied with SIGKILL under load (see crash_torture.py).

CI runs 20 kills per fault mode; `tests/crash_torture.py --kills 1000` runs the long version, and
SELKIE_STRESS=1 makes this test run 200 per mode.
"""

import os

import pytest

import crash_torture

KILLS = 200 if os.environ.get("SELKIE_STRESS") == "1" else 20


@pytest.mark.parametrize("fault", ["none", "lose-unsynced", "lose-unsynced,torn"])
def test_sigkill_under_load_loses_no_acknowledged_commit(fault):
    stats = crash_torture.run(KILLS, fault=fault, threads=8, log=lambda *_: None)
    assert stats["kills"] == KILLS
    assert stats["acked"] > KILLS * 5, f"too little work got acknowledged to mean anything: {stats}"
