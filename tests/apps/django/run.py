#!/usr/bin/env python3
"""Django 5.1's own test suite against selkied and against a private MariaDB 10.11 (issue 14).

On a fresh Debian machine this installs what it needs (apt: libmariadb-dev pkg-config
build-essential python3-dev; in a virtualenv in the work directory: the Django 5.1.x source
distribution, which holds tests/, and mysqlclient), starts a private selkied and a private
MariaDB 10.11 (tests/harness.py), writes a settings module for Django's runtests.py (MySQL
backend, unmodified options, root with an empty password) and runs

    runtests.py --settings=test_mysql_<server> --parallel=1 --noinput -v 2 <label>

for each label, one at a time with a time limit, against each server. It then checks a fresh
project: `django-admin startproject` and `manage.py migrate` of the contrib apps. The counts
(tests run, failures, errors, skipped per label per server) go to docs/django.md, rewritten
after every label so that a run cut short still records what completed.

    python3 tests/apps/django/run.py                      # everything (hours on 2 cores)
    python3 tests/apps/django/run.py --labels basic --servers selkie
    python3 tests/apps/django/run.py --fresh-project-only

Selkied is the release build tests/harness.py finds (SELKIED, or CARGO_TARGET_DIR/release).
Results are also kept in WORKDIR/results.json; --resume skips label/server pairs already there.
This suite is on demand: scripts/test.sh runs only the fresh-project check
(tests/test_django_fresh_project.py).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "tests"))

from harness import MariaDBServer, SelkieServer, selkied_binary  # noqa: E402

LABELS = ["schema", "migrations", "introspection", "inspectdb", "model_fields", "backends", "basic"]
# selkie_tzbypass is a diagnostic, not a measure: selkied with Django's first query on every
# connection (mysql_server_data, which asks CONVERT_TZ('...', 'UTC', 'UTC') whether time zone
# tables are loaded) answered without CONVERT_TZ, to see what fails beyond that first blocker.
SERVERS = ["mariadb", "selkie", "selkie_tzbypass"]
SERVER_NAMES = {"mariadb": "MariaDB 10.11", "selkie": "selkied",
                "selkie_tzbypass": "selkied, CONVERT_TZ check bypassed (diagnostic)"}
DJANGO_SPEC = "django==5.1.*"
APT_PACKAGES = ["libmariadb-dev", "pkg-config", "build-essential", "python3-dev"]
DOC = REPO / "docs" / "django.md"


def log(msg: str) -> None:
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# Installation


def install_apt() -> None:
    missing = [p for p in APT_PACKAGES
               if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    log(f"apt-get install {' '.join(missing)}")
    if subprocess.run(sudo + ["apt-get", "install", "-y"] + missing, env=env, stdout=subprocess.DEVNULL).returncode:
        subprocess.run(sudo + ["apt-get", "update"], env=env, stdout=subprocess.DEVNULL, check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y"] + missing, env=env, stdout=subprocess.DEVNULL, check=True)


def install_python(work: Path) -> tuple[Path, Path]:
    """(the virtualenv's python, Django's tests/ directory)."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"virtualenv {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    sdists = sorted((work / "dl").glob("django-5.1.*.tar.gz"))
    if not sdists:
        log(f"pip download {DJANGO_SPEC} (source distribution)")
        subprocess.run([str(python), "-m", "pip", "download", DJANGO_SPEC, "--no-binary", ":all:", "--no-deps",
                        "-d", str(work / "dl")], check=True, stdout=subprocess.DEVNULL)
        sdists = sorted((work / "dl").glob("django-5.1.*.tar.gz"))
    sdist = sdists[-1]
    src = work / sdist.name[:-len(".tar.gz")]
    if not (src / "tests" / "runtests.py").exists():
        with tarfile.open(sdist) as tar:
            tar.extractall(work, filter="data")
    have = subprocess.run([str(python), "-c", "import django, MySQLdb; print(django.__version__)"],
                          capture_output=True, text=True)
    if have.returncode != 0 or have.stdout.strip() != src.name.split("-")[1]:
        log(f"pip install {src.name} mysqlclient")
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(src), "mysqlclient"], check=True)
    return python, src / "tests"


# ---------------------------------------------------------------------------------------------
# Servers and settings


def cli(port: int, sql: str, stdin: str | None = None) -> str:
    args = ["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--protocol=TCP", "-Nse" if sql else "-N"]
    args += [sql] if sql else ["mysql"]
    return subprocess.run(args, input=stdin, capture_output=True, text=True, check=True).stdout.strip()


def make_server(kind: str):
    """The server, not started (`with` starts and stops it)."""
    if kind.startswith("selkie"):
        return SelkieServer(extra_args=["--buffer-pool-size", "256M"])
    # MariaDB's own defaults (utf8mb4_general_ci), not the corpus reference's utf8mb4_bin: the
    # suite is run the way a Django user runs it.
    return MariaDBServer(buffer_pool="256M", extra_config={"collation-server": "utf8mb4_general_ci"})


def prepare_server(kind: str, port: int, tz_tables: bool) -> None:
    if kind == "mariadb" and tz_tables:
        # The time zone tables loaded as Django's documentation asks, so that its time zone
        # tests run rather than skip.
        zones = subprocess.run(["mariadb-tzinfo-to-sql", "/usr/share/zoneinfo"], capture_output=True, text=True,
                               check=True).stdout
        cli(port, "", stdin=zones)
    # Django connects to NAME before it creates the test databases (inspectdb's tests even at
    # import time), as a real project's database exists before its tests run.
    cli(port, "CREATE DATABASE IF NOT EXISTS django_default; CREATE DATABASE IF NOT EXISTS django_other")


TZ_BYPASS = """
# Diagnostic only: Django's mysql_server_data without CONVERT_TZ (see run.py's SERVERS).
from django.db.backends.mysql import base as _mysql_base
from django.utils.functional import cached_property as _cached_property


def _server_data(self):
    with self.temporary_connection() as cursor:
        cursor.execute("SELECT VERSION(), @@sql_mode, @@default_storage_engine, @@sql_auto_is_null, "
                       "@@lower_case_table_names")
        row = cursor.fetchone()
    return {"version": row[0], "sql_mode": row[1], "default_storage_engine": row[2],
            "sql_auto_is_null": bool(row[3]), "lower_case_table_names": bool(row[4]),
            "has_zoneinfo_database": False}


_mysql_base.DatabaseWrapper.mysql_server_data = _cached_property(_server_data)
_mysql_base.DatabaseWrapper.mysql_server_data.__set_name__(_mysql_base.DatabaseWrapper, "mysql_server_data")
"""


def settings_text(port: int, tz_bypass: bool = False) -> str:
    def db(name: str) -> str:
        return (f'{{"ENGINE": "django.db.backends.mysql", "HOST": "127.0.0.1", "PORT": {port}, "USER": "root", '
                f'"PASSWORD": "", "NAME": "{name}", "TEST": {{"NAME": "test_{name}"}}}}')
    return f"""# Written by selkie's tests/apps/django/run.py: Django's test_sqlite.py with the MySQL backend.
DATABASES = {{
    "default": {db("django_default")},
    "other": {db("django_other")},
}}
SECRET_KEY = "django_tests_secret_key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = False
""" + (TZ_BYPASS if tz_bypass else "")


# ---------------------------------------------------------------------------------------------
# Running a label and reading its outcome

SUMMARY_RAN = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s", re.M)
SUMMARY_END = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$", re.M)
VERBOSE_LINE = re.compile(r"^(test\w*) \(([\w.]+)\)[^\n]*?\.\.\. ?(ok|FAIL|ERROR|skipped|expected failure|unexpected success)",
                          re.M)
EXCEPTION_LINE = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception|Failure)): (.{0,160})", re.M)


def parse_output(text: str) -> dict:
    out: dict = {}
    found = re.search(r"^Found (\d+) test", text, re.M)
    if found:
        out["found"] = int(found.group(1))
    ran = SUMMARY_RAN.search(text)
    end = SUMMARY_END.search(text)
    if ran and end:
        out["ran"] = int(ran.group(1))
        out["seconds"] = float(ran.group(2))
        counts = dict(item.strip().split("=") for item in (end.group(2) or "").split(",") if "=" in item)
        for key in ("failures", "errors", "skipped", "expected failures", "unexpected successes"):
            out[key.replace(" ", "_")] = int(counts.get(key, 0))
    else:
        # Cut short (time limit, crash): count what the verbose lines say so far.
        statuses = collections.Counter(m.group(3) for m in VERBOSE_LINE.finditer(text))
        out["partial"] = True
        out["ran"] = sum(statuses.values())
        out["failures"] = statuses["FAIL"]
        out["errors"] = statuses["ERROR"]
        out["skipped"] = statuses["skipped"]
        out["expected_failures"] = statuses["expected failure"]
    # The most frequent exception messages, with numbers masked so that alike ones group.
    messages = collections.Counter()
    for m in EXCEPTION_LINE.finditer(text):
        # MySQLdb's exceptions come again as Django's (django.db.utils.*): counted once.
        if m.group(1) == "AssertionError" or m.group(1).endswith("Warning") or m.group(1).startswith("MySQLdb."):
            continue
        messages[f"{m.group(1)}: {re.sub(r'[0-9]{3,}', 'N', m.group(2))}"[:200]] += 1
    out["top_errors"] = messages.most_common(5)
    return out


def run_label(python: Path, tests_dir: Path, server: str, label: str, timeout: float, logs: Path) -> dict:
    cmd = [str(python), "runtests.py", f"--settings=test_mysql_{server}", "--parallel=1", "--noinput", "-v", "2",
           label]
    logfile = logs / f"{server}-{label}.log"
    log(f"{server} {label}: {' '.join(cmd[1:])} (limit {timeout:.0f}s, log {logfile})")
    start = time.monotonic()
    with open(logfile, "w") as f:
        proc = subprocess.Popen(cmd, cwd=tests_dir, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            timed_out = True
    result = parse_output(logfile.read_text(errors="replace"))
    result["wall_seconds"] = round(time.monotonic() - start)
    result["exit_code"] = proc.returncode
    if timed_out:
        result["timed_out"] = timeout
    elif "seconds" not in result:
        tail = [line for line in logfile.read_text(errors="replace").splitlines() if line.strip()][-1:]
        result["crashed"] = tail[0][:200] if tail else "no output"
    log(f"{server} {label}: {summary_cell(result)}")
    return result


# ---------------------------------------------------------------------------------------------
# Fresh project


def fresh_project_outcome(python: Path, work: Path, port: int, name: str) -> dict:
    project = work / f"fresh-{name}"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    subprocess.run([str(python.parent / "django-admin"), "startproject", "mysite", str(project)], check=True)
    settings = project / "mysite" / "settings.py"
    database = ('DATABASES = {\n    "default": {\n        "ENGINE": "django.db.backends.mysql",\n'
                f'        "NAME": "mysite",\n        "HOST": "127.0.0.1",\n        "PORT": {port},\n'
                '        "USER": "root",\n        "PASSWORD": "",\n    }\n}\n')
    settings.write_text(re.sub(r"DATABASES = \{.*?\n\}\n", lambda _: database, settings.read_text(), flags=re.S))
    subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--protocol=TCP", "-e",
                    "DROP DATABASE IF EXISTS mysite; CREATE DATABASE mysite"], check=True)
    steps = {}
    for step in (["migrate", "--noinput"], ["check", "--database", "default"], ["showmigrations"],
                 ["migrate", "--noinput"]):
        key = " ".join(step) + (" (again)" if " ".join(step) in steps else "")
        proc = subprocess.run([str(python), "manage.py"] + step, cwd=project, capture_output=True, text=True,
                              timeout=900)
        lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
        steps[key] = {"exit_code": proc.returncode, "last_line": lines[-1][:200] if lines else ""}
        (work / "logs" / f"fresh-{name}-{len(steps)}-{step[0]}.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            break
    applied = re.findall(r"Applying (\S+)\.\.\. OK", (work / "logs" / f"fresh-{name}-1-migrate.log").read_text())
    return {"steps": steps, "migrations_applied": len(applied),
            "ok": all(s["exit_code"] == 0 for s in steps.values()) and len(steps) == 4}


# ---------------------------------------------------------------------------------------------
# The report


def summary_cell(r: dict | None) -> str:
    if not r:
        return "not run"
    if r.get("crashed") and not r.get("ran"):
        return f"no test ran: {r['crashed']}"
    cell = f"{r.get('ran', 0)} run, {r.get('failures', 0)} failures, {r.get('errors', 0)} errors, " \
           f"{r.get('skipped', 0)} skipped"
    if r.get("expected_failures"):
        cell += f", {r['expected_failures']} expected failures"
    if r.get("timed_out"):
        cell += f" (cut at the {r['timed_out']:.0f}s limit: counts so far of {r.get('found', '?')})"
    elif r.get("crashed"):
        cell += f" (did not finish: {r['crashed']})"
    return cell


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} CPUs"
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_doc(results: dict, command: str) -> None:
    labels = [label for label in LABELS if any(label in results.get(s, {}) for s in SERVERS)]
    lines = [
        "# Django 5.1's test suite on selkied and on MariaDB 10.11",
        "",
        "Issue 14 measures \"applications run unchanged\" with Django's own tests: its MySQL backend",
        "(mysqlclient), unmodified options, against a private selkied and a private MariaDB 10.11 with",
        "its default configuration (utf8mb4_general_ci) and the time zone tables loaded, as Django's",
        "documentation asks. Each label must pass on selkied what it passes on MariaDB.",
        "`tests/apps/django/run.py` installs Django's source distribution (which holds tests/) and",
        "mysqlclient in a virtualenv, starts the servers and runs each label on its own:",
        "",
        "```",
        command,
        "# per label and server:",
        "runtests.py --settings=test_mysql_<server> --parallel=1 --noinput -v 2 <label>",
        "```",
        "",
        f"Recorded {results.get('when', '?')} on {results.get('cpu', '?')}; Django {results.get('django', '?')}, "
        f"mysqlclient {results.get('mysqlclient', '?')}, MariaDB {results.get('mariadb_version', '?')}, "
        f"selkied from commit {results.get('selkie_commit', '?')}.",
        "",
        "| label | MariaDB 10.11 | selkied |",
        "|---|---|---|",
    ]
    servers = [s for s in SERVERS if s in results]
    lines[-2:] = ["| label | " + " | ".join(SERVER_NAMES[s] for s in servers) + " |",
                  "|---|" + "---|" * len(servers)]
    for label in labels:
        lines.append(f"| {label} | " + " | ".join(summary_cell(results[s].get(label)) for s in servers) + " |")
    lines += ["", "Run = tests the runner executed (skipped ones included); a label cut at its time limit",
              "shows the counts of the tests it finished. Django creates the test databases and every",
              "test model's table before the first test, so one statement refused there stops the whole",
              "label (\"no test ran\"); a test module that fails to import counts as 1 run, 1 error.",
              "The diagnostic column answers Django's first",
              "query on each connection (`mysql_server_data`: `SELECT VERSION(), @@sql_mode, ...,",
              "CONVERT_TZ('2001-01-01 01:00:00', 'UTC', 'UTC') IS NOT NULL`) without CONVERT_TZ, patched",
              "in its settings module, to show what fails beyond that first blocker; it is not a result."]
    fresh = results.get("fresh_project", {})
    if fresh:
        lines += ["", "## A fresh project", "",
                  "`django-admin startproject mysite`, the MySQL backend in its settings, then `manage.py migrate`",
                  "(the contrib apps: admin, auth, contenttypes, sessions), `check --database default`,",
                  "`showmigrations` and `migrate` again:", ""]
        for server in SERVERS:
            if server in fresh:
                f = fresh[server]
                failed = [f"`{k}` exits {v['exit_code']}: {v['last_line']}" for k, v in f["steps"].items()
                          if v["exit_code"]]
                state = "works" if f["ok"] else "fails: " + "; ".join(failed)
                lines.append(f"- {SERVER_NAMES[server]}: {state} "
                             f"({f['migrations_applied']} migrations applied)")
        lines += ["", "The default test suite runs this check against selkied in "
                  "tests/test_django_fresh_project.py", "(scripts/test.sh installs Django 5.1 and mysqlclient)."]
    errors = []
    for server in [s for s in servers if s.startswith("selkie")]:
        for label in labels:
            r = results[server].get(label)
            if r and r.get("top_errors"):
                errors.append(f"- {SERVER_NAMES[server]}, {label}: "
                              + "; ".join(f"{n}× `{m}`" for m, n in r["top_errors"][:3]))
    if errors:
        lines += ["", "## The most frequent errors on selkied", "",
                  "Exception lines in the verbose output, numbers of 3+ digits masked:", ""] + errors
    DOC.write_text("\n".join(lines) + "\n")


def version_of(python: Path, module: str) -> str:
    code = f"import importlib.metadata as m; print(m.version('{module}'))"
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return proc.stdout.strip() or "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", nargs="+", default=LABELS)
    parser.add_argument("--servers", nargs="+", default=SERVERS, choices=SERVERS)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per label and server")
    parser.add_argument("--workdir", type=Path, default=Path(os.environ.get("SELKIE_DJANGO_WORKDIR",
                                                                             "/tmp/selkie-django")))
    parser.add_argument("--resume", action="store_true", help="skip label/server pairs already in results.json")
    parser.add_argument("--fresh-project-only", action="store_true")
    parser.add_argument("--no-fresh-project", action="store_true")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/django.md")
    parser.add_argument("--doc-only", action="store_true", help="rewrite docs/django.md from results.json")
    parser.add_argument("--no-tz-tables", action="store_true",
                        help="do not load the time zone tables into the reference MariaDB")
    args = parser.parse_args()
    command = "python3 tests/apps/django/run.py " + " ".join(sys.argv[1:])

    work = args.workdir.resolve()
    if args.doc_only:
        results = json.loads((work / "results.json").read_text())
        write_doc(results, results.get("command", "python3 tests/apps/django/run.py --workdir /tmp/dj --timeout 3600"))
        return 0
    (work / "logs").mkdir(parents=True, exist_ok=True)
    install_apt()
    python, tests_dir = install_python(work)
    if not selkied_binary().exists():
        print(f"{selkied_binary()} not built: cargo build --release -p selkie-server", file=sys.stderr)
        return 2

    results_file = work / "results.json"
    results = json.loads(results_file.read_text()) if args.resume and results_file.exists() else {}
    # The commit of the tree the binary was built in (SELKIED may name another checkout's build).
    binary = selkied_binary().resolve()
    tree = next((p for p in binary.parents if (p / ".git").exists()), REPO)
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    results.update({"command": command, "when": f"{datetime.date.today()}", "cpu": cpu_model(), "django": tests_dir.parent.name[7:],
                    "mysqlclient": version_of(python, "mysqlclient"), "selkie_commit": commit or "?"})

    def save():
        results_file.write_text(json.dumps(results, indent=1))
        if not args.no_doc:
            write_doc(results, command)

    for server in args.servers:
        with make_server(server) as srv:
            prepare_server(server, srv.port, not args.no_tz_tables)
            if server == "mariadb":
                results["mariadb_version"] = cli(srv.port, "SELECT VERSION()")
            (tests_dir / f"test_mysql_{server}.py").write_text(settings_text(srv.port, server == "selkie_tzbypass"))
            if not args.fresh_project_only:
                for label in args.labels:
                    if args.resume and label in results.get(server, {}):
                        continue
                    results.setdefault(server, {})[label] = run_label(python, tests_dir, server, label,
                                                                      args.timeout, work / "logs")
                    save()
            if not args.no_fresh_project and server != "selkie_tzbypass":
                log(f"{server}: fresh project")
                outcome = fresh_project_outcome(python, work, srv.port, server)
                results.setdefault("fresh_project", {})[server] = outcome
                log(f"{server}: fresh project {'works' if outcome['ok'] else 'fails'}: {outcome['steps']}")
                save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
