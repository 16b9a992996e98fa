-- UCA collations (utf8mb4/utf8mb3 *_unicode_ci = UCA 4.0.0, *_unicode_520_ci = UCA 5.2.0, and
-- MariaDB's language tailorings of UCA 4.0.0): primary level only, expansions ('ß' = 'ss'),
-- contractions ('ch' in Czech), PAD SPACE; LIKE compares character by character.
SELECT 'ß' = 'ss' COLLATE utf8mb4_unicode_ci, 'ß' = 's' COLLATE utf8mb4_unicode_ci, 'æ' = 'ae' COLLATE utf8mb4_unicode_ci, 'a' = 'A ' COLLATE utf8mb4_unicode_ci, 'ı' = 'i' COLLATE utf8mb4_unicode_ci;
SELECT 'ß' LIKE 'ss' COLLATE utf8mb4_unicode_ci, 'ß' LIKE '_' COLLATE utf8mb4_unicode_ci, 'Ärger' LIKE 'a%' COLLATE utf8mb4_unicode_ci, 'ﬁ' LIKE 'fi' COLLATE utf8mb4_unicode_ci, 'ﬁ' = 'fi' COLLATE utf8mb4_unicode_ci;
SELECT 'ch' LIKE 'c%' COLLATE utf8mb4_czech_ci, 'ch' LIKE '_' COLLATE utf8mb4_czech_ci, 'ch' LIKE '__' COLLATE utf8mb4_czech_ci, 'ch' > 'hz' COLLATE utf8mb4_czech_ci, 'cH' > 'hz' COLLATE utf8mb4_czech_ci;
SELECT 'ñ' > 'nz' COLLATE utf8mb4_spanish_ci, 'ñ' > 'nz' COLLATE utf8mb4_unicode_ci, 'll' > 'lz' COLLATE utf8mb4_spanish2_ci, 'aa' = 'å' COLLATE utf8mb4_danish_ci, 'ä' = 'ae' COLLATE utf8mb4_german2_ci;
SELECT 'ĉ' > 'cz' COLLATE utf8mb4_esperanto_ci, 'ŝ' > 'sz' COLLATE utf8mb4_esperanto_ci, 'ŭ' > 'uz' COLLATE utf8mb4_esperanto_ci, 'dž' > 'dz' COLLATE utf8mb4_croatian_ci, 'ı' < 'i' COLLATE utf8mb4_turkish_ci;
SELECT HEX(WEIGHT_STRING('ab ' COLLATE utf8mb4_unicode_ci)), HEX(WEIGHT_STRING('ß' COLLATE utf8mb4_unicode_520_ci)), HEX(WEIGHT_STRING(_utf8mb4 X'F09F9880' COLLATE utf8mb4_unicode_ci)), HEX(WEIGHT_STRING(_utf8mb4 X'F09F9880' COLLATE utf8mb4_unicode_520_ci));
SELECT HEX(WEIGHT_STRING('中文' COLLATE utf8mb4_unicode_ci)), HEX(WEIGHT_STRING('한' COLLATE utf8mb4_unicode_ci)), HEX(WEIGHT_STRING('ch' COLLATE utf8mb4_czech_ci)), HEX(WEIGHT_STRING('Straße')), HEX(WEIGHT_STRING('x' COLLATE utf8mb4_bin));
SELECT WEIGHT_STRING('ab' COLLATE utf8mb4_unicode_ci) = WEIGHT_STRING('AB' COLLATE utf8mb4_unicode_ci), WEIGHT_STRING(NULL), WEIGHT_STRING(12);
SELECT COLLATION('x' COLLATE utf8mb4_esperanto_ci), COLLATION(_utf8mb3'x' COLLATE utf8mb3_esperanto_ci), COERCIBILITY('x' COLLATE utf8mb4_unicode_520_ci);
SHOW COLLATION LIKE 'utf8mb4_esperanto%';
SHOW COLLATION LIKE 'utf8mb3_%unicode%';
SHOW COLLATION WHERE Charset = 'utf8mb4' AND Id BETWEEN 224 AND 247;
SELECT COLLATION_NAME, CHARACTER_SET_NAME, ID, IS_DEFAULT, IS_COMPILED, SORTLEN FROM information_schema.COLLATIONS WHERE COLLATION_NAME LIKE 'utf8mb3\_%' AND ID > 191 ORDER BY ID;
SELECT COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE COLLATION_NAME LIKE 'utf8%esperanto%' ORDER BY COLLATION_NAME;
SELECT 'x' COLLATE utf8mb4_klingon_ci;
-- Django's schema tests: a utf8mb3_esperanto_ci column.
CREATE TABLE eo (id INT PRIMARY KEY, v VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_esperanto_ci, KEY v (v));
SHOW CREATE TABLE eo;
INSERT INTO eo VALUES (1,'ĉapelo'),(2,'cxapelo'),(3,'dento'),(4,'celo'),(5,'Ĉu'),(6,'ŝipo'),(7,'suno'),(8,'CELO ');
SELECT id, v FROM eo ORDER BY v, id;
SELECT id FROM eo WHERE v = 'celo' ORDER BY id;
SELECT id FROM eo WHERE v > 'cz' AND v < 'e' ORDER BY id;
SELECT GROUP_CONCAT(id ORDER BY id) FROM eo GROUP BY v ORDER BY MIN(v);
SELECT COUNT(DISTINCT v) FROM eo;
SELECT id FROM eo WHERE v LIKE 'ĉ%' ORDER BY id;
ALTER TABLE eo MODIFY v VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SHOW CREATE TABLE eo;
SELECT id, v FROM eo ORDER BY v, id;
-- UNIQUE and index lookups under utf8mb4_unicode_ci: 'ß' and 'ss' are one key.
CREATE TABLE u (id INT PRIMARY KEY, w VARCHAR(20) COLLATE utf8mb4_unicode_ci, UNIQUE KEY w (w));
INSERT INTO u VALUES (1, 'ss');
INSERT INTO u VALUES (2, 'ß');
INSERT INTO u VALUES (2, 'SS  ');
INSERT INTO u VALUES (3,'zebra'),(4,'Ärger'),(5,'æble'),(6,'ab'),(7,'b'),(8,'ñu'),(9,'nz'),(10,'s'),(11,'Œuvre'),(12,'ǅ'),(13,'ﬁx');
SELECT id FROM u WHERE w = 'ß';
SELECT id FROM u WHERE w = 'S';
SELECT id FROM u WHERE w IN ('SS', 'AB', 'fix') ORDER BY id;
SELECT id, w FROM u ORDER BY w, id;
SELECT id FROM u WHERE w > 'a' AND w < 'az' ORDER BY id;
SELECT id FROM u WHERE w BETWEEN 'n' AND 'o' ORDER BY id;
SELECT id FROM u WHERE w LIKE 'ä%' ORDER BY id;
SELECT w FROM u ORDER BY w COLLATE utf8mb4_spanish_ci, id;
SELECT w FROM u ORDER BY w COLLATE utf8mb4_unicode_520_ci, id;
SELECT MIN(w), MAX(w) FROM u;
UPDATE u SET w = 'SS' WHERE id = 1;
SELECT id, w FROM u WHERE w = 'ss';
DELETE FROM u WHERE w = 'ß';
SELECT COUNT(*) FROM u;
-- GROUP BY / DISTINCT under unicode_520_ci and a language collation.
CREATE TABLE g (id INT PRIMARY KEY, a VARCHAR(10) COLLATE utf8mb4_unicode_520_ci, b VARCHAR(10) COLLATE utf8mb4_danish_ci);
INSERT INTO g VALUES (1,'ß','aa'),(2,'ss','å'),(3,'SS','AA'),(4,'s','a'),(5,'ǆ','æ'),(6,'dž','ae');
SELECT GROUP_CONCAT(id ORDER BY id) FROM g GROUP BY a ORDER BY MIN(id);
SELECT GROUP_CONCAT(id ORDER BY id) FROM g GROUP BY b ORDER BY MIN(id);
SELECT COUNT(DISTINCT a), COUNT(DISTINCT b) FROM g;
SELECT b FROM g ORDER BY b, id;
SELECT id FROM g WHERE b = 'Å' ORDER BY id;
-- PAD SPACE pads with the space's weight (a no-break space weighs the same); ignorable
-- characters weigh nothing, under NO PAD too.
SELECT _utf8mb4 X'61C2A0' = 'a' COLLATE utf8mb4_unicode_ci, 'a\t' < 'a' COLLATE utf8mb4_unicode_ci, 'a' = 'a\0' COLLATE utf8mb4_unicode_ci, 'a ' = 'a' COLLATE utf8mb4_unicode_nopad_ci, 'a' < 'a\0' COLLATE utf8mb4_unicode_nopad_ci;
-- utf8mb3_general_mysql500_ci: general_ci as MySQL 5.0 weighed it ('ß' is not 's').
SELECT 'ß' = 's' COLLATE utf8mb3_general_mysql500_ci, 'ß' = 's' COLLATE utf8mb3_general_ci, 'A' = 'a' COLLATE utf8mb3_general_mysql500_ci;
SELECT HEX(WEIGHT_STRING(_utf8mb3'aßz' COLLATE utf8mb3_general_mysql500_ci));
CREATE TABLE m500 (s varchar(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_mysql500_ci PRIMARY KEY);
INSERT INTO m500 VALUES ('s'), ('ß'), ('t'), ('S');
SELECT s FROM m500 ORDER BY s;
SHOW CREATE TABLE m500;
SELECT collation_name, id, is_default FROM information_schema.collations WHERE collation_name LIKE 'utf8mb3%mysql500%';
