-- Issue 14 item 7: what ORMs send on their first connection and their first writes: the
-- session setup statements, INSERT / REPLACE / DELETE ... RETURNING (Django uses RETURNING for
-- every insert on MariaDB 10.5+), affected rows as matched rows with CLIENT_FOUND_ROWS (Django's
-- and Rails' connections ask for it; save() of an unchanged row depends on it), and MariaDB's
-- UUID, INET4 and INET6 column types.

-- Session setup: mysqlclient + Django, mysql2 + Rails, SQLAlchemy, Hibernate, Prisma.
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SET NAMES utf8mb4, @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO'), @@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483;
SELECT @@sql_mode, @@sql_auto_is_null, @@wait_timeout;
SET SESSION sql_mode = DEFAULT;
SET autocommit=0;
SET autocommit=1;
SET SESSION sql_select_limit = DEFAULT;
SET @@session.max_statement_time = 0;
SELECT @@max_allowed_packet > 0, @@version_comment IS NOT NULL, @@lower_case_table_names, @@auto_increment_increment;
SHOW VARIABLES LIKE 'character_set%';
SHOW VARIABLES WHERE Variable_name IN ('sql_mode', 'lower_case_table_names', 'time_zone', 'system_time_zone');
SELECT @@session.autocommit, @@tx_read_only, @@session.tx_read_only;
SET SESSION TRANSACTION READ WRITE;
SET SESSION TRANSACTION READ ONLY;
SET SESSION TRANSACTION READ WRITE;
SELECT CONNECTION_ID() > 0, DATABASE(), CURRENT_USER() IS NOT NULL;

-- Django: INSERT ... RETURNING for save() and bulk_create().
CREATE TABLE `blog_entry` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `headline` varchar(255) NOT NULL, `rating` integer NOT NULL, `pub_date` date NOT NULL, `slug` varchar(50) NOT NULL UNIQUE, `uid` uuid NOT NULL DEFAULT UUID());
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('First', 5, '2024-01-01', 'first', '0e5d7a0e-1f8e-4a4d-9d2c-000000000001') RETURNING `blog_entry`.`id`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('Second', 4, '2024-01-02', 'second', '0e5d7a0e-1f8e-4a4d-9d2c-000000000002'), ('Third', 3, '2024-01-03', 'third', '0e5d7a0e-1f8e-4a4d-9d2c-000000000003') RETURNING `blog_entry`.`id`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('Dup', 1, '2024-01-04', 'first', '0e5d7a0e-1f8e-4a4d-9d2c-000000000004') RETURNING `blog_entry`.`id`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('Fourth', 2 * 2, '2024-01-04', 'fourth', '0e5d7a0e-1f8e-4a4d-9d2c-000000000004') RETURNING `id`, `headline`, `rating` + 1 AS `next`, UPPER(`slug`), `uid`, `pub_date`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`) VALUES ('Fifth', 5, '2024-01-05', 'fifth') RETURNING `id`, LENGTH(`uid`) = 36;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) SELECT CONCAT(`headline`, ' copy'), `rating`, `pub_date`, CONCAT(`slug`, '-copy'), REPLACE(`uid`, '0e5d', 'ffff') FROM `blog_entry` WHERE `id` <= 2 ORDER BY `id` RETURNING `id`, `slug`;
INSERT IGNORE INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('Ignored', 0, '2024-01-06', 'first', UUID()), ('Kept', 0, '2024-01-06', 'kept', '0e5d7a0e-1f8e-4a4d-9d2c-000000000006') RETURNING `id`, `slug`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES ('Upsert', 9, '2024-01-07', 'first', UUID()) ON DUPLICATE KEY UPDATE `rating` = VALUES(`rating`) RETURNING `id`, `rating`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`) VALUES ('Bad', 'x', '2024-01-08', 'bad') RETURNING `id`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`) VALUES ('Bad', 1, '2024-01-08', 'bad') RETURNING `nope`;
INSERT INTO `blog_entry` (`headline`, `rating`, `pub_date`, `slug`) VALUES ('Star', 1, '2024-01-09', 'star') RETURNING *;
SELECT LAST_INSERT_ID() > 0, ROW_COUNT();
REPLACE INTO `blog_entry` (`id`, `headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES (3, 'Third replaced', 30, '2024-01-03', 'third', '0e5d7a0e-1f8e-4a4d-9d2c-000000000003') RETURNING `id`, `headline`;
DELETE FROM `blog_entry` WHERE `rating` < 2 RETURNING `id`, `slug`;
DELETE FROM `blog_entry` WHERE `id` = 999 RETURNING `id`;
SELECT `id`, `headline`, `rating`, `pub_date`, `slug`, `uid` FROM `blog_entry` WHERE `id` <= 7 ORDER BY `id`;

-- Affected rows: changed rows by default, matched rows with CLIENT_FOUND_ROWS.
UPDATE `blog_entry` SET `rating` = 5 WHERE `id` = 1;
UPDATE `blog_entry` SET `rating` = `rating` WHERE `id` <= 3;
INSERT INTO `blog_entry` (`id`, `headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES (1, 'First', 5, '2024-01-01', 'first', '0e5d7a0e-1f8e-4a4d-9d2c-000000000001') ON DUPLICATE KEY UPDATE `rating` = VALUES(`rating`);
-- connection django found_rows
UPDATE `blog_entry` SET `rating` = 5 WHERE `id` = 1;
UPDATE `blog_entry` SET `headline` = 'First', `rating` = 5, `pub_date` = '2024-01-01' WHERE `blog_entry`.`id` = 1;
UPDATE `blog_entry` SET `rating` = `rating` WHERE `id` <= 3;
UPDATE `blog_entry` SET `rating` = 6 WHERE `id` <= 3;
UPDATE `blog_entry` SET `rating` = 6 WHERE `id` = 12345;
INSERT INTO `blog_entry` (`id`, `headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES (1, 'First', 6, '2024-01-01', 'first', '0e5d7a0e-1f8e-4a4d-9d2c-000000000001') ON DUPLICATE KEY UPDATE `rating` = VALUES(`rating`);
INSERT INTO `blog_entry` (`id`, `headline`, `rating`, `pub_date`, `slug`, `uid`) VALUES (1, 'First', 7, '2024-01-01', 'first', '0e5d7a0e-1f8e-4a4d-9d2c-000000000001') ON DUPLICATE KEY UPDATE `rating` = VALUES(`rating`);
DELETE FROM `blog_entry` WHERE `id` = 12345;
SELECT ROW_COUNT();
UPDATE `blog_entry` SET `rating` = 7 WHERE `id` = 1;
SELECT ROW_COUNT();
-- connection a
SELECT `id`, `rating` FROM `blog_entry` WHERE `id` <= 3 ORDER BY `id`;

-- UUID, INET4, INET6: MariaDB's types for identifiers and addresses.
CREATE TABLE `sessions` (`id` uuid NOT NULL PRIMARY KEY, `ip4` inet4 NULL, `ip6` inet6 NULL, `user_id` int NOT NULL, KEY `sessions_ip6` (`ip6`));
SHOW CREATE TABLE `sessions`;
INSERT INTO `sessions` VALUES ('123e4567-e89b-12d3-a456-426614174000', '192.168.0.1', '2001:db8::ff00:42:8329', 1), ('00000000-0000-0000-0000-000000000001', '10.0.0.1', '::ffff:10.0.0.1', 2), ('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '255.255.255.255', '::', 3), ('123e4567e89b12d3a456426614174001', NULL, '2001:0db8:0000:0000:0000:0000:0000:0001', 4);
SELECT `id`, `ip4`, `ip6`, `user_id` FROM `sessions` ORDER BY `id`;
SELECT `id` FROM `sessions` WHERE `id` = '123E4567-E89B-12D3-A456-426614174000';
SELECT `user_id` FROM `sessions` WHERE `ip4` > '10.0.0.0' ORDER BY `ip4`;
SELECT `user_id`, `ip6` FROM `sessions` WHERE `ip6` = '2001:db8::1';
SELECT `user_id` FROM `sessions` FORCE INDEX (`sessions_ip6`) WHERE `ip6` >= '::1' ORDER BY `ip6`;
SELECT HEX(`id`), HEX(`ip4`), HEX(`ip6`), CAST(`ip4` AS CHAR), LENGTH(`id`) FROM `sessions` WHERE `user_id` = 1;
INSERT INTO `sessions` (`id`, `user_id`) VALUES ('not-a-uuid', 9);
INSERT INTO `sessions` (`id`, `ip4`, `user_id`) VALUES (UUID(), '256.0.0.1', 9);
INSERT INTO `sessions` (`id`, `ip6`, `user_id`) VALUES (UUID(), '2001:db8::g', 9);
INSERT INTO `sessions` (`id`, `user_id`) VALUES ('123e4567-e89b-12d3-a456-426614174000', 9);
SELECT IS_IPV4('1.2.3.4'), IS_IPV6('::1'), INET6_NTOA(INET6_ATON('::1')), INET_ATON('10.0.0.1'), INET_NTOA(167772161);
SELECT CAST('123e4567-e89b-12d3-a456-426614174000' AS UUID), CAST('1.2.3.4' AS INET4), CAST('::1' AS INET6), CAST(CAST('1.2.3.4' AS INET4) AS INET6);
SELECT UUID() IS NOT NULL, LENGTH(UUID()), LENGTH(UUID_SHORT()) > 0, SYS_GUID() IS NOT NULL;
ALTER TABLE `sessions` MODIFY `ip4` varchar(15);
SELECT `ip4` FROM `sessions` ORDER BY `user_id`;
ALTER TABLE `sessions` MODIFY `ip4` inet4;
SELECT `ip4` FROM `sessions` ORDER BY `user_id`;

-- REPLACE of a row identical to the one it replaces: 1 affected row, no duplicate, when the
-- table's only unique key conflicts (MariaDB updates in place); delete and insert (2) when the
-- table has another unique key.
CREATE TABLE `rep_one` (`id` int PRIMARY KEY, `v` int);
INSERT INTO `rep_one` VALUES (1, 10), (2, 20);
REPLACE INTO `rep_one` VALUES (1, 10);
REPLACE INTO `rep_one` VALUES (1, 11);
REPLACE INTO `rep_one` VALUES (1, 11), (2, 21), (3, 30);
REPLACE INTO `rep_one` SELECT * FROM `rep_one`;
SELECT * FROM `rep_one` ORDER BY `id`;
CREATE TABLE `rep_two` (`id` int PRIMARY KEY, `v` int, `w` int, UNIQUE KEY (`w`));
INSERT INTO `rep_two` VALUES (1, 10, 100);
REPLACE INTO `rep_two` VALUES (1, 10, 100);
REPLACE INTO `rep_two` VALUES (1, 11, 100);
REPLACE INTO `rep_two` VALUES (2, 11, 100);
SELECT * FROM `rep_two` ORDER BY `id`;
CREATE TABLE `rep_nokey` (`v` int);
INSERT INTO `rep_nokey` VALUES (1);
REPLACE INTO `rep_nokey` VALUES (1);
CREATE TABLE `rep_uk` (`a` int, `b` int, UNIQUE KEY (`a`));
INSERT INTO `rep_uk` VALUES (1, 1);
REPLACE INTO `rep_uk` VALUES (1, 1);
REPLACE INTO `rep_uk` VALUES (1, 2);
SELECT * FROM `rep_uk`;
-- AUTO_INCREMENT values as MariaDB (innodb_autoinc_lock_mode=1) hands them out: a row INSERT IGNORE
-- skips gives its value to the next row, a row a CHECK refuses takes none, a multi-row VALUES
-- reserves one per row, INSERT ... SELECT reserves 1, 2, 4, ...
create table ai_seq (id int auto_increment primary key, u int unique, c int check (c < 5));
insert into ai_seq (u,c) values (1,1);
insert ignore into ai_seq (u,c) values (1,1);
insert into ai_seq (u,c) values (2,1);
insert ignore into ai_seq (u,c) values (1,1),(3,1);
insert into ai_seq (u,c) values (4,1);
insert into ai_seq (u,c) values (5,9);
insert into ai_seq (u,c) values (6,1);
insert into ai_seq(u,c) values (1,1);
insert into ai_seq (u,c) values (7,1);
insert ignore into ai_seq (u,c) values (8,9),(9,1);
insert into ai_seq (u,c) values (1,1) on duplicate key update c=2;
insert into ai_seq (u,c) values (10,1);
insert ignore into ai_seq (u,c) values (11,1),(1,1),(1,1),(12,1);
insert into ai_seq(u,c) values (13,1);
insert into ai_seq(u,c) values (14,1),(1,1);
insert into ai_seq(u,c) values (15,1);
insert into ai_seq(u,c) select 16,1 union all select 1,1;
insert into ai_seq(u,c) values (17,1);
insert ignore into ai_seq(u,c) select 18,1 union all select 1,1 union all select 19,1;
insert into ai_seq(u,c) values (20,1);
select * from ai_seq order by id;
create table ai_lid (id int auto_increment primary key, u int unique);
insert into ai_lid (u) values (1);
select last_insert_id();
insert ignore into ai_lid (u) values (1),(2);
select last_insert_id(), row_count();
insert ignore into ai_lid (u) values (1);
select last_insert_id(), row_count();
insert ignore into ai_lid (u) values (1),(2);
select last_insert_id(), row_count();
insert into ai_lid (u) values (3);
select last_insert_id();
insert ignore into ai_lid (u) select 1 union all select 4;
select last_insert_id();
select * from ai_lid;
