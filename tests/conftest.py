"""pytest fixtures: a selkied per test module and a private MariaDB 10.11 per session."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MariaDBServer, SelkieServer  # noqa: E402


@pytest.fixture(scope="module")
def selkie():
    # SELKIE_TESTS_AGAINST_MARIADB=1 runs the same tests against MariaDB 10.11: a check of the
    # tests themselves (what they expect is what the reference server does).
    if os.environ.get("SELKIE_TESTS_AGAINST_MARIADB") == "1":
        # general_ci here: with a _bin collation MariaDB flags string columns BINARY and some
        # drivers then return bytes; Selkie reports utf8mb4_bin without that flag.
        ref = MariaDBServer(buffer_pool="256M", extra_config={"collation-server": "utf8mb4_general_ci"})
        ref.start()
        yield ref
        ref.stop()
        ref.cleanup()
        return
    server = SelkieServer(extra_args=["--buffer-pool-size", "256M"])
    server.start()
    yield server
    try:
        code = server.stop()
        assert code == 0, f"selkied exited with {code} on SIGTERM"
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def mariadb():
    server = MariaDBServer(buffer_pool="256M")
    server.start(load_time_zones=True)
    yield server
    try:
        server.stop()
    finally:
        server.cleanup()


def pymysql_connect(port, db=None, **kw):
    import pymysql
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=db,
                           autocommit=True, **kw)
