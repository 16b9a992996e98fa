"""What must exist before anything is measured: a release selkied, MariaDB 10.11, sysbench,
matplotlib and enough file descriptors for thousands of connections.

Missing pieces are installed the ordinary way (cargo, apt-get, pip) so that one command works on a
fresh Debian machine; every failure is a BenchSetupError with the command's own output.
"""

from __future__ import annotations

import importlib
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

# Descriptors per client connection on the sysbench side, plus what servers and sysbench need for
# files, pipes and listeners; the servers inherit the raised limit.
FDS_PER_CONNECTION = 2
FD_HEADROOM = 4096
SYSBENCH_SCRIPTS = Path("/usr/share/sysbench")


class BenchSetupError(RuntimeError):
    pass


def _run(args: list[str], what: str, cwd: Path | None = None, env: dict | None = None) -> str:
    print(f"== {what}: {' '.join(args)}", flush=True)
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchSetupError(f"{what} failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-4000:]}")
    return proc.stdout


def _sudo() -> list[str]:
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo"]
    raise BenchSetupError("packages are missing and this user is not root and has no sudo")


def build_selkied(repo: Path, target_dir: Path | None) -> Path:
    """cargo build --release --bin selkied; returns the binary."""
    env = dict(os.environ)
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    target = Path(env.get("CARGO_TARGET_DIR", repo / "target"))
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    _run([cargo, "build", "--release", "--bin", "selkied"], "building selkied (release)", cwd=repo, env=env)
    binary = target / "release" / "selkied"
    if not binary.is_file():
        raise BenchSetupError(f"cargo reported success but {binary} does not exist")
    return binary


def locate_selkied(explicit: Path | None, target_dir: Path | None, repo: Path) -> Path:
    """The binary to use without building: --selkied, then SELKIED, then the target dir's release build."""
    if explicit is not None:
        candidate = explicit
    elif os.environ.get("SELKIED"):
        candidate = Path(os.environ["SELKIED"])
    else:
        target = target_dir or Path(os.environ.get("CARGO_TARGET_DIR", repo / "target"))
        candidate = target / "release" / "selkied"
    if not candidate.is_file():
        raise BenchSetupError(f"{candidate} does not exist (build it with cargo build --release --bin selkied)")
    return candidate


def _have_mariadbd() -> bool:
    return any(shutil.which(n) or Path(f"/usr/sbin/{n}").exists() for n in ("mariadbd", "mysqld"))


def ensure_packages() -> None:
    """apt-get install what is missing of mariadb-server, mariadb-client and sysbench."""
    missing = []
    if not _have_mariadbd():
        missing.append("mariadb-server")
    if not shutil.which("mariadb"):
        missing.append("mariadb-client")
    if not shutil.which("sysbench"):
        missing.append("sysbench")
    if missing:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        apt = _sudo() + ["apt-get"]
        try:
            _run(apt + ["install", "-y", *missing], "installing packages", env=env)
        except BenchSetupError:
            _run(apt + ["update"], "refreshing package lists", env=env)
            _run(apt + ["install", "-y", *missing], "installing packages", env=env)
    version = subprocess.run(["sysbench", "--version"], capture_output=True, text=True).stdout.strip()
    if not version.startswith("sysbench 1."):
        raise BenchSetupError(f"unexpected sysbench version '{version}' (the scripts target 1.0.x)")


def ensure_matplotlib():
    """Imports matplotlib with the file-only Agg backend, pip-installing it if missing."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        _run([sys.executable, "-m", "pip", "install", "--quiet", "matplotlib"], "installing matplotlib")
        importlib.invalidate_caches()
    import matplotlib
    matplotlib.use("Agg")
    return matplotlib


def raise_open_files_limit(connections: int) -> int:
    """Raises RLIMIT_NOFILE for this process and its children (sysbench, both servers).

    Returns the soft limit now in force; raises if it is too low for `connections`.
    """
    want = connections * FDS_PER_CONNECTION + FD_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < want:
        try:  # root may raise the hard limit itself
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            soft, hard = want, want
        except (ValueError, OSError):
            pass
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    needed = connections * FDS_PER_CONNECTION + 64
    if soft < needed:
        raise BenchSetupError(f"open-file limit {soft} is too low for {connections} connections "
                              f"(need {needed}); raise the hard limit (ulimit -Hn) first")
    return soft


def check_workload_scripts(workloads: list[str]) -> None:
    """The Debian package's own scripts are what users run; a missing one is a broken install."""
    for w in workloads:
        if not (SYSBENCH_SCRIPTS / f"{w}.lua").is_file():
            raise BenchSetupError(f"sysbench script {w}.lua not found in {SYSBENCH_SCRIPTS}")
