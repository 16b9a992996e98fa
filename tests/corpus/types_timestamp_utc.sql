-- TIMESTAMP columns hold instants (stored as UTC) shown in the session's time zone; DATETIME
-- columns hold what was given (issue 14 item 7). Every zone is set explicitly: the reference's
-- system zone may differ from selkied's.
SET time_zone = '+00:00';
CREATE TABLE tz1 (id INT PRIMARY KEY, ts TIMESTAMP NULL DEFAULT '2024-01-01 00:00:00', dt DATETIME, KEY ts_key (ts));
INSERT INTO tz1 VALUES (1, '2024-01-01 12:00:00', '2024-01-01 12:00:00');
SET time_zone = '+02:00';
SELECT * FROM tz1;
SHOW CREATE TABLE tz1;
SELECT COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tz1' AND COLUMN_NAME = 'ts';
SHOW COLUMNS FROM tz1 LIKE 'ts';
-- An indexed lookup converts the constant as a stored value would be.
SELECT id FROM tz1 WHERE ts = '2024-01-01 14:00:00';
SELECT id FROM tz1 FORCE INDEX (ts_key) WHERE ts = '2024-01-01 14:00:00';
SELECT id FROM tz1 WHERE ts = '2024-01-01 12:00:00';
SELECT id FROM tz1 FORCE INDEX (ts_key) WHERE ts BETWEEN '2024-01-01 13:59:59' AND '2024-01-01 14:00:00';
SELECT id FROM tz1 WHERE ts > '2024-01-01 13:00:00' AND ts < '2024-01-01 15:00:00';
SELECT UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(dt) FROM tz1;
-- Range: 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC, read in the session's zone.
INSERT INTO tz1 (id, ts) VALUES (2, '1970-01-01 01:00:00');
INSERT INTO tz1 (id, ts) VALUES (3, '1970-01-01 02:00:01');
INSERT INTO tz1 (id, ts) VALUES (4, '2038-01-19 05:14:07');
INSERT INTO tz1 (id, ts) VALUES (5, '2038-01-19 05:14:08');
SET sql_mode = '';
INSERT INTO tz1 (id, ts) VALUES (6, '2038-01-19 05:14:08');
INSERT INTO tz1 (id) VALUES (7);
SELECT * FROM tz1 ORDER BY id;
SET time_zone = '+05:00';
SELECT * FROM tz1 ORDER BY ts, id;
SELECT id FROM tz1 WHERE ts > '2038-01-01 00:00:00';
SET time_zone = '+00:00';
SELECT * FROM tz1 ORDER BY id;
-- UPDATE reads the session's time and stores the instant; untouched TIMESTAMPs stay.
SET time_zone = '-03:00';
UPDATE tz1 SET dt = ts WHERE id = 1;
UPDATE tz1 SET ts = ts + INTERVAL 1 HOUR WHERE id = 3;
SET time_zone = '+00:00';
SELECT * FROM tz1 WHERE id IN (1, 3) ORDER BY id;
-- FROM_UNIXTIME and NOW() store the instant.
SET time_zone = '+09:00';
INSERT INTO tz1 (id, ts) VALUES (8, FROM_UNIXTIME(1700000000));
SET timestamp = 1700000000;
INSERT INTO tz1 (id, ts) VALUES (9, NOW());
SET timestamp = DEFAULT;
SET time_zone = '+00:00';
SELECT id, ts, UNIX_TIMESTAMP(ts) FROM tz1 WHERE id IN (8, 9) ORDER BY id;
-- CURRENT_TIMESTAMP defaults and ON UPDATE, at a fixed time.
CREATE TABLE tz2 (id INT PRIMARY KEY, v INT, created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, touched TIMESTAMP NULL ON UPDATE CURRENT_TIMESTAMP);
SET time_zone = '+01:00';
SET timestamp = 1704067200;
INSERT INTO tz2 (id, v) VALUES (1, 1);
SET timestamp = 1704070800;
UPDATE tz2 SET v = 2 WHERE id = 1;
SET timestamp = DEFAULT;
SELECT id, created, touched FROM tz2;
SET time_zone = '+00:00';
SELECT id, created, touched, UNIX_TIMESTAMP(created) FROM tz2;
-- Daylight saving in a named zone: a time in the spring gap becomes the gap's end (1299, an
-- error in strict mode); one in the autumn overlap is its first instant.
SET time_zone = 'Europe/Berlin';
INSERT INTO tz1 (id, ts) VALUES (10, '2024-03-31 02:30:00'), (11, '2024-10-27 02:30:00');
SELECT id, ts, UNIX_TIMESTAMP(ts) FROM tz1 WHERE id >= 10 ORDER BY id;
SELECT id FROM tz1 WHERE ts = '2024-03-31 02:30:00';
SELECT id FROM tz1 WHERE ts = '2024-03-31 03:00:00';
SET sql_mode = DEFAULT;
INSERT INTO tz1 (id, ts) VALUES (12, '2024-03-31 02:15:00');
SET time_zone = '+00:00';
SELECT id, ts FROM tz1 WHERE id >= 10 ORDER BY id;
-- A dump's round trip: mysqldump reads and writes with time_zone = '+00:00'.
SET time_zone = 'America/New_York';
CREATE TABLE tz3 (id INT PRIMARY KEY, ts TIMESTAMP(3) NULL);
INSERT INTO tz3 VALUES (1, '2024-07-01 08:00:00.125');
SET time_zone = '+00:00';
SELECT * FROM tz3;
CREATE TABLE tz4 LIKE tz3;
INSERT INTO tz4 VALUES (1, '2024-07-01 12:00:00.125');
SET time_zone = 'America/New_York';
SELECT a.ts, b.ts, a.ts = b.ts FROM tz3 a JOIN tz4 b ON a.ts = b.ts;
-- ALTER TABLE to DATETIME keeps the session's time, as MariaDB does.
SET time_zone = '+03:00';
ALTER TABLE tz4 MODIFY ts DATETIME(3);
SET time_zone = '+00:00';
SELECT * FROM tz4;
-- CHECKSUM TABLE reads the stored instant, whatever the session's zone.
SET time_zone = '+05:00';
CHECKSUM TABLE tz3;
SET time_zone = '+00:00';
CHECKSUM TABLE tz3;
