-- OPTIMIZE TABLE rebuilds the table, as InnoDB does (issue 11 item 10): MariaDB's note and
-- status rows, the rows and every index unchanged, AUTO_INCREMENT kept, the implicit commit.
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL, c VARCHAR(40), b LONGBLOB, UNIQUE KEY uc (c), KEY kk (k));
INSERT INTO t (k, c, b) VALUES (1, 'a', REPEAT('x', 20000)), (2, 'b', NULL), (3, 'c', 'small'), (2, 'd', REPEAT('y', 70000)), (5, NULL, NULL);
INSERT INTO t (k, c, b) SELECT k + 10, CONCAT(c, '2'), b FROM t;
DELETE FROM t WHERE id IN (2, 7);
UPDATE t SET k = k + 100 WHERE id = 3;
OPTIMIZE TABLE t;
SELECT id, k, c, LENGTH(b), MD5(b) FROM t ORDER BY id;
SELECT id FROM t FORCE INDEX (kk) WHERE k > 0 ORDER BY k, id;
SELECT id, c FROM t FORCE INDEX (uc) WHERE c >= 'a' ORDER BY c;
INSERT INTO t (k, c) VALUES (7, 'e');
SELECT MAX(id) FROM t;
INSERT INTO t (k, c) VALUES (8, 'a');
SHOW CREATE TABLE t;

-- Several tables, one missing; the table-list forms.
CREATE TABLE u (a INT, b VARCHAR(10));
INSERT INTO u VALUES (1, 'x'), (1, 'x'), (NULL, NULL);
OPTIMIZE TABLE u, nope, t;
OPTIMIZE NO_WRITE_TO_BINLOG TABLE u;
OPTIMIZE LOCAL TABLES u;
SELECT * FROM u ORDER BY a, b;
OPTIMIZE TABLE t, u, t;
OPTIMIZE TABLE nope;

-- The open transaction is committed first.
BEGIN;
INSERT INTO u VALUES (2, 'y');
OPTIMIZE TABLE u;
SELECT @@in_transaction;
ROLLBACK;
SELECT COUNT(*) FROM u;
BEGIN;
INSERT INTO u VALUES (3, 'z');
ANALYZE TABLE u;
SELECT @@in_transaction;
ROLLBACK;
SELECT COUNT(*) FROM u;

-- An emptied table.
DELETE FROM t;
OPTIMIZE TABLE t;
SELECT COUNT(*) FROM t;
INSERT INTO t (k, c) VALUES (1, 'again');
SELECT id, k, c FROM t;
