-- Named time zones, offsets and CONVERT_TZ (issue 14 item 7). The reference MariaDB has its
-- mysql.time_zone* tables loaded from /usr/share/zoneinfo (harness: load_time_zones=True).
SELECT CONVERT_TZ('2001-01-01 01:00:00', 'UTC', 'UTC');
SET timestamp = 1729989000;
SET time_zone = 'europe/paris';
SELECT @@time_zone, NOW(), UTC_TIMESTAMP(), UNIX_TIMESTAMP(), CURDATE();
SELECT FROM_UNIXTIME(1711846800), FROM_UNIXTIME(1729989000), FROM_UNIXTIME(1729992600);
SELECT UNIX_TIMESTAMP('2024-03-31 02:30:00'), UNIX_TIMESTAMP('2024-10-27 02:30:00'), UNIX_TIMESTAMP('2024-07-01 12:00:00');
SET time_zone = 'America/New_York';
SELECT NOW(), CONVERT_TZ('2024-07-01 12:00:00', @@session.time_zone, '+00:00');
SELECT CONVERT_TZ('2024-07-01 12:00:00', 'America/New_York', 'Asia/Tokyo'), CONVERT_TZ('2024-01-01 12:00:00', 'UTC', 'Asia/Kolkata');
SELECT CONVERT_TZ('2024-03-31 02:30:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2024-10-27 02:30:00', 'Europe/Paris', 'UTC');
SELECT CONVERT_TZ('2024-01-01 12:00:00.123456', 'UTC', 'Europe/Paris'), CONVERT_TZ('2024-01-01', 'UTC', 'Europe/Paris'), CONVERT_TZ(20240101, 'UTC', 'Europe/Paris');
SELECT CONVERT_TZ('2024-01-01 12:00:00', 'Europe/Nowhere', 'UTC'), CONVERT_TZ(NULL, 'UTC', 'UTC'), CONVERT_TZ('2024-01-01', NULL, 'UTC');
SELECT CONVERT_TZ('1960-06-01 12:00:00', 'UTC', 'Europe/Paris'), CONVERT_TZ('2040-01-01 00:00:00', 'UTC', 'Europe/Paris');
SELECT CONVERT_TZ('2024-01-01 12:00:00', '+05:30', '-03:00'), CONVERT_TZ('2024-06-01 12:00:00', 'Australia/Sydney', 'Pacific/Auckland');
SET time_zone = '+05:30';
SELECT @@time_zone, NOW(), UNIX_TIMESTAMP(), FROM_UNIXTIME(0);
SET time_zone = 'Foo/Bar';
SET time_zone = 'UTC';
SELECT @@time_zone, NOW();
SET time_zone = 'SYSTEM';
SELECT @@time_zone, @@system_time_zone;
SET timestamp = DEFAULT;
CREATE TABLE ev (id INT PRIMARY KEY, at DATETIME);
INSERT INTO ev VALUES (1, '2024-03-31 01:30:00'), (2, '2024-10-27 02:30:00'), (3, '2024-12-31 23:00:00');
SELECT id, CONVERT_TZ(at, 'Europe/Paris', 'UTC'), CONVERT_TZ(at, 'UTC', 'America/Los_Angeles') FROM ev ORDER BY id;
-- TIMESTAMP's range is the instant's: checked in the session's zone.
CREATE TABLE tsr (t TIMESTAMP NULL);
SET time_zone = '+05:00';
INSERT INTO tsr VALUES ('1970-01-01 03:00:00');
INSERT INTO tsr VALUES ('1970-01-01 06:00:00');
SET time_zone = '-05:00';
INSERT INTO tsr VALUES ('2038-01-19 01:00:00');
SELECT COUNT(*) FROM tsr;
