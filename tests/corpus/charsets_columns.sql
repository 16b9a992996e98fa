-- Columns that declare a character set or collation keep it: SHOW CREATE TABLE,
-- information_schema.COLUMNS, COLLATION() and comparisons follow it.
CREATE TABLE k (id INT PRIMARY KEY, a VARCHAR(5) COLLATE utf8mb4_general_ci, b VARCHAR(5) CHARACTER SET latin1, c VARCHAR(5) COLLATE utf8mb4_bin, d TEXT COLLATE utf8mb4_unicode_ci);
INSERT INTO k VALUES (1, 'a', 'x', 'c', 'd'), (2, 'A', 'X', 'C', 'D'), (3, 'b', 'é', 'c', 'e');
SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'k' AND DATA_TYPE = 'varchar' ORDER BY ORDINAL_POSITION;
SELECT id FROM k WHERE a = 'A' ORDER BY id;
SELECT id FROM k WHERE b = 'E' ORDER BY id;
SELECT id FROM k WHERE c = 'C' ORDER BY id;
SELECT COLLATION(a), COLLATION(b), COLLATION(c), COERCIBILITY(a) FROM k WHERE id = 1;
SELECT COUNT(*) FROM (SELECT DISTINCT a FROM k) d;
SELECT GROUP_CONCAT(id ORDER BY id) FROM k GROUP BY a;
SELECT a FROM k ORDER BY a, id;
SELECT id FROM k WHERE a = b OR a = c ORDER BY id;
SELECT id FROM k WHERE a = d;
CREATE TABLE k2 (a VARCHAR(3) CHARACTER SET latin1 COLLATE utf8mb4_bin);
CREATE TABLE k2 (a VARCHAR(3) COLLATE nope);
CREATE TABLE k2 (a VARCHAR(3) CHARACTER SET nope);
-- A column collation equal to the table's is not repeated.
CREATE TABLE k3 (a VARCHAR(5) COLLATE utf8mb4_bin, b VARCHAR(5) COLLATE utf8mb4_general_ci) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
SHOW CREATE TABLE k3;
-- A latin1 / ascii column holds what its set can: other characters become '?' with 1366
-- (an error in strict mode).
CREATE TABLE l (id INT PRIMARY KEY, b VARCHAR(5) CHARACTER SET latin1, c VARCHAR(9) CHARACTER SET ascii);
SET sql_mode = 'STRICT_TRANS_TABLES';
INSERT INTO l VALUES (1, 'aĀb€é', 'x');
SET sql_mode = '';
INSERT INTO l VALUES (2, 'aĀb€', 'é😀x');
SELECT id, b, c FROM l ORDER BY id;
INSERT INTO l VALUES (3, 'Åé', 'ok');
SELECT id FROM l WHERE b = 'AE' ORDER BY id;
SELECT b FROM l ORDER BY b;
-- IN (subquery) compares in the aggregated collation too.
SELECT id FROM k WHERE a IN (SELECT 'A') ORDER BY id;
SELECT id FROM k WHERE c IN (SELECT a FROM k) ORDER BY id;
SELECT id FROM k WHERE 'B' IN (SELECT a FROM k) ORDER BY id;
