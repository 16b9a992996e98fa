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
