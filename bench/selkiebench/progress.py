"""Terminal progress: which run is next and about how long the whole benchmark has left.

The estimate is the planned measuring time of the remaining runs plus, per run, the average
overhead measured so far (connecting, settling, sysbench start-up), so it corrects itself as the
benchmark goes.
"""

from __future__ import annotations

import sys
import time

INITIAL_OVERHEAD_GUESS_S = 5.0


def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{s:02d}s"
    return f"{s}s"


class Progress:
    def __init__(self, title: str, planned_run_seconds: list[float], stream=None):
        self.title = title
        self.remaining = list(planned_run_seconds)
        self.total = len(planned_run_seconds)
        self.done = 0
        self.overheads: list[float] = []
        self.started = time.monotonic()
        self.stream = stream or sys.stdout
        self._run_started = None
        self._run_planned = 0.0

    def overhead(self) -> float:
        return sum(self.overheads) / len(self.overheads) if self.overheads else INITIAL_OVERHEAD_GUESS_S

    def left_s(self) -> float:
        return sum(self.remaining) + len(self.remaining) * self.overhead()

    def print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def begin(self, description: str, planned_s: float) -> None:
        assert planned_s in self.remaining, "a run that was not planned"
        self.remaining.remove(planned_s)
        self._run_planned = planned_s
        self._run_started = time.monotonic()
        self.done += 1
        width = len(str(self.total))
        self.print(f"[{self.title} {self.done:>{width}}/{self.total}] {description} "
                   f"({fmt_duration(self._run_planned)} run; elapsed {fmt_duration(time.monotonic() - self.started)}, "
                   f"about {fmt_duration(self.left_s() + self._run_planned + self.overhead())} left)")

    def end(self, outcome: str) -> None:
        assert self._run_started is not None, "end() without begin()"
        took = time.monotonic() - self._run_started
        self.overheads.append(max(0.0, took - self._run_planned))
        self._run_started = None
        self.print(f"    -> {outcome}")

    def skip(self, description: str, planned_s: float, reason: str) -> None:
        """Drops a planned run that will not happen (its server died)."""
        assert planned_s in self.remaining, "a run that was not planned"
        self.remaining.remove(planned_s)
        self.done += 1
        width = len(str(self.total))
        self.print(f"[{self.title} {self.done:>{width}}/{self.total}] {description}: skipped, {reason}")
