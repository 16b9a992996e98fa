-- Issue 14 item 2: the SQL of a Django 5.1 app's migrations on the MySQL backend, in order
-- (what `manage.py sqlmigrate` prints), with rows in the tables between steps so that every
-- change is seen to keep the data.

-- 0001_initial
CREATE TABLE `library_author` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `name` varchar(100) NOT NULL, `birth_date` date NULL);
CREATE TABLE `library_book` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `title` varchar(200) NOT NULL, `published` bool NOT NULL, `author_id` integer NOT NULL);
ALTER TABLE `library_book` ADD CONSTRAINT `library_book_author_id_1fd4f3a8_fk_library_author_id` FOREIGN KEY (`author_id`) REFERENCES `library_author` (`id`);
INSERT INTO `library_author` (`name`, `birth_date`) VALUES ('Ursula', '1929-10-21'), ('Iain', NULL), ('Octavia', '1947-06-22');
INSERT INTO `library_book` (`title`, `published`, `author_id`) VALUES ('The Dispossessed', 1, 1), ('Excession', 1, 2), ('Kindred', 1, 3), ('Draft', 0, 2);
SELECT `id`, `title`, `published`, `author_id` FROM `library_book` ORDER BY `id`;

-- 0002_book_pages: AddField with a default (added with it, then dropped: Django keeps defaults in Python)
ALTER TABLE `library_book` ADD COLUMN `pages` integer DEFAULT 0 NOT NULL;
ALTER TABLE `library_book` ALTER COLUMN `pages` DROP DEFAULT;
SELECT `id`, `pages` FROM `library_book` ORDER BY `id`;
INSERT INTO `library_book` (`title`, `published`, `author_id`) VALUES ('No pages given', 0, 1);
INSERT INTO `library_book` (`title`, `published`, `author_id`, `pages`) VALUES ('Pages given', 0, 1, 321);
SHOW CREATE TABLE `library_book`;

-- 0003: AddField nullable, a db_index, a unique field added to a table with rows
ALTER TABLE `library_book` ADD COLUMN `isbn` varchar(13) NULL;
CREATE INDEX `library_book_pages_6f8d3c2a` ON `library_book` (`pages`);
UPDATE `library_book` SET `isbn` = CONCAT('978', LPAD(`id`, 10, '0'));
ALTER TABLE `library_book` ADD CONSTRAINT `library_book_isbn_5f3a1c0e_uniq` UNIQUE (`isbn`);
INSERT INTO `library_book` (`title`, `published`, `author_id`, `pages`, `isbn`) VALUES ('Dup', 0, 1, 1, '9780000000001');
SELECT `id`, `isbn` FROM `library_book` WHERE `pages` > 0 ORDER BY `id`;

-- 0004: AlterField null=False (Django fills NULLs first), max_length, db_comment, db_collation
UPDATE `library_author` SET `birth_date` = '1954-02-16' WHERE `birth_date` IS NULL;
ALTER TABLE `library_author` MODIFY `birth_date` date NOT NULL;
ALTER TABLE `library_book` MODIFY `title` varchar(300) NOT NULL;
ALTER TABLE `library_book` MODIFY `title` varchar(300) NOT NULL COMMENT 'Shown on the cover';
ALTER TABLE `library_author` COMMENT = 'People who write books';
ALTER TABLE `library_author` MODIFY `name` varchar(100) COLLATE `utf8mb4_general_ci` NOT NULL;
INSERT INTO `library_author` (`name`) VALUES ('No birth date');
SELECT `id`, `name`, `birth_date` FROM `library_author` ORDER BY `id`;
SHOW CREATE TABLE `library_author`;

-- 0005: RenameField, AddIndex with a Meta name, RenameIndex, unique_together
ALTER TABLE `library_book` RENAME COLUMN `title` TO `name`;
CREATE INDEX `library_boo_name_0e5b5c_idx` ON `library_book` (`name`, `published`);
ALTER TABLE `library_book` RENAME INDEX `library_boo_name_0e5b5c_idx` TO `book_name_published_idx`;
ALTER TABLE `library_book` ADD CONSTRAINT `library_book_author_id_name_7a1b2c3d_uniq` UNIQUE (`author_id`, `name`);
INSERT INTO `library_book` (`name`, `published`, `author_id`, `pages`) VALUES ('Kindred', 0, 3, 10);
SELECT `id`, `name` FROM `library_book` WHERE `name` = 'Kindred';
SELECT `name`, `published` FROM `library_book` FORCE INDEX (`book_name_published_idx`) WHERE `name` >= 'E' ORDER BY `name`;
SHOW CREATE TABLE `library_book`;

-- 0006: CheckConstraint and its removal; a constraint on a field added later
ALTER TABLE `library_book` ADD CONSTRAINT `pages_gte_0` CHECK (`pages` >= 0);
INSERT INTO `library_book` (`name`, `published`, `author_id`, `pages`) VALUES ('Negative', 0, 1, -1);
UPDATE `library_book` SET `pages` = -5 WHERE `id` = 1;
ALTER TABLE `library_book` DROP CONSTRAINT `pages_gte_0`;
UPDATE `library_book` SET `pages` = -5 WHERE `id` = 1;
ALTER TABLE `library_book` ADD CONSTRAINT `pages_gte_0` CHECK (`pages` >= 0);
UPDATE `library_book` SET `pages` = 5 WHERE `id` = 1;
ALTER TABLE `library_book` ADD CONSTRAINT `pages_gte_0` CHECK (`pages` >= 0);

-- 0007: a ForeignKey added to a table with rows, then removed again
CREATE TABLE `library_publisher` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `name` varchar(50) NOT NULL UNIQUE);
INSERT INTO `library_publisher` (`name`) VALUES ('Ace'), ('Orbit');
ALTER TABLE `library_book` ADD COLUMN `publisher_id` integer NULL, ADD CONSTRAINT `library_book_publisher_id_8a2b3c4d_fk_library_publisher_id` FOREIGN KEY (`publisher_id`) REFERENCES `library_publisher`(`id`);
UPDATE `library_book` SET `publisher_id` = 2 WHERE `author_id` = 2;
UPDATE `library_book` SET `publisher_id` = 9 WHERE `id` = 1;
SELECT b.`id`, p.`name` FROM `library_book` b LEFT JOIN `library_publisher` p ON p.`id` = b.`publisher_id` ORDER BY b.`id`;
ALTER TABLE `library_book` DROP FOREIGN KEY `library_book_publisher_id_8a2b3c4d_fk_library_publisher_id`;
ALTER TABLE `library_book` DROP COLUMN `publisher_id`;
SHOW CREATE TABLE `library_book`;

-- 0008: the primary key of a referenced table widened to bigint (DEFAULT_AUTO_FIELD change):
-- the foreign key is dropped, both columns altered, the key added back.
ALTER TABLE `library_book` DROP FOREIGN KEY `library_book_author_id_1fd4f3a8_fk_library_author_id`;
ALTER TABLE `library_author` MODIFY `id` bigint AUTO_INCREMENT NOT NULL;
ALTER TABLE `library_book` MODIFY `author_id` bigint NOT NULL;
ALTER TABLE `library_book` ADD CONSTRAINT `library_book_author_id_1fd4f3a8_fk_library_author_id` FOREIGN KEY (`author_id`) REFERENCES `library_author` (`id`);
INSERT INTO `library_author` (`name`, `birth_date`) VALUES ('After widening', '2000-01-01');
SELECT `id`, `name` FROM `library_author` ORDER BY `id`;
SHOW CREATE TABLE `library_author`;

-- 0009: many-to-many (the through table), RenameModel, RemoveField, a removed index
CREATE TABLE `library_book_tags` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `book_id` bigint NOT NULL, `tag` varchar(30) NOT NULL);
ALTER TABLE `library_book_tags` ADD CONSTRAINT `library_book_tags_book_id_tag_9c8d7e6f_uniq` UNIQUE (`book_id`, `tag`);
ALTER TABLE `library_book_tags` ADD CONSTRAINT `library_book_tags_book_id_2a3b4c5d_fk_library_book_id` FOREIGN KEY (`book_id`) REFERENCES `library_book` (`id`);
INSERT INTO `library_book_tags` (`book_id`, `tag`) VALUES (1, 'anarchism'), (2, 'culture'), (1, 'physics');
RENAME TABLE `library_book` TO `library_publication`;
SELECT t.`tag`, p.`name` FROM `library_book_tags` t JOIN `library_publication` p ON p.`id` = t.`book_id` ORDER BY t.`id`;
DROP INDEX `library_book_pages_6f8d3c2a` ON `library_publication`;
ALTER TABLE `library_publication` DROP COLUMN `isbn`;
SHOW CREATE TABLE `library_publication`;
SHOW CREATE TABLE `library_book_tags`;
SELECT `id`, `name`, `published`, `author_id`, `pages` FROM `library_publication` ORDER BY `id`;

-- Unapplying: the reverse operations, then DeleteModel.
ALTER TABLE `library_publication` ADD COLUMN `isbn` varchar(13) NULL;
RENAME TABLE `library_publication` TO `library_book`;
ALTER TABLE `library_book` RENAME COLUMN `name` TO `title`;
ALTER TABLE `library_book` DROP INDEX `library_book_author_id_name_7a1b2c3d_uniq`;
ALTER TABLE `library_book` DROP INDEX `book_name_published_idx`;
SHOW CREATE TABLE `library_book`;
DROP TABLE `library_author` CASCADE;
DROP TABLE `library_book_tags` CASCADE;
DROP TABLE `library_book` CASCADE;
DROP TABLE `library_author` CASCADE;
DROP TABLE `library_publisher` CASCADE;
SHOW TABLES;
