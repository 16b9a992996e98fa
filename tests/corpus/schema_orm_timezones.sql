-- Issue 14 item 7: time zones as ORMs use them, with offsets only (the reference MariaDB has no
-- time zone tables loaded, so named zones are not compared here): the session zone, TIMESTAMP
-- stored in UTC and shown in the session zone, DATETIME unchanged, CONVERT_TZ with offsets (what
-- Django's datetime lookups and truncations compile to when USE_TZ is on), NOW() relations.
SET time_zone = '+00:00';
SELECT @@session.time_zone;
CREATE TABLE `audit` (
  `id` int NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `at_ts` timestamp(6) NULL DEFAULT NULL,
  `at_dt` datetime(6) NULL DEFAULT NULL,
  `created` timestamp NOT NULL DEFAULT '2024-01-01 00:00:00',
  `touched` timestamp NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
  `note` varchar(20) NULL
);
INSERT INTO `audit` (`at_ts`, `at_dt`, `note`) VALUES ('2024-03-10 12:00:00.123456', '2024-03-10 12:00:00.123456', 'utc noon');
SET time_zone = '+05:30';
INSERT INTO `audit` (`at_ts`, `at_dt`, `note`) VALUES ('2024-03-10 12:00:00', '2024-03-10 12:00:00', 'ist noon');
SELECT `id`, `at_ts`, `at_dt`, `created` FROM `audit` ORDER BY `id`;
SELECT `id`, UNIX_TIMESTAMP(`at_ts`), UNIX_TIMESTAMP(`at_dt`) FROM `audit` ORDER BY `id`;
SET time_zone = '-08:00';
SELECT `id`, `at_ts`, `at_dt`, `created` FROM `audit` ORDER BY `id`;
SELECT `id` FROM `audit` WHERE `at_ts` < '2024-03-10 00:00:00' ORDER BY `id`;
SELECT `id` FROM `audit` WHERE `at_ts` = FROM_UNIXTIME(1710072000.123456);
SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1710072000), UNIX_TIMESTAMP('1970-01-01 00:00:00'), UNIX_TIMESTAMP('2024-03-10 04:00:00');
SET time_zone = '+00:00';
SELECT `id`, `at_ts`, `at_dt` FROM `audit` ORDER BY `id`;
SET time_zone = '+14:00';
SELECT @@time_zone, `at_ts` FROM `audit` WHERE `id` = 1;
SET time_zone = '-12:59';
SELECT `at_ts` FROM `audit` WHERE `id` = 1;
SET time_zone = '+14:01';
SET time_zone = '+5:3';
SELECT @@time_zone;
SET time_zone = 'SYSTEM';
SELECT @@time_zone;
SET time_zone = DEFAULT;
SELECT @@time_zone = @@global.time_zone;
SET time_zone = '+00:00';

-- ON UPDATE CURRENT_TIMESTAMP only fires on a change.
UPDATE `audit` SET `note` = `note` WHERE `id` = 1;
SELECT `touched` IS NULL FROM `audit` WHERE `id` = 1;
UPDATE `audit` SET `note` = 'changed' WHERE `id` = 1;
SELECT `touched` IS NULL, `touched` >= '2024-01-01' FROM `audit` WHERE `id` = 1;

-- The range a TIMESTAMP holds, per session zone.
INSERT INTO `audit` (`at_ts`) VALUES ('1970-01-01 00:00:01'), ('2038-01-19 03:14:07');
INSERT INTO `audit` (`at_ts`) VALUES ('2038-01-19 03:14:08');
SET time_zone = '+01:00';
INSERT INTO `audit` (`at_ts`) VALUES ('1970-01-01 00:30:00');
INSERT INTO `audit` (`at_ts`) VALUES ('1970-01-01 01:00:01');
SELECT `at_ts` FROM `audit` WHERE `id` > 2 ORDER BY `id`;
SET time_zone = '+00:00';

-- CONVERT_TZ with offsets: Django's TruncDay/ExtractHour with a fixed-offset zone.
SELECT CONVERT_TZ('2024-03-10 12:00:00', '+00:00', '+05:30'), CONVERT_TZ('2024-03-10 12:00:00.5', '+05:30', '-08:00'), CONVERT_TZ('2024-03-10', '+00:00', '+01:00');
SELECT CONVERT_TZ('2024-03-10 12:00:00', '+00:00', 'Nowhere/Nope'), CONVERT_TZ(NULL, '+00:00', '+01:00'), CONVERT_TZ('bad', '+00:00', '+01:00');
SELECT CONVERT_TZ('1970-01-01 00:00:00', '+00:00', '-01:00'), CONVERT_TZ('2038-01-19 03:14:08', '+00:00', '+01:00'), CONVERT_TZ('9999-12-31 23:00:00', '+00:00', '+02:00');
SELECT CAST(CONVERT_TZ(`at_dt`, '+00:00', '+05:30') AS DATE), EXTRACT(HOUR FROM CONVERT_TZ(`at_dt`, '+00:00', '+05:30')), CONVERT_TZ(`at_ts`, '+00:00', '-03:00') FROM `audit` WHERE `id` IN (1, 2) ORDER BY `id`;
SELECT DATE_FORMAT(CONVERT_TZ(`at_dt`, '+00:00', '+09:00'), '%Y-%m-%d %H:00:00') AS `hour`, COUNT(*) FROM `audit` WHERE `at_dt` IS NOT NULL GROUP BY `hour` ORDER BY `hour`;
SELECT `id` FROM `audit` WHERE CONVERT_TZ(`at_dt`, '+00:00', '+05:30') BETWEEN '2024-03-10 17:00:00' AND '2024-03-10 18:00:00';

-- Functions that read the clock, related to each other rather than to the wall time.
SELECT NOW() = CURRENT_TIMESTAMP(), UTC_TIMESTAMP() <= NOW() + INTERVAL 1 SECOND, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW());
SET time_zone = '+03:00';
SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()), TIMEDIFF(NOW(), UTC_TIMESTAMP()), CURDATE() = DATE(NOW());
SELECT LENGTH(NOW(6)), LENGTH(SYSDATE()), LENGTH(CURRENT_TIME(3)), UNIX_TIMESTAMP() - UNIX_TIMESTAMP(UTC_TIMESTAMP()) BETWEEN 10799 AND 10801;
SET time_zone = '+00:00';
SELECT TIMESTAMP('2024-03-10 12:00:00', '01:30:00'), TIMESTAMPADD(HOUR, 5, '2024-03-10 22:00:00'), TIMESTAMPDIFF(SECOND, '2024-03-10 00:00:00', '2024-03-11 00:00:00');
