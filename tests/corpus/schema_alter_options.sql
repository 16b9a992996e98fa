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
-- MyISAM, Aria and MEMORY have no INSTANT or INPLACE ALTER: MariaDB copies the table (the rows
-- copied are the affected rows) for anything but what lives in the .frm alone (names, defaults,
-- comments, ENUM members added at the end, most table options).
CREATE TABLE `heap_like` (`id` int PRIMARY KEY AUTO_INCREMENT, `a` int, `b` varchar(10), `c` int DEFAULT 3, `e` enum('x','y'), KEY `ka` (`a`)) ENGINE=MyISAM;
INSERT INTO `heap_like` (`a`, `b`, `c`, `e`) VALUES (1, 'a', 1, 'x'), (2, 'b', 2, 'x'), (3, 'c', 3, 'y');
ALTER TABLE `heap_like` COMMENT 'kept in the frm';
ALTER TABLE `heap_like` ALTER `c` SET DEFAULT 5;
ALTER TABLE `heap_like` RENAME COLUMN `c` TO `d`;
ALTER TABLE `heap_like` CHANGE `d` `c` int(5) DEFAULT 7 COMMENT 'renamed back';
ALTER TABLE `heap_like` MODIFY `e` enum('x','y','z');
ALTER TABLE `heap_like` RENAME INDEX `ka` TO `ka2`;
ALTER TABLE `heap_like` AUTO_INCREMENT=4;
ALTER TABLE `heap_like` AUTO_INCREMENT=10;
ALTER TABLE `heap_like` ROW_FORMAT=FIXED;
ALTER TABLE `heap_like` ROW_FORMAT=FIXED;
ALTER TABLE `heap_like` DEFAULT CHARSET=utf8mb4;
ALTER TABLE `heap_like` MODIFY `c` int NOT NULL;
ALTER TABLE `heap_like` MODIFY `b` varchar(20);
ALTER TABLE `heap_like` ADD COLUMN `f` int;
ALTER TABLE `heap_like` DROP COLUMN `f`;
ALTER TABLE `heap_like` ADD INDEX `kb` (`b`);
ALTER TABLE `heap_like` DROP INDEX `kb`;
ALTER TABLE `heap_like` MODIFY `c` int NOT NULL FIRST;
ALTER TABLE `heap_like` FORCE;
ALTER TABLE `heap_like` ALGORITHM=INPLACE, ADD COLUMN `g` int;
ALTER TABLE `heap_like` ALGORITHM=INSTANT, MODIFY `a` bigint;
ALTER TABLE `heap_like` LOCK=NONE, ADD COLUMN `g` int;
ALTER TABLE `heap_like` ALGORITHM=INSTANT, ALTER `c` SET DEFAULT 2;
ALTER TABLE `heap_like` ALGORITHM=COPY, COMMENT 'copied';
ALTER TABLE `heap_like` ALTER `c` SET DEFAULT 9;
ALTER TABLE `heap_like` ENGINE=InnoDB;
ALTER TABLE `heap_like` ROW_FORMAT=DEFAULT;
ALTER TABLE `heap_like` ENGINE=InnoDB;
SHOW CREATE TABLE `heap_like`;
ALTER TABLE `heap_like` ENGINE=MEMORY;
ALTER TABLE `heap_like` AUTO_INCREMENT=20;
ALTER TABLE `heap_like` COMMENT 'memory';
SHOW CREATE TABLE `heap_like`;
SELECT `id`, `a`, `b`, `c`, `e` FROM `heap_like` ORDER BY `id`;
CREATE TABLE `opts_only` (`id` int PRIMARY KEY) ENGINE=Aria;
INSERT INTO `opts_only` VALUES (1), (2);
ALTER TABLE `opts_only` KEY_BLOCK_SIZE=8, STATS_PERSISTENT=0;
ALTER TABLE `opts_only` CHECKSUM=1;
ALTER TABLE `opts_only` PAGE_CHECKSUM=0;
ALTER TABLE `opts_only` MAX_ROWS=100;
-- ROW_FORMAT: shown as written, DEFAULT forgets it; InnoDB has no FIXED or PAGE rows.
CREATE TABLE `rf` (`id` int PRIMARY KEY) ENGINE=InnoDB ROW_FORMAT=COMPACT;
SHOW CREATE TABLE `rf`;
CREATE TABLE `rf_like` LIKE `rf`;
SHOW CREATE TABLE `rf_like`;
ALTER TABLE `rf` ROW_FORMAT=FIXED;
ALTER TABLE `rf` ROW_FORMAT=bogus;
ALTER TABLE `rf` ROW_FORMAT='dynamic';
ALTER TABLE `rf` ROW_FORMAT=redundant;
SHOW CREATE TABLE `rf`;
CREATE TABLE `rf_fixed` (`id` int PRIMARY KEY) ENGINE=InnoDB ROW_FORMAT=FIXED;
CREATE TABLE `rf_page` (`id` int PRIMARY KEY) ENGINE=Aria ROW_FORMAT=PAGE;
ALTER TABLE `rf_page` ENGINE=InnoDB;
-- InnoDB: ENUM / SET members added at the end are instant, in front a copy; a column's
-- character set changed is a copy but for utf8mb3 to utf8mb4; VIRTUAL columns are added and
-- dropped in place unless a UNIQUE index or an ordinary column comes or goes with them.
CREATE TABLE `inno` (`id` int PRIMARY KEY, `a` int, `e` enum('x','y'), `st` set('a','b'), `u3` varchar(10) CHARACTER SET utf8mb3, `l1` varchar(10) CHARACTER SET latin1,
  `v` int AS (`a` + 1) VIRTUAL, `w` int AS (`a` + 2) VIRTUAL, `x` int AS (`a` + 3) VIRTUAL, KEY `kv` (`v`), UNIQUE KEY `kw` (`w`), KEY `kx` (`x`)) ENGINE=InnoDB;
INSERT INTO `inno` (`id`, `a`, `e`, `st`, `u3`, `l1`) VALUES (1, 1, 'x', 'a', 'p', 'q'), (2, 2, 'y', 'b', 'r', 's');
ALTER TABLE `inno` MODIFY `e` enum('x','y','z');
ALTER TABLE `inno` MODIFY `e` enum('w','x','y','z');
ALTER TABLE `inno` MODIFY `st` set('a','b','c'), ALGORITHM=INSTANT;
ALTER TABLE `inno` MODIFY `u3` varchar(10) CHARACTER SET utf8mb4;
ALTER TABLE `inno` MODIFY `l1` varchar(10) CHARACTER SET utf8mb4;
ALTER TABLE `inno` MODIFY `l1` varchar(10) CHARACTER SET latin1, ALGORITHM=INPLACE;
ALTER TABLE `inno` DROP COLUMN `v`;
ALTER TABLE `inno` DROP COLUMN `w`;
ALTER TABLE `inno` DROP COLUMN `x`, ADD COLUMN `y` int;
ALTER TABLE `inno` ADD COLUMN `z` int AS (`a` + 4) VIRTUAL, ADD UNIQUE KEY `kz` (`z`);
ALTER TABLE `inno` ADD COLUMN `z2` int AS (`a` + 5) VIRTUAL, ADD KEY `kz2` (`z2`);
SELECT `id`, `e`, `u3`, `l1`, `z`, `z2` FROM `inno` ORDER BY `id`;
SHOW CREATE TABLE `inno`;
-- A bare ALTER TABLE is a no-op; ORDER BY copies the table (a warning where the clustered index
-- decides the order); the column option CHARSET is CHARACTER SET.
CREATE TABLE `ordered` (`a` int, `b` varchar(5) CHARSET latin1, `c` char(2) CHARSET utf8mb4 COLLATE utf8mb4_bin);
INSERT INTO `ordered` (`a`) VALUES (2), (1);
ALTER TABLE `ordered`;
ALTER TABLE `ordered` ORDER BY `a`;
ALTER TABLE `ordered` ORDER BY `a` DESC, `b`;
ALTER TABLE `ordered` ADD `d` int, ORDER BY `a`;
ALTER TABLE `ordered` ORDER BY `nope`;
ALTER TABLE `ordered` MODIFY `a` varchar(3) CHARSET latin1;
ALTER TABLE `ordered` ADD `e` text CHARSET latin1 NOT NULL;
SHOW CREATE TABLE `ordered`;
CREATE TABLE `ordered_pk` (`id` int PRIMARY KEY);
INSERT INTO `ordered_pk` VALUES (2), (1);
ALTER TABLE `ordered_pk` ORDER BY `id`;
CREATE TABLE `ordered_uk` (`id` int NOT NULL, UNIQUE KEY (`id`));
ALTER TABLE `ordered_uk` ORDER BY `id`;
ALTER TABLE `ordered_pk`;
-- information_schema.TABLES ROW_FORMAT and CREATE_OPTIONS: the ROW_FORMAT= written, else the
-- engine's own; Aria says whether it is transactional.
CREATE TABLE `rf_dynamic` (`a` int) ROW_FORMAT=DYNAMIC;
CREATE TABLE `rf_compact` (`a` int) ROW_FORMAT=COMPACT;
CREATE TABLE `rf_none` (`a` int);
CREATE TABLE `rf_redundant` (`a` int) ROW_FORMAT=REDUNDANT;
CREATE TABLE `rf_compressed` (`a` int) ROW_FORMAT=COMPRESSED;
CREATE TABLE `rf_default` (`a` int) ROW_FORMAT=DEFAULT;
CREATE TABLE `rf_aria_page` (`a` int) ENGINE=Aria ROW_FORMAT=PAGE;
CREATE TABLE `rf_aria` (`a` int) ENGINE=Aria;
CREATE TABLE `rf_aria_dynamic` (`a` int) ENGINE=Aria ROW_FORMAT=DYNAMIC;
CREATE TABLE `rf_myisam_fixed` (`a` int, `c` char(3)) ENGINE=MyISAM;
CREATE TABLE `rf_myisam_var` (`a` varchar(10)) ENGINE=MyISAM;
CREATE TABLE `rf_myisam_dynamic` (`a` int) ENGINE=MyISAM ROW_FORMAT=DYNAMIC;
CREATE TABLE `rf_memory` (`a` int) ENGINE=MEMORY;
CREATE SEQUENCE `rf_sequence`;
ALTER TABLE `rf_none` ROW_FORMAT=COMPACT;
ALTER TABLE `rf_dynamic` ROW_FORMAT=DEFAULT;
SELECT TABLE_NAME, ENGINE, ROW_FORMAT, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'rf\_%' ORDER BY TABLE_NAME;
