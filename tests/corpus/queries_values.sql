-- Table value constructors (issue 15 item 2): VALUES as a query, a UNION branch, a derived
-- table, a CTE and an IN subquery; column names and types as MariaDB gives them.
CREATE TABLE s1 (x INT, y VARCHAR(5));
INSERT INTO s1 VALUES (1,'a'),(2,'b'),(3,'c');
VALUES (1,2),(3,4);
VALUES (1,'a'),(2.5,NULL);
VALUES (1+1, concat('a','b'), 'x' IS NOT NULL, -5);
VALUES ('abc', 1.5e0), ('de', 2);
VALUES (1,2),(3,4) ORDER BY 2 DESC LIMIT 1;
VALUES (3),(1),(2) ORDER BY 1;
SELECT * FROM (VALUES (1,2),(3,4)) t;
SELECT * FROM (VALUES (1,2),(3,4)) AS t WHERE t.`1` > 1;
VALUES (1,2) UNION VALUES (3,4);
VALUES (1) UNION ALL VALUES (1);
SELECT 1 UNION VALUES (5);
WITH v AS (VALUES (7),(8)) SELECT * FROM v;
SELECT * FROM s1 WHERE x IN (VALUES (1),(2)) ORDER BY x;
VALUES (1,2),(3);
VALUES (x);
