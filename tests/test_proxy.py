"""selkie-proxy in front of a real GTID replication pair of MariaDB 10.11 servers.

Everything is started here, on free loopback ports with fresh data directories: a primary
(server-id 1) and a read-only replica (server-id 2) replicating with MASTER_USE_GTID=slave_pos,
and the proxy with readwritesplit listeners (plain, with a result cache, with a tiny session
history) and readconnroute listeners (primary, replica). Routing is checked from the backends'
own counters (SHOW GLOBAL STATUS) and @@server_id, never from the proxy's word alone.

The tests share one cluster and run in file order; the last two kill the replica, then the
primary, so they must stay last.
"""

import json
import os
import socket
import threading
import time

import pymysql
import pytest

from harness import (MariaDBReplicationPair, ProxyConfig, SelkieProxy, free_port, global_status, http_get,
                     mariadb_cli, mariadb_query, sysbench)

PRIMARY_ID, REPLICA_ID = 1, 2
# sysbench's default --mysql-ignore-errors: deadlocks, lock wait timeouts and "record changed"
# are the server's answers to contention, which sysbench retries; anything else is an error.
# SELKIE_STRESS=1: longer sysbench runs with more connections.
SYSBENCH_TABLES, SYSBENCH_ROWS = 2, 5000
STRESS = os.environ.get("SELKIE_STRESS") == "1"
SYSBENCH_SECONDS = 30 if STRESS else 3
SYSBENCH_THREADS = 32 if STRESS else 4


def proxy_config(primary_port, replica_port, ports, history=50, with_replica=True):
    config = (ProxyConfig()
              .listener("rw", ports["rw"], "readwritesplit", max_replication_lag=30, max_session_history=history)
              .listener("rwc", ports["rwc"], "readwritesplit", cache="default")
              .listener("rwcs", ports["rwcs"], "readwritesplit", cache="shared")
              .listener("rwh", ports["rwh"], "readwritesplit", max_session_history=3)
              .listener("rwl", ports["rwl"], "readwritesplit", max_replication_lag=1)
              .listener("rcr_primary", ports["rcr_primary"], "readconnroute", role="primary")
              .listener("rcr_replica", ports["rcr_replica"], "readconnroute", role="replica")
              .server("db1", primary_port))
    if with_replica:
        config.server("db2", replica_port)
    # connect_timeout_ms is generous for loaded CI machines: a killed server refuses connections
    # at once anyway.
    return (config
            .monitor(user="root", password="", interval_ms=200, connect_timeout_ms=3000, failcount=2)
            .users("backend")
            .cache(soft_ttl=60, hard_ttl=120, max_size="16M", max_resultset_size="1M", selects="verify_cacheable")
            .named_cache("shared", soft_ttl=60, hard_ttl=120, storage="shared", selects="assume_cacheable")
            .admin(ports["admin"])
            .text())


class Cluster:
    def __init__(self):
        self.pair = MariaDBReplicationPair()
        self.ports = {name: free_port() for name in ("rw", "rwc", "rwcs", "rwh", "rwl", "rcr_primary", "rcr_replica", "admin")}
        self.proxy = None

    def config(self, **kw):
        return proxy_config(self.pair.primary.port, self.pair.replica.port, self.ports, **kw)

    def start(self):
        self.pair.start()
        mariadb_cli(self.pair.primary.port, "CREATE DATABASE proxytest; CREATE DATABASE sbtest")
        self.pair.sync()
        self.proxy = SelkieProxy(self.config(), workers=2).start()
        return self

    def connect(self, listener="rw", db="proxytest", user="root", password="", **kw):
        return pymysql.connect(host="127.0.0.1", port=self.ports[listener], user=user, password=password,
                               database=db, autocommit=True, **kw)

    def stats(self):
        status, body = http_get(self.ports["admin"], "/stats")
        assert status == 200
        return json.loads(body)

    def stop(self):
        if self.proxy is not None:
            try:
                assert self.proxy.stop() == 0, "selkie-proxy did not exit cleanly on SIGTERM"
            finally:
                self.proxy.cleanup()
        self.pair.stop()
        self.pair.cleanup()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    try:
        c.start()
        yield c
    finally:
        c.stop()


def scalar(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchone()[0]


def execute(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def counters(port, names=("Com_select", "Com_insert", "Com_update", "Com_delete")):
    s = global_status(port)
    return {n: int(s[n]) for n in names}


def delta(before, after):
    return {k: after[k] - before[k] for k in before}


def assert_writes_only_on_primary(cluster, p, r):
    """The replica's write counters moved only by replication: MariaDB counts applied row
    events in Com_insert/update/delete too, so they equal the primary's; a write sent to the
    replica directly would also be binlogged there with its own server id."""
    cluster.pair.sync()
    for k in ("Com_insert", "Com_update", "Com_delete"):
        assert r[k] <= p[k], (k, p, r)
    gtids = mariadb_query(cluster.pair.replica.port, "SELECT @@gtid_binlog_pos")[0][0]
    assert all(g.split("-")[1] == str(PRIMARY_ID) for g in gtids.split(",") if g), gtids


# ----------------------------------------------------------------------------------- workloads

def run_sysbench(port, script, ps_mode, **kw):
    r = sysbench(port, script, "run", tables=SYSBENCH_TABLES, table_size=SYSBENCH_ROWS, threads=SYSBENCH_THREADS,
                 time_s=SYSBENCH_SECONDS, ps_mode=ps_mode, **kw)
    assert r["returncode"] == 0 and not r.get("fatal"), r["output"][-3000:]
    assert r.get("reconnects", 0) == 0, r["output"][-2000:]
    assert r["queries_count"] > 100, r["output"][-2000:]
    return r


@pytest.mark.parametrize("ps_mode", ["auto", "disable"])
def test_sysbench_through_readwritesplit(cluster, ps_mode):
    port = cluster.ports["rw"]
    if ps_mode == "auto":
        r = sysbench(port, "oltp_read_write", "prepare", tables=SYSBENCH_TABLES, table_size=SYSBENCH_ROWS)
        assert r["returncode"] == 0, r["output"][-3000:]
        cluster.pair.sync()
    primary0, replica0 = counters(cluster.pair.primary.port), counters(cluster.pair.replica.port)
    rw = run_sysbench(port, "oltp_read_write", ps_mode)
    # Inside BEGIN ... COMMIT everything runs on the primary.
    ro = run_sysbench(port, "oltp_read_only", ps_mode, extra=["--skip_trx=on"])
    primary1, replica1 = counters(cluster.pair.primary.port), counters(cluster.pair.replica.port)
    p, r = delta(primary0, primary1), delta(replica0, replica1)
    assert p["Com_insert"] > 0 and p["Com_update"] > 0 and p["Com_delete"] > 0, p
    assert_writes_only_on_primary(cluster, p, r)
    # The autocommit reads of the read-only run went to the replica. (Binary-protocol executes
    # count as Com_stmt_execute, so Com_select only moves in the text run.)
    if ps_mode == "disable":
        assert r["Com_select"] >= ro["read"] * 0.95, (r, ro["read"])
    assert rw["read"] > 0
    # The tables are still consistent on both servers.
    cluster.pair.sync()
    check = "CHECKSUM TABLE sbtest.sbtest1, sbtest.sbtest2"
    assert mariadb_query(cluster.pair.primary.port, check) == mariadb_query(cluster.pair.replica.port, check)


def test_routing_seen_from_backend_counters(cluster):
    conn = cluster.connect()
    execute(conn, "CREATE TABLE routing (id INT PRIMARY KEY, v INT)")
    cluster.pair.sync()
    primary0, replica0 = counters(cluster.pair.primary.port), counters(cluster.pair.replica.port)
    for i in range(50):
        execute(conn, "INSERT INTO routing VALUES (%s, %s)", (i, i))
    execute(conn, "UPDATE routing SET v = v + 1 WHERE id < 10")
    cluster.pair.sync()
    for i in range(300):
        assert scalar(conn, "SELECT v FROM routing WHERE id = %s", (i % 50,)) == (i % 50) + (1 if i % 50 < 10 else 0)
    primary1, replica1 = counters(cluster.pair.primary.port), counters(cluster.pair.replica.port)
    p, r = delta(primary0, primary1), delta(replica0, replica1)
    assert p["Com_insert"] == 50 and p["Com_update"] == 1, p
    assert_writes_only_on_primary(cluster, p, r)
    assert r["Com_select"] >= 300, r
    # The primary's selects are the monitor's health checks only (a few per second).
    assert p["Com_select"] < r["Com_select"] / 2, (p, r)
    assert scalar(conn, "SELECT @@server_id") == REPLICA_ID
    conn.close()


def test_read_your_writes_inside_a_transaction(cluster):
    conn = cluster.connect()
    execute(conn, "CREATE TABLE ryw (id INT PRIMARY KEY, v VARCHAR(20))")
    conn.begin()
    execute(conn, "INSERT INTO ryw VALUES (1, 'mine')")
    # Read right after the write, in the same transaction: must be on the primary and see it.
    assert execute(conn, "SELECT v, @@server_id FROM ryw WHERE id = 1") == (("mine", PRIMARY_ID),)
    assert scalar(conn, "SELECT COUNT(*) FROM ryw") == 1
    conn.rollback()
    assert scalar(conn, "SELECT COUNT(*) FROM ryw FOR UPDATE") == 0
    # A plain BEGIN without writes still runs on the primary; READ ONLY ones on the replica.
    execute(conn, "BEGIN")
    assert scalar(conn, "SELECT @@server_id") == PRIMARY_ID
    execute(conn, "COMMIT")
    execute(conn, "START TRANSACTION READ ONLY")
    assert scalar(conn, "SELECT @@server_id") == REPLICA_ID
    execute(conn, "COMMIT")
    # autocommit off: an implicit read-write transaction, on the primary.
    conn.autocommit(False)
    assert scalar(conn, "SELECT @@server_id") == PRIMARY_ID
    execute(conn, "INSERT INTO ryw VALUES (2, 'implicit')")
    assert scalar(conn, "SELECT v FROM ryw WHERE id = 2") == "implicit"
    conn.commit()
    conn.autocommit(True)
    assert scalar(conn, "SELECT @@server_id") == REPLICA_ID
    conn.close()


def test_session_state_is_replayed_on_a_joining_replica(cluster):
    conn = cluster.connect(db=None)
    # Session commands before any read: they run on the primary only, for now.
    execute(conn, "USE proxytest")
    execute(conn, "SET SESSION wait_timeout = 1234")
    execute(conn, "SET NAMES latin1")
    execute(conn, "SET @marker = 42")
    execute(conn, "SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'")
    # The first read brings the replica into the session, which must replay all of the above.
    row = execute(conn, "SELECT @@server_id, @@session.wait_timeout, @@character_set_client, DATABASE(), "
                        "@@session.sql_mode")
    assert row == ((REPLICA_ID, 1234, "latin1", "proxytest", "NO_ENGINE_SUBSTITUTION"),)
    # A session command now reaches both backends.
    execute(conn, "SET SESSION wait_timeout = 4321")
    assert execute(conn, "SELECT @@server_id, @@session.wait_timeout") == ((REPLICA_ID, 4321),)
    conn.begin()
    assert execute(conn, "SELECT @@server_id, @@session.wait_timeout") == ((PRIMARY_ID, 4321),)
    conn.commit()
    conn.close()


def test_session_history_limit_keeps_new_replicas_out(cluster):
    conn = cluster.connect("rwh", db=None)
    for i in range(4):  # the listener keeps 3 commands
        execute(conn, f"SET @v{i} = {i}")
    # The replica could not be brought to this state: reads stay on the primary.
    assert execute(conn, "SELECT @@server_id, @v3") == ((PRIMARY_ID, 3),)
    execute(conn, "INSERT INTO proxytest.ryw VALUES (100, 'history')")
    assert scalar(conn, "SELECT v FROM proxytest.ryw WHERE id = 100") == "history"
    conn.close()
    # A session within the limit does use the replica.
    conn = cluster.connect("rwh", db=None)
    execute(conn, "SET @a = 1")
    assert execute(conn, "SELECT @@server_id, @a") == ((REPLICA_ID, 1),)
    conn.close()


def test_lagging_replica_is_not_used(cluster):
    replica = cluster.pair.replica.port
    strict, lenient = cluster.connect("rwl"), cluster.connect("rw")
    assert scalar(strict, "SELECT @@server_id") == REPLICA_ID
    mariadb_cli(replica, "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 6; START SLAVE")
    try:
        execute(strict, "INSERT INTO routing VALUES (500, 0)")  # applied on the replica 6 s late
        deadline = time.monotonic() + 15
        while True:
            db2 = next(s for s in cluster.stats()["servers"] if s["name"] == "db2")
            if (db2["replication_lag_s"] or 0) >= 2:
                break
            assert time.monotonic() < deadline, f"the monitor never saw the lag: {db2}"
            time.sleep(0.1)
        # max_replication_lag = 1: the replica is out, reads fall back to the primary (and see
        # the row the replica has not applied yet).
        assert execute(strict, "SELECT @@server_id, COUNT(*) FROM routing WHERE id = 500") == ((PRIMARY_ID, 1),)
        # max_replication_lag = 30: still in.
        assert scalar(lenient, "SELECT @@server_id") == REPLICA_ID
    finally:
        mariadb_cli(replica, "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 0; START SLAVE")
        execute(strict, "DELETE FROM routing WHERE id = 500")
        cluster.pair.sync()
        strict.close()
        lenient.close()


def test_last_insert_id_and_temporary_tables_pin_the_primary(cluster):
    conn = cluster.connect()
    execute(conn, "CREATE TABLE pins (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    execute(conn, "INSERT INTO pins (v) VALUES (7)")
    assert scalar(conn, "SELECT LAST_INSERT_ID()") == 1
    # From now on the session stays on the primary.
    assert scalar(conn, "SELECT @@server_id") == PRIMARY_ID
    conn.close()
    # SQL_CALC_FOUND_ROWS and FOUND_ROWS() must meet on one backend (the primary).
    conn = cluster.connect()
    assert len(execute(conn, "SELECT SQL_CALC_FOUND_ROWS id FROM routing ORDER BY id LIMIT 3")) == 3
    assert execute(conn, "SELECT FOUND_ROWS(), @@server_id") == ((50, PRIMARY_ID),)
    conn.close()
    conn = cluster.connect()
    execute(conn, "CREATE TEMPORARY TABLE scratch (x INT)")
    execute(conn, "INSERT INTO scratch VALUES (5)")
    assert execute(conn, "SELECT x, @@server_id FROM scratch") == ((5, PRIMARY_ID),)
    conn.close()


def test_prepared_statements_across_backends(cluster):
    import mysql.connector
    conn = mysql.connector.connect(host="127.0.0.1", port=cluster.ports["rw"], user="root", password="",
                                   database="proxytest", autocommit=True, use_pure=True)

    def execute_rows(cur, sql, args):
        cur.execute(sql, args)
        # The servers' utf8mb4_bin columns come back as bytes from this driver.
        return [tuple(v.decode() if isinstance(v, (bytes, bytearray)) else v for v in row) for row in cur.fetchall()]

    cur = conn.cursor(prepared=True)
    execute(cluster.connect(), "CREATE TABLE ps (id INT PRIMARY KEY, v VARCHAR(20))")
    # A write through a prepared statement: the primary.
    for i in range(5):
        cur.execute("INSERT INTO ps VALUES (?, ?)", (i, f"v{i}"))
    cluster.pair.sync()
    # The same read statement: prepared and run on the replica...
    sql = "SELECT v, @@server_id FROM ps WHERE id = ?"
    assert execute_rows(cur, sql, (3,)) == [("v3", REPLICA_ID)]
    assert execute_rows(cur, sql, (4,)) == [("v4", REPLICA_ID)]
    # ... then inside a transaction on the primary (prepared there lazily, same client id).
    text = conn.cursor()
    text.execute("BEGIN")
    assert execute_rows(cur, sql, (2,)) == [("v2", PRIMARY_ID)]
    cur.execute("UPDATE ps SET v = ? WHERE id = ?", ("changed", 2))
    assert execute_rows(cur, sql, (2,)) == [("changed", PRIMARY_ID)]
    text.execute("COMMIT")
    cluster.pair.sync()
    assert execute_rows(cur, sql, (2,)) == [("changed", REPLICA_ID)]
    cur.close()
    conn.close()


def test_result_cache_hits_invalidation_and_verify_cacheable(cluster):
    conn = cluster.connect("rwc")
    execute(conn, "CREATE TABLE cached (id INT PRIMARY KEY, v INT)")
    execute(conn, "INSERT INTO cached VALUES (1, 10), (2, 20)")
    cluster.pair.sync()
    def sent_to_servers():
        return sum(x["queries"] for x in cluster.stats()["servers"])

    hits0, sent0 = cluster.stats()["cache"]["hits"], sent_to_servers()
    for _ in range(20):
        assert scalar(conn, "SELECT v FROM cached WHERE id = 1") == 10
    assert cluster.stats()["cache"]["hits"] - hits0 >= 19
    # Only the first of the 20 reached a server (the monitor's checks are not counted here).
    assert sent_to_servers() - sent0 == 1
    # A write through the proxy invalidates; the replica has the new value once synced.
    execute(conn, "UPDATE cached SET v = 11 WHERE id = 1")
    cluster.pair.sync()
    assert scalar(conn, "SELECT v FROM cached WHERE id = 1") == 11
    # A write through another listener invalidates too.
    other = cluster.connect("rw")
    execute(other, "UPDATE cached SET v = 12 WHERE id = 1")
    other.close()
    cluster.pair.sync()
    assert scalar(conn, "SELECT v FROM cached WHERE id = 1") == 12
    # verify_cacheable: NOW() makes a result uncacheable.
    hits1 = cluster.stats()["cache"]["hits"]
    values = {scalar(conn, "SELECT CONCAT(NOW(6), v) FROM cached WHERE id = 2") for _ in range(5)}
    assert cluster.stats()["cache"]["hits"] == hits1
    assert len(values) > 1, "NOW(6) was served from the cache"
    conn.close()


def test_prepared_statement_results_are_cached_per_parameters(cluster):
    import mysql.connector
    execute(cluster.connect(), "CREATE TABLE pscached (id INT PRIMARY KEY, v INT)")
    execute(cluster.connect(), "INSERT INTO pscached VALUES (1, 100), (2, 200)")
    cluster.pair.sync()
    conn = mysql.connector.connect(host="127.0.0.1", port=cluster.ports["rwc"], user="root", password="",
                                   database="proxytest", autocommit=True, use_pure=True)
    cur = conn.cursor(prepared=True)

    def select(i):
        cur.execute("SELECT v FROM pscached WHERE id = ?", (i,))
        return cur.fetchall()[0][0]

    def cache():
        return cluster.stats()["cache"]

    c0 = cache()
    assert select(1) == 100  # miss, stored
    c1 = cache()
    assert (c1["misses"] - c0["misses"], c1["hits"] - c0["hits"]) == (1, 0), (c0, c1)
    for _ in range(5):
        assert select(1) == 100
    c2 = cache()
    assert c2["hits"] - c1["hits"] == 5, (c1, c2)
    # Another parameter value is another entry.
    assert select(2) == 200
    c3 = cache()
    assert (c3["misses"] - c2["misses"], c3["hits"] - c2["hits"]) == (1, 0), (c2, c3)
    assert select(2) == 200
    # A prepared write invalidates the table's entries; the next read reaches a server.
    cur.execute("UPDATE pscached SET v = ? WHERE id = ?", (101, 1))
    cluster.pair.sync()
    assert select(1) == 101
    assert select(2) == 200
    cur.close()
    conn.close()


def test_shared_cache_storage_serves_every_worker(cluster):
    """Two sessions opened one after the other land on different workers (round robin over 2).
    A per-worker cache answers the second session from its own worker's storage (a miss);
    the shared one answers it from the entry the first session stored. `assume_cacheable`
    caches NOW() too."""
    execute(cluster.connect(), "CREATE TABLE sharedc (id INT PRIMARY KEY, v INT)")
    execute(cluster.connect(), "INSERT INTO sharedc VALUES (1, 1)")
    cluster.pair.sync()

    def misses_then_hits(listener, sql):
        a, b = cluster.connect(listener), cluster.connect(listener)
        s0 = cluster.stats()["cache"]
        first = scalar(a, sql)
        second = scalar(b, sql)
        s1 = cluster.stats()["cache"]
        a.close()
        b.close()
        return first, second, s1["misses"] - s0["misses"], s1["hits"] - s0["hits"]

    assert misses_then_hits("rwc", "SELECT v + 10 FROM sharedc WHERE id = 1") == (11, 11, 2, 0)
    assert misses_then_hits("rwcs", "SELECT v + 20 FROM sharedc WHERE id = 1") == (21, 21, 1, 1)
    first, second, misses, hits = misses_then_hits("rwcs", "SELECT CONCAT(NOW(6), v) FROM sharedc WHERE id = 1")
    assert (first == second, misses, hits) == (True, 1, 1)
    # Invalidation reaches the shared storage as well.
    execute(cluster.connect("rw"), "UPDATE sharedc SET v = 2 WHERE id = 1")
    cluster.pair.sync()
    c = cluster.connect("rwcs")
    assert scalar(c, "SELECT v + 20 FROM sharedc WHERE id = 1") == 22
    c.close()


def test_admin_endpoints(cluster):
    s = cluster.stats()
    servers = {x["name"]: x for x in s["servers"]}
    assert servers["db1"]["status"] == "up" and servers["db1"]["role"] == "primary"
    assert servers["db2"]["status"] == "up" and servers["db2"]["role"] == "replica"
    assert servers["db2"]["replication_lag_s"] is not None
    assert servers["db1"]["queries"] > 0 and servers["db2"]["queries"] > 0
    assert s["workers"] == 2 and len(s["per_worker"]) == 2
    assert s["routing"]["replica"] > 0 and s["routing"]["primary"] > 0 and s["routing"]["all"] > 0
    assert s["classifier"]["read"] > 0 and s["classifier"]["write"] > 0
    assert s["queries"] >= sum(w["queries"] for w in s["per_worker"]) > 0
    status, metrics = http_get(cluster.ports["admin"], "/metrics")
    assert status == 200
    assert 'selkie_proxy_server_up{server="db1",role="primary"} 1' in metrics
    assert "selkie_proxy_cache_events_total{event=\"hit\"}" in metrics
    assert http_get(cluster.ports["admin"], "/nothing")[0] == 404


def test_readconnroute_listeners(cluster):
    for listener, server_id in (("rcr_primary", PRIMARY_ID), ("rcr_replica", REPLICA_ID)):
        conns = [cluster.connect(listener) for _ in range(3)]
        for c in conns:
            assert scalar(c, "SELECT @@server_id") == server_id
        for c in conns:
            c.close()
    # readconnroute does not split: writes and reads share the one server.
    c = cluster.connect("rcr_primary")
    execute(c, "INSERT INTO ryw VALUES (200, 'rcr')")
    assert scalar(c, "SELECT v FROM ryw WHERE id = 200") == "rcr"
    c.close()


def test_users_from_the_primary_and_change_user(cluster):
    mariadb_cli(cluster.pair.primary.port, "CREATE USER 'app'@'%' IDENTIFIED BY 's3cret'; "
                                           "GRANT ALL ON proxytest.* TO 'app'@'%'")
    cluster.pair.sync()
    # The user is new to the proxy: the failed lookup refreshes the list from mysql.user.
    conn = cluster.connect(user="app", password="s3cret")
    assert scalar(conn, "SELECT CURRENT_USER()") == "app@%"
    execute(conn, "INSERT INTO ryw VALUES (300, 'app')")
    conn.close()
    with pytest.raises(pymysql.err.OperationalError) as e:
        cluster.connect(user="app", password="wrong")
    assert e.value.args[0] == 1045
    # COM_CHANGE_USER: the proxy re-authenticates and the backends follow.
    import mysql.connector
    conn = mysql.connector.connect(host="127.0.0.1", port=cluster.ports["rw"], user="root", password="",
                                   database="proxytest", use_pure=True)
    cur = conn.cursor()
    cur.execute("SELECT CURRENT_USER()")
    assert cur.fetchall()[0][0].startswith("root@")
    conn.cmd_change_user(username="app", password="s3cret", database="proxytest")
    cur = conn.cursor()
    cur.execute("SELECT CURRENT_USER(), DATABASE()")
    assert cur.fetchall() == [("app@%", "proxytest")]
    conn.close()


def test_reload_on_sighup(cluster):
    proxy = cluster.proxy
    mark = len(proxy.log_text())
    proxy.reload(cluster.config(history=7))
    log = proxy.wait_for_log("configuration reload: listener rw: router options changed", after=mark)
    mark = len(log)
    proxy.reload("this is [not toml")
    proxy.wait_for_log("configuration reload failed, keeping the current configuration", after=mark)
    conn = cluster.connect()
    assert scalar(conn, "SELECT 1") == 1
    conn.close()
    proxy.config.write_text(cluster.config())


def test_reload_removes_and_adds_servers(cluster):
    proxy = cluster.proxy
    mark = len(proxy.log_text())
    proxy.reload(cluster.config(with_replica=False))
    proxy.wait_for_log("configuration reload: server db2 removed", after=mark)
    deadline = time.monotonic() + 10
    while [x["name"] for x in cluster.stats()["servers"]] != ["db1"]:
        assert time.monotonic() < deadline, cluster.stats()["servers"]
        time.sleep(0.05)
    # New sessions have no replica: their reads fall back to the primary.
    conn = cluster.connect()
    assert scalar(conn, "SELECT @@server_id") == PRIMARY_ID
    conn.close()
    mark = len(proxy.log_text())
    proxy.reload(cluster.config())
    proxy.wait_for_log("configuration reload: server db2 added", after=mark)
    deadline = time.monotonic() + 10
    while True:
        db2 = [x for x in cluster.stats()["servers"] if x["name"] == "db2"]
        if db2 and (db2[0]["status"], db2[0]["role"]) == ("up", "replica"):
            break
        assert time.monotonic() < deadline, cluster.stats()["servers"]
        time.sleep(0.05)
    conn = cluster.connect()
    assert scalar(conn, "SELECT @@server_id") == REPLICA_ID
    conn.close()


def test_malformed_and_unsupported_commands_get_clean_errors(cluster):
    conn = cluster.connect()
    cases = [
        (0x17, b"\x01"),                                   # COM_STMT_EXECUTE, truncated
        (0x17, b"\x63\x00\x00\x00\x00\x01\x00\x00\x00"),   # COM_STMT_EXECUTE, unknown statement
        (0x1c, b"\x01"),                                   # COM_STMT_FETCH, truncated
        (0x1a, b"\x09\x00\x00\x00"),                       # COM_STMT_RESET, unknown statement
        (0x0c, b"\x01\x00\x00\x00"),                       # COM_PROCESS_KILL (ids differ per backend)
        (0x30, b""),                                       # no such command
    ]
    for command, data in cases:
        conn._execute_command(command, data)
        with pytest.raises(pymysql.err.MySQLError) as e:
            conn._read_packet()
        assert e.value.args[0] in (1835, 1243, 1047), (command, e.value.args)
        # The session goes on.
        assert scalar(conn, "SELECT 1") == 1
    conn.close()
    # Garbage instead of a handshake response: that connection is dropped, nothing else.
    for garbage in (os.urandom(300), b"\x05\x00\x00\x01hello", b"\xff\xff\xff\x01" + os.urandom(64)):
        with socket.create_connection(("127.0.0.1", cluster.ports["rw"]), timeout=5) as s:
            s.recv(1024)
            s.sendall(garbage)
            s.settimeout(5)
            try:
                while s.recv(1024):
                    pass
            except OSError:
                pass
    assert cluster.proxy.proc.poll() is None
    conn = cluster.connect()
    assert scalar(conn, "SELECT 1") == 1
    conn.close()


def _read_only_load(port, seconds, results):
    results.append(sysbench(port, "oltp_read_only", "run", tables=SYSBENCH_TABLES, table_size=SYSBENCH_ROWS,
                            threads=SYSBENCH_THREADS, time_s=seconds, ps_mode="disable", extra=["--skip_trx=on"]))


def test_replica_killed_mid_run_reads_continue(cluster):
    results = []
    load = threading.Thread(target=_read_only_load, args=(cluster.ports["rw"], 5, results))
    load.start()
    time.sleep(1.5)
    cluster.pair.replica.proc.kill()
    cluster.pair.replica.proc.wait()
    load.join(60)
    r = results[0]
    assert r["returncode"] == 0 and not r.get("fatal"), r["output"][-3000:]
    assert r.get("ignored_errors", 0) == 0, r["output"][-2000:]
    cluster.proxy.wait_for_log("server db2 is down", timeout=10)
    s = cluster.stats()
    assert s["routing"]["fallback_primary"] > 0
    # Reads keep working on the primary; the replica comes back and is used again.
    conn = cluster.connect()
    assert scalar(conn, "SELECT @@server_id") == PRIMARY_ID
    conn.close()
    cluster.pair.replica.start()
    cluster.proxy.wait_for_log("server db2 is back up (role=replica)", timeout=30)
    cluster.pair.sync()
    conn = cluster.connect()
    assert scalar(conn, "SELECT @@server_id") == REPLICA_ID
    conn.close()


def test_primary_killed_writes_fail_clearly_reads_continue(cluster):
    conn = cluster.connect()
    assert scalar(conn, "SELECT COUNT(*) FROM routing") == 50
    cluster.pair.primary.proc.kill()
    cluster.pair.primary.proc.wait()
    cluster.proxy.wait_for_log("server db1 is down", timeout=10)
    # Writes: the fail_on_write error, in the session that was open and in a new one.
    for c in (conn, cluster.connect()):
        with pytest.raises(pymysql.err.MySQLError) as e:
            execute(c, "INSERT INTO routing VALUES (1000, 0)")
        assert e.value.args[0] == 1290, e.value.args
        assert "no primary server is available" in e.value.args[1]
        # Reads go on, on the replica.
        assert execute(c, "SELECT COUNT(*), @@server_id FROM routing") == ((50, REPLICA_ID),)
    # A transaction begun now runs on the replica; its reads work, its writes fail the same way.
    c = cluster.connect()
    execute(c, "BEGIN")
    assert scalar(c, "SELECT COUNT(*) FROM routing") == 50
    with pytest.raises(pymysql.err.MySQLError) as e:
        execute(c, "UPDATE routing SET v = 0")
    assert e.value.args[0] == 1290
    execute(c, "ROLLBACK")
    c.close()
    conn.close()
    # libmariadb (the mariadb CLI, sysbench) sees the same clean errors: it refuses ERR packets
    # carrying client-library error numbers (2000..2999) as "malformed packet".
    p = mariadb_cli(cluster.ports["rw"], "INSERT INTO routing VALUES (1001, 0)", database="proxytest", check=False)
    assert p.returncode == 1 and "ERROR 1290" in p.stderr and "no primary server is available" in p.stderr, p.stderr
    p = mariadb_cli(cluster.ports["rcr_primary"], "SELECT 1", check=False)
    assert p.returncode == 1 and "ERROR 1429" in p.stderr and "no primary server is available" in p.stderr, p.stderr
    p = mariadb_cli(cluster.ports["rw"], "SELECT COUNT(*), @@server_id FROM routing", database="proxytest",
                    extra=["--batch", "--skip-column-names"])
    assert p.stdout.split() == ["50", str(REPLICA_ID)], p.stdout
    # A read-only workload through the proxy runs without a single error.
    results = []
    _read_only_load(cluster.ports["rw"], 2, results)
    assert results[0]["returncode"] == 0 and not results[0].get("fatal"), results[0]["output"][-3000:]
    assert cluster.stats()["routing"]["write_failed"] >= 3
