-- Character set introducers, COLLATE and the functions that report a string's character set,
-- collation and coercibility.
CREATE TABLE b (id INT PRIMARY KEY, v BLOB, t VARCHAR(20));
INSERT INTO b VALUES (1, _binary'ab\0c', 'x'), (2, _binary X'80FF', 'y'), (3, X'C3A9', _utf8mb4 X'C3A9');
SELECT id, HEX(v), t FROM b ORDER BY id;
SELECT CHARSET(_binary'ab'), COLLATION(_binary'ab'), COERCIBILITY(_binary'ab');
SELECT CHARSET(_latin1'x'), COLLATION(_latin1'x'), COLLATION(_utf8'a'), COLLATION(_utf8mb4'a');
SELECT _latin1 X'E9', _utf8mb4 X'C3A9', _binary'ab', HEX(_binary X'80FF');
SELECT COERCIBILITY('x'), COERCIBILITY(X'41'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(USER());
SELECT COERCIBILITY(t), COERCIBILITY(id), COERCIBILITY(CONCAT(t, 'a')), COERCIBILITY(CONCAT(1)), COERCIBILITY(CONCAT(NULL)) FROM b WHERE id = 1;
SELECT COERCIBILITY(CAST(1 AS CHAR)), COERCIBILITY(@@version), COERCIBILITY(DATABASE()), COERCIBILITY(NOW());
SELECT COLLATION('a' COLLATE utf8mb4_bin), COERCIBILITY('a' COLLATE utf8mb4_bin), COERCIBILITY(CONCAT(t, 'x' COLLATE utf8mb4_bin)) FROM b WHERE id = 1;
SELECT CHARSET(1), COLLATION(1), CHARSET(CONCAT(1)), CHARSET(NOW());
SELECT _utf8mb4 X'FF';
SELECT 'a' COLLATE latin1_bin;
SELECT 'a' COLLATE no_such_collation;
SELECT _latin1'a' COLLATE utf8mb4_bin;
-- The collations and character sets Selkie knows, as MariaDB lists them.
SHOW CHARACTER SET WHERE Charset IN ('utf8mb4', 'utf8mb3', 'latin1', 'ascii', 'binary');
SHOW COLLATION WHERE Collation IN ('utf8mb4_general_ci', 'utf8mb4_bin', 'utf8mb4_unicode_ci', 'utf8mb4_unicode_520_ci', 'utf8mb4_nopad_bin', 'utf8mb4_general_nopad_ci', 'latin1_swedish_ci', 'latin1_bin', 'ascii_general_ci', 'ascii_bin', 'utf8mb3_general_ci', 'utf8mb3_bin', 'binary');
SELECT COLLATION_NAME, CHARACTER_SET_NAME, ID, IS_DEFAULT, SORTLEN FROM information_schema.COLLATIONS WHERE CHARACTER_SET_NAME = 'latin1' AND COLLATION_NAME IN ('latin1_swedish_ci', 'latin1_bin', 'latin1_nopad_bin') ORDER BY ID;
SELECT * FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE COLLATION_NAME IN ('utf8mb4_general_ci', 'ascii_bin') ORDER BY 1;
SELECT * FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME IN ('utf8mb4', 'latin1') ORDER BY 1;
