-- Issue 14 item 2: schema changes as Rails (mysql2), Alembic (SQLAlchemy), Prisma Migrate and
-- Hibernate's hbm2ddl write them, each on its own table, with rows kept across the changes.

-- Rails: create_table, add_column, change_column, rename_column, add_index, add_reference,
-- change_column_default, change_column_null, remove_column, rename_table.
CREATE TABLE `articles` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `title` varchar(255), `body` text, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
CREATE TABLE `schema_migrations` (`version` varchar(255) NOT NULL PRIMARY KEY);
CREATE TABLE `ar_internal_metadata` (`key` varchar(255) NOT NULL PRIMARY KEY, `value` varchar(255), `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
INSERT INTO `schema_migrations` (`version`) VALUES ('20240101000000');
INSERT INTO `ar_internal_metadata` (`key`, `value`, `created_at`, `updated_at`) VALUES ('environment', 'test', '2024-01-01 10:00:00.123456', '2024-01-01 10:00:00.123456');
INSERT INTO `articles` (`title`, `body`, `created_at`, `updated_at`) VALUES ('Hello', 'First post', '2024-01-02 09:30:00', '2024-01-02 09:30:00'), ('Second', NULL, '2024-01-03 09:30:00.5', '2024-01-03 09:30:00.5');
ALTER TABLE `articles` ADD `status` int DEFAULT 0 NOT NULL;
ALTER TABLE `articles` ADD `slug` varchar(255);
CREATE UNIQUE INDEX `index_articles_on_slug` ON `articles` (`slug`);
ALTER TABLE `articles` CHANGE `title` `title` varchar(100) NOT NULL;
ALTER TABLE `articles` RENAME COLUMN `body` TO `content`;
ALTER TABLE `articles` ALTER COLUMN `status` SET DEFAULT 1;
ALTER TABLE `articles` CHANGE `slug` `slug` varchar(255) DEFAULT NULL;
INSERT INTO `articles` (`title`, `created_at`, `updated_at`) VALUES ('Third', '2024-01-04 00:00:00', '2024-01-04 00:00:00');
SELECT `id`, `title`, `content`, `status`, `slug` FROM `articles` ORDER BY `id`;
CREATE TABLE `users` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `email` varchar(255) NOT NULL);
INSERT INTO `users` (`email`) VALUES ('a@example.com');
ALTER TABLE `articles` ADD `user_id` bigint, ADD INDEX `index_articles_on_user_id` (`user_id`);
ALTER TABLE `articles` ADD CONSTRAINT `fk_rails_3d31dad1cc` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`);
UPDATE `articles` SET `user_id` = 1;
ALTER TABLE `articles` CHANGE `user_id` `user_id` bigint NOT NULL;
ALTER TABLE `articles` ADD INDEX `index_articles_on_status_and_created_at` (`status`, `created_at`);
ALTER TABLE `articles` DROP COLUMN `slug`;
RENAME TABLE `articles` TO `posts`;
ALTER TABLE `posts` RENAME INDEX `index_articles_on_user_id` TO `index_posts_on_user_id`;
SHOW CREATE TABLE `posts`;
SELECT `id`, `title`, `status`, `user_id`, `created_at` FROM `posts` ORDER BY `id`;
SELECT `version` FROM `schema_migrations` ORDER BY `version`;
ALTER TABLE `posts` DROP FOREIGN KEY `fk_rails_3d31dad1cc`;

-- Alembic (SQLAlchemy's MySQL dialect): op.add_column, op.alter_column (MODIFY / CHANGE),
-- op.create_index, op.create_unique_constraint, op.drop_constraint, op.create_foreign_key.
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL,
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO alembic_version (version_num) VALUES ('1975ea83b712');
CREATE TABLE account (
	id INTEGER NOT NULL AUTO_INCREMENT,
	name VARCHAR(50) NOT NULL,
	description VARCHAR(200),
	PRIMARY KEY (id)
);
INSERT INTO account (name, description) VALUES ('alpha', 'first'), ('beta', NULL);
ALTER TABLE account ADD COLUMN last_transaction_date DATETIME;
ALTER TABLE account MODIFY description TEXT NULL;
ALTER TABLE account CHANGE name account_name VARCHAR(60) NOT NULL;
CREATE INDEX ix_account_account_name ON account (account_name);
ALTER TABLE account ADD CONSTRAINT uq_account_name UNIQUE (account_name);
UPDATE alembic_version SET version_num='ae1027a6acf' WHERE alembic_version.version_num = '1975ea83b712';
INSERT INTO account (account_name) VALUES ('alpha');
CREATE TABLE `transaction` (id INTEGER NOT NULL AUTO_INCREMENT, account_id INTEGER, amount NUMERIC(12, 2), PRIMARY KEY (id));
ALTER TABLE `transaction` ADD CONSTRAINT fk_transaction_account FOREIGN KEY(account_id) REFERENCES account (id) ON DELETE CASCADE;
INSERT INTO `transaction` (account_id, amount) VALUES (1, 10.50), (1, -2.25), (2, 99.99);
ALTER TABLE account DROP INDEX uq_account_name;
ALTER TABLE `transaction` DROP FOREIGN KEY fk_transaction_account;
ALTER TABLE account DROP COLUMN last_transaction_date;
ALTER TABLE account ALTER COLUMN description SET DEFAULT 'n/a';
ALTER TABLE account MODIFY description VARCHAR(200) NULL DEFAULT 'n/a';
INSERT INTO account (account_name) VALUES ('gamma');
SELECT id, account_name, description FROM account ORDER BY id;
SHOW CREATE TABLE account;
SELECT account_id, SUM(amount) FROM `transaction` GROUP BY account_id ORDER BY account_id;

-- Prisma Migrate: several changes in one ALTER, defaults in the column list, RESTRICT/CASCADE.
CREATE TABLE `User` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `email` VARCHAR(191) NOT NULL,
    `name` VARCHAR(191) NULL,
    `role` ENUM('USER', 'ADMIN') NOT NULL DEFAULT 'USER',

    UNIQUE INDEX `User_email_key`(`email`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE TABLE `Post` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `title` VARCHAR(191) NOT NULL,
    `published` BOOLEAN NOT NULL DEFAULT false,
    `authorId` INTEGER NOT NULL,

    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
ALTER TABLE `Post` ADD CONSTRAINT `Post_authorId_fkey` FOREIGN KEY (`authorId`) REFERENCES `User`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
INSERT INTO `User` (`email`, `name`) VALUES ('ada@example.com', 'Ada'), ('grace@example.com', NULL);
INSERT INTO `Post` (`title`, `authorId`) VALUES ('Notes', 1), ('Compilers', 2), ('More notes', 1);
ALTER TABLE `Post` ADD COLUMN `views` INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN `content` VARCHAR(191) NULL,
    MODIFY `title` VARCHAR(255) NOT NULL;
ALTER TABLE `User` DROP COLUMN `name`,
    ADD COLUMN `displayName` VARCHAR(191) NOT NULL DEFAULT '',
    MODIFY `role` ENUM('USER', 'ADMIN', 'EDITOR') NOT NULL DEFAULT 'USER';
CREATE INDEX `Post_authorId_idx` ON `Post`(`authorId`);
UPDATE `User` SET `id` = 10 WHERE `id` = 1;
SELECT `id`, `title`, `published`, `authorId`, `views`, `content` FROM `Post` ORDER BY `id`;
SELECT `id`, `email`, `role`, `displayName` FROM `User` ORDER BY `id`;
DELETE FROM `User` WHERE `id` = 2;
ALTER TABLE `Post` DROP FOREIGN KEY `Post_authorId_fkey`;
ALTER TABLE `Post` ADD CONSTRAINT `Post_authorId_fkey` FOREIGN KEY (`authorId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;
DELETE FROM `User` WHERE `id` = 2;
SELECT `id`, `authorId` FROM `Post` ORDER BY `id`;
SHOW CREATE TABLE `Post`;
SHOW CREATE TABLE `User`;

-- Hibernate's hbm2ddl (update): lower-case types, `add column`, named foreign keys.
create table Customer (id bigint not null auto_increment, name varchar(255), primary key (id)) engine=InnoDB;
create table Orders (id bigint not null auto_increment, total decimal(38,2), customer_id bigint, primary key (id)) engine=InnoDB;
alter table Orders add constraint FKpxtb8awmi0dk6smoh2vp1litg foreign key (customer_id) references Customer (id);
insert into Customer (name) values ('acme');
insert into Orders (total, customer_id) values (12.34, 1), (0.01, 1);
alter table Customer add column version integer;
alter table Customer add column email varchar(255);
alter table Customer add constraint UK_customer_email unique (email);
alter table Orders add column status tinyint check (status between 0 and 3);
insert into Orders (total, customer_id, status) values (5, 1, 7);
insert into Orders (total, customer_id, status) values (5, 1, 2);
select o.id, o.total, o.status, c.name, c.version from Orders o join Customer c on c.id = o.customer_id order by o.id;
show create table Orders;
-- A PRIMARY KEY's name is ignored (1280); a TEXT column's MODIFY notes nothing.
CREATE TABLE `pk_named` (`a` int NOT NULL, `t` varchar(10), PRIMARY KEY `pk_a` (`a`));
ALTER TABLE `pk_named` DROP PRIMARY KEY, ADD CONSTRAINT `pk_b` PRIMARY KEY (`a`);
ALTER TABLE `pk_named` MODIFY `t` TEXT, ALTER COLUMN `a` SET DEFAULT 1;
SHOW CREATE TABLE `pk_named`;
