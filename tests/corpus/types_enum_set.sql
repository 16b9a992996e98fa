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
