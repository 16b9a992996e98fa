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
