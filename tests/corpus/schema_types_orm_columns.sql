-- Issue 14 item 3: the column types ORMs declare (Django 5.1's MySQL data_types, Rails'
-- NATIVE_DATABASE_TYPES, Prisma's and Hibernate's mappings) and the values they write, read
-- back with the column metadata drivers convert by.

-- Django: one model with every field type (UUIDField is `uuid` on MariaDB 10.7+).
CREATE TABLE `fields_everything` (
  `id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY,
  `small_auto_ref` smallint NOT NULL,
  `binary` longblob NOT NULL,
  `flag` bool NOT NULL,
  `nullflag` bool NULL,
  `char` varchar(20) NOT NULL,
  `date` date NOT NULL,
  `datetime` datetime(6) NOT NULL,
  `decimal` numeric(10, 2) NOT NULL,
  `duration` bigint NOT NULL,
  `email` varchar(254) NOT NULL,
  `file` varchar(100) NOT NULL,
  `float` double precision NOT NULL,
  `integer` integer NOT NULL,
  `big` bigint NOT NULL,
  `ip` char(39) NOT NULL,
  `json` json NOT NULL CHECK (JSON_VALID(`json`)),
  `pos_big` bigint UNSIGNED NOT NULL CHECK (`pos_big` >= 0),
  `pos_int` integer UNSIGNED NOT NULL CHECK (`pos_int` >= 0),
  `pos_small` smallint UNSIGNED NOT NULL CHECK (`pos_small` >= 0),
  `slug` varchar(50) NOT NULL,
  `small` smallint NOT NULL,
  `text` longtext NOT NULL,
  `time` time(6) NOT NULL,
  `url` varchar(200) NOT NULL,
  `uuid` uuid NOT NULL
);
SHOW CREATE TABLE `fields_everything`;
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `nullflag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (1, _binary'abc', 1, NULL, 'chars', '2024-02-29', '2024-02-29 23:59:59.999999', '12345678.90', 86400000000, 'a@example.com', 'uploads/a.txt', 3.141592653589793, -2147483648, 9223372036854775807, '2001:db8::1', '{"a": [1, 2, {"b": null}], "c": "d"}', 18446744073709551615, 4294967295, 65535, 'a-slug', -32768, 'long text', '838:59:59.000000', 'https://example.com/', '6ccd780c-baba-1026-9564-5b8c656024db');
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `nullflag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (2, X'', 0, 1, '', '0001-01-01', '1000-01-01 00:00:00', '-0.01', -1, '', '', -1.5e-300, 0, -9223372036854775808, '127.0.0.1', '[]', 0, 0, 0, '', 32767, '', '-00:00:00.000001', '', '00000000-0000-0000-0000-000000000000');
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (3, X'00', 1, 'x', '2024-01-01', '2024-01-01 00:00:00', '1.005', 0, '', '', 1e300, 1, 1, '::', 'null', 1, 1, 1, 's', 1, 't', '12:30:00.5', '', '6CCD780C-BABA-1026-9564-5B8C656024DB');
SELECT * FROM `fields_everything` ORDER BY `id`;
SELECT `id`, HEX(`binary`), `flag` + 0, `decimal` * 2, `duration` DIV 1000000, `float` * 2, `pos_big` DIV 2, JSON_EXTRACT(`json`, '$.a[2].b'), JSON_TYPE(`json`), `time` + 0 FROM `fields_everything` ORDER BY `id`;
SELECT `id` FROM `fields_everything` WHERE `uuid` = '6ccd780cbaba102695645b8c656024db';
SELECT `id` FROM `fields_everything` WHERE `flag` AND `nullflag` IS NULL;
SELECT `id` FROM `fields_everything` WHERE `datetime` > '2024-02-29 23:59:59.999998' AND `date` = '2024-02-29';
SELECT `id` FROM `fields_everything` WHERE `time` > '838:00:00' OR `time` < '00:00:00';
SELECT `id` FROM `fields_everything` WHERE JSON_CONTAINS(`json`, '1', '$.a');
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (4, X'', 1, 'x', '2024-01-01', '2024-01-01', '1', 0, '', '', 0, 0, 0, '', '{not json', 0, 0, 0, '', 0, '', '00:00', '', UUID());
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (4, X'', 1, 'x', '2024-01-01', '2024-01-01', '1', 0, '', '', 0, 0, 0, '', '{}', 0, -1, 0, '', 0, '', '00:00', '', UUID());
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (4, X'', 1, 'x', '2024-01-01', '2024-01-01', '1', 0, '', '', 0, 0, 0, '', '{}', 0, 0, 0, '', 0, '', '00:00', '', 'not-a-uuid');
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (4, X'', 1, 'x', '2024-01-01', '2024-01-01', '123456789.123', 0, '', '', 0, 0, 0, '', '{}', 0, 0, 0, '', 0, '', '00:00', '', '6ccd780c-baba-1026-9564-5b8c656024dc');
INSERT INTO `fields_everything` (`small_auto_ref`, `binary`, `flag`, `char`, `date`, `datetime`, `decimal`, `duration`, `email`, `file`, `float`, `integer`, `big`, `ip`, `json`, `pos_big`, `pos_int`, `pos_small`, `slug`, `small`, `text`, `time`, `url`, `uuid`) VALUES (4, X'', 1, 'x', '2024-01-01', '2024-01-01', '1', 0, '', '', 0, 0, 0, '', '{}', 0, 0, 0, '', 0, '', '839:00:00', '', '6ccd780c-baba-1026-9564-5b8c656024dd');
SELECT COUNT(*) FROM `fields_everything`;

-- Rails 7: t.boolean is tinyint(1), t.float is float, t.time is time, t.binary is blob.
CREATE TABLE `products` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `name` varchar(255), `price` decimal(10,2), `weight` float, `ratio` float(24), `active` tinyint(1) DEFAULT TRUE, `stock` int DEFAULT 0, `opens_at` time, `release_on` date, `image` blob, `specs` json, `kind` int, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
SHOW CREATE TABLE `products`;
INSERT INTO `products` (`name`, `price`, `weight`, `ratio`, `active`, `stock`, `opens_at`, `release_on`, `image`, `specs`, `kind`, `created_at`, `updated_at`) VALUES ('Widget', 19.99, 1.25, 0.1, TRUE, 5, '09:00:00', '2024-03-01', NULL, '{"color":"red"}', 0, '2024-03-01 12:00:00.000001', '2024-03-01 12:00:00.000001');
INSERT INTO `products` (`name`, `price`, `weight`, `ratio`, `active`, `opens_at`, `created_at`, `updated_at`) VALUES ('Gadget', 5, 0.333333333, 1.0000001, FALSE, '23:59:59', '2024-03-02 00:00:00', '2024-03-02 00:00:00');
SELECT `id`, `name`, `price`, `weight`, `ratio`, `active`, `stock`, `opens_at`, `release_on`, `specs`, `kind`, `created_at` FROM `products` ORDER BY `id`;
SELECT `name` FROM `products` WHERE `active` = TRUE;
SELECT `name`, `price` * 3, `weight` * 3, `ratio` = 0.1 FROM `products` ORDER BY `id`;
SELECT JSON_UNQUOTE(JSON_EXTRACT(`specs`, '$.color')), JSON_VALUE(`specs`, '$.color') FROM `products` WHERE `id` = 1;

-- Prisma's MySQL mappings: DATETIME(3), DOUBLE, DECIMAL(65,30), TINYINT, BIGINT, ENUM, JSON.
CREATE TABLE `Measurement` (
    `id` VARCHAR(191) NOT NULL,
    `takenAt` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `value` DOUBLE NOT NULL,
    `exact` DECIMAL(65, 30) NOT NULL,
    `level` TINYINT NOT NULL DEFAULT 0,
    `count` BIGINT NOT NULL,
    `unit` ENUM('METER', 'SECOND', 'GRAM') NOT NULL,
    `meta` JSON NULL,
    `raw` LONGBLOB NULL,
    `flags` SET('a', 'b', 'c') NULL,
    `year` YEAR NULL,
    `bits` BIT(5) NULL,

    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SHOW CREATE TABLE `Measurement`;
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `level`, `count`, `unit`, `meta`, `flags`, `year`, `bits`) VALUES ('clx1', '2024-04-01 10:11:12.345', 1.5, '12345678901234567890123456789012345.123456789012345678901234567890', 127, 1, 'METER', '{"k": 1}', 'a,c', 2024, b'10101');
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `level`, `count`, `unit`, `flags`, `year`, `bits`) VALUES ('clx2', '2024-04-01 10:11:12.3456', -0.0, '-0.000000000000000000000000000001', -128, -1, 'GRAM', 'c,a,a', '69', 31);
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `count`, `unit`) VALUES ('clx3', '2024-04-01', 0, 0, 0, 'LITRE');
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `count`, `unit`, `flags`) VALUES ('clx3', '2024-04-01', 0, 0, 0, 'SECOND', 'd');
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `count`, `unit`, `year`) VALUES ('clx3', '2024-04-01', 0, 0, 0, 2, 1900);
INSERT INTO `Measurement` (`id`, `takenAt`, `value`, `exact`, `count`, `unit`, `level`) VALUES ('clx4', '2024-04-01', 0, 0, 0, 1, 128);
SELECT `id`, `takenAt`, `value`, `exact`, `level`, `count`, `unit`, `meta`, `flags`, `year`, `bits` + 0, HEX(`bits`) FROM `Measurement` ORDER BY `id`;
SELECT `id`, `unit` + 0, `flags` + 0, FIND_IN_SET('c', `flags`) FROM `Measurement` ORDER BY `unit`, `id`;
SELECT `id` FROM `Measurement` WHERE `unit` = 'meter';
SELECT `id` FROM `Measurement` WHERE `flags` LIKE '%c%' ORDER BY `id`;
SELECT `id` FROM `Measurement` WHERE `bits` = b'11111';
SELECT SUM(`exact`), AVG(`value`), MAX(`takenAt`), MIN(`year`) FROM `Measurement`;

-- Hibernate 6's MariaDB dialect: bit for boolean, float(53), datetime(6), varbinary, enum.
create table Invoice (id bigint not null, paid bit not null, amount float(53), issued datetime(6), due date, note tinytext, attachment varbinary(255), state enum ('DRAFT','SENT','PAID'), version integer, uid binary(16), primary key (id)) engine=InnoDB;
create sequence Invoice_SEQ start with 1 increment by 50 engine=InnoDB;
insert into Invoice (paid, amount, issued, due, note, attachment, state, version, uid, id) values (b'1', 100.25, '2024-06-01 10:00:00.000000', '2024-07-01', 'first', X'CAFE', 'SENT', 0, UNHEX(REPLACE('6ccd780c-baba-1026-9564-5b8c656024db', '-', '')), 1);
insert into Invoice (paid, amount, issued, due, note, attachment, state, version, uid, id) values (0, null, null, null, null, null, 'DRAFT', 0, null, 51);
select i1_0.id, i1_0.paid, i1_0.amount, i1_0.issued, i1_0.due, i1_0.note, hex(i1_0.attachment), i1_0.state, i1_0.version, hex(i1_0.uid) from Invoice i1_0 order by i1_0.id;
update Invoice set paid=1, version=1 where id=51 and version=0;
select paid + 0, version from Invoice where id = 51;
select next value for Invoice_SEQ;
