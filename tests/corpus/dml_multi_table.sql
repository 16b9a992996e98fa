-- Multi-table UPDATE / DELETE and the UPDATE / DELETE modifiers (issue 15 item 1).
CREATE TABLE a (id INT PRIMARY KEY, v INT);
CREATE TABLE b (id INT PRIMARY KEY, aid INT, w INT);
INSERT INTO a VALUES (1,10),(2,20),(3,30);
INSERT INTO b VALUES (1,1,100),(2,1,200),(3,2,300),(4,9,400);

-- A row several joined rows hold changes once; "Rows matched" counts distinct rows.
UPDATE a JOIN b ON a.id=b.aid SET a.v=a.v+1, b.w=b.w+1;
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
-- Another table's SET sees the joined row as read.
UPDATE a JOIN b ON a.id=b.aid SET b.w = a.v, a.v = a.v + 1;
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
UPDATE a JOIN b ON a.id=b.aid SET a.v = a.v + 1, b.w = a.v;
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
UPDATE a, b SET a.v=a.v+1 WHERE a.id=b.aid;
UPDATE a LEFT JOIN b ON a.id=b.aid SET a.v=a.v+1 WHERE b.id IS NULL;
SELECT * FROM a ORDER BY id;
UPDATE a JOIN b ON a.id=b.aid SET a.v = 5 ORDER BY a.id;
UPDATE a JOIN b ON a.id=b.aid SET a.v = 6 LIMIT 1;
SELECT * FROM a ORDER BY id;
UPDATE a JOIN b ON a.id=b.aid SET a.v = (SELECT MAX(w) FROM b);
UPDATE a JOIN b ON a.id=b.aid SET a.v=a.v WHERE a.id=1;
UPDATE a JOIN b ON a.id=b.aid SET v = 1;
UPDATE a JOIN b ON a.id=b.aid SET id = 1;
UPDATE a, b SET a.id=b.id;
UPDATE a JOIN (SELECT 1 AS q) d ON d.q=a.id SET d.q=2;
UPDATE a JOIN b ON a.id=b.aid SET a.nosuch=1;

DELETE a FROM a JOIN b ON a.id=b.aid WHERE a.id IN (SELECT id FROM a);
DELETE x FROM a JOIN b ON a.id=b.aid;
DELETE d FROM a JOIN (SELECT 1 AS q) d ON d.q=a.id;
DELETE a FROM a JOIN b ON a.id=b.aid LIMIT 1;
DELETE a FROM a JOIN b ON a.id=b.aid ORDER BY a.id;
DELETE a, b FROM a JOIN b ON a.id=b.aid WHERE a.id=2;
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
DELETE FROM a USING a JOIN b ON a.id=b.aid;
SELECT * FROM a ORDER BY id;
DELETE a.*, b.* FROM a JOIN b ON a.id=b.aid WHERE a.id=99;
DELETE FROM a.*, b USING a JOIN b ON a.id=b.aid WHERE a.id=99;
DELETE a FROM a LEFT JOIN b ON a.id=b.aid WHERE b.id IS NULL;
SELECT * FROM a ORDER BY id;

-- Modifiers.
INSERT INTO a VALUES (1,1),(2,2),(3,3);
DELETE LOW_PRIORITY QUICK IGNORE FROM b WHERE id=99;
UPDATE LOW_PRIORITY a SET v=v+1 WHERE id=1;
UPDATE IGNORE a SET id=3 WHERE id=1;
SHOW WARNINGS;
UPDATE LOW_PRIORITY IGNORE a SET id=id+1 ORDER BY id DESC;
SELECT * FROM a ORDER BY id;
UPDATE a SET v = 5 ORDER BY id DESC LIMIT 1;
DELETE FROM a ORDER BY id DESC LIMIT 1;
SELECT * FROM a ORDER BY id;
DELETE LOW_PRIORITY QUICK IGNORE a FROM a JOIN b ON a.id=b.aid;

-- Foreign keys: DELETE IGNORE skips a referenced row with warning 1451; multi-table DELETE
-- of parent and child together.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id));
INSERT INTO p VALUES (1),(2),(3);
INSERT INTO c VALUES (1,1),(2,2);
DELETE IGNORE FROM p;
SHOW WARNINGS;
SELECT * FROM p ORDER BY id;
DELETE FROM p;
DELETE p FROM p JOIN c ON c.pid=p.id WHERE c.id=1;
DELETE IGNORE p FROM p JOIN c ON c.pid=p.id WHERE c.id=1;
SHOW WARNINGS;
UPDATE IGNORE c SET pid=99;
SHOW WARNINGS;
UPDATE c JOIN p ON c.pid=p.id SET c.pid=NULL, p.id=p.id+10;
SELECT * FROM p ORDER BY id;
SELECT * FROM c ORDER BY id;
DROP TABLE c, p, a, b;
-- UPDATE IGNORE of a referenced row: skipped without a warning, as MariaDB.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id));
INSERT INTO p VALUES (1),(2),(3);
INSERT INTO c VALUES (1,1),(2,2);
UPDATE IGNORE p SET id=id+10;
SHOW WARNINGS;
SELECT * FROM p ORDER BY id;
UPDATE p SET id=id+10 WHERE id=1;
DROP TABLE c, p;
