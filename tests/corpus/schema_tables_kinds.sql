-- Issue 14 item 5: tables of other kinds as applications use them: per-session temporary tables
-- (report builders, bulk loaders, test fixtures), CREATE TABLE ... LIKE (test databases, shadow
-- tables of online schema change tools) and ... AS SELECT / ... SELECT (backfills, archives).
CREATE TABLE `orders` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `customer` varchar(20) NOT NULL, `total` decimal(8,2) NOT NULL DEFAULT 0.00, `placed` date NOT NULL, KEY `orders_customer` (`customer`), UNIQUE KEY `orders_cust_placed` (`customer`, `placed`)) COMMENT 'all orders';
INSERT INTO `orders` (`customer`, `total`, `placed`) VALUES ('ann', 10.00, '2024-01-01'), ('bob', 25.50, '2024-01-02'), ('ann', 7.25, '2024-01-03'), ('cy', 100.00, '2024-02-01');

-- Temporary tables: private to the session, shadowing a permanent one, not in SHOW TABLES.
CREATE TEMPORARY TABLE `report` (`customer` varchar(20) PRIMARY KEY, `spent` decimal(10,2));
INSERT INTO `report` SELECT `customer`, SUM(`total`) FROM `orders` GROUP BY `customer`;
SELECT * FROM `report` ORDER BY `spent` DESC;
SHOW TABLES;
SHOW CREATE TABLE `report`;
UPDATE `report` SET `spent` = 0 WHERE `customer` = 'cy';
SELECT r.`customer`, r.`spent`, COUNT(o.`id`) FROM `report` r JOIN `orders` o ON o.`customer` = r.`customer` GROUP BY r.`customer`, r.`spent` ORDER BY r.`customer`;
-- connection b
SELECT * FROM `report`;
CREATE TEMPORARY TABLE `report` (`x` int);
INSERT INTO `report` VALUES (1);
SELECT * FROM `report`;
-- connection a
SELECT COUNT(*) FROM `report`;
CREATE TEMPORARY TABLE `orders` (`id` int, `note` varchar(10));
INSERT INTO `orders` VALUES (1, 'shadow');
SELECT * FROM `orders`;
-- connection b
SELECT COUNT(*) FROM `orders`;
-- connection a
DROP TEMPORARY TABLE `orders`;
SELECT COUNT(*) FROM `orders`;
CREATE TEMPORARY TABLE IF NOT EXISTS `report` (`y` int);
CREATE TEMPORARY TABLE `tmp_like` LIKE `orders`;
INSERT INTO `tmp_like` SELECT * FROM `orders` WHERE `customer` = 'ann';
SELECT `id`, `customer` FROM `tmp_like` ORDER BY `id`;
CREATE TEMPORARY TABLE `tmp_sel` AS SELECT `customer`, MAX(`placed`) AS `last` FROM `orders` GROUP BY `customer`;
SELECT * FROM `tmp_sel` ORDER BY `customer`;
ALTER TABLE `tmp_sel` ADD COLUMN `n` int DEFAULT 1;
TRUNCATE TABLE `tmp_sel`;
SELECT COUNT(*) FROM `tmp_sel`;
BEGIN;
CREATE TEMPORARY TABLE `in_tx` (`a` int);
INSERT INTO `in_tx` VALUES (1);
ROLLBACK;
SELECT COUNT(*) FROM `in_tx`;
SELECT @@in_transaction;
DROP TABLE `in_tx`;
DROP TEMPORARY TABLE `nope`;
DROP TEMPORARY TABLE IF EXISTS `nope`;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;

-- CREATE TABLE ... LIKE copies columns, keys, defaults and options, but no rows.
CREATE TABLE `orders_archive` LIKE `orders`;
SHOW CREATE TABLE `orders_archive`;
INSERT INTO `orders_archive` SELECT * FROM `orders` WHERE `placed` < '2024-02-01';
INSERT INTO `orders_archive` (`customer`, `placed`) VALUES ('ann', '2024-01-01');
INSERT INTO `orders_archive` (`customer`, `placed`) VALUES ('dee', '2024-03-01');
SELECT `id`, `customer`, `total`, `placed` FROM `orders_archive` ORDER BY `id`;
CREATE TABLE `orders_archive` LIKE `orders`;
CREATE TABLE IF NOT EXISTS `orders_archive` LIKE `orders`;
CREATE TABLE `x` LIKE `nope`;
CREATE OR REPLACE TABLE `orders_archive` LIKE `orders`;
SELECT COUNT(*) FROM `orders_archive`;

-- CREATE TABLE ... AS SELECT / ... SELECT: column types from the expressions, keys declared.
CREATE TABLE `customer_totals` AS SELECT `customer`, SUM(`total`) AS `spent`, COUNT(*) AS `n`, MIN(`placed`) AS `first` FROM `orders` GROUP BY `customer`;
SHOW CREATE TABLE `customer_totals`;
SELECT * FROM `customer_totals` ORDER BY `customer`;
CREATE TABLE `big_orders` (`id` int PRIMARY KEY, `flag` char(1) DEFAULT 'Y') SELECT `id`, `customer`, `total` FROM `orders` WHERE `total` > 20;
SHOW CREATE TABLE `big_orders`;
SELECT * FROM `big_orders` ORDER BY `id`;
CREATE TABLE `exprs` AS SELECT 1 AS `i`, 1.5 AS `d`, 1e0 AS `f`, 'abc' AS `s`, NULL AS `n`, CAST('2024-01-01' AS DATE) AS `dt`, NOW() > 0 AS `b`, CONCAT('x', 1) AS `c`, 9999999999 AS `bi`, -1 AS `neg`, 18446744073709551615 AS `u`;
SHOW CREATE TABLE `exprs`;
CREATE TABLE `dups` (`customer` varchar(20) PRIMARY KEY) SELECT `customer` FROM `orders` ORDER BY `id`;
CREATE TABLE `dups2` (`customer` varchar(20) PRIMARY KEY) IGNORE SELECT `customer` FROM `orders` ORDER BY `id`;
SELECT * FROM `dups2` ORDER BY `customer`;
CREATE TABLE `dups3` (`customer` varchar(20) PRIMARY KEY) REPLACE SELECT `customer` FROM `orders` ORDER BY `id`;
SELECT COUNT(*) FROM `dups3`;
CREATE TABLE `empty_copy` AS SELECT * FROM `orders` WHERE 1 = 0;
SHOW CREATE TABLE `empty_copy`;
CREATE TABLE IF NOT EXISTS `customer_totals` AS SELECT 1;
CREATE OR REPLACE TABLE `customer_totals` AS SELECT `customer` FROM `orders` WHERE `id` = 1;
SELECT * FROM `customer_totals`;
BEGIN;
INSERT INTO `orders` (`customer`, `placed`) VALUES ('eve', '2024-04-01');
CREATE TABLE `after_begin` AS SELECT COUNT(*) AS `c` FROM `orders`;
ROLLBACK;
SELECT COUNT(*) FROM `orders`;
SELECT * FROM `after_begin`;
SHOW TABLES;
-- CREATE TABLE (definitions) SELECT: declared columns the query does not name first, then the
-- query's columns (a declared one with its declared type); keys on the query's columns.
CREATE TABLE `merged` (`a` int, `b` int DEFAULT 7, `c` varchar(4)) SELECT 1234 AS `c`, 2 AS `x`, 3 AS `a`;
SELECT `b`, `c`, `a` FROM `merged`;
SELECT COLUMN_NAME, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'merged' ORDER BY ORDINAL_POSITION;
CREATE TABLE `keyed` (PRIMARY KEY (`x`)) SELECT 5 AS `x` UNION SELECT 6;
SELECT COUNT(*) FROM `keyed`;
CREATE TABLE `auto_ids` (`id` int AUTO_INCREMENT PRIMARY KEY, `k` int) SELECT 5 AS `k` UNION SELECT 6;
SELECT * FROM `auto_ids` ORDER BY `id`;
CREATE TABLE `no_default` (`z` int NOT NULL) SELECT 1 AS `a`;
CREATE TABLE `too_big` (`q` tinyint) SELECT 1000 AS `q`;
CREATE TABLE `clipped` (`q` tinyint) IGNORE SELECT 1000 AS `q`;
SELECT * FROM `clipped`;
CREATE TABLE `twice` (`k` int) SELECT 1 AS `k`, 2 AS `k`;
-- CREATE TABLE ... SELECT column definitions as MariaDB makes them: a selected column keeps its
-- definition (DEFAULT, ON UPDATE, comment; AUTO_INCREMENT becomes NOT NULL DEFAULT 0, a generated
-- column a plain one); an expression gets its type and display width from its metadata.
CREATE TABLE `ctas_src` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `a` int DEFAULT 5, `b` int unsigned NOT NULL DEFAULT 3, `s` varchar(20) DEFAULT 'x' COMMENT 'cm', `d` date DEFAULT '2024-01-01', `dt` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), `m` decimal(8,2) NOT NULL DEFAULT 0.00, `f` float DEFAULT 1.5, `db` double, `t` text, `e` enum('a','b') DEFAULT 'b', `bg` bigint, `ti` tinyint(1) DEFAULT 1, `g` int AS (`a` + 1) VIRTUAL);
INSERT INTO `ctas_src` (`a`, `s`, `t`) VALUES (1, 'abc', 'long'), (NULL, NULL, NULL);
CREATE TABLE `ctas_cols` AS SELECT * FROM `ctas_src`;
SHOW CREATE TABLE `ctas_cols`;
CREATE TABLE `ctas_arith` AS SELECT `id` + 0 AS `x`, `a` + 1 AS `a1`, `a` * 2 AS `a2`, `a` / 2 AS `a4`, `m` + 1 AS `m1`, `m` * `m` AS `m2`, `f` + 1 AS `f1`, `db` * 2 AS `d2`, `b` + 1 AS `b1`, `bg` + 1 AS `bg1`, -`a` AS `na` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_arith`;
CREATE TABLE `ctas_aggs` AS SELECT COUNT(*) AS `c`, COUNT(`a`) AS `ca`, SUM(`a`) AS `sa`, SUM(`m`) AS `sm`, AVG(`a`) AS `aa`, AVG(`m`) AS `am`, MIN(`a`) AS `mia`, MIN(`d`) AS `mid`, MAX(`dt`) AS `madt`, SUM(`f`) AS `sf`, GROUP_CONCAT(`s`) AS `gc`, MAX(`b`) AS `mab` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_aggs`;
CREATE TABLE `ctas_lits` AS SELECT 1 AS `i`, -1 AS `n`, 1.5 AS `d`, -1.50 AS `d2`, 1e0 AS `f`, NULL AS `nu`, 9999999999 AS `bi`, 2147483647 AS `i2`, 18446744073709551615 AS `u`, -9223372036854775808 AS `mn`, DATE'2024-01-01' AS `dl`, TIME'10:00:00' AS `tl`;
SHOW CREATE TABLE `ctas_lits`;
CREATE TABLE `ctas_strs` AS SELECT CONCAT(`s`, 'y') AS `c2`, UPPER(`s`) AS `u`, LEFT(`s`, 3) AS `l`, LENGTH(`s`) AS `ln`, CHAR_LENGTH(`s`) AS `cl`, TRIM(`s`) AS `tr`, REPLACE(`s`, 'a', 'bb') AS `rp`, LPAD(`s`, 30, '-') AS `lp`, LOWER(`t`) AS `lt`, CAST(`a` AS SIGNED) AS `cs`, CAST(`a` AS DECIMAL(10,2)) AS `cd`, CAST(`d` AS DATE) AS `cdt`, CAST(`a` AS UNSIGNED) AS `cu` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_strs`;
CREATE TABLE `ctas_cmps` AS SELECT `a` = 1 AS `eq`, `a` > `b` AS `gt`, `s` LIKE 'x%' AS `lk`, `a` IS NULL AS `isn`, `a` IN (1, 2) AS `inn`, `a` BETWEEN 1 AND 2 AS `bt`, NOT `a` AS `nt`, NOW() > 0 AS `nw`, 1 = 1 AS `oo`, `a` <=> NULL AS `ns` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_cmps`;
CREATE TABLE `ctas_conds` AS SELECT CASE `a` WHEN 1 THEN 10 ELSE 20 END AS `ci`, IF(`a`, 1, 2) AS `if1`, IF(`a`, `s`, 'zz') AS `if2`, IF(`a`, 1.5, 2) AS `if3`, COALESCE(`a`, 0) AS `co`, COALESCE(`s`, 'none') AS `co2`, IFNULL(`m`, 1) AS `ifm`, NULLIF(`a`, 1) AS `nif`, IF(`a`, NULL, 1) AS `ifnull`, IF(`a`, `d`, NULL) AS `ifd` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_conds`;
CREATE TABLE `ctas_dates` AS SELECT NOW() AS `n`, NOW(3) AS `n3`, CURDATE() AS `cd`, CURTIME() AS `ct`, DATE(`dt`) AS `dd`, YEAR(`d`) AS `y`, MONTH(`d`) AS `mo`, DATE_ADD(`d`, INTERVAL 1 DAY) AS `da`, DATE_ADD(`dt`, INTERVAL 1 DAY) AS `da2`, DATEDIFF(`d`, `d`) AS `df`, FROM_UNIXTIME(0) AS `fu`, LAST_DAY(`d`) AS `ld`, TIMESTAMPDIFF(DAY, `d`, `d`) AS `tsd`, `d` + INTERVAL 1 MONTH AS `dim`, TIME(`dt`) AS `tm` FROM `ctas_src`;
SHOW CREATE TABLE `ctas_dates`;
SELECT `x`, `a1`, `m1`, `b1` FROM `ctas_arith` ORDER BY `x`;
