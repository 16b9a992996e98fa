-- SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT and statement atomicity (issue 11 item 1).
CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, u INT, UNIQUE KEY uu (u), KEY kv (v));
INSERT INTO t VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3);

-- Outside a transaction a savepoint vanishes at once.
SAVEPOINT s0;
ROLLBACK TO SAVEPOINT s0;
RELEASE SAVEPOINT s0;

BEGIN;
UPDATE t SET v = 11 WHERE id = 1;
SAVEPOINT s;
UPDATE t SET v = v + 100;
DELETE FROM t WHERE id = 2;
INSERT INTO t VALUES (4, 40, 4), (5, 50, 5);
UPDATE t SET id = 30, u = 33 WHERE id = 3;
SELECT * FROM t ORDER BY id;
ROLLBACK TO SAVEPOINT s;
SELECT @@in_transaction;
SELECT * FROM t ORDER BY id;
SELECT id FROM t WHERE v = 130;
SELECT id FROM t WHERE u = 33;
SELECT id FROM t FORCE INDEX (kv) WHERE v > 0 ORDER BY v;
DELETE FROM t;
ROLLBACK TO s;
INSERT INTO t VALUES (4, 44, 4);
COMMIT;
SELECT * FROM t ORDER BY id;

-- Nesting: rolling back to b drops c; moving a savepoint by name; RELEASE drops later ones.
BEGIN;
SAVEPOINT a;
INSERT INTO t VALUES (5, 50, 5);
SAVEPOINT b;
INSERT INTO t VALUES (6, 60, 6);
SAVEPOINT c;
INSERT INTO t VALUES (7, 70, 7);
ROLLBACK WORK TO SAVEPOINT B;
SELECT MAX(id) FROM t;
ROLLBACK TO SAVEPOINT c;
INSERT INTO t VALUES (8, 80, 8);
SAVEPOINT a;
INSERT INTO t VALUES (9, 90, 9);
ROLLBACK TO SAVEPOINT a;
SELECT id FROM t WHERE id > 4 ORDER BY id;
RELEASE SAVEPOINT b;
ROLLBACK TO SAVEPOINT a;
RELEASE SAVEPOINT nope;
COMMIT;
ROLLBACK TO SAVEPOINT b;
SELECT id FROM t ORDER BY id;

-- Autocommit off: a savepoint before the first statement covers the whole transaction.
SET autocommit = 0;
SAVEPOINT start;
UPDATE t SET v = 0;
INSERT INTO t VALUES (10, 100, 10);
ROLLBACK TO SAVEPOINT start;
SELECT COUNT(*), SUM(v) FROM t;
INSERT INTO t VALUES (11, 110, 11);
COMMIT;
SET autocommit = 1;
SELECT id, v FROM t ORDER BY id;

-- Statement atomicity: a multi-row INSERT failing at its third row leaves none of its rows;
-- an UPDATE failing half way changes nothing; the transaction's earlier work stays.
BEGIN;
INSERT INTO t VALUES (12, 120, 12);
INSERT INTO t VALUES (13, 130, 13), (14, 140, 14), (15, 150, 1), (16, 160, 16);
UPDATE t SET id = id + 1 ORDER BY id;
UPDATE t SET u = 99 WHERE id >= 3;
SELECT @@in_transaction;
COMMIT;
SELECT * FROM t ORDER BY id;
INSERT INTO t VALUES (17, 170, 17), (18, 180, 4);
SELECT COUNT(*) FROM t;

-- Locks taken after a savepoint stay held after rolling back to it (InnoDB keeps them).
BEGIN;
SAVEPOINT s;
UPDATE t SET v = 0 WHERE id = 1;
ROLLBACK TO SAVEPOINT s;
-- connection b
SET SESSION innodb_lock_wait_timeout = 1;
UPDATE t SET v = 5 WHERE id = 1;
-- connection a
COMMIT;
-- connection b
UPDATE t SET v = 5 WHERE id = 1;
SELECT v FROM t WHERE id = 1;

-- Once the transaction has used the engine before the savepoint, locks taken after it stay held
-- (locking reads, UPDATE, DELETE), except the lock of a row inserted after it (InnoDB's insert
-- lock is implicit and goes away with the row).
-- connection a
BEGIN;
SELECT v FROM t WHERE id = 4 FOR UPDATE;
SAVEPOINT s;
SELECT v FROM t WHERE id = 1 FOR UPDATE;
UPDATE t SET v = v + 1 WHERE id = 2;
DELETE FROM t WHERE id = 3;
INSERT INTO t VALUES (50, 500, 50);
ROLLBACK TO SAVEPOINT s;
-- connection b
UPDATE t SET v = 9 WHERE id = 1;
UPDATE t SET v = 9 WHERE id = 2;
UPDATE t SET v = 9 WHERE id = 3;
UPDATE t SET v = 9 WHERE id = 4;
INSERT INTO t VALUES (50, 501, 51);
SELECT id, v, u FROM t WHERE id = 50;
-- connection a
COMMIT;
SELECT id, v FROM t WHERE id <= 4 ORDER BY id;

-- A savepoint after a plain read: the read started the engine's transaction.
BEGIN;
SELECT COUNT(*) FROM t;
SAVEPOINT s;
UPDATE t SET v = 7 WHERE id = 1;
ROLLBACK TO SAVEPOINT s;
-- connection b
UPDATE t SET v = 8 WHERE id = 1;
-- connection a
ROLLBACK;
-- connection b
UPDATE t SET v = 8 WHERE id = 1;
SELECT v FROM t WHERE id = 1;
