-- A database with every column type, collation, foreign key, CHECK, generated column and
-- index kind an application declares (issue 14's mariadb-dump round trip). Run on MariaDB
-- 10.11, dumped, restored into selkied and dumped again: the two dumps must be the same.
CREATE TABLE authors (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  name VARCHAR(100) NOT NULL,
  name_bin VARCHAR(50) COLLATE utf8mb4_bin DEFAULT NULL,
  name_uca VARCHAR(50) COLLATE utf8mb4_unicode_ci DEFAULT NULL,
  legacy VARCHAR(40) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,
  code CHAR(4) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL DEFAULT 'xx',
  email VARCHAR(254) NOT NULL,
  born DATE DEFAULT NULL,
  created DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY authors_email (email),
  KEY authors_name_born (name, born DESC)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='people who write';

CREATE TABLE books (
  id BIGINT NOT NULL AUTO_INCREMENT,
  author_id INT UNSIGNED DEFAULT NULL,
  title VARCHAR(200) NOT NULL,
  price DECIMAL(10,2) NOT NULL DEFAULT 0.00 CHECK (price >= 0),
  big DECIMAL(65,30) DEFAULT NULL,
  weight FLOAT DEFAULT NULL,
  ratio DOUBLE NOT NULL DEFAULT 1.5,
  pages SMALLINT UNSIGNED DEFAULT NULL,
  tiny TINYINT(1) NOT NULL DEFAULT 0,
  medium MEDIUMINT DEFAULT NULL,
  zf INT(6) UNSIGNED ZEROFILL DEFAULT NULL,
  flags BIT(8) DEFAULT b'101',
  kind ENUM('novel','essay','poem') NOT NULL DEFAULT 'novel',
  tags SET('new','sale','signed') DEFAULT '',
  published YEAR DEFAULT NULL,
  duration TIME(3) DEFAULT NULL,
  summary TEXT,
  blurb TINYTEXT,
  body MEDIUMTEXT,
  notes LONGTEXT,
  cover BLOB,
  thumb TINYBLOB,
  raw MEDIUMBLOB,
  archive LONGBLOB,
  digest BINARY(16) DEFAULT NULL,
  token VARBINARY(32) DEFAULT NULL,
  meta LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(meta)),
  uid UUID DEFAULT NULL,
  ip4 INET4 DEFAULT NULL,
  ip6 INET6 DEFAULT NULL,
  title_len INT GENERATED ALWAYS AS (char_length(title)) VIRTUAL,
  price_cents BIGINT GENERATED ALWAYS AS (price * 100) STORED,
  PRIMARY KEY (id),
  KEY books_author (author_id),
  KEY books_title_prefix (title(20)),
  KEY books_price_cents (price_cents),
  UNIQUE KEY books_uid (uid),
  CONSTRAINT books_author_fk FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE SET NULL ON UPDATE CASCADE,
  CONSTRAINT books_pages CHECK (pages IS NULL OR pages > 0)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE reviews (
  book_id BIGINT NOT NULL,
  reviewer VARCHAR(60) NOT NULL,
  stars TINYINT NOT NULL,
  body VARCHAR(2000) DEFAULT NULL,
  PRIMARY KEY (book_id, reviewer),
  CONSTRAINT reviews_book_fk FOREIGN KEY (book_id) REFERENCES books (id) ON DELETE CASCADE,
  CONSTRAINT reviews_stars CHECK (stars BETWEEN 1 AND 5)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE categories (
  id INT NOT NULL,
  parent_id INT DEFAULT NULL,
  name VARCHAR(50) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL,
  PRIMARY KEY (id),
  KEY categories_parent (parent_id),
  CONSTRAINT categories_parent_fk FOREIGN KEY (parent_id) REFERENCES categories (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=latin1;

INSERT INTO authors (id, name, name_bin, name_uca, legacy, code, email, born, created, updated) VALUES
  (1, 'Ada', 'Ada', 'Ädä', 'café', 'ab', 'ada@example.com', '1815-12-10', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05'),
  (2, 'Bob ''the'' Builder', NULL, NULL, 'plain', 'cd', 'bob@example.com', NULL, '2024-02-03 04:05:06.000001', '2024-02-03 04:05:06'),
  (3, 'Żółw\tand\nnewline \\ slash', 'żółw', 'ŻÓŁW', NULL, 'ef', 'z@example.com', '2000-02-29', '2024-03-04 05:06:07', '2024-03-04 05:06:07');
INSERT INTO books (id, author_id, title, price, big, weight, ratio, pages, tiny, medium, zf, flags, kind, tags, published, duration,
    summary, blurb, body, notes, cover, thumb, raw, archive, digest, token, meta, uid, ip4, ip6) VALUES
  (1, 1, 'Notes on the Engine', 12.50, 123456789012345678901234567890.123456789012345678901234567890, 1.25, 3.141592653589793, 120, 1, -8388608, 42, b'11110000',
   'essay', 'new,signed', 1999, '-838:59:59.999', 'A summary', 'tiny', 'medium text', 'long text', X'00FF10', X'01', X'DEADBEEF', X'', X'000102030405060708090A0B0C0D0E0F', X'ABCD',
   '{"a": [1, 2, {"b": null}], "c": "d"}', '6ccd780c-baba-1026-9564-5b8c656024db', '10.0.0.1', '2001:db8::1'),
  (2, 2, 'Poems', 0.00, NULL, NULL, -0.5, NULL, 0, NULL, NULL, NULL, 'poem', '', NULL, '12:34:56.5', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, '255.255.255.255', '::ffff:1.2.3.4'),
  (3, NULL, 'Orphan ''quoted'' title', 99999999.99, -0.000000000000000000000000000001, -1e-30, 1e300, 65535, 0, 8388607, 999999, b'0', 'novel', 'sale', 2155, '838:59:59',
   '', '', '', '', X'', X'', X'', X'', NULL, X'00', '[]', '00000000-0000-0000-0000-000000000000', '0.0.0.0', '::');
INSERT INTO reviews VALUES (1, 'carol', 5, 'Great'), (1, 'dave', 3, NULL), (3, 'erin', 1, 'Meh\r\n');
INSERT INTO categories VALUES (1, NULL, 'root'), (2, 1, 'child'), (3, 2, 'Grandchild');

CREATE TABLE `odd name ``quoted``` (
  `select` INT NOT NULL,
  `from` VARCHAR(10) DEFAULT 'a''b',
  PRIMARY KEY (`select`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO `odd name ``quoted``` VALUES (1, 'x'), (2, NULL);

CREATE SEQUENCE ticket_seq START WITH 100 INCREMENT BY 5 MINVALUE 1 MAXVALUE 100000 CACHE 10;
