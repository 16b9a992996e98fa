-- Issue 14 item 1, as applications meet it: what a connection sets and reads, tables declared
-- with the charset and collation an ORM or a schema dump writes, and the comparisons, sorting,
-- grouping and unique keys that then follow the column's collation (the reference server's own
-- default is utf8mb4_bin; everything case-insensitive here is declared).

-- What drivers send and read when they connect (mysqlclient, Rails' mysql2, SQLAlchemy).
SET NAMES utf8mb4;
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;
SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection;
SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci';
SELECT @@collation_connection;
SHOW VARIABLES LIKE 'character_set_c%';
SHOW VARIABLES LIKE 'collation_connection';
SHOW SESSION VARIABLES WHERE Variable_name IN ('character_set_client', 'character_set_results', 'collation_connection');
SELECT CAST('test plain returns' AS CHAR(60)) AS anon_1;
SELECT CAST('test collated returns' AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin AS anon_1;
SET character_set_results = NULL;
SELECT @@character_set_results;
SET character_set_results = utf8mb4;
SET collation_connection = utf8mb4_unicode_ci;
SELECT @@collation_connection, @@character_set_connection;
SET NAMES utf8mb4;
SELECT @@character_set_database, @@collation_database;

-- Rails' and Django's tables: a table-level charset and collation, columns inheriting it.
CREATE TABLE `users` (
  `id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `email` varchar(191) NOT NULL,
  `name` varchar(100),
  `bio` text,
  UNIQUE INDEX `index_users_on_email` (`email`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
SHOW CREATE TABLE `users`;
INSERT INTO `users` (`email`, `name`, `bio`) VALUES ('Alice@Example.com', 'Alice', 'likes cafés');
INSERT INTO `users` (`email`, `name`, `bio`) VALUES ('alice@example.com', 'alice', 'duplicate under _ci');
INSERT INTO `users` (`email`, `name`, `bio`) VALUES ('bob@example.com', 'Bob', NULL), ('Carol@example.com', 'carol', 'Ünïcödé');
SELECT `id`, `email` FROM `users` WHERE `email` = 'ALICE@EXAMPLE.COM';
SELECT `id` FROM `users` WHERE `email` = 'bob@example.com   ';
SELECT `id` FROM `users` WHERE `name` LIKE 'AL%';
SELECT `name` FROM `users` ORDER BY `name`, `id`;
SELECT LOWER(`name`) AS n, COUNT(*) FROM `users` GROUP BY `name` ORDER BY n;
SELECT COUNT(DISTINCT `name`) FROM `users`;
SELECT MIN(`name`), MAX(`name`) FROM `users`;
SELECT `id` FROM `users` WHERE `bio` = 'LIKES CAFES';
SELECT `id` FROM `users` WHERE `email` > 'b' ORDER BY `email`;
SELECT `id` FROM `users` FORCE INDEX (`index_users_on_email`) WHERE `email` BETWEEN 'A' AND 'C' ORDER BY `email`;
UPDATE `users` SET `name` = 'ALICE' WHERE `email` = 'alice@example.com';
SELECT `id`, `name` FROM `users` ORDER BY `id`;

-- Django's default: the database collation (utf8mb4_bin here) with a per-column db_collation.
CREATE TABLE `app_tag` (
  `id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY,
  `slug` varchar(50) COLLATE utf8mb4_general_ci NOT NULL UNIQUE,
  `label` varchar(50) NOT NULL
);
SHOW CREATE TABLE `app_tag`;
INSERT INTO `app_tag` (`slug`, `label`) VALUES ('python', 'Python'), ('rust', 'Rust');
INSERT INTO `app_tag` (`slug`, `label`) VALUES ('PYTHON', 'dup');
INSERT INTO `app_tag` (`slug`, `label`) VALUES ('python ', 'dup with trailing space');
SELECT `id` FROM `app_tag` WHERE `label` = 'python';
SELECT `id` FROM `app_tag` WHERE `slug` = 'Rust';
SELECT `id` FROM `app_tag` WHERE `label` = 'python' COLLATE utf8mb4_general_ci;
SELECT `id` FROM `app_tag` WHERE `slug` = `label`;
SELECT `slug` FROM `app_tag` ORDER BY `label` COLLATE utf8mb4_unicode_ci DESC;

-- The latin1 tables of older schemas: stored as latin1, read back as utf8mb4.
CREATE TABLE `legacy_posts` (
  `id` int(11) NOT NULL AUTO_INCREMENT,
  `title` varchar(255) NOT NULL DEFAULT '',
  `body` mediumtext,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
SHOW CREATE TABLE `legacy_posts`;
INSERT INTO `legacy_posts` (`title`, `body`) VALUES ('Café', 'naïve façade'), ('plain', 'ascii'), ('ZEBRA', 'z'), ('apple', 'a');
SELECT `title`, LENGTH(`title`), CHAR_LENGTH(`title`), HEX(`title`) FROM `legacy_posts` ORDER BY `id`;
SELECT `title` FROM `legacy_posts` ORDER BY `title`;
SELECT `id` FROM `legacy_posts` WHERE `title` = 'CAFE';
SELECT `id` FROM `legacy_posts` WHERE `title` = 'café';
INSERT INTO `legacy_posts` (`title`) VALUES ('emoji 😀 here');
INSERT INTO `legacy_posts` (`title`) VALUES ('中文');
SELECT COUNT(*) FROM `legacy_posts`;
ALTER TABLE `legacy_posts` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SHOW CREATE TABLE `legacy_posts`;
SELECT `title`, HEX(`title`) FROM `legacy_posts` ORDER BY `id`;
INSERT INTO `legacy_posts` (`title`) VALUES ('emoji 😀 now');
SELECT `title` FROM `legacy_posts` WHERE `title` LIKE 'EMOJI%';

-- Several collations side by side, each column its own.
CREATE TABLE `names` (
  `id` int NOT NULL PRIMARY KEY,
  `general` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,
  `unicode` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
  `u520` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci,
  `bin` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  `nopad` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
  `utf8` varchar(20) CHARACTER SET utf8 COLLATE utf8_general_ci,
  `utf8mb3` varchar(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_unicode_ci,
  `latin` varchar(20) CHARACTER SET latin1 COLLATE latin1_swedish_ci,
  `latinbin` varchar(20) CHARACTER SET latin1 COLLATE latin1_bin,
  `asc` varchar(20) CHARACTER SET ascii COLLATE ascii_general_ci,
  `raw` varbinary(20)
);
SHOW CREATE TABLE `names`;
SHOW FULL COLUMNS FROM `names`;
INSERT INTO `names` VALUES (1, 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'),
  (2, 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'),
  (3, 'a ', 'a ', 'a ', 'a ', 'a ', 'a ', 'a ', 'a ', 'a ', 'a ', 'a '),
  (4, 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A'),
  (5, 'ß', 'ß', 'ß', 'ß', 'ß', 'ß', 'ß', 'ß', 'ß', 's', 's'),
  (6, 'ss', 'ss', 'ss', 'ss', 'ss', 'ss', 'ss', 'ss', 'ss', 'ss', 'ss');
SELECT `id` FROM `names` WHERE `general` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `unicode` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `bin` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `nopad` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `latin` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `raw` = 'a' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `unicode` = 'ss' ORDER BY `id`;
SELECT `id` FROM `names` WHERE `general` = 'ss' ORDER BY `id`;
SELECT `id`, `general` FROM `names` ORDER BY `general`, `id`;
SELECT `id`, `unicode` FROM `names` ORDER BY `unicode`, `id`;
SELECT `id`, `bin` FROM `names` ORDER BY `bin`, `id`;
SELECT `id`, `latin` FROM `names` ORDER BY `latin`, `id`;
SELECT `general`, COUNT(*) FROM `names` GROUP BY `general` ORDER BY MIN(`id`);
SELECT COLLATION(`general`), COLLATION(`unicode`), COLLATION(`utf8`), COLLATION(`latin`), COLLATION(`raw`) FROM `names` WHERE `id` = 1;
SELECT CHARSET(`utf8mb3`), CHARSET(`asc`), CHARSET(`raw`), COERCIBILITY(`general`) FROM `names` WHERE `id` = 1;
SELECT `id` FROM `names` WHERE `general` = `unicode`;
SELECT `id` FROM `names` WHERE `general` = `unicode` COLLATE utf8mb4_general_ci ORDER BY `id`;
SELECT CONCAT(`general`, `latin`) FROM `names` WHERE `id` = 2;
SELECT CONCAT(`latin`, `raw`) FROM `names` WHERE `id` = 2;

-- Expressions: literals, COLLATE, CONVERT, introducers, the functions that report them.
SELECT 'a' = 'A', 'a' = 'a ', 'a' < 'B';
SELECT 'a' = 'A' COLLATE utf8mb4_general_ci, 'a' COLLATE utf8mb4_general_ci = 'a ';
SELECT 'a' COLLATE utf8mb4_nopad_bin = 'a ';
SELECT CHARSET('x'), COLLATION('x'), COERCIBILITY('x');
SELECT COLLATION('x' COLLATE utf8mb4_unicode_ci), COERCIBILITY('x' COLLATE utf8mb4_unicode_ci);
SELECT CHARSET(CONVERT('x' USING latin1)), COLLATION(CONVERT('x' USING latin1));
SELECT CHARSET(_latin1'x'), COLLATION(_utf8mb4'x'), CHARSET(_utf8mb3'x');
SELECT CHARSET(USER()), COLLATION(DATABASE()), COERCIBILITY(NULL), COERCIBILITY(1);
SELECT 'a' COLLATE utf8mb4_general_ci = 'A' COLLATE utf8mb4_unicode_ci;
SELECT 'x' COLLATE latin1_swedish_ci;
SELECT _latin1'é' = _utf8mb4'é';
SELECT STRCMP('abc', 'ABC'), STRCMP('abc' COLLATE utf8mb4_general_ci, 'ABC');
SELECT UPPER('straße'), LOWER('ÀÉÎ'), LENGTH('é'), CHAR_LENGTH('é'), OCTET_LENGTH(_latin1'é');
SELECT 'Ä' LIKE 'a' COLLATE utf8mb4_general_ci, 'Ä' LIKE 'a' COLLATE utf8mb4_unicode_ci;
SELECT FIELD('b', 'A', 'B' COLLATE utf8mb4_general_ci), FIND_IN_SET('B', 'a,b');
SELECT CONVERT('abc' USING ascii), CONVERT('żółw' USING latin1);
SELECT CAST('x' AS CHAR CHARACTER SET latin1), CAST(_latin1'é' AS CHAR CHARACTER SET utf8mb4);
SELECT COLLATION(CAST('x' AS BINARY)), CHARSET(BINARY 'x');

-- SHOW COLLATION / CHARACTER SET the way SQLAlchemy and older drivers read them.
SHOW COLLATION WHERE `Collation` IN ('utf8mb4_general_ci', 'utf8mb4_unicode_ci', 'utf8mb4_bin', 'latin1_swedish_ci', 'binary');
SHOW COLLATION LIKE 'utf8mb4_unicode%';
SHOW CHARACTER SET LIKE 'utf8%';
SHOW CHARACTER SET WHERE Charset IN ('latin1', 'ascii', 'binary');
SHOW CHARSET LIKE 'latin1';
-- latin1_general_cs (Django's schema tests ask for it): case-sensitive, upper case first.
CREATE TABLE `cs1` (`id` int PRIMARY KEY, `v` varchar(10) CHARACTER SET latin1 COLLATE latin1_general_cs, KEY `v` (`v`));
INSERT INTO `cs1` VALUES (1, 'a'), (2, 'A'), (3, 'b'), (4, 'B'), (5, 'ä'), (6, 'Ä'), (7, 'a '), (8, 'Z');
SELECT GROUP_CONCAT(`id` ORDER BY `v`, `id`) FROM `cs1`;
SELECT `id` FROM `cs1` WHERE `v` = 'a' ORDER BY `id`;
SELECT `id` FROM `cs1` WHERE `v` LIKE 'A%' ORDER BY `id`;
SELECT COUNT(DISTINCT `v`) FROM `cs1`;
SHOW CREATE TABLE `cs1`;
SHOW COLLATION LIKE 'latin1_general%';
SELECT HEX(WEIGHT_STRING(_latin1'aAzZ' COLLATE latin1_general_cs));
-- latin1_general_ci has weights of its own: accented letters sort after their base letter and
-- are not equal to it (latin1_swedish_ci makes 'ä' = 'a'); case still does not matter.
CREATE TABLE l1g (id int PRIMARY KEY, s varchar(10) CHARACTER SET latin1 COLLATE latin1_general_ci, UNIQUE KEY (s));
INSERT INTO l1g VALUES (1, 'a'), (2, 'ä'), (3, 'b'), (4, 'Ö'), (5, 'o'), (6, 'z'), (7, 'ß'), (8, 'ss');
INSERT INTO l1g VALUES (9, 'Ä');
SELECT id, s FROM l1g ORDER BY s, id;
SELECT id FROM l1g WHERE s = 'ä' ORDER BY id;
SELECT id FROM l1g WHERE s = 'A' ORDER BY id;
SELECT id FROM l1g WHERE s > 'a' AND s < 'b' ORDER BY id;
SELECT id FROM l1g WHERE s LIKE 'Ö%' ORDER BY id;
SELECT s, HEX(WEIGHT_STRING(s)) FROM l1g ORDER BY id;
SELECT 'ä' = 'a' COLLATE latin1_general_ci, 'ä' = 'a' COLLATE latin1_swedish_ci, 'ä' < 'b' COLLATE latin1_general_ci;
SELECT MIN(s), MAX(s), COUNT(DISTINCT s) FROM l1g;
-- String functions compare in their operands' collation: PAD SPACE for STRCMP, FIELD,
-- GREATEST, LEAST; not for FIND_IN_SET and LOCATE, whose windows are as long in bytes as the
-- needle (so 'a' is not found in 'Ä' under general_ci, and unicode_ci finds 'ss' as 'ß').
SELECT STRCMP('a', 'A'), STRCMP('a ', 'A'), STRCMP('b', 'A'), STRCMP('a' COLLATE utf8mb4_bin, 'A');
SELECT FIELD('a', 'A'), FIELD('b ', 'x', 'B'), FIELD('a' COLLATE utf8mb4_bin, 'A'), FIELD(1, '1', 'a');
SELECT FIND_IN_SET('A', 'a,b'), FIND_IN_SET('B ', 'a,b'), FIND_IN_SET('b', 'a,B'), FIND_IN_SET(_utf8mb4'a' COLLATE utf8mb4_bin, 'A,a');
SELECT LOCATE('B', 'abc'), INSTR('abc', 'C'), POSITION('B' IN 'abc'), LOCATE('b', 'abcb', 3), LOCATE('ä', 'abcä'), INSTR('Ärger', 'a');
SELECT LOCATE('SS', 'straße'), LOCATE('ss' COLLATE utf8mb4_unicode_ci, 'straße'), LOCATE('', 'ab'), LOCATE('a' COLLATE utf8mb4_bin, 'A');
SELECT GREATEST('a', 'B'), GREATEST('a', 'A'), GREATEST('A', 'a'), LEAST('b', 'B'), LEAST('b', 'A', 'c'), GREATEST('a', NULL);
SELECT id, s FROM l1g WHERE FIELD(s, 'A', 'Z') > 0 ORDER BY id;
SELECT REPLACE('aBc', 'b', 'x'), SUBSTRING_INDEX('aXbxc', 'x', 1);
CREATE TABLE en_ci (id int PRIMARY KEY, u ENUM('METER', 'SECOND') COLLATE utf8mb4_unicode_ci, b ENUM('METER', 'SECOND') COLLATE utf8mb4_bin);
INSERT INTO en_ci VALUES (1, 'METER', 'METER'), (2, 'SECOND', 'SECOND');
SELECT id FROM en_ci WHERE u = 'meter';
SELECT id FROM en_ci WHERE b = 'meter';
SELECT id FROM en_ci WHERE u IN ('second', 'x') ORDER BY id;

-- CAST / CONVERT to CHAR of a character set convert as CONVERT(... USING) does; names of the
-- server and session (USER(), DATABASE(), VERSION()) are utf8mb3 text, SYSCONST, and convert
-- to a column's character set in a comparison.
SELECT CAST('x' AS CHAR CHARSET latin1), CONVERT('x', CHAR CHARACTER SET latin1), CHARSET(CONVERT('x', CHAR CHARSET latin1));
SELECT CHARSET(CAST('x' AS CHAR(3) CHARACTER SET utf8)), CAST('abc' AS CHAR(2) CHARACTER SET latin1), COERCIBILITY(CAST('x' AS CHAR CHARACTER SET latin1));
SELECT CAST('x' AS CHAR CHARACTER SET binary), CAST('x' AS CHAR CHARACTER SET nosuch);
SELECT COLLATION(CAST('x' AS CHAR CHARACTER SET latin1) COLLATE latin1_bin), HEX(CAST('é' AS CHAR CHARACTER SET latin1));
SELECT CHARSET(CURRENT_USER()), CHARSET(VERSION()), CHARSET(SCHEMA()), CHARSET(SESSION_USER()), COERCIBILITY(USER());
CREATE TABLE `sysconst_cmp` (`a` varchar(10) CHARACTER SET latin1, `u` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin);
INSERT INTO `sysconst_cmp` VALUES ('x', 'y');
SELECT `a` = USER(), `u` = DATABASE(), CONCAT(`a`, VERSION()) = 'q', USER() = _latin1'x' FROM `sysconst_cmp`;
-- CONVERT TO CHARACTER SET widens a TEXT column to hold as many characters (never narrows it).
CREATE TABLE `text_sizes` (`t1` tinytext, `t2` text, `t3` mediumtext, `t4` longtext, `v` varchar(10)) CHARSET latin1;
INSERT INTO `text_sizes` VALUES ('tiny', 'text', 'medium', 'long', 'v');
ALTER TABLE `text_sizes` CONVERT TO CHARACTER SET utf8mb4;
SHOW CREATE TABLE `text_sizes`;
SELECT * FROM `text_sizes`;
ALTER TABLE `text_sizes` CONVERT TO CHARACTER SET latin1;
SHOW CREATE TABLE `text_sizes`;
CREATE TABLE `text_sizes3` (`t1` tinytext, `t2` text) CHARSET utf8mb3;
ALTER TABLE `text_sizes3` CONVERT TO CHARACTER SET utf8mb4;
SHOW CREATE TABLE `text_sizes3`;
