"""Servers for end-to-end tests and benchmarks: selkied and a private MariaDB 10.11.

Every test starts the servers it talks to, on free loopback ports with fresh data
directories, and stops them afterwards. Nothing here relies on a server the caller
did not start.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def selkied_binary() -> Path:
    """The release build of selkied (scripts/test.sh builds it first)."""
    explicit = os.environ.get("SELKIED")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "selkied"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before accepting connections:\n"
                               + tail(log))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"server did not listen on port {port} within {timeout}s:\n" + tail(log))


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def terminate(proc: subprocess.Popen | None, timeout: float, name: str, log: Path) -> int:
    """SIGTERM and wait; returns the exit code. A process that ignores SIGTERM is killed and
    reported, because a clean shutdown is part of what the tests check."""
    if proc is None or proc.poll() is not None:
        return proc.returncode if proc else 0
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"{name} did not stop within {timeout}s on SIGTERM:\n{tail(log)}")


class ManagedServer:
    """`with Server(...) as s:` starts it, then stops it and removes its files."""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        try:
            self.stop()
        finally:
            self.cleanup()


class SelkieServer(ManagedServer):
    """A selkied process on a free loopback port with its own data directory."""

    def __init__(self, datadir: Path | None = None, port: int | None = None, extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None):
        self._tmp = None
        # Extra environment for the process (TMPDIR sets @@tmpdir, as for mariadbd).
        self.env = dict(env or {})
        if datadir is None:
            self._tmp = tempfile.mkdtemp(prefix="selkie-test-")
            datadir = Path(self._tmp) / "data"
        self.datadir = Path(datadir)
        self.port = port or free_port()
        self.extra_args = list(extra_args or [])
        self.log = self.datadir.parent / f"selkied-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120.0) -> "SelkieServer":
        binary = selkied_binary()
        if not binary.exists():
            raise FileNotFoundError(f"{binary} not built (run cargo build --release)")
        args = [str(binary), "--datadir", str(self.datadir), "--port", str(self.port),
                "--bind", "127.0.0.1"] + self.extra_args
        self.datadir.parent.mkdir(parents=True, exist_ok=True)
        logf = open(self.log, "ab")
        # The log is appended to across restarts: only this run's lines say it is ready.
        this_run = logf.tell()
        self.proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT, env={**os.environ, **self.env})
        logf.close()
        # Recovery may take a while after a kill: wait for the log line, not just the port (the
        # port is bound before recovery, and a start that refuses to recover listens briefly).
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"selkied exited with {self.proc.returncode}:\n{tail(self.log)}")
            if "ready for connections" in self.log.read_bytes()[this_run:].decode(errors="replace"):
                wait_for_port(self.port, self.proc, max(1.0, deadline - time.monotonic()), self.log)
                return self
            time.sleep(0.05)
        raise TimeoutError(f"selkied not ready within {timeout}s:\n{tail(self.log)}")

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM and wait; returns the exit code."""
        return terminate(self.proc, timeout, "selkied", self.log)

    def kill(self) -> None:
        """SIGKILL: the crash tests' power cut."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.proc.pid)

    def cleanup(self) -> None:
        self.kill()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


def mariadbd_binary() -> str | None:
    for name in ("mariadbd", "mysqld"):
        p = shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None)
        if p:
            return p
    return None


class MariaDBServer(ManagedServer):
    """A private MariaDB 10.11 with its own datadir, config and port (root, empty password)."""

    def __init__(self, buffer_pool: str = "128M", flush_at_commit: int = 1, port: int | None = None,
                 extra_config: dict[str, str] | None = None, basedir: Path | None = None):
        self._tmp = tempfile.mkdtemp(prefix="mariadb-test-") if basedir is None else None
        self.base = Path(basedir or self._tmp)
        self.port = port or free_port()
        self.datadir = self.base / "data"
        self.cnf = self.base / "my.cnf"
        self.log = self.base / "mariadb.err"
        self.proc: subprocess.Popen | None = None
        config = {
            "datadir": str(self.datadir),
            "socket": str(self.base / "mysqld.sock"),
            "pid-file": str(self.base / "mysqld.pid"),
            "port": str(self.port),
            "bind-address": "127.0.0.1",
            "log-error": str(self.log),
            "innodb_buffer_pool_size": buffer_pool,
            "innodb_flush_log_at_trx_commit": str(flush_at_commit),
            "skip-log-bin": None,
            "performance_schema": "OFF",
            "max_connections": "5000",
            "max_prepared_stmt_count": "1048576",
            "skip-name-resolve": None,
            # MariaDB 10.11's defaults, which Selkie follows (utf8mb4_general_ci: case-insensitive
            # comparisons, UNIQUE and ORDER BY), stated so that a distribution's config cannot
            # change them.
            "character-set-server": "utf8mb4",
            "collation-server": "utf8mb4_general_ci",
        }
        config.update(extra_config or {})
        lines = ["[mysqld]"] + [k if v is None else f"{k}={v}" for k, v in config.items()]
        self.base.mkdir(parents=True, exist_ok=True)
        self.cnf.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 120.0, load_time_zones: bool = False) -> "MariaDBServer":
        """`load_time_zones`: fill mysql.time_zone* from /usr/share/zoneinfo (as an operator runs
        mariadb-tzinfo-to-sql), so that named zones work as they do in Selkie."""
        binary = mariadbd_binary()
        if binary is None:
            raise FileNotFoundError("mariadbd not installed (apt-get install mariadb-server)")
        if not self.datadir.exists():
            install = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"
            subprocess.run([install, f"--defaults-file={self.cnf}", "--auth-root-authentication-method=normal",
                            "--skip-test-db"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        args = [binary, f"--defaults-file={self.cnf}"]
        if os.geteuid() == 0:
            args.append("--user=root")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc, timeout, self.log)
        if load_time_zones:
            tzinfo = subprocess.run(["mariadb-tzinfo-to-sql", "/usr/share/zoneinfo"], capture_output=True, text=True,
                                    check=True, timeout=timeout)
            mariadb_cli(self.port, database="mysql", stdin=tzinfo.stdout, timeout=timeout)
        return self

    def stop(self, timeout: float = 120.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.proc.pid)

    def cleanup(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


def mariadb_cli(port: int, sql: str | None = None, database: str | None = None, extra: list[str] | None = None,
                stdin: str | None = None, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs the real `mariadb` command-line client against 127.0.0.1:port as root."""
    args = ["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--protocol=TCP"]
    if database:
        args += [f"-D{database}"]
    args += list(extra or [])
    if sql is not None:
        args += ["-e", sql]
    return subprocess.run(args, input=stdin, capture_output=True, text=True, check=check, timeout=timeout)


SYSBENCH_SUMMARY = {
    "transactions": re.compile(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec"),
    "queries": re.compile(r"queries:\s+(\d+)\s+\(([\d.]+) per sec"),
    "ignored_errors": re.compile(r"ignored errors:\s+(\d+)"),
    "reconnects": re.compile(r"reconnects:\s+(\d+)"),
    "read": re.compile(r"read:\s+(\d+)"),
    "write": re.compile(r"write:\s+(\d+)"),
    "other": re.compile(r"other:\s+(\d+)"),
    "p95": re.compile(r"95th percentile:\s+([\d.]+)"),
    "events": re.compile(r"total number of events:\s+(\d+)"),
}


def sysbench(port: int, script: str, command: str, *, db: str = "sbtest", tables: int = 1, table_size: int = 1000,
             threads: int = 1, time_s: int | None = None, events: int | None = None, ps_mode: str = "auto",
             rand_type: str | None = None, seed: int | None = None, extra: list[str] | None = None,
             timeout: float = 600) -> dict:
    """Runs sysbench 1.0.20's own script unchanged; returns parsed summary figures and raw output."""
    args = ["sysbench", script, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={port}",
            "--mysql-user=root", "--mysql-password=", f"--mysql-db={db}", f"--tables={tables}",
            f"--table-size={table_size}", f"--threads={threads}", f"--db-ps-mode={ps_mode}"]
    if time_s is not None:
        args.append(f"--time={time_s}")
    if events is not None:
        args.append(f"--events={events}")
        if time_s is None:
            args.append("--time=0")
    if rand_type:
        args.append(f"--rand-type={rand_type}")
    if seed is not None:
        args.append(f"--rand-seed={seed}")
    args += list(extra or [])
    args.append(command)
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    result = {"returncode": proc.returncode, "output": out, "args": args}
    for key, rx in SYSBENCH_SUMMARY.items():
        m = rx.search(out)
        if not m:
            continue
        if key in ("transactions", "queries"):
            result[key + "_count"] = int(m.group(1))
            result[key + "_per_sec"] = float(m.group(2))
        else:
            result[key] = float(m.group(1))
    if "FATAL" in out or proc.returncode != 0:
        result["fatal"] = True
    return result


def global_status(port: int, timeout: float = 60) -> dict[str, str]:
    """SHOW GLOBAL STATUS of the server on 127.0.0.1:port as {variable name: value text}."""
    proc = mariadb_cli(port, "SHOW GLOBAL STATUS", extra=["--batch", "--skip-column-names"], timeout=timeout)
    status = {}
    for line in proc.stdout.splitlines():
        name, sep, value = line.partition("\t")
        if sep:
            status[name] = value
    return status


# --- selkie-proxy: a GTID replication pair of MariaDB servers and the proxy in front -----------

def selkie_proxy_binary() -> Path:
    """The selkie-proxy binary: $SELKIE_PROXY, else the release build (scripts/test.sh builds it)."""
    explicit = os.environ.get("SELKIE_PROXY")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "selkie-proxy"


def mariadb_query(port: int, sql: str, timeout: float = 60) -> list[list[str]]:
    """Rows of `sql` on 127.0.0.1:port as root (tab-separated batch output, NULL as 'NULL')."""
    proc = mariadb_cli(port, sql, extra=["--batch", "--skip-column-names"], timeout=timeout)
    return [line.split("\t") for line in proc.stdout.splitlines()]


class MariaDBReplicationPair(ManagedServer):
    """Two private MariaDB 10.11 servers with GTID replication: a primary (server-id 1, binary
    log, gtid_strict_mode) and a read-only replica (server-id 2) replicating from it with
    MASTER_USE_GTID=slave_pos. Each has its own data directory and port."""

    def __init__(self, buffer_pool: str = "128M", flush_at_commit: int = 2):
        common = {"gtid_strict_mode": "1", "log_slave_updates": "1", "binlog_format": "ROW"}
        self.primary = MariaDBServer(buffer_pool=buffer_pool, flush_at_commit=flush_at_commit,
                                     extra_config={**common, "server-id": "1"})
        self.replica = MariaDBServer(buffer_pool=buffer_pool, flush_at_commit=flush_at_commit,
                                     extra_config={**common, "server-id": "2", "read_only": "1"})
        for server in (self.primary, self.replica):
            # The base configuration disables the binary log; replication needs it.
            lines = [l for l in server.cnf.read_text().splitlines() if l != "skip-log-bin"]
            lines.append(f"log-bin={server.base / 'binlog'}")
            lines.append(f"relay-log={server.base / 'relay'}")
            server.cnf.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 120.0) -> "MariaDBReplicationPair":
        self.primary.start(timeout)
        self.replica.start(timeout)
        # Whatever the bootstrap wrote is not to be replicated: both start from an empty history.
        mariadb_cli(self.primary.port, "RESET MASTER")
        mariadb_cli(self.replica.port, "STOP SLAVE; RESET SLAVE ALL; RESET MASTER; SET GLOBAL gtid_slave_pos = ''")
        self.start_replication()
        return self

    def start_replication(self, timeout: float = 60.0) -> None:
        mariadb_cli(self.replica.port,
                    f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={self.primary.port}, "
                    "MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1; "
                    "START SLAVE")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.slave_status()
            if status.get("Slave_IO_Running") == "Yes" and status.get("Slave_SQL_Running") == "Yes":
                return
            time.sleep(0.1)
        raise TimeoutError(f"replication did not start: {self.slave_status()}")

    def slave_status(self) -> dict[str, str]:
        proc = mariadb_cli(self.replica.port, "SHOW SLAVE STATUS\\G", check=False)
        status = {}
        for line in proc.stdout.splitlines():
            name, sep, value = line.strip().partition(": ")
            if sep:
                status[name] = value
        return status

    def sync(self, timeout: float = 60.0) -> None:
        """Waits until the replica applied everything the primary has written."""
        pos = mariadb_query(self.primary.port, "SELECT @@gtid_binlog_pos")[0][0]
        if not pos or pos == "NULL":
            return
        got = mariadb_query(self.replica.port, f"SELECT MASTER_GTID_WAIT('{pos}', {timeout})", timeout=timeout + 30)
        if got[0][0] != "0":
            raise TimeoutError(f"replica did not reach {pos}: {self.slave_status()}")

    def stop(self) -> None:
        for server in (self.replica, self.primary):
            try:
                server.stop()
            except Exception:  # noqa: BLE001 - stopping is best effort; cleanup kills
                pass

    def cleanup(self) -> None:
        for server in (self.replica, self.primary):
            server.cleanup()


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    # A JSON string is a valid TOML basic string for the names, addresses and sizes used here.
    return json.dumps(str(value))


def _toml_table(header: str, values: dict) -> str:
    return "\n".join([header] + [f"{key} = {_toml_value(v)}" for key, v in values.items()]) + "\n"


class ProxyConfig:
    """Builds a selkie-proxy configuration file (TOML text), so tests and benchmarks name only
    what they configure:

        ProxyConfig().listener("rw", port, "readwritesplit", cache="default") \
            .server("db1", backend_port).monitor(user="root").users("backend").text()

    Values are written as given; anything left out takes the proxy's default."""

    def __init__(self):
        self._listeners: list[dict] = []
        self._servers: list[dict] = []
        self._monitor: dict | None = None
        self._users: tuple[str, list[tuple[str, str]]] | None = None
        self._cache: dict | None = None
        self._caches: list[tuple[str, dict]] = []
        self._admin_port: int | None = None

    def listener(self, name: str, port: int, router: str, **options) -> "ProxyConfig":
        """A `[[listeners]]` entry; `options` are its other keys (role, cache, max_session_history...)."""
        self._listeners.append({"name": name, "port": port, "router": router, **options})
        return self

    def server(self, name: str, port: int, address: str = "127.0.0.1") -> "ProxyConfig":
        self._servers.append({"name": name, "address": address, "port": port})
        return self

    def monitor(self, **values) -> "ProxyConfig":
        self._monitor = values
        return self

    def users(self, source: str, *accounts: tuple[str, str]) -> "ProxyConfig":
        """`[users]` with `source`, and a `[[users.list]]` entry per (name, password)."""
        self._users = (source, list(accounts))
        return self

    def cache(self, **values) -> "ProxyConfig":
        """The `[cache]` section (the cache named "default")."""
        self._cache = values
        return self

    def named_cache(self, name: str, **values) -> "ProxyConfig":
        """A `[caches.NAME]` section."""
        self._caches.append((name, values))
        return self

    def admin(self, port: int) -> "ProxyConfig":
        self._admin_port = port
        return self

    def text(self) -> str:
        parts = [_toml_table("[[listeners]]", l) for l in self._listeners]
        parts += [_toml_table("[[servers]]", s) for s in self._servers]
        if self._monitor is not None:
            parts.append(_toml_table("[monitor]", self._monitor))
        if self._users is not None:
            source, accounts = self._users
            parts.append(_toml_table("[users]", {"source": source}))
            parts += [_toml_table("[[users.list]]", {"name": n, "password": pw}) for n, pw in accounts]
        if self._cache is not None:
            parts.append(_toml_table("[cache]", self._cache))
        parts += [_toml_table(f"[caches.{name}]", values) for name, values in self._caches]
        if self._admin_port is not None:
            parts.append(_toml_table("[admin]", {"port": self._admin_port}))
        return "\n".join(parts)


class SelkieProxy(ManagedServer):
    """A selkie-proxy process with its own configuration file (TOML text) in a temporary
    directory. `start` waits for its "proxy ready" log line."""

    def __init__(self, config_text: str, workers: int = 2, log_level: str = "info"):
        self._tmp = tempfile.mkdtemp(prefix="selkie-proxy-test-")
        self.base = Path(self._tmp)
        self.config = self.base / "proxy.toml"
        self.config.write_text(config_text)
        self.log = self.base / "proxy.log"
        self.workers = workers
        self.log_level = log_level
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> "SelkieProxy":
        binary = selkie_proxy_binary()
        if not binary.exists():
            raise FileNotFoundError(f"{binary} not built (cargo build --release -p selkie-proxy)")
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen([str(binary), "--config", str(self.config), "--workers", str(self.workers),
                                      "--log-level", self.log_level], stdout=logf, stderr=subprocess.STDOUT)
        logf.close()
        try:
            self.wait_for_log("proxy ready", timeout)
        except BaseException:
            self.proc.kill()
            self.proc.wait()
            raise
        return self

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def wait_for_log(self, needle: str, timeout: float = 30.0, after: int = 0) -> str:
        """Waits until `needle` appears in the log after byte offset `after`; returns the log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log_text()
            if needle in text[after:]:
                return text
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"selkie-proxy exited with {self.proc.returncode}:\n{tail(self.log)}")
            time.sleep(0.05)
        raise TimeoutError(f"'{needle}' not logged within {timeout}s:\n{tail(self.log)}")

    def reload(self, config_text: str | None = None) -> None:
        if config_text is not None:
            self.config.write_text(config_text)
        self.proc.send_signal(signal.SIGHUP)

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.proc.pid)

    def stop(self, timeout: float = 30.0) -> int:
        return terminate(self.proc, timeout, "selkie-proxy", self.log)

    def cleanup(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self._tmp, ignore_errors=True)


def http_get(port: int, path: str, timeout: float = 10.0) -> tuple[int, str]:
    """GET http://127.0.0.1:port/path; returns (status, body)."""
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
