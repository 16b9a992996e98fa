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
