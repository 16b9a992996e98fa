"""A description of the machine the numbers were taken on, collected automatically.

Benchmark figures without the machine are meaningless, so every report starts with this. Each
probe is best effort: a missing tool yields "unknown", never an exception.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path


def _cmd(args: list[str], timeout: float = 20) -> str:
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def mem_total_gib() -> float | None:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / (1 << 20), 1)
    return None


def disk_of(path: Path) -> dict:
    """Filesystem, device, size and rotational flag of the filesystem holding `path`."""
    path = path if path.exists() else path.parent
    info = {"path": str(path)}
    found = _cmd(["findmnt", "-n", "-o", "SOURCE,FSTYPE,SIZE,OPTIONS", "-T", str(path)])
    if found:
        parts = found.split(None, 3)
        info.update(zip(("device", "fstype", "size", "mount_options"), parts))
    else:
        usage = shutil.disk_usage(path)
        info["size"] = f"{usage.total / (1 << 30):.0f}G"
    dev = info.get("device", "")
    if dev.startswith("/dev/"):
        name = Path(dev).name
        # Partitions have no queue/ directory; their parent disk does.
        block = Path("/sys/class/block") / name
        queue = block / "queue"
        if not queue.exists() and (block / "..").resolve().joinpath("queue").exists():
            queue = (block / "..").resolve() / "queue"
        rotational = _read(str(queue / "rotational"))
        if rotational in ("0", "1"):
            info["rotational"] = rotational == "1"
        model = _read(str(queue.parent / "device" / "model"))
        if model:
            info["model"] = model
    return info


def os_name() -> str:
    for line in _read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def tool_versions(selkied: Path | None, repo: Path) -> dict:
    commit = _cmd(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"])
    dirty = _cmd(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"])
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    return {
        "selkied": str(selkied) if selkied else "not used",
        "selkie_commit": (commit + (" (uncommitted changes)" if dirty else "")) or "unknown",
        "mariadbd": _cmd([mariadbd, "--version"]) or "unknown",
        "sysbench": _cmd(["sysbench", "--version"]) or "unknown",
        "rustc": _cmd(["rustc", "--version"]) or "unknown",
        "python": platform.python_version(),
    }


def describe(data_parent: Path, selkied: Path | None, repo: Path) -> dict:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    return {
        "hostname": platform.node(),
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": affinity,
        "cpu_governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or "unknown",
        "memory_gib": mem_total_gib(),
        "disk": disk_of(data_parent),
        "kernel": platform.release(),
        "os": os_name(),
        "virtualization": _cmd(["systemd-detect-virt"]) or "unknown",
        "load_average_start": load_average(),
        "versions": tool_versions(selkied, repo),
    }


def summary_lines(m: dict) -> list[str]:
    """The machine as Markdown bullet points."""
    d = m["disk"]
    disk = ", ".join(str(x) for x in (d.get("device"), d.get("fstype"), d.get("size"), d.get("model")) if x)
    if "rotational" in d:
        disk += ", rotational" if d["rotational"] else ", non-rotational"
    v = m["versions"]
    lines = [
        f"- CPU: {m['cpu_model']}, {m['logical_cpus']} logical CPUs ({m['usable_cpus']} usable), governor {m['cpu_governor']}",
        f"- Memory: {m['memory_gib']} GiB",
        f"- Disk (data directories): {disk or 'unknown'}",
        f"- Kernel: {m['kernel']} ({m['os']}, virtualization: {m['virtualization']})",
        f"- Load average (1/5/15 min) at start: {' / '.join(str(x) for x in m['load_average_start'])}"
        + (f"; at end: {' / '.join(str(x) for x in m['load_average_end'])}" if m.get("load_average_end") else ""),
        f"- selkied: commit {v['selkie_commit']}, {v['rustc']}",
        f"- MariaDB: {v['mariadbd']}",
        f"- {v['sysbench']}",
    ]
    return lines
