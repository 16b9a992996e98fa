"""Side-by-side sysbench benchmarks of selkied and MariaDB 10.11 (driven by bench/compare.py).

Modules, one job each:
- options:      command-line flags -> validated, immutable settings per mode
- environment:  what must exist before measuring (release selkied, MariaDB, matplotlib, fds)
- machine:      description of the machine the numbers were taken on
- servers:      the two servers under test, started with matched configuration
- sysbench_run: one sysbench invocation, streamed, with its interval and summary figures
- progress:     terminal progress and time-left estimate
- stats:        medians/min/max over repetitions and the Selkie / MariaDB ratios
- modes:        the matrix, sustained-write and connections procedures
- report:       the Markdown summary and the raw JSON
- plots:        PNG charts
"""
