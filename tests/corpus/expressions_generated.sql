-- Issue 15 item 4: expression semantics found wrong by generated queries (scripts/expr_fuzz.py),
-- each checked on MariaDB 10.11.
-- A text statement's constants become parameters of a cached plan (auto-parameterization): the
-- plan is bound with their types, and kept for constants of the same kinds only. A string column
-- against a number compares numbers (' 1' = 1, '1abc' = 1 with 1292), against a string collated
-- text; bound without types, `c = 0` compared sort keys as numbers and matched every row.
CREATE TABLE tc (id INT PRIMARY KEY, c VARCHAR(10), e ENUM('a','b','10'));
INSERT INTO tc VALUES (1, ' 1', 'a'), (2, '1abc', 'b'), (3, '10', '10'), (4, 'a', 'a');
SELECT id FROM tc WHERE c = 0;
SELECT id FROM tc WHERE c = '0';
SELECT id FROM tc WHERE c = 1;
SELECT id FROM tc WHERE c = '1';
SELECT id FROM tc WHERE c > 0 ORDER BY id;
SELECT id FROM tc WHERE c IN (0, 10) ORDER BY id;
SELECT id FROM tc WHERE c = 1.0 ORDER BY id;
SELECT id FROM tc WHERE c = 1e0 ORDER BY id;
SELECT id FROM tc WHERE CONCAT(c) = 0;
SELECT id FROM tc WHERE e = 1 ORDER BY id;
SELECT id FROM tc WHERE e = '10';
SELECT id FROM tc WHERE e = 3;
SELECT id FROM tc WHERE c IN ('10', 'a') ORDER BY id;
SELECT id FROM tc WHERE c NOT IN (1, 2) ORDER BY id;
PREPARE s FROM 'SELECT id FROM tc WHERE c = ? ORDER BY id';
SET @p = 0;
EXECUTE s USING @p;
SET @p = 'a';
EXECUTE s USING @p;
EXECUTE s USING 1;
DEALLOCATE PREPARE s;
-- An ENUM compared with a string compares in the column's collation (IMPLICIT), not the literal's.
CREATE TABLE en_ci (id int PRIMARY KEY, u ENUM('METER', 'SECOND') COLLATE utf8mb4_unicode_ci, b ENUM('METER', 'SECOND') COLLATE utf8mb4_bin);
INSERT INTO en_ci VALUES (1, 'METER', 'METER'), (2, 'SECOND', 'SECOND');
SELECT id, b = 'meter', u = 'meter', b IN ('meter', 'x'), u IN ('meter', 'x'), b LIKE 'met%', u LIKE 'met%' FROM en_ci ORDER BY id;
SELECT id FROM en_ci WHERE b = 'meter';
-- Conditions (WHERE, HAVING, AND / OR / XOR / NOT, IF, CASE WHEN, IS TRUE) read their operand as a
-- number: an ENUM is its index, a SET its bit mask, a TIME HHMMSS, b'101' / 0x05 the number 5.
-- Unary minus, ~ and SUM / AVG / BIT_* read a TIME as HHMMSS too.
CREATE TABLE tb (id INT PRIMARY KEY, e ENUM('a','b','10'), s SET('x','y','1'), tm TIME);
INSERT INTO tb VALUES (1, NULL, NULL, NULL), (2, 'a', '', '00:00:00'), (3, 'b', 'x', '-01:02:03'), (4, '10', 'x,y', '838:59:59'), (5, 'a', 'y,1', '00:00:01'), (6, '10', '1', '12:34:56');
SELECT id FROM tb WHERE e ORDER BY id;
SELECT id FROM tb WHERE s ORDER BY id;
SELECT id FROM tb WHERE tm ORDER BY id;
SELECT id FROM tb WHERE NOT tm ORDER BY id;
SELECT id, e AND 1, s OR 0, tm XOR 0, NOT e, NOT s, e IS TRUE, tm IS FALSE, IF(e, 'y', 'n'), IF(tm, 'y', 'n'), CASE WHEN s THEN 'y' ELSE 'n' END FROM tb ORDER BY id;
SELECT 1 AND b'101', NOT 0x05, IF(b'1', 'y', 'n'), CASE WHEN 0x00 THEN 'y' ELSE 'n' END, b'101' IS TRUE, 0x31 XOR 0;
SELECT id, -tm, ~tm FROM tb ORDER BY id;
SELECT SUM(tm), AVG(tm), BIT_OR(tm), BIT_AND(tm), MAX(-tm), SUM(e), BIT_OR(s) FROM tb;
-- sorted
SELECT e, COUNT(*) FROM tb GROUP BY e HAVING e;
UPDATE tb SET e = 'b' WHERE tm;
DELETE FROM tb WHERE NOT s;
SELECT * FROM tb ORDER BY id;
-- A set operation's branches are read as the result's types: a number or a date under a string
-- column is its text (so '10' UNION 10 is one row; DATETIME(3) keeps its digits), an integer
-- under a DOUBLE column a double.
CREATE TABLE tu2 (id INT PRIMARY KEY, c VARCHAR(10), dtm DATETIME(3), bi BIGINT, d DOUBLE, u BIGINT UNSIGNED, e ENUM('a','10'));
INSERT INTO tu2 VALUES (1, '10', '2020-01-01 10:00:00.5', 9223372036854775807, 0.5, 18446744073709551615, '10'), (2, 'a', '2001-01-01 00:00:00', -1, 1, 10, 'a');
-- sorted
SELECT c FROM tu2 UNION SELECT 10 FROM tu2;
-- sorted
SELECT 1 UNION SELECT dtm FROM tu2;
-- sorted
SELECT d FROM tu2 UNION SELECT bi FROM tu2;
-- sorted
SELECT u FROM tu2 UNION SELECT e FROM tu2;
-- sorted
SELECT 1 UNION ALL SELECT 2.5 UNION SELECT 'x' UNION SELECT 1;
-- sorted
SELECT c FROM tu2 INTERSECT SELECT 10;
-- sorted
SELECT c FROM tu2 EXCEPT SELECT 10;
-- Arguments read as numbers (math functions, numeric CASTs, the lengths / counts / positions of
-- string functions, ELT's index) read an ENUM as its index, a SET as its mask, a TIME as HHMMSS.
SELECT id, CAST(e AS UNSIGNED), CAST(s AS SIGNED), CAST(tm AS DECIMAL(10,2)), CAST(tm AS DOUBLE), CAST(e AS DOUBLE), CAST(b'101' AS DOUBLE), CAST(0x05 AS UNSIGNED) FROM tb ORDER BY id;
SELECT id, LPAD(1, e, 'x'), LEFT('abcdefgh', tm), SUBSTRING('abcdefghijkl', e, s), REPEAT('x', e), ELT(e, 'p', 'q', 'r'), RIGHT('abc', s), INSERT('abcdef', e, s, 'Z') FROM tb ORDER BY id;
SELECT id, SQRT(tm), POW(tm, 2), ABS(tm), SIGN(tm), ROUND(e, 1), MOD(tm, 7), BIT_COUNT(s) FROM tb ORDER BY id;
-- Bit operations read a TIME as HHMMSS, an ENUM / SET as a number, b'101' as 5; BIT_OR / BIT_XOR /
-- BIT_AND read a DOUBLE rounded and held to the signed range.
CREATE TABLE tbits (id INT PRIMARY KEY, d DOUBLE, f FLOAT, tm TIME, e ENUM('a','b','10'), s SET('x','y','1'));
INSERT INTO tbits VALUES (1, NULL, NULL, NULL, NULL, NULL), (2, 0, 0, '00:00:00', 'a', ''), (3, -1, -0.5, '-01:02:03', 'b', 'x'), (4, 1.7e308, 3.4e38, '838:59:59', '10', 'x,y'), (5, 0.1, 1.5, '12:34:56', 'a', 'y,1'), (6, 2.5, 0.1, '23:59:59', '10', '1'), (7, -0.0, 1e-5, '00:00:01', 'b', 'x,1');
SELECT id, tm ^ 1, tm & 0x0f, s | 0, e << 1, 1 | b'101', ~e FROM tbits ORDER BY id;
SELECT BIT_XOR(d + 0), BIT_OR(f), BIT_AND(d * 1), BIT_OR(-d) FROM tbits;
-- IN: a TIME among the operands compares times; an ENUM / SET beside numbers is its index / mask;
-- a list of strings and numbers compares each pair in its own type.
SELECT id, tm IN (1, 0), 1 IN (0, tm), e IN (1, 3), s IN (1, 2), e IN (1, 'b'), e NOT IN (1, 'b'), e IN (NULL, 'a', 3), tm IN ('00:00:01', 0) FROM tbits ORDER BY id;
SELECT id FROM tbits WHERE e IN (2, 'a') ORDER BY id;
SELECT c, c IN (0, 'A'), c NOT IN (1, 'b'), c IN ('A', 1, NULL) FROM (SELECT 'a' AS c UNION ALL SELECT ' 1' UNION ALL SELECT 'x' UNION ALL SELECT 'B') t;
-- BETWEEN with a number among its operands compares all three as numbers (DECIMAL, or DOUBLE
-- once a string meets a DECIMAL / DOUBLE), an ENUM as its index; strings alone compare as text.
CREATE TABLE tbw (id INT PRIMARY KEY, c VARCHAR(10), e ENUM('a','b','10'), dc DECIMAL(10,3), u BIGINT UNSIGNED);
INSERT INTO tbw VALUES (1, NULL, NULL, NULL, NULL), (2, '', 'a', 0, 0), (3, ' 1', 'b', -1.5, 1), (4, '1abc', '10', 9999999.999, 18446744073709551615), (5, 'a', 'a', 0.5, 10), (6, '10', '10', 2.5, 2), (7, 'b', 'b', 1, 3);
SELECT id, c BETWEEN 1 AND '1.5e1', c BETWEEN '0' AND 5, e BETWEEN 1 AND 2, 'b' BETWEEN c AND 'c', c BETWEEN 'a' AND 'b', dc BETWEEN '1' AND 2, c BETWEEN 1e0 AND 2, u BETWEEN '1' AND 99999999999999999999, c NOT BETWEEN 0 AND '5' FROM tbw ORDER BY id;
SELECT id FROM tbw WHERE c BETWEEN 1 AND 10 ORDER BY id;
-- NULLIF tests with `=` and its coercions; GREATEST / LEAST beside a number read an ENUM / SET
-- as its index / mask.
SELECT id, NULLIF(0, s), NULLIF(e, 1), NULLIF(e, 'b'), NULLIF(tm, 1), LEAST(1, 1, e), GREATEST(0, s), GREATEST(e, 1.5), LEAST(e, 'b'), GREATEST(s, 'x') FROM tbits ORDER BY id;
SELECT id, NULLIF(c, 0), NULLIF(c, 'A') FROM tbw ORDER BY id;
