-- INSERT / REPLACE / DELETE ... RETURNING (MariaDB 10.5+), as ORMs use it (issue 14 item 7).
CREATE TABLE r (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL DEFAULT 'x', u INT UNIQUE, n DECIMAL(5,2));
INSERT INTO r (name, u) VALUES ('a', 1), ('b', 2) RETURNING id, name, id*2, concat(name,'!') AS c, r.*;
SELECT ROW_COUNT(), LAST_INSERT_ID();
INSERT INTO r SET n = 1.5 RETURNING *;
INSERT INTO r (name) VALUES ('q') RETURNING id, id * 2 AS d, name, n;
INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name;
INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name;
INSERT IGNORE INTO r (name, u) VALUES ('d', 2), ('e', 3) RETURNING name, u;
REPLACE INTO r (id, name) VALUES (1, 'z') RETURNING id, name, u;
INSERT INTO r (name, u) SELECT name, u + 10 FROM r WHERE u IS NOT NULL RETURNING name, u;
DELETE FROM r WHERE u > 10 RETURNING *, 1+1;
SELECT ROW_COUNT();
DELETE FROM r WHERE id > 100 RETURNING id;
SELECT * FROM r ORDER BY id;
INSERT INTO r (name) VALUES ('q') RETURNING nosuch;
INSERT INTO r (name) VALUES ('q') RETURNING sum(id);
UPDATE r SET name = 'x' RETURNING id;
INSERT INTO r (name) VALUES ('w') RETURNING UPPER(name), LENGTH(name) + 1, id IS NOT NULL;
