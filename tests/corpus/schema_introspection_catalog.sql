-- Issue 14 item 6: information_schema and SHOW as the other frameworks read them: Rails'
-- schema dumper (SHOW FULL FIELDS, SHOW KEYS, the foreign key query), Prisma's introspection
-- (COLUMNS, STATISTICS, KEY_COLUMN_USAGE joined to REFERENTIAL_CONSTRAINTS), SQLAlchemy's
-- reflection (SHOW CREATE TABLE parsed), Hibernate's validation; plus the COLLATIONS and
-- CHARACTER_SETS rows every driver maps charset numbers with.
CREATE TABLE `teams` (`id` bigint NOT NULL AUTO_INCREMENT, `name` varchar(80) NOT NULL, `code` char(4) CHARACTER SET ascii NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `index_teams_on_code` (`code`));
CREATE TABLE `players` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `team_id` bigint DEFAULT NULL,
  `name` varchar(100) NOT NULL DEFAULT 'anon',
  `number` tinyint unsigned DEFAULT NULL,
  `position` enum('GK','DF','MF','FW') NOT NULL DEFAULT 'MF',
  `salary` decimal(12,2) unsigned zerofill DEFAULT NULL,
  `signed_on` date DEFAULT NULL,
  `updated_at` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(),
  `nick` varchar(30) GENERATED ALWAYS AS (lower(`name`)) VIRTUAL,
  `notes` text DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `index_players_on_team_id_and_number` (`team_id`,`number`),
  KEY `index_players_on_name` (`name`(10)),
  KEY `index_players_on_nick` (`nick`),
  CONSTRAINT `fk_rails_team` FOREIGN KEY (`team_id`) REFERENCES `teams` (`id`) ON DELETE CASCADE ON UPDATE NO ACTION,
  CONSTRAINT `number_range` CHECK (`number` between 1 and 99)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci COMMENT='squad list';

-- Rails.
SHOW FULL FIELDS FROM `players`;
SHOW KEYS FROM `players`;
SHOW CREATE TABLE `players`;
SHOW CREATE TABLE `teams`;
SELECT fk.referenced_table_name AS 'to_table', fk.referenced_column_name AS 'primary_key', fk.column_name AS 'column', fk.constraint_name AS 'name', rc.update_rule AS 'on_update', rc.delete_rule AS 'on_delete' FROM information_schema.referential_constraints rc JOIN information_schema.key_column_usage fk USING (constraint_schema, constraint_name) WHERE fk.referenced_column_name IS NOT NULL AND fk.table_schema = database() AND fk.table_name = 'players';
SELECT cc.constraint_name AS 'name', cc.check_clause AS 'expression' FROM information_schema.check_constraints cc JOIN information_schema.table_constraints tc USING (constraint_schema, constraint_name) WHERE tc.table_schema = database() AND tc.table_name = 'players' AND cc.constraint_schema = database();
SELECT table_name FROM information_schema.tables WHERE table_schema = database() AND table_name = 'players' AND table_type = 'BASE TABLE';
SELECT table_comment FROM information_schema.tables WHERE table_schema = database() AND table_name = 'players';
SELECT column_name FROM information_schema.statistics WHERE index_name = 'PRIMARY' AND table_schema = database() AND table_name = 'players' ORDER BY seq_in_index;

-- Prisma.
SELECT column_name AS column_name, data_type AS data_type, column_type AS full_data_type, character_maximum_length AS character_maximum_length, numeric_precision AS numeric_precision, numeric_scale AS numeric_scale, datetime_precision AS datetime_precision, column_default AS column_default, is_nullable AS is_nullable, extra AS extra, table_name AS table_name, generation_expression AS generation_expression FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position;
SELECT DISTINCT index_name AS index_name, non_unique AS non_unique, Binary column_name AS column_name, seq_in_index AS seq_in_index, Binary table_name AS table_name, sub_part AS partial, Binary collation AS column_order, Binary index_type AS index_type FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY BINARY table_name, index_name, seq_in_index;
SELECT DISTINCT kcu.constraint_name AS constraint_name, kcu.column_name AS column_name, kcu.referenced_table_name AS referenced_table_name, kcu.referenced_column_name AS referenced_column_name, kcu.ordinal_position AS ordinal_position, kcu.table_name AS table_name, rc.delete_rule AS delete_rule, rc.update_rule AS update_rule FROM information_schema.key_column_usage AS kcu INNER JOIN information_schema.referential_constraints AS rc ON BINARY kcu.constraint_name = BINARY rc.constraint_name WHERE BINARY kcu.table_schema = DATABASE() AND rc.constraint_schema = DATABASE() AND kcu.referenced_column_name IS NOT NULL ORDER BY BINARY kcu.table_schema, BINARY kcu.table_name, BINARY kcu.constraint_name, kcu.ordinal_position;
SELECT tc.constraint_name, tc.table_name, tc.constraint_type FROM information_schema.table_constraints tc WHERE tc.table_schema = DATABASE() ORDER BY tc.table_name, tc.constraint_type, tc.constraint_name;
SELECT cc.constraint_schema = DATABASE(), cc.constraint_name, cc.table_name, cc.level, cc.check_clause FROM information_schema.check_constraints cc WHERE cc.constraint_schema = DATABASE() ORDER BY cc.table_name, cc.constraint_name;
SELECT rc.constraint_name, rc.unique_constraint_name, rc.match_option, rc.update_rule, rc.delete_rule, rc.table_name, rc.referenced_table_name FROM information_schema.referential_constraints rc WHERE rc.constraint_schema = DATABASE() ORDER BY rc.constraint_name;
SELECT table_name, column_name, ordinal_position, position_in_unique_constraint, constraint_name FROM information_schema.key_column_usage WHERE table_schema = DATABASE() ORDER BY table_name, constraint_name, ordinal_position;

-- Hibernate's schema validation and SQLAlchemy's reflection.
SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, COLUMN_DEFAULT, EXTRA, CHARACTER_SET_NAME, COLLATION_NAME, PRIVILEGES, COLUMN_COMMENT, IS_GENERATED FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION;
SELECT TABLE_NAME, NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, CARDINALITY IS NOT NULL, SUB_PART, NULLABLE, INDEX_TYPE, COMMENT, INDEX_COMMENT FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX;
SELECT TABLE_NAME, TABLE_TYPE, ENGINE, ROW_FORMAT, TABLE_COLLATION, CREATE_OPTIONS, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
SHOW VARIABLES LIKE 'lower_case_table_names';
SHOW VARIABLES LIKE 'sql_mode';
SELECT DATABASE();

-- The charset and collation catalogs drivers map numbers with.
SELECT COLLATION_NAME, CHARACTER_SET_NAME, ID, IS_DEFAULT, IS_COMPILED, SORTLEN FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('utf8mb4_general_ci', 'utf8mb4_bin', 'utf8mb4_unicode_ci', 'utf8mb4_unicode_520_ci', 'utf8mb4_nopad_bin', 'utf8mb3_general_ci', 'utf8mb3_bin', 'latin1_swedish_ci', 'latin1_bin', 'ascii_general_ci', 'binary') ORDER BY ID;
SELECT COUNT(*) > 100 FROM information_schema.COLLATIONS;
SELECT CHARACTER_SET_NAME, DEFAULT_COLLATE_NAME, DESCRIPTION, MAXLEN FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME IN ('utf8mb4', 'utf8mb3', 'latin1', 'ascii', 'binary') ORDER BY CHARACTER_SET_NAME;
SELECT COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE COLLATION_NAME IN ('utf8mb4_general_ci', 'latin1_bin') ORDER BY COLLATION_NAME;
SELECT SCHEMA_NAME = DATABASE(), DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE();
SHOW CREATE DATABASE `corpus_schema_introspection_catalog`;
-- mariadb-dump asks information_schema.FILES for tablespaces before dumping (empty on InnoDB
-- without general tablespaces; a missing table makes it print a comment into the dump).
SELECT LOGFILE_GROUP_NAME, FILE_NAME, TOTAL_EXTENTS, INITIAL_SIZE, ENGINE, EXTRA FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'UNDO LOG' AND FILE_NAME IS NOT NULL;
SELECT COUNT(*) FROM information_schema.FILES;

-- SHOW WARNINGS reports the previous statement's warnings and none of its own (the EOF's
-- warning count is 0); statements that use no tables and raise none leave them in place.
SELECT 1/0, CAST('x' AS SIGNED);
SHOW WARNINGS;
SELECT @@warning_count, @@error_count;
SHOW WARNINGS;
SHOW COUNT(*) WARNINGS;
SELECT 1 + 1;
SHOW WARNINGS LIMIT 1;
SET @x = 1;
SHOW ERRORS;
SHOW WARNINGS;
SELECT COUNT(*) FROM information_schema.FILES;
SHOW WARNINGS;
SELECT @@warning_count;
