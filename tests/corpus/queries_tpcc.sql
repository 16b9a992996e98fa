-- Statement shapes of TPC-C as go-tpc sends them (issue 15), where Selkie narrows the key in
-- ways the statement does not spell out; results must stay the statement's.
-- Row IN lists: (a, b) IN ((..), (..)) in SELECT, UPDATE and DELETE. Selkie narrows the key by
-- each column's IN list; NULLs, mixed types and non-key columns included.
CREATE TABLE s (w INT, i INT, q INT, t VARCHAR(10), PRIMARY KEY (w, i));
INSERT INTO s VALUES (1,1,10,'a'),(1,2,20,'b'),(2,1,30,'c'),(2,2,40,'d'),(1,3,NULL,'e'),(3,3,50,NULL);
SELECT * FROM s WHERE (w, i) IN ((1,2),(2,1)) ORDER BY w, i;
SELECT * FROM s WHERE (w, i) IN ((1,2),(2,NULL),(2,1)) ORDER BY w, i;
SELECT w, i, (w, i) IN ((1,2),(2,NULL)) FROM s ORDER BY w, i;
SELECT w, i, (w, i) NOT IN ((1,2),(2,NULL)) FROM s ORDER BY w, i;
SELECT * FROM s WHERE (w, i) NOT IN ((1,2),(2,1)) ORDER BY w, i;
SELECT * FROM s WHERE (w, i) IN ((1,1),(2,2)) AND q > 15 ORDER BY w, i;
SELECT * FROM s WHERE (i, w) IN ((2,1),(1,2),(3,3)) ORDER BY w, i;
SELECT * FROM s WHERE (w, t) IN ((1,'B'),(2,'c'),(3,NULL)) ORDER BY w, i;
SELECT * FROM s WHERE (w, i) IN (('1','2'),(2.0,1)) ORDER BY w, i;
SELECT * FROM s WHERE (w, i) IN ((1,1),(1,1),(1,2)) ORDER BY w, i;
SELECT * FROM s WHERE (w, i) IN ((1,i),(2,1)) ORDER BY w, i;
SELECT * FROM s WHERE (w, q) IN ((1,10),(2,40),(1,NULL)) ORDER BY w, i;
SELECT w, SUM(q) FROM s WHERE (w, i) IN ((1,1),(1,2),(2,2)) GROUP BY w ORDER BY w;
SELECT s1.w, s1.i FROM s s1 WHERE (s1.w, s1.i) IN ((1,1),(2,2)) AND EXISTS (SELECT 1 FROM s s2 WHERE (s2.w, s2.i) IN ((s1.w, s1.i),(9,9))) ORDER BY 1, 2;
UPDATE s SET q = q + 1 WHERE (w, i) IN ((1,1),(2,2),(5,5));
SELECT ROW_COUNT();
SELECT * FROM s ORDER BY w, i;
DELETE FROM s WHERE (w, i) IN ((1,1),(2,2));
SELECT ROW_COUNT();
SELECT * FROM s ORDER BY w, i;
PREPARE p FROM 'SELECT * FROM s WHERE (w, i) IN ((?,?),(?,?)) ORDER BY w, i';
SET @a = 1, @b = 2, @c = 3, @d = 3;
EXECUTE p USING @a, @b, @c, @d;
EXECUTE p USING @a, @a, @a, @b;
DEALLOCATE PREPARE p;
DROP TABLE s;
-- Constants carried across integer equalities of WHERE (w_id = 1 AND c_w_id = w_id: CUSTOMER is
-- read by its primary key, as in new-order); strings, computed values and outer joins included.
CREATE TABLE w (w_id INT PRIMARY KEY, tax DECIMAL(4,2), name VARCHAR(10));
CREATE TABLE c (c_w_id INT, c_d_id INT, c_id INT, v VARCHAR(10), u BIGINT UNSIGNED, PRIMARY KEY (c_w_id, c_d_id, c_id));
INSERT INTO w VALUES (1, 0.10, 'a'), (2, 0.20, 'B'), (3, NULL, NULL);
INSERT INTO c VALUES (1,1,1,'x',1),(1,2,1,'y',2),(2,1,1,'A',2),(2,1,2,'b',3),(3,3,3,NULL,NULL);
SELECT c_id, v, tax FROM c, w WHERE w_id = 1 AND c_w_id = w_id AND c_d_id = 2 AND c_id = 1;
SELECT c_id, v, tax FROM c, w WHERE w_id = 2 AND c_w_id = w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c, w WHERE w_id = '2' AND c_w_id = w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c, w WHERE w_id = '2abc' AND c_w_id = w_id ORDER BY c_id;
SHOW WARNINGS;
SELECT c_id, v, tax FROM c, w WHERE w_id = 2.5 AND c_w_id = w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c, w WHERE w_id = 2.0 AND w_id = c_w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c, w WHERE 2 = w_id AND c_w_id = w_id AND u = c_w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c, w WHERE w_id = NULL AND c_w_id = w_id;
SELECT c_id, v, name FROM c, w WHERE name = 'b' AND v = name;
SELECT c_id, v, tax FROM c LEFT JOIN w ON w_id = c_d_id WHERE c_w_id = 2 AND w_id = c_w_id ORDER BY c_id;
SELECT c_id, v, tax FROM c LEFT JOIN w ON w_id = c_d_id WHERE c_w_id = 3 AND (w_id = c_w_id OR w_id IS NULL) ORDER BY c_id;
SELECT c_id, v, w_id FROM c LEFT JOIN w ON w_id = c_id + 5 WHERE c_w_id = 2 AND c_id = w_id;
PREPARE p FROM 'SELECT c_id, v, tax FROM c, w WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?';
SET @a = 2, @b = 1, @c = 2, @s = '2';
EXECUTE p USING @a, @b, @c;
EXECUTE p USING @s, @b, @c;
EXECUTE p USING @a, @b, @s;
DEALLOCATE PREPARE p;
DROP TABLE w, c;
