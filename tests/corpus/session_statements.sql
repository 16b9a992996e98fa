-- SET STATEMENT ... FOR, SQL-level PREPARE / EXECUTE ... USING / EXECUTE IMMEDIATE,
-- sql_select_limit, div_precision_increment, max_statement_time and SLEEP (issue 15 item 6).
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z');

PREPARE p FROM 'SELECT ?, ?, ?';
SET @v = 7;
EXECUTE p USING 5, 'x', @v;
EXECUTE p USING 1+1, CONCAT('a','b'), NULL;
EXECUTE p USING 1, 2;
EXECUTE p;
EXECUTE p USING (SELECT 1), 2, 3;
EXECUTE nosuch USING 1;
EXECUTE IMMEDIATE 'SELECT 2';
EXECUTE IMMEDIATE 'SELECT ?+1' USING 41;
SET @q = 'SELECT id FROM a ORDER BY id';
EXECUTE IMMEDIATE @q;
PREPARE p2 FROM CONCAT('SELECT ', 4);
EXECUTE p2;
EXECUTE IMMEDIATE CONCAT('SELECT ', 5);
EXECUTE IMMEDIATE 'SELECT ?';
EXECUTE IMMEDIATE 'SELECT 1' USING 1;
EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE 1';
EXECUTE IMMEDIATE 'INSERT INTO a VALUES (?, ?)' USING 4, 'w';
SELECT * FROM a ORDER BY id;
DEALLOCATE PREPARE p;

SET STATEMENT sort_buffer_size = 100000 FOR SELECT @@sort_buffer_size;
SELECT @@sort_buffer_size;
SET STATEMENT sql_mode = '' FOR SET sql_mode = 'ANSI';
SELECT @@sql_mode;
SET STATEMENT sql_mode = 'NO_BACKSLASH_ESCAPES' FOR SELECT LENGTH('a\nb');
SET STATEMENT autocommit = 0 FOR SELECT 1;
SET STATEMENT character_set_client = latin1 FOR SELECT 1;
SET STATEMENT @a = 1 FOR SELECT 1;
SET STATEMENT sql_mode = xyz FOR SELECT 1;
SET STATEMENT nosuch = 1 FOR SELECT 1;
SET STATEMENT version = '' FOR SELECT 1;
SET STATEMENT sql_mode = '' FOR SET STATEMENT sql_mode = '' FOR SELECT 1;
SET STATEMENT time_zone = '+01:00' FOR SELECT @@time_zone;
SELECT @@time_zone;
SET STATEMENT sql_select_limit = 1 FOR SELECT * FROM a ORDER BY id;
SET STATEMENT div_precision_increment = 1 FOR SELECT 1/3;

SET sql_select_limit = 1;
SELECT * FROM a ORDER BY id;
SELECT * FROM a ORDER BY id LIMIT 2;
SELECT * FROM a UNION ALL SELECT * FROM a;
SELECT (SELECT COUNT(*) FROM a);
SELECT COUNT(*) FROM (SELECT * FROM a) d;
SELECT id FROM a WHERE id IN (SELECT id FROM a) ORDER BY id;
PREPARE p FROM 'SELECT * FROM a ORDER BY id';
EXECUTE p;
SELECT @@sql_select_limit;
SET sql_select_limit = 0;
SELECT 1;
SET sql_select_limit = DEFAULT;
SELECT COUNT(*) FROM a;

SELECT 1/3;
SET div_precision_increment = 2;
SELECT 1/3, 10/4, 1.5/3;
SET div_precision_increment = 0;
SELECT 1/3, 2/3, 7/2;
SET div_precision_increment = 10;
SELECT 1/3;
SET div_precision_increment = DEFAULT;

SET max_statement_time = 0.2;
SELECT SLEEP(3);
SELECT SLEEP(0.01), 1;
SET max_statement_time = 0;
SELECT SLEEP(NULL), SLEEP(-1), SLEEP(0.01);
SET STATEMENT max_statement_time = 0.1 FOR SELECT SLEEP(2);
SELECT @@max_statement_time;
