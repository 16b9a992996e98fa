-- Comparisons, LIKE, GROUP BY and ORDER BY follow the collation of their operands: string
-- literals have the connection's (utf8mb4_general_ci), COLLATE overrides, and an explicit mix
-- of collations is 1267.
CREATE TABLE w (id INT PRIMARY KEY, s VARCHAR(20) COLLATE utf8mb4_bin);
INSERT INTO w VALUES (1,'a'),(2,'A'),(3,'b'),(4,'ß'),(5,'s'),(6,'é'),(7,'E'),(8,'e '),(9,'Z'),(10,'ss');
SELECT 'a' = 'A', 'a' = 'a ', 'ß' = 's', 'é' = 'e', 'a' < 'B', 'a' COLLATE utf8mb4_bin = 'A', 'a' IN ('A', 'x'), 'b' BETWEEN 'A' AND 'C', NULLIF('a', 'A'), CASE 'a' WHEN 'A' THEN 'yes' ELSE 'no' END;
SELECT 'Straße' LIKE 'STRASE', 'abc' LIKE 'A_C', 'a' LIKE 'A' COLLATE utf8mb4_bin, 'a ' LIKE 'a';
SELECT id FROM w WHERE s COLLATE utf8mb4_general_ci = 'e' ORDER BY id;
SELECT id FROM w WHERE s = 'A' ORDER BY id;
SELECT GROUP_CONCAT(id ORDER BY id) FROM w GROUP BY s COLLATE utf8mb4_general_ci;
SELECT s FROM w ORDER BY s COLLATE utf8mb4_general_ci, id;
SELECT s FROM w ORDER BY s, id;
SELECT COUNT(*) FROM w WHERE s COLLATE utf8mb4_general_ci LIKE 'S%';
SELECT 'a' COLLATE utf8mb4_bin = 'A' COLLATE utf8mb4_general_ci;
SELECT s FROM w WHERE s = _latin1'a' COLLATE latin1_bin;
SELECT MIN(s COLLATE utf8mb4_general_ci), MAX(s COLLATE utf8mb4_general_ci), MIN(s), MAX(s) FROM w;
SELECT COUNT(*) FROM (SELECT DISTINCT s COLLATE utf8mb4_general_ci FROM w) d;
SELECT COUNT(DISTINCT s) FROM w;
