-- Issue 14 item 2: the rest of ALTER TABLE that migration tools and DBAs use: column order
-- (FIRST / AFTER), primary keys, AUTO_INCREMENT=, table options, several operations in one
-- statement, ALGORITHM= and LOCK= (pt-online-schema-change and gh-ost users write them) and
-- the errors for what cannot be done.
CREATE TABLE `events` (`id` int NOT NULL AUTO_INCREMENT, `name` varchar(40) NOT NULL, `at` datetime NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
INSERT INTO `events` (`name`, `at`) VALUES ('boot', '2024-05-01 08:00:00'), ('login', '2024-05-01 08:05:00'), ('logout', '2024-05-01 09:00:00');
ALTER TABLE `events` ADD COLUMN `source` varchar(20) NOT NULL DEFAULT 'web' AFTER `id`;
ALTER TABLE `events` ADD COLUMN `seq` int NOT NULL DEFAULT 0 FIRST;
ALTER TABLE `events` MODIFY COLUMN `at` datetime NOT NULL AFTER `seq`;
ALTER TABLE `events` CHANGE COLUMN `name` `event_name` varchar(60) NOT NULL AFTER `at`;
SELECT * FROM `events` ORDER BY `id`;
SHOW COLUMNS FROM `events`;

-- ALGORITHM and LOCK: accepted where the operation allows them, refused where it does not.
ALTER TABLE `events` ADD COLUMN `note` varchar(100) NULL, ALGORITHM=INSTANT;
ALTER TABLE `events` ALTER COLUMN `note` SET DEFAULT 'none', ALGORITHM=INSTANT;
ALTER TABLE `events` MODIFY `note` varchar(200) NULL, ALGORITHM=INSTANT;
ALTER TABLE `events` RENAME COLUMN `note` TO `remark`, ALGORITHM=INSTANT;
ALTER TABLE `events` DROP COLUMN `remark`, ALGORITHM=INSTANT;
ALTER TABLE `events` ADD INDEX `events_at` (`at`), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE `events` MODIFY `event_name` varchar(30) NOT NULL, ALGORITHM=INPLACE;
ALTER TABLE `events` MODIFY `event_name` varchar(30) NOT NULL, ALGORITHM=COPY;
ALTER TABLE `events` MODIFY `seq` bigint NOT NULL DEFAULT 0, ALGORITHM=INSTANT;
ALTER TABLE `events` MODIFY `seq` bigint NOT NULL DEFAULT 0, LOCK=NONE;
ALTER TABLE `events` ENGINE=InnoDB, ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE `events` ADD COLUMN `x` int, ALGORITHM=DEFAULT, LOCK=DEFAULT;
ALTER TABLE `events` DROP COLUMN `x`, LOCK=SHARED;
ALTER TABLE `events` ADD COLUMN `x` int, LOCK=EXCLUSIVE;
ALTER TABLE `events` ALGORITHM=NOCOPY, DROP COLUMN `x`;
ALTER TABLE `events` ALGORITHM=FAST, ADD COLUMN `y` int;
ALTER TABLE `events` ALGORITHM=BOGUS, ADD COLUMN `z` int;
SELECT `seq`, `id`, `source`, `event_name` FROM `events` ORDER BY `id`;

-- Primary keys: dropped, moved, made composite; AUTO_INCREMENT needs a key.
CREATE TABLE `memberships` (`user_id` int NOT NULL, `group_id` int NOT NULL, `role` varchar(10) NOT NULL DEFAULT 'member');
INSERT INTO `memberships` VALUES (1, 10, 'owner'), (2, 10, 'member'), (1, 20, 'member');
ALTER TABLE `memberships` ADD PRIMARY KEY (`user_id`, `group_id`);
INSERT INTO `memberships` VALUES (1, 10, 'dup');
ALTER TABLE `memberships` DROP PRIMARY KEY;
INSERT INTO `memberships` VALUES (1, 10, 'dup');
ALTER TABLE `memberships` ADD PRIMARY KEY (`user_id`, `group_id`);
DELETE FROM `memberships` WHERE `role` = 'dup';
ALTER TABLE `memberships` ADD PRIMARY KEY (`user_id`, `group_id`);
ALTER TABLE `memberships` ADD COLUMN `id` int NOT NULL AUTO_INCREMENT FIRST, DROP PRIMARY KEY, ADD PRIMARY KEY (`id`), ADD UNIQUE KEY `memberships_user_group` (`user_id`, `group_id`);
SELECT * FROM `memberships` ORDER BY `id`;
ALTER TABLE `memberships` DROP PRIMARY KEY;
ALTER TABLE `memberships` ADD COLUMN `n` int AUTO_INCREMENT;
ALTER TABLE `memberships` ADD PRIMARY KEY (`group_id`);
SHOW CREATE TABLE `memberships`;

-- AUTO_INCREMENT=, table options, renames.
ALTER TABLE `events` AUTO_INCREMENT = 1000;
INSERT INTO `events` (`at`, `event_name`) VALUES ('2024-05-02 00:00:00', 'next');
SELECT MAX(`id`) FROM `events`;
ALTER TABLE `events` AUTO_INCREMENT = 5;
INSERT INTO `events` (`at`, `event_name`) VALUES ('2024-05-03 00:00:00', 'after lowering');
SELECT MAX(`id`) FROM `events`;
ALTER TABLE `events` ENGINE = InnoDB;
ALTER TABLE `events` ENGINE = MyISAM;
ALTER TABLE `events` COMMENT 'audit log', ROW_FORMAT=DYNAMIC;
ALTER TABLE `events` DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
ALTER TABLE `events` CHARACTER SET latin1;
ALTER TABLE `events` RENAME TO `audit_events`;
ALTER TABLE `audit_events` RENAME `events`;
RENAME TABLE `events` TO `e1`, `memberships` TO `m1`;
RENAME TABLE `e1` TO `events`, `m1` TO `memberships`;
SHOW CREATE TABLE `events`;
SELECT `id`, `event_name` FROM `events` ORDER BY `id`;

-- Errors an ORM's migration can run into.
ALTER TABLE `events` ADD COLUMN `source` varchar(5);
ALTER TABLE `events` DROP COLUMN `nope`;
ALTER TABLE `events` MODIFY `nope` int;
ALTER TABLE `events` CHANGE `nope` `nope2` int;
ALTER TABLE `events` RENAME COLUMN `nope` TO `nope2`;
ALTER TABLE `events` RENAME COLUMN `source` TO `seq`;
ALTER TABLE `events` DROP INDEX `nope`;
ALTER TABLE `events` ADD INDEX `events_at` (`source`);
ALTER TABLE `events` ADD INDEX (`nope`);
ALTER TABLE `nope` ADD COLUMN `a` int;
ALTER TABLE `events` RENAME TO `memberships`;
ALTER TABLE `events` ALTER COLUMN `nope` SET DEFAULT 1;
ALTER TABLE `events` ADD COLUMN `after_nope` int AFTER `nope`;
ALTER TABLE `events` MODIFY `event_name` varchar(3) NOT NULL;
ALTER TABLE `events` MODIFY `event_name` int NOT NULL;
ALTER TABLE `events` ADD COLUMN `req` int NOT NULL;
SELECT `id`, `req` FROM `events` ORDER BY `id`;
ALTER TABLE `events` MODIFY `source` varchar(20) NULL;
UPDATE `events` SET `source` = NULL WHERE `id` = 1;
ALTER TABLE `events` MODIFY `source` varchar(20) NOT NULL;
ALTER TABLE `events` ADD UNIQUE KEY `events_seq` (`seq`);
ALTER TABLE `events` DROP COLUMN `id`, DROP COLUMN `seq`, DROP COLUMN `source`, DROP COLUMN `at`, DROP COLUMN `event_name`, DROP COLUMN `req`;
ALTER TABLE `events` ADD COLUMN `a` int, DROP COLUMN `a`;
ALTER TABLE `events` ADD COLUMN `b` int, ADD COLUMN `b` int;
SHOW CREATE TABLE `events`;
CREATE TABLE `pk_moves` (`a` int, `b` int NOT NULL, `c` int);
INSERT INTO `pk_moves` VALUES (1, 1, 1), (2, 2, 2);
ALTER TABLE `pk_moves` ADD PRIMARY KEY (`a`), LOCK=NONE;
ALTER TABLE `pk_moves` DROP PRIMARY KEY, ADD PRIMARY KEY (`b`), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE `pk_moves` DROP PRIMARY KEY, LOCK=NONE;
ALTER TABLE `pk_moves` DROP PRIMARY KEY;
ALTER TABLE `pk_moves` ADD PRIMARY KEY (`c`), ALGORITHM=INPLACE;
INSERT INTO `pk_moves` VALUES (3, 3, NULL);
INSERT INTO `pk_moves` VALUES (3, 3, 1);
ALTER TABLE `pk_moves` DROP PRIMARY KEY, ADD PRIMARY KEY (`a`, `c`), LOCK=NONE;
SELECT * FROM `pk_moves`;
SHOW CREATE TABLE `pk_moves`;
ALTER TABLE `events` LOCK=FAST, ADD COLUMN `y` int;
ALTER TABLE `events` ALGORITHM=1, ADD COLUMN `y` int;
-- The table copy's errors, as MariaDB's field copy gives them: a CHAR/VARCHAR cut short into a
-- shorter one is 1265, TEXT or another character set 1406, a string that is no number 1292.
CREATE TABLE `shrink` (`id` int PRIMARY KEY, `s` varchar(20), `c` char(10), `t` text);
INSERT INTO `shrink` VALUES (1, 'abcdef', 'abcdef', 'abcdef');
ALTER TABLE `shrink` MODIFY `s` varchar(3);
ALTER TABLE `shrink` MODIFY `c` char(3);
ALTER TABLE `shrink` MODIFY `t` varchar(3);
ALTER TABLE `shrink` MODIFY `s` varbinary(3);
ALTER TABLE `shrink` MODIFY `s` decimal(5,2);
ALTER TABLE `shrink` MODIFY `s` double;
ALTER TABLE `shrink` MODIFY `s` int unsigned;
ALTER TABLE `shrink` MODIFY `s` date;
ALTER TABLE `shrink` MODIFY `s` time;
ALTER TABLE `shrink` MODIFY `s` year;
ALTER TABLE `shrink` ADD COLUMN `q` int, DROP COLUMN IF EXISTS `q`;
SHOW CREATE TABLE `shrink`;
