#!/usr/bin/env python3
"""Crash torture: concurrent bank transfers and inserts, SIGKILL at random moments, restart, verify.

After every restart:
- every commit the server acknowledged is present (ledger rows and inserted items);
- nothing is present that no client ever tried to commit;
- the total balance is unchanged, and every account's balance equals the initial balance
  recomputed from the ledger (each transfer's two UPDATEs and its ledger INSERT are atomic);
- the secondary index agrees with the primary key.

Fault modes (selkied --fault-injection): none (plain SIGKILL: the OS keeps written data),
lose-unsynced (writes not yet fsynced are lost, as in a power failure), lose-unsynced,torn (also
torn page writes).

Usage: tests/crash_torture.py --kills 1000 [--fault lose-unsynced,torn] [--threads 8]
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pymysql  # noqa: E402

from harness import SelkieServer  # noqa: E402

ACCOUNTS = 50
INITIAL_BALANCE = 1000


def connect(port, db="bank"):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=db,
                           autocommit=True, connect_timeout=10, read_timeout=30, write_timeout=30)


def setup(port):
    c = connect(port, db=None)
    cur = c.cursor()
    cur.execute("CREATE DATABASE bank")
    cur.execute("USE bank")
    cur.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)")
    cur.execute("CREATE TABLE ledger (id BIGINT AUTO_INCREMENT PRIMARY KEY, client INT NOT NULL, seq INT NOT NULL,"
                " src INT NOT NULL, dst INT NOT NULL, amount INT NOT NULL, UNIQUE KEY client_seq (client, seq))")
    cur.execute("CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, client INT NOT NULL, seq INT NOT NULL,"
                " payload VARCHAR(200) NOT NULL, KEY client_seq (client, seq))")
    values = ",".join(f"({i}, {INITIAL_BALANCE})" for i in range(ACCOUNTS))
    cur.execute(f"INSERT INTO accounts VALUES {values}")
    c.close()


class Client(threading.Thread):
    """One connection doing transfers (even ids) or inserts (odd ids) until the server dies."""

    def __init__(self, port, client_id, seq_start, rng_seed):
        super().__init__(daemon=True)
        self.port, self.client_id, self.seq = port, client_id, seq_start
        self.rng = random.Random(rng_seed)
        self.acked: list[int] = []     # seqs whose COMMIT returned OK
        self.in_doubt: list[int] = []  # seqs whose COMMIT was sent but got no answer
        self.errors: list[str] = []

    def run(self):
        try:
            conn = connect(self.port)
        except Exception:
            return
        cur = conn.cursor()
        while True:
            self.seq += 1
            seq = self.seq
            committing = False
            try:
                if self.client_id % 2 == 0:
                    src, dst = self.rng.sample(range(ACCOUNTS), 2)
                    amount = self.rng.randint(1, 50)
                    cur.execute("BEGIN")
                    cur.execute("UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, src))
                    cur.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, dst))
                    cur.execute("INSERT INTO ledger (client, seq, src, dst, amount) VALUES (%s, %s, %s, %s, %s)",
                                (self.client_id, seq, src, dst, amount))
                    committing = True
                    cur.execute("COMMIT")
                else:
                    committing = True
                    cur.execute("INSERT INTO items (client, seq, payload) VALUES (%s, %s, %s)",
                                (self.client_id, seq, "x" * self.rng.randint(1, 200)))
                self.acked.append(seq)
            except pymysql.err.OperationalError as e:
                code = e.args[0] if e.args else 0
                if code in (1213, 1205):  # deadlock / lock wait timeout: rolled back, retry
                    try:
                        cur.execute("ROLLBACK")
                    except Exception:
                        pass
                    continue
                if committing:
                    self.in_doubt.append(seq)
                return  # server gone
            except (pymysql.err.InterfaceError, ConnectionError, OSError):
                if committing:
                    self.in_doubt.append(seq)
                return
            except Exception as e:  # anything else is a bug
                self.errors.append(repr(e))
                if committing:
                    self.in_doubt.append(seq)
                return


def verify(port, acked: dict[int, set], in_doubt: dict[int, set]):
    c = connect(port)
    cur = c.cursor()
    cur.execute("SELECT SUM(balance), COUNT(*) FROM accounts")
    total, n = cur.fetchone()
    assert n == ACCOUNTS and total == ACCOUNTS * INITIAL_BALANCE, f"total balance {total} over {n} accounts"

    cur.execute("SELECT client, seq, src, dst, amount FROM ledger")
    ledger = cur.fetchall()
    expected = [INITIAL_BALANCE] * ACCOUNTS
    present: dict[int, set] = {}
    for client, seq, src, dst, amount in ledger:
        present.setdefault(client, set()).add(seq)
        expected[src] -= amount
        expected[dst] += amount
    cur.execute("SELECT id, balance FROM accounts ORDER BY id")
    actual = [b for _, b in cur.fetchall()]
    assert actual == expected, "balances differ from the ledger: a transfer was not atomic"

    cur.execute("SELECT client, seq FROM items")
    for client, seq in cur.fetchall():
        present.setdefault(client, set()).add(seq)

    for client, seqs in acked.items():
        missing = seqs - present.get(client, set())
        assert not missing, f"client {client}: acknowledged commits lost: {sorted(missing)[:10]}"
    for client, seqs in present.items():
        unexpected = seqs - acked.get(client, set()) - in_doubt.get(client, set())
        assert not unexpected, f"client {client}: rows nobody committed: {sorted(unexpected)[:10]}"

    cur.execute("SELECT COUNT(*) FROM ledger FORCE INDEX (client_seq) WHERE client >= 0")
    assert cur.fetchone()[0] == len(ledger), "ledger secondary index disagrees with the primary key"
    cur.execute("SELECT COUNT(*) FROM items")
    n_items = cur.fetchone()[0]
    cur.execute("SELECT COUNT(*) FROM items FORCE INDEX (client_seq) WHERE client >= 0")
    assert cur.fetchone()[0] == n_items, "items secondary index disagrees with the primary key"
    c.close()
    return len(ledger), n_items


def pages_repaired_from_doublewrite(port) -> int:
    """Torn home pages that the last recovery restored from the doublewrite area."""
    c = connect(port)
    cur = c.cursor()
    cur.execute("SHOW GLOBAL STATUS LIKE 'Selkie_pages_repaired_from_doublewrite'")
    row = cur.fetchone()
    c.close()
    assert row is not None, "selkied does not report Selkie_pages_repaired_from_doublewrite"
    return int(row[1])


def run(kills: int, fault: str = "none", threads: int = 8, seed: int | None = None,
        min_run: float = 0.2, max_run: float = 1.5, log=print) -> dict:
    seed = seed if seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    extra = ["--buffer-pool-size", "32M", "--flush-at-commit", "1"]
    if fault != "none":
        extra += ["--fault-injection", fault]
    server = SelkieServer(extra_args=extra)
    acked: dict[int, set] = {}
    in_doubt: dict[int, set] = {}
    next_seq = 0
    stats = {"seed": seed, "kills": 0, "acked": 0, "in_doubt": 0, "pages_repaired": 0, "restarts_with_repairs": 0}
    try:
        server.start()
        setup(server.port)
        for k in range(kills):
            clients = [Client(server.port, cid, next_seq, rng.randrange(1 << 30)) for cid in range(threads)]
            next_seq += 1_000_000
            for cl in clients:
                cl.start()
            time.sleep(rng.uniform(min_run, max_run))
            server.kill()
            for cl in clients:
                cl.join(60)
                assert not cl.is_alive(), "client hung after the server was killed"
                assert not cl.errors, cl.errors
                acked.setdefault(cl.client_id, set()).update(cl.acked)
                in_doubt.setdefault(cl.client_id, set()).update(cl.in_doubt)
                stats["acked"] += len(cl.acked)
                stats["in_doubt"] += len(cl.in_doubt)
            server.start(timeout=300)
            ledger_rows, items = verify(server.port, acked, in_doubt)
            repaired = pages_repaired_from_doublewrite(server.port)
            stats["pages_repaired"] += repaired
            stats["restarts_with_repairs"] += repaired > 0
            stats["kills"] += 1
            log(f"kill {k + 1}/{kills} ({fault}): ok — {ledger_rows} transfers, {items} items, "
                f"{stats['acked']} acknowledged commits so far")
        server.stop()
    except BaseException:
        print(f"crash torture failed (seed {seed}); server log tail:\n"
              + "\n".join(server.log.read_text(errors='replace').splitlines()[-60:]) if server.log.exists() else "")
        raise
    finally:
        server.cleanup()
    return stats


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--fault", default="none", choices=["none", "lose-unsynced", "lose-unsynced,torn"])
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--seed", type=int)
    a = p.parse_args()
    stats = run(a.kills, a.fault, a.threads, a.seed)
    print(f"passed: {stats}")


if __name__ == "__main__":
    main()
