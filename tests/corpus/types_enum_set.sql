-- ENUM and SET columns: members, indexes, invalid values (1265, '' when not strict), defaults.
CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY, a ENUM('x','yy','Zz') NOT NULL, b SET('a','b','c'), c ENUM('p','q') DEFAULT 'q');
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e' ORDER BY ORDINAL_POSITION;
SET sql_mode = '';
INSERT INTO e (a, b) VALUES ('yy', 'c,a'), ('Zz', 'a,a,b'), ('bad', 'x,a'), (2, 5), (0, 0), (4, 8), ('x ', 'b ,c');
INSERT INTO e (b) VALUES ('b');
INSERT INTO e (a, c) VALUES (DEFAULT, DEFAULT);
SELECT id, a, b, c FROM e ORDER BY id;
SELECT id FROM e WHERE a = 'yy' ORDER BY id;
SELECT id FROM e WHERE b = 'a,c' ORDER BY id;
SET sql_mode = 'STRICT_TRANS_TABLES';
INSERT INTO e (a) VALUES ('nope');
INSERT INTO e (b) VALUES ('a,nope');
INSERT INTO e (a, b) VALUES ('Zz', 'c,b');
SELECT a, b FROM e WHERE id = 10;
CREATE TABLE q (s ENUM('it''s', 'a\\b', 'x'));
SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'q';
INSERT INTO q VALUES ('it''s');
SELECT s FROM q;
-- An ENUM is its index in numeric context, against numbers, and in ORDER BY.
SET sql_mode = '';
CREATE TABLE ei (id INT PRIMARY KEY, a ENUM('x','yy','Zz') NOT NULL, c ENUM('p','q'));
INSERT INTO ei VALUES (1, 'yy', 'q'), (2, 'Zz', NULL), (3, 'bad', 'p'), (4, 2, 'q'), (5, 'x', 'p');
SELECT id, a, a + 0, c + 0, a = 2, a = 'yy', a > 1 FROM ei ORDER BY id;
SELECT id, a FROM ei ORDER BY a, id;
SELECT id, c FROM ei ORDER BY c DESC, id;
SELECT id FROM ei WHERE a IN ('x', 'Zz') ORDER BY id;
-- ENUM / SET in numeric context: index / bit mask, as in arithmetic.
CREATE TABLE sn (id INT PRIMARY KEY, v SET('a','b','c','d'), k ENUM('x','y','z'), z INT(5) ZEROFILL);
INSERT INTO sn VALUES (1, 'a,c', 'z', 42), (2, 'b', 'x', 7), (3, '', 'y', 123), (4, 'd', NULL, NULL);
SELECT id, -v, ABS(v), v & 1, v | 8, ~v & 15, v << 1, -k, ABS(k), k | 8 FROM sn ORDER BY id;
SELECT SQRT(v), ROUND(v), FLOOR(k), SIGN(v), BIT_COUNT(v), MOD(v, 3), POW(k, 2) FROM sn ORDER BY id;
SELECT SUM(v), AVG(v), BIT_OR(v), BIT_AND(v), MAX(v), MIN(v), SUM(k), AVG(k), BIT_XOR(k), MAX(k) FROM sn;
SELECT SUM(DISTINCT v), STD(v), VARIANCE(k) FROM sn;
SELECT id, v FROM sn ORDER BY v;
SELECT id, v FROM sn ORDER BY v DESC;
SELECT id FROM sn ORDER BY 2;
SELECT id, v FROM sn ORDER BY v + 0 DESC;
-- ZEROFILL read as a string: LIKE and GROUP_CONCAT see the padded text.
SELECT id FROM sn WHERE z LIKE '000%' ORDER BY id;
SELECT id FROM sn WHERE z LIKE '%42' ORDER BY id;
SELECT id FROM sn WHERE z NOT LIKE '0%' ORDER BY id;
SELECT GROUP_CONCAT(z ORDER BY id), GROUP_CONCAT(z, '-', id ORDER BY z DESC) FROM sn;
