-- Issue 14 item 1: binary strings keep their bytes. mysqlclient (Django) sends bytes parameters
-- as _binary'...' literals (binary_prefix), PHP and dump tools as X'..' or 0x..; file uploads,
-- password hashes, UUIDs in BINARY(16) and serialized blobs all go this way.
CREATE TABLE `attachments` (
  `id` int NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `digest` binary(16) NOT NULL,
  `token` varbinary(64),
  `payload` longblob,
  `thumb` blob,
  `kind` varchar(10) NOT NULL DEFAULT 'file',
  UNIQUE KEY `attachments_digest_uniq` (`digest`)
);
-- bytes
INSERT INTO `attachments` (`digest`, `token`, `payload`) VALUES (_binary'\x80\xff\0abc\xfe', _binary'\0\x01\x02', _binary'\x89PNG\r\n\x1a\n\0\0');
INSERT INTO `attachments` (`digest`, `token`, `payload`) VALUES (X'00112233445566778899AABBCCDDEEFF', X'DEADBEEF', X'');
INSERT INTO `attachments` (`digest`, `token`, `payload`) VALUES (0x0123456789ABCDEF0123456789ABCDEF, 0xCAFE, 0x00FF00FF);
INSERT INTO `attachments` (`digest`, `token`, `payload`, `thumb`) VALUES (UNHEX(MD5('x')), UNHEX('ff'), REPEAT(X'AB', 1000), b'0100000101000010');
INSERT INTO `attachments` (`digest`, `token`) VALUES (_binary'short', _binary'');
INSERT INTO `attachments` (`digest`) VALUES (X'00112233445566778899AABBCCDDEEFF');
SELECT `id`, HEX(`digest`), HEX(`token`), HEX(`payload`), LENGTH(`payload`) FROM `attachments` WHERE `id` <= 3 ORDER BY `id`;
SELECT `id`, LENGTH(`digest`), HEX(`digest`), `token` IS NULL, LENGTH(`token`), LENGTH(`payload`), MD5(`payload`), HEX(`thumb`) FROM `attachments` ORDER BY `id`;
SELECT `id`, `digest`, `token` FROM `attachments` WHERE `id` IN (2, 3) ORDER BY `id`;
SELECT `id` FROM `attachments` WHERE `digest` = _binary'short\0\0\0\0\0\0\0\0\0\0\0';
SELECT `id` FROM `attachments` WHERE `digest` = 'short';
SELECT `id` FROM `attachments` WHERE `token` = X'CAFE';
SELECT `id` FROM `attachments` WHERE `token` = X'cafe';
-- bytes
SELECT `id` FROM `attachments` WHERE `payload` LIKE CONCAT(_binary'\x89PNG', '%');
SELECT `id` FROM `attachments` ORDER BY `digest`;
SELECT `id` FROM `attachments` ORDER BY `token`, `id`;
-- bytes
UPDATE `attachments` SET `token` = _binary'\xff\xfe\xfd' WHERE `id` = 1;
SELECT HEX(`token`) FROM `attachments` WHERE `id` = 1;
UPDATE `attachments` SET `payload` = CONCAT(`payload`, X'00') WHERE `id` = 2;
SELECT HEX(`payload`) FROM `attachments` WHERE `id` = 2;
INSERT INTO `attachments` (`digest`, `token`) VALUES (X'000102030405060708090A0B0C0D0E0F10', NULL);
INSERT INTO `attachments` (`digest`, `token`) VALUES (X'A0', REPEAT(X'01', 65));

-- The functions that report or build binary strings.
SELECT CHARSET(_binary'ab'), COLLATION(_binary'ab'), CHARSET(X'41'), CHARSET(0x41), CHARSET(b'1000001');
SELECT X'41', 0x4142, b'1000001', X'' = '', _binary'abc' = 'abc', _binary'abc' = 'ABC';
-- bytes
SELECT HEX(_binary'\x80\xff'), LENGTH(_binary'\x80\xff'), HEX(X'80FF'), HEX(UNHEX('80FF'));
SELECT 0x41 + 0, X'FF' + 0, b'11' + 0, CAST(X'3132' AS UNSIGNED);
SELECT CAST('abc' AS BINARY), CAST('abc' AS BINARY(5)), HEX(CAST('abc' AS BINARY(5)));
-- bytes
SELECT CONVERT(X'E282AC' USING utf8mb4), CONVERT(_binary'\xe2\x82\xac' USING utf8mb4), CONVERT(X'80' USING utf8mb4);
SELECT HEX(CONVERT('€' USING latin1)), HEX(CONVERT('é' USING latin1)), HEX('é');
SELECT BINARY 'a' = 'A', 'a' = BINARY 'a ', LENGTH(BINARY 'é');
SELECT HEX(SHA1(_binary'\0')), MD5(X'00'), TO_BASE64(X'00FF'), HEX(FROM_BASE64('AP8='));
-- bytes
SELECT UPPER(_binary'abc'), LOWER(X'414243'), REVERSE(_binary'ab\xff');
-- bytes
SELECT HEX(CONCAT(_binary'\xff', 'a')), CHARSET(CONCAT(_binary'\xff', 'a'));
SELECT HEX(SUBSTRING(X'00112233', 2, 2)), HEX(LEFT(X'00112233', 1)), HEX(RPAD(X'01', 3, X'00'));
SELECT _binary'x' LIKE 'X', _binary'x' LIKE 'x';
-- bytes
SET @blob = _binary'\0\x01\xff';
SELECT HEX(@blob), LENGTH(@blob), CHARSET(@blob);

-- BINARY(n) pads with zero bytes; VARBINARY keeps trailing bytes; both compare bytewise.
CREATE TABLE `pad` (`b` binary(4), `vb` varbinary(4), `c` char(4), `vc` varchar(4));
INSERT INTO `pad` VALUES ('a', 'a', 'a', 'a'), ('a ', 'a ', 'a ', 'a ');
SELECT HEX(`b`), HEX(`vb`), HEX(`c`), HEX(`vc`), LENGTH(`b`), LENGTH(`c`), LENGTH(`vc`) FROM `pad`;
SELECT COUNT(*) FROM `pad` WHERE `b` = 'a';
SELECT COUNT(*) FROM `pad` WHERE `vb` = 'a';
SELECT COUNT(*) FROM `pad` WHERE `c` = 'a';
INSERT INTO `pad` (`b`) VALUES ('abcde');
INSERT INTO `pad` (`vb`) VALUES (X'0102030405');

-- Messages show a binary value as MariaDB's err_conv does (printable ASCII, other bytes \xHH);
-- a duplicate entry shows at most 64 bytes (whole characters within 61, then "..."), BINARY(n)
-- without its padding zeros, a BLOB prefix key the whole value.
CREATE TABLE `bin_keys` (`a` varbinary(300), `b` varchar(10), `c` binary(4), `i` int, `d` date, UNIQUE KEY `ab` (`a`, `b`), UNIQUE KEY `c` (`c`));
INSERT INTO `bin_keys` (`a`, `b`, `c`) VALUES (X'00112233445566778899AABBCCDDEEFF7F80', 'x', X'4100FF');
INSERT INTO `bin_keys` (`a`, `b`) VALUES (X'00112233445566778899AABBCCDDEEFF7F80', 'x');
INSERT INTO `bin_keys` (`c`) VALUES (X'4100FF');
INSERT INTO `bin_keys` (`a`, `b`) VALUES (REPEAT(X'FF', 100), 'y'), (REPEAT(X'FF', 100), 'y');
INSERT INTO `bin_keys` (`a`, `b`) VALUES (CONCAT(REPEAT('x', 60), X'FF'), 'z'), (CONCAT(REPEAT('x', 60), X'FF'), 'z');
INSERT INTO `bin_keys` (`a`, `b`) VALUES (CONCAT(REPEAT('x', 61), X'FF'), 'z'), (CONCAT(REPEAT('x', 61), X'FF'), 'z');
INSERT INTO `bin_keys` (`a`, `b`) VALUES (REPEAT('é', 40), 'w'), (REPEAT('é', 40), 'w');
INSERT INTO `bin_keys` (`i`) VALUES (X'FF00');
INSERT INTO `bin_keys` (`d`) VALUES (X'FF00');
INSERT IGNORE INTO `bin_keys` (`i`) VALUES (X'FF00');
SELECT CAST(X'FF00' AS SIGNED), CAST(X'FF41' AS DATE), X'FF' + 0;
CREATE TABLE `blob_prefix` (`a` blob, UNIQUE KEY (`a`(10)));
INSERT INTO `blob_prefix` VALUES (X'FF00FF00FF00FF00FF00AA'), (X'FF00FF00FF00FF00FF00BB');
