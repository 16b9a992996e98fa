-- REGEXP / RLIKE and REGEXP_REPLACE, REGEXP_INSTR, REGEXP_SUBSTR (PCRE2, as MariaDB 10.11):
-- caseless under _ci collations, case-sensitive under _bin and binary operands, Unicode
-- character classes and case folding, MariaDB's replacement syntax (\N groups), bad patterns.
CREATE TABLE r (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20), c VARCHAR(20) COLLATE utf8mb4_bin);
INSERT INTO r VALUES (1, 'Apple', 'Apple', 'Apple'), (2, 'banana', 'banana', 'banana'), (3, NULL, NULL, NULL), (4, 'cherry pie', 'cherry', 'Cherry'), (5, 'Ärger', 'x1y22', 'ärger');
SELECT 'ABC' REGEXP 'b', 'ABC' RLIKE '^a', 'abc' NOT REGEXP 'b', NULL REGEXP 'a', 1 REGEXP 1, 123 REGEXP '^[0-9]+$';
SELECT 'é' REGEXP 'E', 'é' REGEXP 'É', 'ÄB' REGEXP '^.b$', 'ß' REGEXP 'SS', 'ABC' REGEXP _latin1'b';
SELECT 'ABC' COLLATE utf8mb4_bin REGEXP 'b', 'ABC' REGEXP BINARY 'b', 'a.c' REGEXP 'a\\.c', 'abc' REGEXP 'a\\.c';
SELECT 'foo bar' REGEXP '\\bbar\\b', 'x' REGEXP '[[:alpha:]]', '12' REGEXP '^\\d{2}$', 'line1\nline2' REGEXP '^line2';
SELECT id FROM r WHERE s REGEXP '^a' ORDER BY id;
SELECT id FROM r WHERE b REGEXP '^a' ORDER BY id;
SELECT id FROM r WHERE c REGEXP '^c' ORDER BY id;
SELECT id FROM r WHERE s RLIKE 'an+a' OR s REGEXP 'PIE$' ORDER BY id;
SELECT id, s REGEXP 'e', s NOT REGEXP 'e', c REGEXP '^ä' FROM r ORDER BY id;
SELECT id FROM r WHERE s REGEXP concat('^', LEFT(s, 1)) ORDER BY id;
SELECT 'abc' REGEXP '(a';
SELECT 'abc' REGEXP '(a' FROM r WHERE 0;
SELECT 'abc' REGEXP '[z-a]';
SELECT 'abc' REGEXP 'a{2,1}';
SELECT id, 'x' REGEXP concat('(', s) FROM r ORDER BY id;
SELECT REGEXP_REPLACE('ab12cd', '[0-9]', '#'), REGEXP_REPLACE('abc', '(b)', '<\\1\\0\\2>'), REGEXP_REPLACE('ABC', 'b', 'x');
SELECT REGEXP_REPLACE('aaa', '', 'x'), REGEXP_REPLACE('abc', '^', 'x'), REGEXP_REPLACE(123, '2', 9), REGEXP_REPLACE('abc', 'b', '\\x\\');
SELECT REGEXP_REPLACE(NULL, 'a', 'b'), REGEXP_REPLACE('a', NULL, 'b'), REGEXP_REPLACE('a', 'a', NULL);
SELECT REGEXP_REPLACE('Hello World', '(\\w+) (\\w+)', '\\2 \\1'), REGEXP_REPLACE('aAaA', 'a', '-'), REGEXP_REPLACE(BINARY 'aAaA', 'a', '-');
SELECT REGEXP_REPLACE('résumé', 'É', 'e'), REGEXP_REPLACE('a1b22c333', '[0-9]+', '<\\0>'), REGEXP_REPLACE('abcabc', '(?<=b)c', 'C');
SELECT id, REGEXP_REPLACE(s, '[aeiou]', '_'), REGEXP_REPLACE(c, '[a-z]', '.') FROM r ORDER BY id;
SELECT REGEXP_INSTR('abcé1', '[0-9]'), REGEXP_INSTR('abc', 'z'), REGEXP_INSTR('', ''), REGEXP_INSTR('ABC', 'c'), REGEXP_INSTR(NULL, 'a');
SELECT REGEXP_SUBSTR('ab12cd34', '[0-9]+'), REGEXP_SUBSTR('abc', 'z'), REGEXP_SUBSTR('ABC', 'b'), REGEXP_SUBSTR(NULL, 'a'), REGEXP_SUBSTR('Ärger', '^.');
SELECT id, REGEXP_INSTR(s, 'a'), REGEXP_INSTR(b, 'a'), REGEXP_SUBSTR(s, '[a-z]+'), REGEXP_SUBSTR(c, '[A-Z]') FROM r ORDER BY id;
SELECT REGEXP_REPLACE('abc', '(a', 'x');
SELECT REGEXP_SUBSTR('abc', '*');
SELECT REGEXP_INSTR('abc', '(?<n>a)\\k<m>');
SELECT 'a' REGEXP NULL h, 'a' NOT REGEXP NULL, 'a' RLIKE NULL IS NULL;
SELECT id FROM r WHERE s NOT REGEXP '^[a-c]' ORDER BY id;
SELECT id FROM r WHERE s REGEXP '(a';
