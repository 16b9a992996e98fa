-- Row IN lists as TPC-C (go-tpc) sends them: (a, b) IN ((..), (..)) in SELECT, UPDATE and DELETE
-- (issue 15, TPC-C). Selkie narrows the key by each column's IN list; the result must be the
-- row list's, NULLs, mixed types and non-key columns included.
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
