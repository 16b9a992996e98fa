-- Issue 14 item 5: generated columns (Django 5's GeneratedField, Rails' virtual columns, search
-- keys extracted from JSON) VIRTUAL and STORED with indexes on them, and sequences as Hibernate
-- and hand-written schemas use them (CREATE SEQUENCE, NEXTVAL, LASTVAL, SETVAL, NEXT VALUE FOR,
-- sequences as column defaults).
CREATE TABLE `people` (
  `id` int NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `first_name` varchar(30) NOT NULL,
  `last_name` varchar(30) NOT NULL,
  `full_name` varchar(61) GENERATED ALWAYS AS (CONCAT(`first_name`, ' ', `last_name`)) VIRTUAL,
  `name_len` int AS (CHAR_LENGTH(`first_name`) + CHAR_LENGTH(`last_name`)) STORED,
  `born` date NULL,
  `born_year` smallint AS (YEAR(`born`)) PERSISTENT,
  `profile` json NULL,
  `city` varchar(40) AS (JSON_UNQUOTE(JSON_EXTRACT(`profile`, '$.city'))) VIRTUAL,
  KEY `people_city` (`city`),
  UNIQUE KEY `people_full_name` (`full_name`),
  KEY `people_born_year` (`born_year`)
);
SHOW CREATE TABLE `people`;
INSERT INTO `people` (`first_name`, `last_name`, `born`, `profile`) VALUES ('Ada', 'Lovelace', '1815-12-10', '{"city": "London"}'), ('Alan', 'Turing', '1912-06-23', '{"city": "London"}'), ('Grace', 'Hopper', NULL, '{"city": "New York"}'), ('Edsger', 'Dijkstra', '1930-05-11', NULL);
SELECT `id`, `full_name`, `name_len`, `born_year`, `city` FROM `people` ORDER BY `id`;
SELECT `id` FROM `people` WHERE `city` = 'London' ORDER BY `id`;
SELECT `id` FROM `people` FORCE INDEX (`people_city`) WHERE `city` >= 'M' ORDER BY `city`, `id`;
SELECT `full_name` FROM `people` WHERE `born_year` < 1920 ORDER BY `born_year`;
SELECT `full_name` FROM `people` FORCE INDEX (`people_full_name`) WHERE `full_name` LIKE 'A%' ORDER BY `full_name`;
UPDATE `people` SET `last_name` = 'King' WHERE `id` = 1;
SELECT `full_name`, `name_len` FROM `people` WHERE `id` = 1;
INSERT INTO `people` (`first_name`, `last_name`) VALUES ('Ada', 'King');
INSERT INTO `people` (`first_name`, `last_name`, `full_name`) VALUES ('X', 'Y', 'Z');
INSERT INTO `people` (`first_name`, `last_name`, `full_name`) VALUES ('X', 'Y', DEFAULT);
UPDATE `people` SET `name_len` = 3 WHERE `id` = 2;
SELECT `id`, `full_name` FROM `people` ORDER BY `id`;
ALTER TABLE `people` ADD COLUMN `initials` char(2) AS (CONCAT(LEFT(`first_name`, 1), LEFT(`last_name`, 1))) VIRTUAL;
ALTER TABLE `people` ADD INDEX `people_initials` (`initials`);
SELECT `id`, `initials` FROM `people` WHERE `initials` = 'AT';
ALTER TABLE `people` MODIFY `initials` char(2) AS (UPPER(CONCAT(LEFT(`last_name`, 1), LEFT(`first_name`, 1)))) VIRTUAL;
SELECT `initials` FROM `people` ORDER BY `id`;
ALTER TABLE `people` DROP COLUMN `first_name`;
ALTER TABLE `people` DROP COLUMN `initials`, DROP COLUMN `full_name`;
SHOW CREATE TABLE `people`;
CREATE TABLE `bad_gen1` (`a` int, `b` int AS (`a` + RAND()) STORED);
CREATE TABLE `bad_gen2` (`a` int, `b` int AS (`c` + 1));
CREATE TABLE `bad_gen3` (`a` int AS (`b`), `b` int AS (`a`));
CREATE TABLE `gen_ok` (`a` int, `b` int AS (`a` * 2), `c` int AS (`b` + 1) STORED, `d` int GENERATED ALWAYS AS (`a` + 1) VIRTUAL);
INSERT INTO `gen_ok` (`a`) VALUES (1), (NULL);
SELECT * FROM `gen_ok` ORDER BY `a`;

-- Django 5 GeneratedField(db_persist=True / False) as its schema editor writes it.
CREATE TABLE `shop_item` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `price` numeric(10, 2) NOT NULL, `quantity` integer NOT NULL, `total` numeric(12, 2) GENERATED ALWAYS AS ((`price` * `quantity`)) STORED, `label` varchar(40) GENERATED ALWAYS AS (CONCAT(`quantity`, 'x')) VIRTUAL);
INSERT INTO `shop_item` (`price`, `quantity`) VALUES (9.99, 3), (0.50, 10);
SELECT `id`, `total`, `label` FROM `shop_item` ORDER BY `id`;
SHOW CREATE TABLE `shop_item`;

-- Sequences.
CREATE SEQUENCE `order_seq`;
SHOW CREATE SEQUENCE `order_seq`;
SELECT NEXTVAL(`order_seq`), NEXTVAL(`order_seq`);
SELECT NEXT VALUE FOR `order_seq`;
SELECT LASTVAL(`order_seq`), PREVIOUS VALUE FOR `order_seq`;
SELECT SETVAL(`order_seq`, 100);
SELECT NEXTVAL(`order_seq`);
SELECT SETVAL(`order_seq`, 50);
SELECT NEXTVAL(`order_seq`);
SELECT `next_not_cached_value`, `minimum_value`, `maximum_value`, `start_value`, `increment`, `cache_size`, `cycle_option`, `cycle_count` FROM `order_seq`;
CREATE SEQUENCE `invoice_seq` START WITH 1000 INCREMENT BY 10 MINVALUE 1000 MAXVALUE 1030 NOCACHE NOCYCLE;
SELECT NEXTVAL(`invoice_seq`), NEXTVAL(`invoice_seq`), NEXTVAL(`invoice_seq`), NEXTVAL(`invoice_seq`);
SELECT NEXTVAL(`invoice_seq`);
CREATE SEQUENCE `ring` START WITH 1 MINVALUE 1 MAXVALUE 3 INCREMENT BY 1 CACHE 2 CYCLE;
SELECT NEXTVAL(`ring`), NEXTVAL(`ring`), NEXTVAL(`ring`), NEXTVAL(`ring`), NEXTVAL(`ring`);
CREATE SEQUENCE `down` START WITH -1 INCREMENT BY -1;
SELECT NEXTVAL(`down`), NEXTVAL(`down`);
ALTER SEQUENCE `order_seq` RESTART WITH 7;
SELECT NEXTVAL(`order_seq`);
ALTER SEQUENCE `order_seq` INCREMENT BY 5;
SELECT NEXTVAL(`order_seq`), NEXTVAL(`order_seq`);
CREATE TABLE `invoices` (`id` int NOT NULL DEFAULT NEXTVAL(`order_seq`) PRIMARY KEY, `note` varchar(20), `no` int DEFAULT (NEXT VALUE FOR `invoice_seq`));
SHOW CREATE TABLE `invoices`;
INSERT INTO `invoices` (`note`, `no`) VALUES ('first', 1), ('second', 2);
INSERT INTO `invoices` (`id`, `note`, `no`) VALUES (1, 'explicit', 3);
SELECT * FROM `invoices` ORDER BY `id`;
INSERT INTO `invoices` (`note`) VALUES ('seq exhausted');
SHOW TABLES;
SHOW FULL TABLES;
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
CREATE SEQUENCE `order_seq`;
CREATE SEQUENCE IF NOT EXISTS `order_seq`;
CREATE OR REPLACE SEQUENCE `order_seq` START WITH 500;
SELECT NEXTVAL(`order_seq`);
SELECT NEXTVAL(`people`);
SELECT NEXTVAL(`nope`);
CREATE SEQUENCE `bad_seq` MINVALUE 10 MAXVALUE 5;
DROP SEQUENCE `ring`;
DROP SEQUENCE `ring`;
DROP SEQUENCE IF EXISTS `ring`, `down`;
DROP TABLE `invoice_seq`;
SHOW TABLES;
