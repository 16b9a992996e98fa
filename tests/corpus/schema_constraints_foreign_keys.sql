-- Issue 14 item 4: foreign keys with InnoDB's semantics as applications rely on them: the
-- referential actions ORMs declare, cascades over several levels and self references, errors
-- 1451/1452, loading a dump with foreign_key_checks=0, and the parent-row locks that keep two
-- sessions from breaking integrity (the waits are cut by a 1 second lock wait timeout).
CREATE TABLE `customers` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `name` varchar(40) NOT NULL, `code` varchar(10) NOT NULL, UNIQUE KEY `customers_code` (`code`));
CREATE TABLE `orders` (
  `id` int NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `customer_id` int NOT NULL,
  `customer_code` varchar(10) NULL,
  `total` decimal(10,2) NOT NULL DEFAULT 0,
  KEY `orders_customer_id` (`customer_id`),
  CONSTRAINT `orders_customer_fk` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT `orders_code_fk` FOREIGN KEY (`customer_code`) REFERENCES `customers` (`code`) ON DELETE SET NULL ON UPDATE SET NULL
);
CREATE TABLE `order_lines` (
  `order_id` int NOT NULL,
  `line` int NOT NULL,
  `product` varchar(20) NOT NULL,
  PRIMARY KEY (`order_id`, `line`),
  FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE CASCADE
);
CREATE TABLE `payments` (
  `id` int NOT NULL PRIMARY KEY,
  `order_id` int,
  CONSTRAINT `payments_order_fk` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE RESTRICT ON UPDATE RESTRICT
);
CREATE TABLE `notes` (
  `id` int NOT NULL PRIMARY KEY,
  `customer_id` int,
  CONSTRAINT `notes_customer_fk` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE NO ACTION
);
SHOW CREATE TABLE `orders`;
SHOW CREATE TABLE `order_lines`;
INSERT INTO `customers` (`name`, `code`) VALUES ('acme', 'AC'), ('globex', 'GX'), ('initech', 'IN');
INSERT INTO `orders` (`customer_id`, `customer_code`, `total`) VALUES (1, 'AC', 10), (1, 'AC', 20), (2, 'GX', 30), (3, NULL, 40);
INSERT INTO `order_lines` VALUES (1, 1, 'bolt'), (1, 2, 'nut'), (2, 1, 'gear'), (3, 1, 'spring'), (4, 1, 'lever');
INSERT INTO `payments` VALUES (100, 3), (101, NULL);
INSERT INTO `notes` VALUES (1, 3);

-- Child rows must reference an existing parent (1452); NULL references nothing.
INSERT INTO `orders` (`customer_id`) VALUES (99);
INSERT INTO `orders` (`customer_id`, `customer_code`) VALUES (1, 'ZZ');
INSERT INTO `order_lines` VALUES (99, 1, 'x');
UPDATE `orders` SET `customer_id` = 42 WHERE `id` = 1;
INSERT INTO `payments` VALUES (102, NULL);
INSERT INTO `orders` (`customer_id`, `total`) VALUES (1, 1), (77, 2);
SELECT COUNT(*) FROM `orders`;

-- RESTRICT and NO ACTION refuse (1451); CASCADE follows two levels; SET NULL clears.
DELETE FROM `orders` WHERE `id` = 3;
DELETE FROM `customers` WHERE `id` = 3;
UPDATE `orders` SET `id` = 33 WHERE `id` = 3;
DELETE FROM `customers` WHERE `id` = 1;
SELECT `id`, `customer_id`, `customer_code` FROM `orders` ORDER BY `id`;
SELECT `order_id`, `line` FROM `order_lines` ORDER BY `order_id`, `line`;
UPDATE `customers` SET `id` = 20, `code` = 'GLX' WHERE `id` = 2;
SELECT `id`, `customer_id`, `customer_code` FROM `orders` ORDER BY `id`;
UPDATE `customers` SET `code` = 'IN2' WHERE `code` = 'IN';
DELETE FROM `payments` WHERE `id` = 100;
DELETE FROM `customers` WHERE `id` = 20;
SELECT `id`, `customer_id` FROM `orders` ORDER BY `id`;
SELECT `order_id`, `line` FROM `order_lines` ORDER BY `order_id`, `line`;
SELECT `id`, `order_id` FROM `payments` ORDER BY `id`;
DELETE FROM `notes`;
DELETE FROM `customers`;
SELECT (SELECT COUNT(*) FROM `customers`), (SELECT COUNT(*) FROM `orders`), (SELECT COUNT(*) FROM `order_lines`);

-- A statement that fails part way leaves nothing behind.
INSERT INTO `customers` (`id`, `name`, `code`) VALUES (1, 'a', 'A'), (2, 'b', 'B');
INSERT INTO `orders` (`id`, `customer_id`) VALUES (1, 1), (2, 2), (3, 9);
SELECT COUNT(*) FROM `orders`;
DELETE FROM `customers` WHERE `id` IN (1, 2);
SELECT COUNT(*) FROM `customers`;

-- Self references: a category tree, deleted from the root down.
CREATE TABLE `categories` (
  `id` int NOT NULL PRIMARY KEY,
  `parent_id` int NULL,
  `name` varchar(20) NOT NULL,
  CONSTRAINT `categories_parent_fk` FOREIGN KEY (`parent_id`) REFERENCES `categories` (`id`) ON DELETE CASCADE
);
INSERT INTO `categories` VALUES (1, NULL, 'root'), (2, 1, 'books'), (3, 2, 'fiction'), (4, 3, 'sf'), (5, 1, 'music');
INSERT INTO `categories` VALUES (6, 6, 'self');
INSERT INTO `categories` VALUES (7, 8, 'forward');
UPDATE `categories` SET `parent_id` = 4 WHERE `id` = 5;
DELETE FROM `categories` WHERE `id` = 2;
SELECT `id`, `parent_id`, `name` FROM `categories` ORDER BY `id`;
CREATE TABLE `employees` (`id` int PRIMARY KEY, `manager_id` int, FOREIGN KEY (`manager_id`) REFERENCES `employees` (`id`) ON DELETE SET NULL);
INSERT INTO `employees` VALUES (1, NULL), (2, 1), (3, 2);
DELETE FROM `employees` WHERE `id` = 2;
SELECT * FROM `employees` ORDER BY `id`;

-- Loading a dump: mariadb-dump writes children before parents with checks off.
SET FOREIGN_KEY_CHECKS = 0;
CREATE TABLE `b_child` (`id` int PRIMARY KEY, `a_id` int, KEY `a_id` (`a_id`), CONSTRAINT `b_child_ibfk_1` FOREIGN KEY (`a_id`) REFERENCES `a_parent` (`id`));
INSERT INTO `b_child` VALUES (1, 10), (2, 20);
CREATE TABLE `a_parent` (`id` int PRIMARY KEY);
INSERT INTO `a_parent` VALUES (10);
SET FOREIGN_KEY_CHECKS = 1;
SELECT @@foreign_key_checks;
INSERT INTO `b_child` VALUES (3, 30);
DELETE FROM `a_parent` WHERE `id` = 10;
SELECT * FROM `b_child` ORDER BY `id`;
DROP TABLE `a_parent`;
SET FOREIGN_KEY_CHECKS = 0;
DROP TABLE `a_parent`;
SET FOREIGN_KEY_CHECKS = 1;
INSERT INTO `b_child` VALUES (4, 10);

-- Definition errors.
CREATE TABLE `bad1` (`id` int PRIMARY KEY, `x` int, FOREIGN KEY (`x`) REFERENCES `nope` (`id`));
CREATE TABLE `bad2` (`id` int PRIMARY KEY, `x` varchar(5), FOREIGN KEY (`x`) REFERENCES `categories` (`id`));
CREATE TABLE `bad3` (`id` int PRIMARY KEY, `x` int NOT NULL, FOREIGN KEY (`x`) REFERENCES `categories` (`id`) ON DELETE SET NULL);
CREATE TABLE `bad4` (`id` int PRIMARY KEY, `x` int, FOREIGN KEY (`x`) REFERENCES `categories` (`name`));
ALTER TABLE `employees` DROP FOREIGN KEY `nope`;
ALTER TABLE `categories` DROP COLUMN `parent_id`;
ALTER TABLE `categories` MODIFY `id` bigint NOT NULL;
TRUNCATE TABLE `categories`;
DROP TABLE `categories`;
SELECT COUNT(*) FROM `categories`;

-- Two sessions: a child inserted in an open transaction locks its parent row, and a parent
-- deleted in an open transaction blocks a new child; both until commit or rollback.
CREATE TABLE `accounts` (`id` int PRIMARY KEY, `balance` int NOT NULL);
CREATE TABLE `transfers` (`id` int PRIMARY KEY, `account_id` int NOT NULL, FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`));
INSERT INTO `accounts` VALUES (1, 100), (2, 200), (3, 300);
SET SESSION innodb_lock_wait_timeout = 1;
-- connection b
SET SESSION innodb_lock_wait_timeout = 1;
-- connection a
BEGIN;
INSERT INTO `transfers` VALUES (1, 1);
-- connection b
DELETE FROM `accounts` WHERE `id` = 1;
UPDATE `accounts` SET `balance` = 0 WHERE `id` = 2;
SELECT `id`, `balance` FROM `accounts` ORDER BY `id`;
SELECT COUNT(*) FROM `transfers`;
-- connection a
COMMIT;
-- connection b
DELETE FROM `accounts` WHERE `id` = 1;
-- connection a
BEGIN;
DELETE FROM `accounts` WHERE `id` = 3;
-- connection b
INSERT INTO `transfers` VALUES (2, 3);
-- connection a
ROLLBACK;
-- connection b
INSERT INTO `transfers` VALUES (2, 3);
BEGIN;
INSERT INTO `transfers` VALUES (3, 2);
-- connection a
DELETE FROM `accounts` WHERE `id` = 2;
SELECT `id` FROM `accounts` ORDER BY `id`;
-- connection b
ROLLBACK;
-- connection a
DELETE FROM `accounts` WHERE `id` = 2;
SELECT `id` FROM `accounts` ORDER BY `id`;
SELECT `id`, `account_id` FROM `transfers` ORDER BY `id`;
-- Keys compare under the columns' collation: 'ABC' and 'abc ' reference the general_ci parent 'abc'.
CREATE TABLE `fk_ci_parent` (`code` varchar(10) PRIMARY KEY);
CREATE TABLE `fk_ci_child` (`id` int PRIMARY KEY, `code` varchar(10), FOREIGN KEY (`code`) REFERENCES `fk_ci_parent` (`code`) ON UPDATE CASCADE);
INSERT INTO `fk_ci_parent` VALUES ('abc');
INSERT INTO `fk_ci_child` VALUES (1, 'ABC');
INSERT INTO `fk_ci_child` VALUES (2, 'abc ');
INSERT INTO `fk_ci_child` VALUES (3, 'abd');
DELETE FROM `fk_ci_parent` WHERE `code` = 'ABC';
UPDATE `fk_ci_parent` SET `code` = 'xyz';
SELECT `id`, `code` FROM `fk_ci_child` ORDER BY `id`;
UPDATE `fk_ci_parent` SET `code` = 'XYZ';
SELECT `id`, `code` FROM `fk_ci_child` ORDER BY `id`;
-- An index a foreign key needs goes only if another serves the key: 1553 (child and parent side).
CREATE TABLE `ix_p` (`id` int PRIMARY KEY, `a` int, KEY `a` (`a`));
CREATE TABLE `ix_c` (`id` int PRIMARY KEY, `pid` int, `x` int, KEY `kp2` (`pid`, `x`), CONSTRAINT `ix_fkc` FOREIGN KEY (`pid`) REFERENCES `ix_p` (`id`));
ALTER TABLE `ix_c` DROP COLUMN `pid`;
ALTER TABLE `ix_c` DROP COLUMN `x`;
SHOW CREATE TABLE `ix_c`;
CREATE TABLE `ix_c2` (`id` int PRIMARY KEY, `pa` int, CONSTRAINT `ix_fk2` FOREIGN KEY (`pa`) REFERENCES `ix_p` (`a`));
ALTER TABLE `ix_p` DROP INDEX `a`;
ALTER TABLE `ix_p` DROP COLUMN `a`;
ALTER TABLE `ix_p` ADD KEY `a2` (`a`, `id`);
ALTER TABLE `ix_p` DROP INDEX `a`;
SHOW CREATE TABLE `ix_p`;
CREATE TABLE `ix_c3` (`id` int PRIMARY KEY, `q` int, KEY `kq` (`q`), CONSTRAINT `ix_fk3` FOREIGN KEY (`q`) REFERENCES `ix_p` (`id`));
ALTER TABLE `ix_c3` ADD KEY `kq2` (`q`), DROP INDEX `kq`;
ALTER TABLE `ix_c3` DROP INDEX `kq2`, DROP COLUMN `q`;
ALTER TABLE `ix_c3` DROP COLUMN `q`;
ALTER TABLE `ix_c3` DROP FOREIGN KEY `ix_fk3`, DROP INDEX `kq2`;
SHOW CREATE TABLE `ix_c3`;
-- A column a foreign key uses keeps its type (1833 referenced, 1832 referencing) whatever
-- foreign_key_checks says; its name, default, comment, NULL-ness and display width may change.
CREATE TABLE `fkc_p` (`id` int NOT NULL PRIMARY KEY, `code` varchar(10) NOT NULL, UNIQUE KEY (`code`));
CREATE TABLE `fkc_c` (`id` int PRIMARY KEY, `pid` int, `pcode` varchar(10), CONSTRAINT `fkc1` FOREIGN KEY (`pid`) REFERENCES `fkc_p` (`id`), CONSTRAINT `fkc2` FOREIGN KEY (`pcode`) REFERENCES `fkc_p` (`code`));
INSERT INTO `fkc_p` VALUES (1, 'a');
INSERT INTO `fkc_c` VALUES (1, 1, 'a');
ALTER TABLE `fkc_p` MODIFY `id` bigint NOT NULL;
ALTER TABLE `fkc_p` MODIFY `id` int unsigned NOT NULL;
ALTER TABLE `fkc_p` MODIFY `id` int(5) NOT NULL COMMENT 'x' DEFAULT 3;
ALTER TABLE `fkc_p` CHANGE `id` `id2` int NOT NULL;
ALTER TABLE `fkc_p` CHANGE `id2` `id` int NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` varchar(20) NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` varchar(5) NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` char(10) NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` varchar(10) CHARACTER SET latin1 NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` varchar(10) COLLATE utf8mb4_bin NOT NULL;
ALTER TABLE `fkc_c` MODIFY `pid` bigint;
ALTER TABLE `fkc_c` MODIFY `pid` int NOT NULL;
ALTER TABLE `fkc_c` MODIFY `pid` int NULL;
ALTER TABLE `fkc_c` MODIFY `pcode` varchar(30);
ALTER TABLE `fkc_c` MODIFY `pcode` text;
ALTER TABLE `fkc_c` DROP FOREIGN KEY `fkc1`, MODIFY `pid` bigint;
SET FOREIGN_KEY_CHECKS = 0;
ALTER TABLE `fkc_p` MODIFY `id` bigint NOT NULL;
ALTER TABLE `fkc_p` MODIFY `code` int NOT NULL;
SET FOREIGN_KEY_CHECKS = 1;
SHOW CREATE TABLE `fkc_c`;
-- Drops before adds: a DROP of an index the statement adds is 1091.
CREATE TABLE `ix_order` (`id` int PRIMARY KEY, `a` int, KEY `ka` (`a`));
ALTER TABLE `ix_order` ADD KEY `kb` (`a`), DROP INDEX `kb`;
ALTER TABLE `ix_order` ADD KEY `ka2` (`a`), DROP INDEX `ka`;
ALTER TABLE `ix_order` DROP INDEX `ka2`, ADD KEY `ka2` (`a`, `id`);
SHOW CREATE TABLE `ix_order`;
-- `FOREIGN KEY name (...)` without CONSTRAINT: MariaDB names the constraint and its index so;
-- with CONSTRAINT, the constraint name wins for both.
CREATE TABLE `fk_named_parent` (`id` int PRIMARY KEY);
CREATE TABLE `fk_named` (`id` int, `pid` int, FOREIGN KEY `fk_named_pid` (`pid`) REFERENCES `fk_named_parent` (`id`));
SHOW CREATE TABLE `fk_named`;
CREATE TABLE `fk_named2` (`id` int, `pid` int, CONSTRAINT `fk_cn` FOREIGN KEY `fk_ix` (`pid`) REFERENCES `fk_named_parent` (`id`));
SHOW CREATE TABLE `fk_named2`;
CREATE TABLE `fk_named3` (`id` int, `pid` int, `qid` int);
ALTER TABLE `fk_named3` ADD FOREIGN KEY `fk_named3_p` (`pid`) REFERENCES `fk_named_parent` (`id`);
ALTER TABLE `fk_named3` ADD FOREIGN KEY (`qid`) REFERENCES `fk_named_parent` (`id`);
SHOW CREATE TABLE `fk_named3`;
SELECT CONSTRAINT_NAME, TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'fk_named%' ORDER BY CONSTRAINT_NAME;
CREATE TABLE `fk_named4` (`id` int, `pid` int, FOREIGN KEY `fk_named_pid` (`pid`) REFERENCES `fk_named_parent` (`id`));
ALTER TABLE `fk_named` DROP FOREIGN KEY `fk_named_pid`;
SHOW CREATE TABLE `fk_named`;
