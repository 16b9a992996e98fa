"""selkie-proxy in front of selkied, the only server (no replication: it is the primary).

The parts of the proxy suite that apply: sysbench through readconnroute and readwritesplit in
both ps-modes, reads falling back to the primary when there is no replica, transactions and
session state, the result cache and its invalidation, and a backend restart.
"""

import json

import pymysql
import pytest

from harness import (ProxyConfig, SelkieProxy, SelkieServer, free_port, http_get, mariadb_cli, selkied_binary,
                     sysbench)


@pytest.fixture(scope="module")
def setup():
    # scripts/test.sh builds it; a missing binary must fail the suite, not skip it.
    assert selkied_binary().exists(), f"{selkied_binary()} not built (cargo build --release --bin selkied)"
    server = SelkieServer(extra_args=["--buffer-pool-size", "128M"])
    server.start()
    ports = {name: free_port() for name in ("rw", "rcr", "admin")}
    # connect_timeout_ms is generous for loaded CI machines: a killed server refuses connections
    # at once anyway.
    config = (ProxyConfig()
              .listener("rw", ports["rw"], "readwritesplit", cache="default")
              .listener("rcr", ports["rcr"], "readconnroute", role="primary")
              .server("selkie", server.port)
              .monitor(user="root", interval_ms=200, connect_timeout_ms=3000)
              .users("config", ("root", ""))
              .cache(soft_ttl=60, hard_ttl=120)
              .admin(ports["admin"])
              .text())
    proxy = SelkieProxy(config, workers=2)
    try:
        proxy.start()
        c = pymysql.connect(host="127.0.0.1", port=ports["rcr"], user="root", password="", autocommit=True)
        c.cursor().execute("CREATE DATABASE proxytest")
        c.cursor().execute("CREATE DATABASE sbtest")
        c.close()
        yield server, proxy, ports
    finally:
        try:
            assert proxy.stop() == 0
        finally:
            proxy.cleanup()
            server.stop()
            server.cleanup()


def connect(ports, listener, db="proxytest"):
    return pymysql.connect(host="127.0.0.1", port=ports[listener], user="root", password="", database=db,
                           autocommit=True)


def rows(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def stats(ports):
    status, body = http_get(ports["admin"], "/stats")
    assert status == 200
    return json.loads(body)


@pytest.mark.parametrize("ps_mode", ["auto", "disable"])
@pytest.mark.parametrize("listener", ["rcr", "rw"])
def test_sysbench_through_each_router(setup, listener, ps_mode):
    _, _, ports = setup
    if (listener, ps_mode) == ("rcr", "auto"):
        r = sysbench(ports["rcr"], "oltp_read_write", "prepare", tables=2, table_size=2000)
        assert r["returncode"] == 0, r["output"][-3000:]
    for script in ("oltp_read_write", "oltp_read_only"):
        r = sysbench(ports[listener], script, "run", tables=2, table_size=2000, threads=4, time_s=2, ps_mode=ps_mode)
        assert r["returncode"] == 0 and not r.get("fatal"), r["output"][-3000:]
        assert r["queries_count"] > 100


def test_reads_fall_back_to_the_primary(setup):
    _, _, ports = setup
    s0 = stats(ports)
    server = next(x for x in s0["servers"] if x["name"] == "selkie")
    assert (server["status"], server["role"]) == ("up", "primary")
    conn = connect(ports, "rw")
    rows(conn, "CREATE TABLE fb (id INT PRIMARY KEY, v INT)")
    rows(conn, "INSERT INTO fb VALUES (1, 1)")
    for _ in range(10):
        assert rows(conn, "SELECT v FROM fb WHERE id = 1 FOR UPDATE") == ((1,),)
        assert rows(conn, "SELECT COUNT(*) FROM fb") == ((1,),)
    s1 = stats(ports)
    assert s1["routing"]["fallback_primary"] - s0["routing"]["fallback_primary"] >= 1
    conn.close()


def test_transactions_and_session_state(setup):
    _, _, ports = setup
    conn = connect(ports, "rw")
    rows(conn, "CREATE TABLE tx (id INT PRIMARY KEY, v VARCHAR(10))")
    rows(conn, "SET @marker = 'm1'")
    conn.begin()
    rows(conn, "INSERT INTO tx VALUES (1, 'a')")
    assert rows(conn, "SELECT v, @marker FROM tx WHERE id = 1") == (("a", "m1"),)
    conn.rollback()
    assert rows(conn, "SELECT COUNT(*) FROM tx") == ((0,),)
    conn.close()


def test_cache_hits_and_invalidation(setup):
    _, _, ports = setup
    conn = connect(ports, "rw")
    rows(conn, "CREATE TABLE cached (id INT PRIMARY KEY, v INT)")
    rows(conn, "INSERT INTO cached VALUES (1, 10)")
    hits0 = stats(ports)["cache"]["hits"]
    for _ in range(10):
        assert rows(conn, "SELECT v FROM cached WHERE id = 1") == ((10,),)
    assert stats(ports)["cache"]["hits"] - hits0 >= 9
    # A write through the other listener invalidates the entry.
    other = connect(ports, "rcr")
    rows(other, "UPDATE cached SET v = 11 WHERE id = 1")
    other.close()
    assert rows(conn, "SELECT v FROM cached WHERE id = 1") == ((11,),)
    conn.close()


def test_backend_restart_is_detected_and_sessions_recover(setup):
    server, proxy, ports = setup
    server.stop()
    proxy.wait_for_log("server selkie is down", timeout=10)
    with pytest.raises(pymysql.err.MySQLError) as e:
        connect(ports, "rcr")
    assert e.value.args[0] == 1429, e.value.args
    # readwritesplit accepts the session (no backend needed yet); its statements fail cleanly,
    # also as libmariadb sees them (it rejects client-library error numbers in ERR packets).
    p = mariadb_cli(ports["rw"], "SELECT 1", check=False)
    assert p.returncode == 1 and "ERROR 1429" in p.stderr, p.stderr
    server.start()
    proxy.wait_for_log("server selkie is back up (role=primary)", timeout=30)
    conn = connect(ports, "rw")
    assert rows(conn, "SELECT v FROM cached WHERE id = 1") == ((11,),)
    conn.close()
