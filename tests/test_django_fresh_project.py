"""A fresh Django 5.1 project against selkied, as a new user starts one (issue 14): `django-admin
startproject`, the MySQL backend (mysqlclient) in its settings, `manage.py migrate` of the contrib
apps (admin, auth, contenttypes, sessions), `manage.py check --database default`, and `migrate`
again finding nothing to do.

The short variant of tests/apps/django/run.py (which runs Django's own test suite against selkied
and MariaDB on demand). Skipped where Django or mysqlclient is not installed; scripts/test.sh
installs both.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

django = pytest.importorskip("django", reason="Django not installed (scripts/test.sh installs it)")
pytest.importorskip("MySQLdb", reason="mysqlclient not installed (scripts/test.sh installs it)")

# The contrib apps' migrations in Django 5.1: admin 3, auth 12, contenttypes 2, sessions 1.
CONTRIB_MIGRATIONS = 18


def manage(project, *args, timeout=300):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=project, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def test_fresh_project_migrates(selkie, tmp_path):
    assert django.VERSION[:2] == (5, 1), f"Django 5.1 expected, found {django.get_version()}"
    project = tmp_path / "mysite"
    project.mkdir()
    subprocess.run([sys.executable, "-m", "django", "startproject", "mysite", str(project)], check=True,
                   capture_output=True, timeout=120)
    from conftest import pymysql_connect
    with pymysql_connect(selkie.port) as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE mysite")
    settings = project / "mysite" / "settings.py"
    database = ('DATABASES = {"default": {"ENGINE": "django.db.backends.mysql", "NAME": "mysite", '
                f'"HOST": "127.0.0.1", "PORT": {selkie.port}, "USER": "root", "PASSWORD": ""}}}}\n')
    settings.write_text(re.sub(r"DATABASES = \{.*?\n\}\n", lambda _: database, settings.read_text(), flags=re.S))

    migrate = manage(project, "migrate", "--noinput")
    assert migrate.returncode == 0, migrate.stdout[-2000:] + migrate.stderr[-4000:]
    applied = re.findall(r"Applying (\S+)\.\.\. OK", migrate.stdout)
    assert len(applied) == CONTRIB_MIGRATIONS, migrate.stdout
    check = manage(project, "check", "--database", "default")
    assert check.returncode == 0, check.stdout + check.stderr
    again = manage(project, "migrate", "--noinput")
    assert again.returncode == 0 and "No migrations to apply." in again.stdout, again.stdout + again.stderr
