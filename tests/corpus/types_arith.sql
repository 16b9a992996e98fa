-- DECIMAL division as MariaDB's decimal_div: the quotient keeps whole 9-digit words, so
-- 1/7*7 is 1.0000; the result shows the dividend's scale + div_precision_increment.
SELECT 1/7*7, 1/7, 2/3, 1/3*3, 10/4, 1.5/7, 2.00000/3, 2.000/3.0000, 1.1234567/3;
SELECT 20/3*3, (1/7)*7.0, 1/7 + 0, -1/7*7, 5 DIV 2, -7 DIV 2, 7.5 DIV 2;
CREATE TABLE d (id INT PRIMARY KEY, a DECIMAL(10,4), b INT);
INSERT INTO d VALUES (1, 1/8, 7), (2, 3/4, 3), (3, 10/4, 4);
SELECT id, a, a * b, b / 7 * 7 FROM d ORDER BY id;
SELECT AVG(b), SUM(b) / COUNT(b), AVG(a) FROM d;
