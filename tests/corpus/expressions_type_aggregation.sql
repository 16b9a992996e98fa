-- Issue 15 item 4: expression semantics that gave wrong rows without an error. IF / IFNULL /
-- COALESCE / CASE results that aggregate to a string are strings (compared, sorted and grouped
-- as text); string functions, LIKE, CAST AS CHAR and GROUP_CONCAT print FLOAT, BIT and
-- DATETIME(n) values as their types print them; shift counts from strings truncate; LOCATE of
-- the empty string; ROUND past 308 digits; the negation of an unsigned constant past 2^63.
CREATE TABLE ti (a INT);
INSERT INTO ti VALUES (1), (NULL), (3);
SELECT a, IFNULL(a, 'x') = '1', COALESCE(a, 'x') = '3', IF(a IS NULL, 'x', a) IN ('1', 'x'), CASE WHEN a IS NULL THEN 'x' ELSE a END = '3', IFNULL(a, 'x') LIKE '1%' FROM ti;
SELECT a, IFNULL(a, 'x') != 'abc', COALESCE(a, 'x') = 'x', IF(a IS NULL, 'x', a) = 'x' FROM ti;
SELECT IFNULL(a, 'x') FROM ti ORDER BY 1;
SELECT a FROM ti WHERE IFNULL(a, 'x') > '2';
SELECT IF(a > 1, a, 'x') AS r, COUNT(*) FROM ti GROUP BY r ORDER BY r;
SELECT COALESCE(a, 2.5), IFNULL(a, 1e0), IFNULL(1, 'x') + 0, COALESCE(2, 'abc'), CASE WHEN 1 THEN 2 ELSE 'a' END = '2.0' FROM ti;
CREATE TABLE tf (f FLOAT, d DOUBLE, dt DATE, t TIME(2), dc DECIMAL(5,2), b BIT(3), y YEAR, z INT(4) ZEROFILL, dtm DATETIME(3));
INSERT INTO tf VALUES (0.1, 0.1, '2020-01-01', '10:00:00.5', 1.5, b'101', 2020, 7, '2020-01-01 10:00:00.5');
SELECT IFNULL(f, 'x'), IFNULL(t, 'x'), IFNULL(dt, 'x'), IFNULL(dc, 'x'), COALESCE(d, 'x'), IF(1, b, 'x') = '5', IFNULL(y, 'x'), IFNULL(z, 'x'), IFNULL(dtm, 'x'), CASE WHEN 1 THEN dtm ELSE 'x' END AS c FROM tf;
SELECT IFNULL(f, 'x') = '0.1', IFNULL(dc, 'x') = '1.50', IFNULL(dt, 'x') = '2020-01-01', IFNULL(z, 'x') = '0007', IFNULL(dtm, 'x') = '2020-01-01 10:00:00.500' FROM tf;
SELECT CONCAT(f), LENGTH(f), CONCAT(b) = '5', HEX(CONCAT(b)), CONCAT(dtm), CONCAT(dt), LEFT(f, 3), CONCAT(dc), REPLACE(f, '1', '2'), LPAD(f, 6, '*'), CONCAT_WS(',', f, dtm), UPPER(f), f LIKE '0.1%', SUBSTR(dtm, 1, 30) FROM tf;
SELECT GROUP_CONCAT(f), GROUP_CONCAT(dtm), MAX(CONCAT(f)) FROM tf;
SELECT f = '0.1', f IN ('0.1'), CONCAT(f) = '0.1', BIN(b), HEX(b), OCT(b) FROM tf;
SELECT CAST(f AS CHAR), CONVERT(f, CHAR), CAST(dtm AS CHAR), CAST(b AS CHAR) = '5' FROM tf;
SELECT 8 >> '0.77', 8 << '1.9', 8 >> '1e0', 8 >> ' 1.5', 8 >> '-1', 8 >> 1.5, 8 >> 1.5e0, 8 << '2abc', '8.7' >> 0, '8.7' << 0;
SELECT 8 >> '1.9', 8 >> ' 3', 1 << '63.9', 1 << '64', 8 >> '', 8 >> 'x', 8 >> '0x2', 8 >> '1.9e0', 8 >> '+1.9', 8 >> '99999999999999999999';
SELECT 1 & '3.9', ~'1.5', '8' >> 1.6, 5 DIV '2.7', 7 MOD '2.5', 1 | 'x', 0 | '18446744073709551616', 0 | '-1.5', 0 | '9007199254740993', ~'';
SELECT 0 | 1e30, 0 | -1e30, 0 | 99999999999999999999.5;
SELECT LOCATE('', 'abc', 4), LOCATE('', 'abc', 5), LOCATE('', 'abc', 1), LOCATE('', 'abc', 3), LOCATE('', 'abc', 0), LOCATE('', '', 1), LOCATE('', 'abc', -1), POSITION('' IN 'abc'), INSTR('abc', ''), LOCATE('b', 'abc', 4);
SELECT LOCATE('', ''), INSTR('', ''), LOCATE('', 'é', 2), LOCATE('', 'éa', 2), LOCATE('', 'éa', 3), LOCATE('', 'ab', 3), LOCATE('', 'éé', 4), LOCATE('', 'é', 3), LOCATE('', 'ab', 1.5);
SELECT ROUND(1.5e0, 309), ROUND(15, 400), ROUND(1.5, 309), ROUND(1e308, 310), TRUNCATE(1.5e0, 400);
SELECT -CAST(18446744073709551615 AS UNSIGNED), -CAST(9223372036854775808 AS UNSIGNED), -(9223372036854775808), -(18446744073709551615), -CAST(9223372036854775809 AS UNSIGNED), -CAST(1 AS UNSIGNED);
CREATE TABLE tu (u BIGINT UNSIGNED);
INSERT INTO tu VALUES (18446744073709551615), (1);
SELECT -u FROM tu;
SELECT -u FROM tu WHERE u = 1;
