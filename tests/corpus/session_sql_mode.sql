-- sql_mode flags that change how statement text is read (issue 15 item 6), and executable
-- comments (/*! and /*M! with MariaDB's version rule).
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z');

SELECT 'a\nb', LENGTH('a\nb'), 'it''s', LENGTH('\\');
SET sql_mode = 'NO_BACKSLASH_ESCAPES';
SELECT 'a\nb', LENGTH('a\nb'), 'it''s', LENGTH('\\'), LENGTH('\');
SELECT "x\y";
INSERT INTO a VALUES (4, 'c:\dir\new');
SELECT v, LENGTH(v) FROM a WHERE v = 'c:\dir\new';
SELECT v FROM a WHERE v LIKE 'c:\\dir%';
SELECT @@sql_mode;
SET sql_mode = DEFAULT;
SELECT v, LENGTH(v) FROM a WHERE id = 4;

SELECT "id" FROM a ORDER BY id;
SET sql_mode = 'ANSI_QUOTES';
SELECT "id", "v" FROM a ORDER BY "id";
SELECT "a""b" FROM a;
SELECT 'str', "id" FROM a WHERE "id" = 1;
SET sql_mode = 'PIPES_AS_CONCAT';
SELECT 'a' || 'b', 1 || 2, v || '!' FROM a WHERE id = 1;
SET sql_mode = 'ANSI';
SELECT @@sql_mode;
SELECT 'a' || 'b', "v" FROM a WHERE id = 1;
SET sql_mode = 'TRADITIONAL';
SELECT @@sql_mode;
SET sql_mode = DEFAULT;
SELECT 'a' || 'b';

SELECT 1 /*!80001 + 1 */;
SELECT 1 /*!50700 + 1 */;
SELECT 1 /*!40101 + 1 */;
SELECT 1 /*!+ 1 */;
SELECT 1 /*M!50800 + 1 */;
SELECT 1 /*M!100100 + 1 */;
SELECT 1 /*M!110000 + 1 */;
SELECT 1 /*!101199 + 1 */;
SELECT 1 /*!100000 + 1 */;
SELECT 1 /*!40101 + 1 */ + 2;
SELECT 1 /* c */ + 2;
SELECT 1 /*!1234567 + 1 */;
SELECT 1 /*!9 + 1 */;
SELECT id /*!40101 , v */ FROM a ORDER BY id;

-- NO_ZERO_DATE / NO_ZERO_IN_DATE (Laravel's strict mode sets both).
CREATE TABLE dz (id INT PRIMARY KEY, d DATE, dt DATETIME);
SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE';
INSERT INTO dz VALUES (1, '0000-00-00', NULL);
INSERT INTO dz VALUES (2, '2020-00-10', NULL);
INSERT INTO dz VALUES (5, '2020-01-10', '0000-00-00 00:00:00');
SET sql_mode = 'NO_ZERO_DATE,NO_ZERO_IN_DATE';
INSERT INTO dz VALUES (3, '0000-00-00', '2020-01-00');
SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE';
INSERT INTO dz VALUES (4, '2020-00-10', NULL);
UPDATE dz SET d = '0000-00-00' WHERE id = 4;
INSERT IGNORE INTO dz VALUES (6, '0000-00-00', NULL);
SELECT * FROM dz ORDER BY id;
SET sql_mode = 'TRADITIONAL';
INSERT INTO dz VALUES (7, '2020-02-00', NULL);
SET sql_mode = DEFAULT;
INSERT INTO dz VALUES (8, '0000-00-00', '2020-00-00');
SELECT * FROM dz ORDER BY id;
