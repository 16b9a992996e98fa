-- Issue 14 item 4: CHECK constraints as ORMs declare them (Django's CheckConstraint and the
-- `>= 0` checks of Positive*Field, Rails' check_constraint, Hibernate's @Check) on columns and
-- tables, error 4025, named and generated names, NULL passing, check_constraint_checks=0.
CREATE TABLE `shop_product` (
  `id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY,
  `price` numeric(8, 2) NOT NULL,
  `discounted` numeric(8, 2) NULL,
  `stock` integer UNSIGNED NOT NULL CHECK (`stock` >= 0),
  `rating` smallint NULL CHECK (`rating` BETWEEN 1 AND 5),
  `sku` varchar(12) NOT NULL,
  CONSTRAINT `price_positive` CHECK (`price` > 0),
  CONSTRAINT `discount_below_price` CHECK (`discounted` IS NULL OR `discounted` < `price`),
  CONSTRAINT `sku_format` CHECK (`sku` LIKE 'SKU-%' AND CHAR_LENGTH(`sku`) >= 6)
);
SHOW CREATE TABLE `shop_product`;
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (10.00, NULL, 5, NULL, 'SKU-001');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (10.00, 9.99, 0, 5, 'SKU-002');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (0, NULL, 1, NULL, 'SKU-003');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (5, 5, 1, NULL, 'SKU-004');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (5, NULL, 1, 6, 'SKU-005');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (5, NULL, 1, 0, 'SKU-006');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (5, NULL, 1, 3, 'ABC-007');
INSERT INTO `shop_product` (`price`, `discounted`, `stock`, `rating`, `sku`) VALUES (5, NULL, 1, 3, 'SKU-');
INSERT INTO `shop_product` (`price`, `stock`, `sku`) VALUES (1, 1, 'SKU-010'), (2, 2, 'SKU-011'), (-3, 3, 'SKU-012');
UPDATE `shop_product` SET `discounted` = `price` + 1 WHERE `id` = 1;
UPDATE `shop_product` SET `price` = `price` - 10;
UPDATE `shop_product` SET `rating` = `rating` + 1 WHERE `rating` IS NOT NULL;
INSERT INTO `shop_product` (`id`, `price`, `stock`, `sku`) VALUES (1, 1, 1, 'SKU-100') ON DUPLICATE KEY UPDATE `price` = -1;
INSERT INTO `shop_product` (`id`, `price`, `stock`, `sku`) VALUES (1, 1, 1, 'SKU-100') ON DUPLICATE KEY UPDATE `price` = 2;
REPLACE INTO `shop_product` (`id`, `price`, `stock`, `sku`) VALUES (2, -2, 1, 'SKU-002');
SELECT `id`, `price`, `discounted`, `stock`, `rating`, `sku` FROM `shop_product` ORDER BY `id`;

-- Non-strict mode does not turn a failed check into a warning.
SET SESSION sql_mode = '';
INSERT INTO `shop_product` (`price`, `stock`, `sku`) VALUES (-1, 1, 'SKU-020');
INSERT IGNORE INTO `shop_product` (`price`, `stock`, `sku`) VALUES (-1, 1, 'SKU-021'), (1, 1, 'SKU-022');
SET SESSION sql_mode = DEFAULT;
SELECT `sku` FROM `shop_product` ORDER BY `id`;

-- Rails: add_check_constraint / remove_check_constraint; Django: AddConstraint on a table with rows.
CREATE TABLE `events` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `starts_at` datetime(6) NOT NULL, `ends_at` datetime(6) NOT NULL, `capacity` int DEFAULT 10);
INSERT INTO `events` (`starts_at`, `ends_at`) VALUES ('2024-01-01 10:00:00', '2024-01-01 12:00:00'), ('2024-01-02 10:00:00', '2024-01-02 09:00:00');
ALTER TABLE `events` ADD CONSTRAINT `chk_rails_4c6a1e2b3f` CHECK (`ends_at` > `starts_at`);
DELETE FROM `events` WHERE `ends_at` <= `starts_at`;
ALTER TABLE `events` ADD CONSTRAINT `chk_rails_4c6a1e2b3f` CHECK (`ends_at` > `starts_at`);
ALTER TABLE `events` ADD CONSTRAINT `events_capacity_range` CHECK (`capacity` BETWEEN 1 AND 1000), ADD CONSTRAINT CHECK (`capacity` <> 13);
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-02-01', '2024-02-02', 13);
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-02-01', '2024-02-02', 0);
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-02-02', '2024-02-01', 5);
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-02-01', '2024-02-02', NULL);
SHOW CREATE TABLE `events`;
ALTER TABLE `events` DROP CONSTRAINT `chk_rails_4c6a1e2b3f`;
ALTER TABLE `events` DROP CHECK `events_capacity_range`;
ALTER TABLE `events` DROP CONSTRAINT `nope`;
ALTER TABLE `events` ADD CONSTRAINT `events_capacity_range` CHECK (`capacity` > 0), ADD CONSTRAINT `events_capacity_range` CHECK (`capacity` < 5);
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-02-02', '2024-02-01', 5);
SELECT `id`, `starts_at`, `ends_at`, `capacity` FROM `events` ORDER BY `id`;
SHOW CREATE TABLE `events`;

-- Turning checks off (dump loading) and the definition errors.
SET check_constraint_checks = 0;
INSERT INTO `events` (`starts_at`, `ends_at`, `capacity`) VALUES ('2024-03-01', '2024-03-02', 13);
SET check_constraint_checks = 1;
SELECT COUNT(*) FROM `events` WHERE `capacity` = 13;
CREATE TABLE `bad1` (`a` int CHECK (`b` > 0));
CREATE TABLE `bad2` (`a` int, CONSTRAINT `c` CHECK (`a` > 0), CONSTRAINT `c` CHECK (`a` < 9));
CREATE TABLE `bad3` (`a` int CHECK (`a` > RAND()));
CREATE TABLE `bad4` (`a` int, CHECK (`a` > (SELECT 1)));
CREATE TABLE `ok5` (`a` int CHECK (`a` > 0), CHECK (`a` < 100), CONSTRAINT CHECK (`a` <> 50));
SHOW CREATE TABLE `ok5`;
INSERT INTO `ok5` VALUES (50);
ALTER TABLE `ok5` RENAME COLUMN `a` TO `z`;
SHOW CREATE TABLE `ok5`;
INSERT INTO `ok5` (`z`) VALUES (100);
ALTER TABLE `ok5` DROP COLUMN `z`;
ALTER TABLE `ok5` ADD COLUMN `b` int, DROP COLUMN `z`;
SHOW CREATE TABLE `ok5`;
INSERT INTO `ok5` (`b`) VALUES (-100);
-- Renamed columns are renamed in CHECK expressions and foreign keys; MODIFY/CHANGE replace a
-- column's own CHECK; DROP COLUMN takes it along.
CREATE TABLE `rn1` (`a` int CHECK (`a` > 0), `b` int, `c` int, CHECK (`a` < 100), CHECK (`a` + `b` > 0), CONSTRAINT `named` CHECK (`b` <> 5));
ALTER TABLE `rn1` RENAME COLUMN `a` TO `z`;
SHOW CREATE TABLE `rn1`;
INSERT INTO `rn1` (`z`, `b`) VALUES (200, 1);
INSERT INTO `rn1` (`z`, `b`) VALUES (-1, 5);
INSERT INTO `rn1` (`z`, `b`) VALUES (10, 1);
ALTER TABLE `rn1` DROP COLUMN `z`;
ALTER TABLE `rn1` CHANGE `b` `bb` bigint;
SHOW CREATE TABLE `rn1`;
SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'rn1' ORDER BY CONSTRAINT_NAME;
CREATE TABLE `rn2` (`a` int CHECK (`a` > 0), `b` int, CHECK (`a` + `b` > 0));
ALTER TABLE `rn2` MODIFY `a` bigint;
SHOW CREATE TABLE `rn2`;
ALTER TABLE `rn2` CHANGE `a` `aa` int;
SHOW CREATE TABLE `rn2`;
CREATE TABLE `rn3` (`a` int CHECK (`a` > 0), `b` int);
ALTER TABLE `rn3` DROP COLUMN `a`;
SHOW CREATE TABLE `rn3`;
ALTER TABLE `rn3` CHANGE `b` `bb` int CHECK (`bb` > 1);
SHOW CREATE TABLE `rn3`;
INSERT INTO `rn3` VALUES (0);
CREATE TABLE `rp1` (`id` int PRIMARY KEY);
CREATE TABLE `rc1` (`id` int PRIMARY KEY, `pid` int, CONSTRAINT `rfk1` FOREIGN KEY (`pid`) REFERENCES `rp1` (`id`));
ALTER TABLE `rc1` RENAME COLUMN `pid` TO `parent_id`;
SHOW CREATE TABLE `rc1`;
ALTER TABLE `rp1` RENAME COLUMN `id` TO `pk`;
SHOW CREATE TABLE `rc1`;
INSERT INTO `rc1` VALUES (1, 7);
INSERT INTO `rp1` VALUES (7);
INSERT INTO `rc1` VALUES (1, 7);
SELECT COLUMN_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'rc1' AND REFERENCED_TABLE_NAME IS NOT NULL;
INSERT INTO `rn3` VALUES (5);
ALTER TABLE `rn3` MODIFY `bb` int CHECK (`bb` > 7);
SHOW CREATE TABLE `rn3`;
ALTER TABLE `rn3` ADD COLUMN `cc` int DEFAULT 3 CHECK (`cc` < 3);
ALTER TABLE `rn3` ADD COLUMN `cc` int DEFAULT 3 CHECK (`cc` <= 3);
SHOW CREATE TABLE `rn3`;
INSERT INTO `rn3` VALUES (9, 4);
SELECT * FROM `rn3`;
-- A CHECK may not read an AUTO_INCREMENT column: MariaDB checks a row before it takes its value.
CREATE TABLE ck_ai1 (id int AUTO_INCREMENT PRIMARY KEY, c int CHECK (id > 0));
CREATE TABLE ck_ai2 (id int AUTO_INCREMENT PRIMARY KEY, c int, CONSTRAINT ck CHECK (id > 0));
CREATE TABLE ck_ai3 (id int AUTO_INCREMENT PRIMARY KEY CHECK (id > 0), c int);
CREATE TABLE ck_ai4 (id int AUTO_INCREMENT PRIMARY KEY, c int);
ALTER TABLE ck_ai4 ADD CONSTRAINT ck CHECK (id > 0);
ALTER TABLE ck_ai4 ADD CONSTRAINT ck CHECK (c > 0);
INSERT INTO ck_ai4 (c) VALUES (1);
INSERT INTO ck_ai4 (c) VALUES (0);
SELECT * FROM ck_ai4;
-- DROP COLUMN takes along the table CHECKs that name no column left; one that also names a
-- column that stays fails with 1054.
CREATE TABLE `c2` (`a` int, `b` int, `c` int, CHECK (`a` < `b`), CONSTRAINT `x` CHECK (`a` > 0), CHECK (`c` > 0));
ALTER TABLE `c2` DROP COLUMN `c`;
SHOW CREATE TABLE `c2`;
ALTER TABLE `c2` DROP COLUMN `a`;
ALTER TABLE `c2` DROP COLUMN `a`, DROP COLUMN `b`, ADD COLUMN `d` int;
SHOW CREATE TABLE `c2`;
-- Several constraints added in one statement: one copy, its rows counted once.
CREATE TABLE `two_checks` (`id` int PRIMARY KEY, `v` int);
INSERT INTO `two_checks` VALUES (1, 5), (2, 6), (3, 7);
ALTER TABLE `two_checks` ADD CONSTRAINT `c1` CHECK (`v` > 0), ADD CONSTRAINT `c2` CHECK (`v` < 100);
ALTER TABLE `two_checks` ADD COLUMN `w` int, ADD CONSTRAINT `c3` CHECK (`v` <> 13);
ALTER TABLE `two_checks` DROP CHECK `c1`;
ALTER TABLE `two_checks` DROP COLUMN CHECK;
ALTER TABLE `two_checks` DROP COLUMN `check`;
