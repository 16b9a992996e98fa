-- Issue 14 item 6: the introspection queries of Django 5.1's MySQL backend (inspectdb, the
-- migration autodetector's checks, the test runner) on a schema with keys, foreign keys,
-- checks, JSON and generated columns; information_schema restricted to this database.
CREATE TABLE `app_author` (
  `id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY,
  `name` varchar(100) NOT NULL,
  `email` varchar(254) NOT NULL UNIQUE,
  `age` smallint UNSIGNED NULL CHECK (`age` >= 0),
  `bio` longtext NULL COMMENT 'free text',
  `rating` double precision NOT NULL DEFAULT 2.5,
  `joined` datetime(6) NOT NULL DEFAULT '2000-01-01 00:00:00.000000',
  `slug` varchar(50) COLLATE utf8mb4_general_ci NOT NULL DEFAULT 'x''y',
  `prefs` json NULL,
  `score` numeric(6, 2) NOT NULL DEFAULT 0.00,
  `is_active` bool NOT NULL DEFAULT 1,
  `name_upper` varchar(100) AS (UPPER(`name`)) STORED
) COMMENT 'Authors';
CREATE INDEX `app_author_slug_5e3f_idx` ON `app_author` (`slug`);
CREATE INDEX `app_author_name_rating_idx` ON `app_author` (`name`, `rating` DESC);
CREATE TABLE `app_book` (
  `id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY,
  `title` varchar(200) NOT NULL,
  `author_id` integer NOT NULL,
  `coauthor_id` integer NULL,
  `isbn` char(13) NOT NULL,
  `pages` integer UNSIGNED NOT NULL CHECK (`pages` >= 0),
  CONSTRAINT `app_book_title_isbn_uniq` UNIQUE (`title`, `isbn`),
  CONSTRAINT `pages_lt_10000` CHECK (`pages` < 10000)
);
ALTER TABLE `app_book` ADD CONSTRAINT `app_book_author_id_fk_app_author_id` FOREIGN KEY (`author_id`) REFERENCES `app_author` (`id`);
ALTER TABLE `app_book` ADD CONSTRAINT `app_book_coauthor_id_fk_app_author_id` FOREIGN KEY (`coauthor_id`) REFERENCES `app_author` (`id`) ON DELETE SET NULL;
CREATE VIEW `app_book_view` AS SELECT `id`, `title` FROM `app_book`;

-- get_table_list, get_storage_engine, the table collation.
SHOW FULL TABLES;
SELECT table_name, table_type, table_comment FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name;
SELECT engine FROM information_schema.tables WHERE table_name = 'app_book' AND table_schema = DATABASE();
SELECT table_collation FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'app_author';
SELECT @@collation_database;

-- get_table_description: information_schema.columns, then the cursor of `SELECT * ... LIMIT 1`.
SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, extra, column_default, CASE WHEN collation_name = 'utf8mb4_bin' THEN NULL ELSE collation_name END AS collation_name, CASE WHEN column_type LIKE '%% unsigned' THEN 1 ELSE 0 END AS is_unsigned, column_comment FROM information_schema.columns WHERE table_name = 'app_author' AND table_schema = DATABASE() ORDER BY ordinal_position;
SELECT * FROM `app_author` LIMIT 1;
SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, extra, column_default, collation_name, column_type, column_comment FROM information_schema.columns WHERE table_name = 'app_book' AND table_schema = DATABASE() ORDER BY ordinal_position;
SELECT * FROM `app_book` LIMIT 1;
SELECT c.constraint_name AS column_name FROM information_schema.check_constraints AS c WHERE c.table_name = 'app_author' AND LOWER(c.check_clause) = 'json_valid(`' + LOWER(c.constraint_name) + '`)' AND c.constraint_schema = DATABASE();
SELECT c.constraint_name AS column_name FROM information_schema.check_constraints AS c WHERE c.table_name = 'app_author' AND LOWER(c.check_clause) = CONCAT('json_valid(`', LOWER(c.constraint_name), '`)') AND c.constraint_schema = DATABASE();

-- get_sequences, get_relations, get_primary_key_columns.
SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'app_book' AND extra = 'auto_increment';
SELECT column_name, referenced_column_name, referenced_table_name FROM information_schema.key_column_usage WHERE table_name = 'app_book' AND table_schema = DATABASE() AND referenced_table_name IS NOT NULL AND referenced_column_name IS NOT NULL ORDER BY column_name;

-- get_constraints: keys, checks, then SHOW INDEX.
SELECT kc.`constraint_name`, kc.`column_name`, kc.`referenced_table_name`, kc.`referenced_column_name`, c.`constraint_type` FROM information_schema.key_column_usage AS kc, information_schema.table_constraints AS c WHERE kc.table_schema = DATABASE() AND c.table_schema = kc.table_schema AND c.constraint_name = kc.constraint_name AND c.constraint_type != 'CHECK' AND c.table_name = kc.table_name AND kc.table_name = 'app_book' ORDER BY kc.`ordinal_position`, kc.`constraint_name`;
SELECT kc.`constraint_name`, kc.`column_name`, kc.`referenced_table_name`, kc.`referenced_column_name`, c.`constraint_type` FROM information_schema.key_column_usage AS kc, information_schema.table_constraints AS c WHERE kc.table_schema = DATABASE() AND c.table_schema = kc.table_schema AND c.constraint_name = kc.constraint_name AND c.constraint_type != 'CHECK' AND c.table_name = kc.table_name AND kc.table_name = 'app_author' ORDER BY kc.`ordinal_position`, kc.`constraint_name`;
SELECT cc.constraint_name, cc.check_clause FROM information_schema.check_constraints AS cc, information_schema.table_constraints AS tc WHERE cc.constraint_schema = DATABASE() AND tc.table_schema = cc.constraint_schema AND cc.constraint_name = tc.constraint_name AND tc.constraint_type = 'CHECK' AND tc.table_name = 'app_book' ORDER BY cc.constraint_name;
SELECT cc.constraint_name, cc.check_clause FROM information_schema.check_constraints AS cc, information_schema.table_constraints AS tc WHERE cc.constraint_schema = DATABASE() AND tc.table_schema = cc.constraint_schema AND cc.constraint_name = tc.constraint_name AND tc.constraint_type = 'CHECK' AND tc.table_name = 'app_author' ORDER BY cc.constraint_name;
SHOW INDEX FROM `app_book`;
SHOW INDEX FROM `app_author`;
SHOW INDEX FROM `app_book_view`;

-- What the test runner and the schema editor ask besides.
SELECT VERSION() LIKE '10.11%', @@sql_mode, @@default_storage_engine, @@sql_auto_is_null, @@lower_case_table_names;
SELECT @@SQL_AUTO_IS_NULL;
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT @@tx_isolation, @@session.tx_isolation, @@global.tx_isolation;
SELECT @@transaction_isolation;
SELECT engine FROM information_schema.engines WHERE engine = 'InnoDB';
SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'InnoDB';
SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'django_migrations';
SHOW CREATE TABLE `app_author`;
SHOW CREATE TABLE `app_book`;
SHOW CREATE VIEW `app_book_view`;
SHOW COLUMNS FROM `app_author`;
SHOW FULL COLUMNS FROM `app_book`;
SHOW TABLE STATUS WHERE Name = 'nope';
-- A JSON column's own CHECK (json_valid) is listed like any column-level CHECK: Django's
-- introspection finds JSON columns by it.
CREATE TABLE `jsoncheck` (`id` int PRIMARY KEY, `js` json, `js2` json NOT NULL CHECK (`js2` <> '[]'), `n` int CHECK (`n` > 0), CHECK (`n` < 10));
SELECT CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'jsoncheck';
SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'jsoncheck';
SELECT c.constraint_name AS column_name FROM information_schema.check_constraints AS c WHERE c.table_name = 'jsoncheck' AND LOWER(c.check_clause) = CONCAT('json_valid(`', LOWER(c.constraint_name), '`)') AND c.constraint_schema = DATABASE();
-- CHECK_CONSTRAINTS lists column-level checks (a JSON column's own included) in column order.
CREATE TABLE `app_checks` (`z` int, `a` json, `b` int CHECK (`b` > 0), `c` json, `d` int, CONSTRAINT `tt` CHECK (`d` > `z`));
ALTER TABLE `app_checks` ADD COLUMN `e` int CHECK (`e` > 1), MODIFY `z` int CHECK (`z` < 5);
SELECT constraint_name, level, check_clause FROM information_schema.check_constraints WHERE constraint_schema = DATABASE() AND table_name = 'app_checks';
