-- Issue 15 item 7: inner joins are read in the order that reads the fewest rows, not the order
-- written; the results are the same rows (compared sorted where the statement has no ORDER BY,
-- since the order of such rows depends on the join order each server picks).
CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(50), country VARCHAR(10));
CREATE TABLE cats (id INT PRIMARY KEY, slug VARCHAR(30), UNIQUE KEY (slug));
CREATE TABLE posts (id INT PRIMARY KEY, user_id INT, cat_id INT, created DATETIME, title VARCHAR(100), KEY (user_id), KEY (cat_id), KEY (created));
CREATE TABLE comments (id INT PRIMARY KEY, post_id INT, body VARCHAR(100), KEY (post_id));
INSERT INTO cats WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 19) SELECT i, CONCAT('cat', i) FROM s;
INSERT INTO users WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 199) SELECT i, CONCAT('user', i), CONCAT('c', i % 7) FROM s;
INSERT INTO posts WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i, i % 200, i % 20, '2020-01-01' + INTERVAL i MINUTE, CONCAT('t', i) FROM s;
INSERT INTO comments WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i, (i * 7) % 1000, CONCAT('b', i) FROM s;
INSERT INTO comments SELECT id + 1000, (post_id + 3) % 1000, CONCAT('c', id) FROM comments;
SELECT COUNT(*) FROM posts p JOIN cats c ON c.id = p.cat_id WHERE c.slug = 'cat7';
SELECT p.id, u.name, c.slug FROM posts p JOIN users u ON u.id = p.user_id JOIN cats c ON c.id = p.cat_id ORDER BY p.created DESC LIMIT 5;
SELECT p.id, u.name FROM posts p JOIN users u ON u.id = p.user_id JOIN cats c ON c.id = p.cat_id WHERE c.slug = 'cat3' ORDER BY p.created DESC LIMIT 5;
SELECT COUNT(*), SUM(cm.id) FROM comments cm JOIN posts p ON p.id = cm.post_id JOIN users u ON u.id = p.user_id WHERE u.country = 'c3' AND u.id < 100;
SELECT COUNT(*) FROM posts p, users u WHERE u.id = p.user_id AND u.name = 'user5';
-- sorted
SELECT p.id, u.name FROM posts p, users u WHERE u.id = p.user_id AND u.name = 'user5';
-- sorted
SELECT c.slug, p.id, cm.id FROM comments cm JOIN posts p ON cm.post_id = p.id JOIN cats c ON p.cat_id = c.id WHERE c.slug IN ('cat1', 'cat2') AND cm.id < 300;
-- sorted
SELECT u.name, c.slug FROM users u CROSS JOIN cats c WHERE u.id < 3 AND c.id < 3;
SELECT COUNT(*) FROM posts p JOIN users u ON u.id = p.user_id AND u.country = 'c1' JOIN cats c ON c.id = p.cat_id AND c.id > 15;
SELECT u.country, COUNT(*) FROM posts p JOIN users u ON u.id = p.user_id JOIN cats c ON c.id = p.cat_id WHERE c.slug LIKE 'cat1%' GROUP BY u.country ORDER BY u.country;
SELECT COUNT(*) FROM posts p STRAIGHT_JOIN cats c ON c.id = p.cat_id WHERE c.slug = 'cat7';
-- Outer joins keep the written order; an inner join beside them too.
SELECT COUNT(*), COUNT(c.id) FROM posts p LEFT JOIN cats c ON c.id = p.cat_id AND c.slug = 'cat7';
SELECT COUNT(*) FROM posts p JOIN users u ON u.id = p.user_id LEFT JOIN comments cm ON cm.post_id = p.id WHERE u.id = 3;
-- A join with a derived table and one with a subquery in WHERE.
SELECT COUNT(*) FROM posts p JOIN (SELECT id FROM cats WHERE slug = 'cat2') d ON d.id = p.cat_id;
SELECT COUNT(*) FROM posts p JOIN users u ON u.id = p.user_id WHERE u.id IN (SELECT user_id FROM posts WHERE id < 10);
-- Self-join and a join of the same table three times.
SELECT COUNT(*) FROM posts a JOIN posts b ON b.id = a.id + 1 JOIN posts c ON c.id = b.id + 1 WHERE a.cat_id = 3;
-- sorted
SELECT a.id, b.id FROM users a JOIN users b ON a.country = b.country WHERE a.id = 5 AND b.id < 40;
-- Columns of every table in the select list, in FROM order, after a reordered join.
SELECT * FROM posts p JOIN cats c ON c.id = p.cat_id JOIN users u ON u.id = p.user_id WHERE c.slug = 'cat4' AND u.id = 24 ORDER BY p.id;
UPDATE posts p JOIN cats c ON c.id = p.cat_id SET p.title = CONCAT(p.title, '!') WHERE c.slug = 'cat5';
SELECT COUNT(*) FROM posts WHERE title LIKE '%!';
DELETE cm FROM comments cm JOIN posts p ON p.id = cm.post_id JOIN cats c ON c.id = p.cat_id WHERE c.slug = 'cat6';
SELECT COUNT(*) FROM comments;
