-- Issue 14 item 3: what values become when an application stores them: implicit conversions,
-- overflow and truncation under the default strict mode, under the non-strict mode of older
-- applications and under Rails' STRICT_ALL_TABLES, zero dates, unsigned and zerofill columns,
-- DECIMAL and FLOAT(M,D) rounding, and arithmetic with the result types drivers read.
SELECT @@sql_mode;
SET time_zone = '+00:00';
CREATE TABLE `t` (
  `ti` tinyint, `uti` tinyint unsigned, `si` smallint, `mi` mediumint, `i` int, `ui` int unsigned, `bi` bigint, `ubi` bigint unsigned,
  `d` decimal(5,2), `ud` decimal(5,2) unsigned, `f` float, `f52` float(5,2), `db` double, `udb` double unsigned, `d72` double(7,2),
  `vc` varchar(5), `c` char(3), `tt` tinytext, `dt` date, `dtm` datetime, `ts` timestamp NULL, `tm` time, `y` year,
  `zf` int(6) zerofill, `zd` decimal(6,2) zerofill, `rs` real, `bo` boolean
);
SHOW CREATE TABLE `t`;

-- Strict mode (the default): out of range and truncation are errors.
INSERT INTO `t` (`ti`) VALUES (127), (-128);
INSERT INTO `t` (`ti`) VALUES (128);
INSERT INTO `t` (`uti`) VALUES (-1);
INSERT INTO `t` (`ui`) VALUES (4294967296);
INSERT INTO `t` (`ubi`) VALUES (18446744073709551615);
INSERT INTO `t` (`ubi`) VALUES (-1);
INSERT INTO `t` (`d`) VALUES (999.99), (-999.99), (1.005), (1.004);
INSERT INTO `t` (`d`) VALUES (1000);
INSERT INTO `t` (`ud`) VALUES (-0.01);
INSERT INTO `t` (`udb`) VALUES (-5);
INSERT INTO `t` (`udb`) VALUES (5.5);
INSERT INTO `t` (`f52`, `d72`) VALUES (1.235, 12345.678), (-999.994, -0.005);
INSERT INTO `t` (`f52`) VALUES (1000);
INSERT INTO `t` (`vc`) VALUES ('abcdef');
INSERT INTO `t` (`vc`) VALUES ('abc  ');
INSERT INTO `t` (`vc`) VALUES ('abcde     ');
INSERT INTO `t` (`c`) VALUES ('ab ');
INSERT INTO `t` (`i`) VALUES ('12abc');
INSERT INTO `t` (`i`) VALUES ('');
INSERT INTO `t` (`i`) VALUES ('  42  ');
INSERT INTO `t` (`i`) VALUES (3.5), (-3.5), ('2.5e1');
INSERT INTO `t` (`db`) VALUES ('1e400');
INSERT INTO `t` (`dt`) VALUES ('2024-02-30');
INSERT INTO `t` (`dt`) VALUES ('0000-00-00');
INSERT INTO `t` (`dt`) VALUES ('2024-00-10');
INSERT INTO `t` (`dtm`) VALUES ('2024-01-01 24:00:00');
INSERT INTO `t` (`dtm`) VALUES ('2024-01-01T10:20:30'), ('20240102102030'), ('2024-1-3 4:5:6');
INSERT INTO `t` (`ts`) VALUES ('1970-01-01 00:00:00');
INSERT INTO `t` (`ts`) VALUES ('2038-01-19 03:14:07');
INSERT INTO `t` (`tm`) VALUES ('-838:59:59'), ('1 02:03:04'), ('10:11'), ('123456');
INSERT INTO `t` (`tm`) VALUES ('25:61:00');
INSERT INTO `t` (`y`) VALUES (0), ('0'), (70), (69), (2155);
INSERT INTO `t` (`y`) VALUES (2156);
INSERT INTO `t` (`zf`, `zd`) VALUES (42, 3.5), (1234567, 1234.5);
INSERT INTO `t` (`rs`, `bo`) VALUES (1.5, TRUE), (-0.1, FALSE), (NULL, 2);
INSERT INTO `t` (`tt`) VALUES (REPEAT('x', 255));
INSERT INTO `t` (`tt`) VALUES (REPEAT('x', 256));
INSERT INTO `t` (`si`, `mi`) VALUES (32767, 8388607), (-32768, -8388608);
INSERT INTO `t` (`mi`) VALUES (8388608);
SELECT `ti`, `uti`, `si`, `mi`, `i`, `ui`, `bi`, `ubi` FROM `t` WHERE COALESCE(`ti`, `uti`, `si`, `mi`, `i`, `ui`, `bi`, `ubi`) IS NOT NULL ORDER BY 1, 2, 3, 4, 5, 6, 7, 8;
SELECT `d`, `ud`, `f52`, `d72`, `udb` FROM `t` WHERE COALESCE(`d`, `ud`, `f52`, `d72`, `udb`) IS NOT NULL ORDER BY 1, 2, 3, 4, 5;
SELECT `vc`, LENGTH(`vc`), `c`, LENGTH(`c`), CONCAT('[', `c`, ']') FROM `t` WHERE `vc` IS NOT NULL OR `c` IS NOT NULL ORDER BY 1, 3;
SELECT `dt`, `dtm`, `ts`, `tm`, `y` FROM `t` WHERE COALESCE(`dt`, `dtm`, `ts`, `tm`, `y`) IS NOT NULL ORDER BY 1, 2, 3, 4, 5;
SELECT `zf`, `zd`, `rs`, `bo`, LENGTH(`tt`) FROM `t` WHERE COALESCE(`zf`, `zd`, `rs`, `bo`, `tt`) IS NOT NULL ORDER BY 1, 2, 3, 4, 5;
SELECT `zf`, `zd`, CONCAT(`zf`), `zf` + 1 FROM `t` WHERE `zf` IS NOT NULL ORDER BY `zf`;

-- The same statements in a legacy application's non-strict mode: warnings, clipped values.
SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION';
DELETE FROM `t`;
INSERT INTO `t` (`ti`, `uti`, `ui`, `ubi`) VALUES (128, -1, 4294967296, -1);
INSERT INTO `t` (`d`, `ud`, `udb`, `f52`) VALUES (1000, -0.01, -5, 1000);
INSERT INTO `t` (`vc`, `c`) VALUES ('abcdef', 'abcd');
INSERT INTO `t` (`i`, `bi`) VALUES ('12abc', ''), ('x', '1.9e3');
INSERT INTO `t` (`dt`, `dtm`) VALUES ('2024-02-30', '2024-01-01 24:00:00');
INSERT INTO `t` (`dt`, `dtm`) VALUES ('0000-00-00', '0000-00-00 00:00:00');
INSERT INTO `t` (`tm`, `y`) VALUES ('839:00:00', 2156), ('-839:00:00', 1900);
INSERT INTO `t` (`tt`) VALUES (REPEAT('y', 300));
UPDATE `t` SET `ti` = `ti` + 100 WHERE `ti` IS NOT NULL;
SELECT `ti`, `uti`, `ui`, `ubi`, `d`, `ud`, `udb`, `f52`, `vc`, `c`, `i`, `bi`, `dt`, `dtm`, `tm`, `y`, LENGTH(`tt`) FROM `t` ORDER BY COALESCE(`ti`, -1), COALESCE(`d`, -1), `vc`, `i`, `dt`, `tm`;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO';
INSERT INTO `t` (`dt`) VALUES ('0000-00-00');
INSERT INTO `t` (`dt`) VALUES ('2024-00-01');
INSERT INTO `t` (`i`) VALUES (1 / 0);
SELECT 1 / 0, 1 % 0;
SET SESSION sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO');
SELECT @@sql_mode;
SET SESSION sql_mode = DEFAULT;
SELECT @@sql_mode;

-- Arithmetic and the result types drivers read.
SELECT 1/7*7, 1/3, 2/3*3, 10/4, 1/7 + 0.0000001;
SET div_precision_increment = 8;
SELECT 1/7, 1/7*7;
SET div_precision_increment = DEFAULT;
SELECT 5 DIV 2, -5 DIV 2, 5 MOD 3, -5 % 3, 5.5 DIV 2, 7 DIV 0;
SELECT 0.1 + 0.2, 0.1e0 + 0.2e0, 1.10 * 2, 3 * 1.5, 1 - 2.50, 10 / 3.0;
SELECT 9223372036854775807 + 0, 18446744073709551615 + 0, 9223372036854775807 * 1.0;
SELECT 9223372036854775807 + 1;
SELECT CAST(18446744073709551615 AS SIGNED), CAST(-1 AS UNSIGNED), CAST(1.5 AS SIGNED), CAST(-1.5 AS SIGNED), CAST('3.9' AS SIGNED);
SELECT CAST(123.456 AS DECIMAL(5,1)), CAST(12345.6 AS DECIMAL(5,1)), CAST('abc' AS DECIMAL(5,2)), CAST(1e300 AS DECIMAL(65,30));
SELECT CAST('2024-01-02' AS DATE), CAST('2024-01-02 03:04:05.678' AS DATETIME(2)), CAST('12:34:56.789' AS TIME(1)), CAST(20240102 AS DATE);
SELECT CAST(1.5 AS DOUBLE), CAST('1.5' AS FLOAT), CAST(3 AS CHAR), CAST('x' AS CHAR(3)), CAST(1 AS BINARY);
SELECT ROUND(2.5), ROUND(-2.5), ROUND(2.5e0), ROUND(1.005, 2), TRUNCATE(1.999, 2), FLOOR(-1.5), CEIL(1.2);
SELECT 1 = '1', 'abc' = 0, '1e3' = 1000, 1.0 = '1.0', NULL = NULL, NULL <=> NULL;
SELECT '10' + 5, '1.5' * 2, 'x' + 1, '12abc' + 1, - '3';
SELECT 'a' + 0 > 0, 0 = 'a';
SELECT TIME('12:00:00') + 1, DATE('2024-01-31') + 1, TIMESTAMP('2024-01-01') + 0, CURDATE() > '2000-01-01';
SELECT SEC_TO_TIME(3661), TIME_TO_SEC('-01:00:00'), TIMEDIFF('2024-01-02 00:00:00', '2024-01-01 00:00:01'), ADDTIME('838:00:00', '01:00:00');
SELECT DATEDIFF('2024-03-01', '2024-02-01'), DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_SUB('2024-03-31 10:00:00', INTERVAL 1 DAY), LAST_DAY('2024-02-10');
SELECT DATE_FORMAT('2024-07-04 13:05:09.123456', '%Y-%m-%d %H:%i:%s.%f %W %j'), STR_TO_DATE('04/07/2024', '%d/%m/%Y'), UNIX_TIMESTAMP('2024-01-01 00:00:00') > 0;
SELECT EXTRACT(YEAR FROM '2024-07-04'), EXTRACT(MICROSECOND FROM '10:00:00.5'), EXTRACT(HOUR FROM '-30:00:00'), MONTH('2024-00-00');

-- User variables carry the type of what was assigned.
SET @i = 5, @d = 1.50, @f = 1.5e0, @s = 'text', @n = NULL, @b = TRUE;
SELECT @i, @d, @f, @s, @n, @b;
SELECT @i + 1, @d * 2, @f / 2, @s + 0, CONCAT(@i, @d);
SELECT @u := 10, @u + 1;
SET @big = 18446744073709551615;
SELECT @big, @big + 0;

-- The DDL that dumps and generators emit.
CREATE OR REPLACE TABLE `dump_target` (`id` int PRIMARY KEY, `v` varchar(10));
INSERT INTO `dump_target` VALUES (1, 'one');
CREATE OR REPLACE TABLE `dump_target` (`id` int PRIMARY KEY, `w` int);
SELECT * FROM `dump_target`;
CREATE OR REPLACE TABLE IF NOT EXISTS `dump_target` (`id` int);
CREATE TABLE IF NOT EXISTS `dump_target` (`id` int);
INSERT INTO `dump_target` VALUES (1, 10), (2, 20);
CHECKSUM TABLE `dump_target`;
CHECKSUM TABLE `dump_target`, `nope` EXTENDED;
TRUNCATE TABLE `dump_target` WAIT 5;
TRUNCATE `dump_target` NOWAIT;
SELECT COUNT(*) FROM `dump_target`;
CHECKSUM TABLE `dump_target`;

-- Values larger than 4 MiB (a stored document, an uploaded file) up to max_allowed_packet.
CREATE TABLE `documents` (`id` int PRIMARY KEY, `body` longtext, `data` longblob, `small` mediumblob);
INSERT INTO `documents` VALUES (1, REPEAT('lorem ipsum ', 500000), REPEAT(X'00FF', 2500000), NULL);
INSERT INTO `documents` VALUES (2, REPEAT('é', 3000000), NULL, REPEAT('m', 16777215));
INSERT INTO `documents` VALUES (3, NULL, NULL, REPEAT('m', 16777216));
UPDATE `documents` SET `body` = CONCAT(`body`, 'tail') WHERE `id` = 1;
SELECT `id`, LENGTH(`body`), CHAR_LENGTH(`body`), MD5(`body`), LENGTH(`data`), MD5(`data`), LENGTH(`small`), RIGHT(`body`, 8) FROM `documents` ORDER BY `id`;
SELECT `id` FROM `documents` WHERE `body` LIKE '%tail';

-- A user variable keeps the type of what was assigned (MariaDB's user_var_entry): a DECIMAL
-- its own scale (expressions over it have 38 decimals), a string its collation (binary from a
-- BLOB or _binary, latin1 from a latin1 column), a temporal value its text (latin1).
SET @d = 1.50, @dd = DATE'2020-01-01', @dt = TIMESTAMP'2020-01-02 03:04:05', @b = _binary'ab', @l = _latin1'x';
SELECT @d, @d + 0, -@d, ABS(@d), IF(1, @d, 0), CAST(@d AS CHAR), CONCAT(@d), (SELECT @d), ROUND(@d, 1);
SELECT @dd, @dd + 0, CHARSET(@dd), @dt, CHARSET(@dt), CHARSET(@b), COLLATION(@l), COERCIBILITY(@l);
SET @e = @d * 2;
SELECT @e, @e + 0;
CREATE TABLE `user_var_sources` (`x` decimal(10,4), `b` blob, `s` varchar(10) CHARACTER SET latin1, `t` time(2));
INSERT INTO `user_var_sources` VALUES (1.5, 'ab', 'x', '01:02:03.5');
SELECT `x`, `b`, `s`, `t` INTO @x, @b, @s, @t FROM `user_var_sources`;
SELECT @x, @x * 2, CHARSET(@b), COLLATION(@s), @t, CHARSET(@t);
SELECT @x := `x` * 3, @b := `b`, @s := `s` FROM `user_var_sources`;
SELECT @x, CHARSET(@b), COLLATION(@s);
SET @s = 'text', @n = NULL;
SELECT @s + 0, @s * 2, -@s, @n, CHARSET(@n), CHARSET(@never_set), @never_set;
-- Every value of a SET is computed before any variable is assigned.
SET @x = 1;
SET @x = 2, @y = @x;
SELECT @x, @y;
SET @x = @x + 1, @y = @x + 10, @x = @x + 100;
SELECT @x, @y;
