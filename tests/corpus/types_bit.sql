-- BIT(n) columns (issue 14 item 3): an unsigned number of n bits, sent as its big-endian bytes.
CREATE TABLE b1 (id INT PRIMARY KEY, b BIT(1) NOT NULL DEFAULT b'0', c BIT(10) DEFAULT b'101', d BIT(64), KEY c_key (c));
SHOW CREATE TABLE b1;
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, COLUMN_DEFAULT, NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'b1' ORDER BY ORDINAL_POSITION;
SHOW COLUMNS FROM b1;
INSERT INTO b1 VALUES (1, 1, b'1111111111', 18446744073709551615);
INSERT INTO b1 VALUES (2, 0, 5, b'101');
INSERT INTO b1 (id) VALUES (3);
SELECT * FROM b1 ORDER BY id;
SELECT id, b + 0, c + 0, d + 0, BIN(c), HEX(c), HEX(d), c = 5, c = b'101', c < 6 FROM b1 ORDER BY id;
-- Too many bits: 1406 when strict; 1264 and the largest value otherwise.
INSERT INTO b1 VALUES (4, 2, 0, 0);
INSERT INTO b1 VALUES (5, 0, 1024, 0);
INSERT INTO b1 VALUES (6, 0, -1, 0);
INSERT INTO b1 VALUES (7, 0, 'a', 0);
INSERT INTO b1 VALUES (8, 0, 1.5, 0);
SET sql_mode = '';
INSERT INTO b1 VALUES (9, 2, 1024, 0);
SET sql_mode = DEFAULT;
SELECT id, b + 0, c + 0 FROM b1 WHERE id >= 7 ORDER BY id;
-- The index on c: lookups and ranges by number and by bit literal.
SELECT id, c + 0 FROM b1 WHERE c = 5 ORDER BY id;
SELECT id, c + 0 FROM b1 FORCE INDEX (c_key) WHERE c = b'101' ORDER BY id;
SELECT id, c + 0 FROM b1 WHERE c > 4 ORDER BY c, id;
SELECT id FROM b1 WHERE c IN (2, 97) ORDER BY id;
-- Literals: b'..' and 0b.. are binary strings, numbers in arithmetic.
SELECT b'101' + 0, 0b101 + 0, x'41' + 0, 0x41 + 0, b'1000001', x'41';
UPDATE b1 SET c = c + 1 WHERE id = 2;
SELECT c + 0 FROM b1 WHERE id = 2;
SELECT MIN(c) + 0, SUM(c), COUNT(DISTINCT b) FROM b1;
CREATE TABLE b2 (b BIT(65));
CREATE TABLE b3 (b BIT(0), e BIT);
SHOW CREATE TABLE b3;
