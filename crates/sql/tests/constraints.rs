//! FOREIGN KEY and CHECK constraints, with MariaDB 10.11's names, texts and errors (each
//! expected text below was produced by MariaDB 10.11): definitions, SHOW CREATE TABLE,
//! enforcement on INSERT / UPDATE / DELETE / REPLACE, cascades, foreign_key_checks, DROP and
//! TRUNCATE of a parent, ALTER TABLE ADD / DROP, information_schema, and the parent row lock a
//! child insert holds.

use crate::common;
use common::*;
use std::time::Duration;

async fn show_create(s: &mut selkie_sql::Session, t: &str) -> String {
    query(s, &format!("SHOW CREATE TABLE {t}")).await[0][1].clone()
}

#[tokio::test]
async fn check_constraints() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE p (id INT PRIMARY KEY, a INT CHECK (a>0), b INT, CONSTRAINT c1 CHECK (b<10), CHECK (a<b), UNIQUE KEY (b))",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "p").await,
        "CREATE TABLE `p` (\n  `id` int(11) NOT NULL,\n  `a` int(11) DEFAULT NULL CHECK (`a` > 0),\n  `b` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `b` (`b`),\n  CONSTRAINT `c1` CHECK (`b` < 10),\n  CONSTRAINT `CONSTRAINT_1` CHECK (`a` < `b`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    let e = fail(&mut s, "INSERT INTO p VALUES (1, 0, 5)").await;
    assert_eq!((e.code, e.message.as_str()), (4025, "CONSTRAINT `p.a` failed for `test`.`p`"));
    let e = fail(&mut s, "INSERT INTO p VALUES (1, 1, 11)").await;
    assert_eq!(e.message, "CONSTRAINT `c1` failed for `test`.`p`");
    let e = fail(&mut s, "INSERT INTO p VALUES (1, 6, 5)").await;
    assert_eq!(e.message, "CONSTRAINT `CONSTRAINT_1` failed for `test`.`p`");
    // NULL is not false.
    exec(&mut s, "INSERT INTO p VALUES (1, NULL, 5)").await;
    let e = fail(&mut s, "UPDATE p SET b = 20").await;
    assert_eq!(e.message, "CONSTRAINT `c1` failed for `test`.`p`");
    // INSERT IGNORE: warning 4025, the row is skipped.
    let ok = exec(&mut s, "INSERT IGNORE INTO p VALUES (2, 0, 1), (3, 1, 2)").await;
    assert_eq!(ok.affected_rows, 1);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "4025", "CONSTRAINT `p.a` failed for `test`.`p`"]])
    );
    exec(&mut s, "SET check_constraint_checks = 0").await;
    exec(&mut s, "INSERT INTO p VALUES (4, -1, 1)").await;
    exec(&mut s, "SET check_constraint_checks = 1").await;
    // ALTER TABLE ADD CHECK checks the rows; DROP CONSTRAINT.
    // MariaDB's copying ALTER checks every row against every constraint, the old ones first.
    let e = fail(&mut s, "ALTER TABLE p ADD CONSTRAINT pos CHECK (a > 0)").await;
    assert_eq!(e.message, "CONSTRAINT `p.a` failed for `test`.`p`");
    exec(&mut s, "DELETE FROM p WHERE id = 4").await;
    let e = fail(&mut s, "ALTER TABLE p ADD CONSTRAINT pos CHECK (a > 1)").await;
    assert_eq!(e.message, "CONSTRAINT `pos` failed for `test`.`p`");
    assert_eq!(exec(&mut s, "ALTER TABLE p ADD CONSTRAINT small CHECK (id < 100)").await.affected_rows, 2);
    assert_eq!(fail(&mut s, "INSERT INTO p VALUES (100, 1, 3)").await.code, 4025);
    exec(&mut s, "ALTER TABLE p DROP CONSTRAINT small").await;
    exec(&mut s, "INSERT INTO p VALUES (100, 1, 3)").await;
    let e = fail(&mut s, "ALTER TABLE p DROP CONSTRAINT nope").await;
    assert_eq!((e.code, e.message.as_str()), (1091, "Can't DROP CONSTRAINT `nope`; check that it exists"));
    assert_eq!(
        query(&mut s, "SELECT CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE TABLE_NAME = 'p'").await,
        rows(&[&["a", "Column", "`a` > 0"], &["c1", "Table", "`b` < 10"], &["CONSTRAINT_1", "Table", "`a` < `b`"]])
    );
    let e = fail(&mut s, "CREATE TABLE e2 (a INT, CHECK (zz > 0))").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'zz' in 'CHECK'"));
    let e = fail(&mut s, "CREATE TABLE e4 (a INT, CONSTRAINT dup CHECK (a > 0), CONSTRAINT dup CHECK (a < 9))").await;
    assert_eq!((e.code, e.message.as_str()), (1826, "Duplicate CHECK constraint name 'dup'"));
    // The definitions survive a restart of the catalog (re-parsed from the stored text).
    exec(&mut s, "CREATE TABLE e6 (a INT, CHECK (a > 0), CONSTRAINT CONSTRAINT_1 CHECK (a < 5))").await;
    assert!(show_create(&mut s, "e6")
        .await
        .contains("CONSTRAINT `CONSTRAINT_2` CHECK (`a` > 0),\n  CONSTRAINT `CONSTRAINT_1` CHECK (`a` < 5)"));
}

const FK_C1: &str = "(`test`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE)";

#[tokio::test]
async fn foreign_key_definitions() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE p (id INT PRIMARY KEY, b INT, UNIQUE KEY (b))").await;
    exec(
        &mut s,
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, x INT REFERENCES p(id), FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE, CONSTRAINT fkb FOREIGN KEY fkbidx (x) REFERENCES p(b))",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "c").await,
        "CREATE TABLE `c` (\n  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  `x` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `pid` (`pid`),\n  KEY `fkb` (`x`),\n  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`x`) REFERENCES `p` (`id`),\n  CONSTRAINT `c_ibfk_2` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE,\n  CONSTRAINT `fkb` FOREIGN KEY (`x`) REFERENCES `p` (`b`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    let formed = "Can't create table `test`.`c1` (errno: 150 \"Foreign key constraint is incorrectly formed\")";
    for bad in [
        "CREATE TABLE c1 (x BIGINT, FOREIGN KEY (x) REFERENCES p(id))",
        "CREATE TABLE c1 (x INT, FOREIGN KEY (x) REFERENCES p(k2))",
        "CREATE TABLE c1 (x INT, FOREIGN KEY (x) REFERENCES nop(id))",
        "CREATE TABLE c1 (x INT UNSIGNED, FOREIGN KEY (x) REFERENCES p(id))",
        "CREATE TABLE c1 (x INT NOT NULL, FOREIGN KEY (x) REFERENCES p(id) ON DELETE SET NULL)",
    ] {
        let e = fail(&mut s, bad).await;
        assert_eq!((e.code, e.message.as_str()), (1005, formed), "{bad}");
    }
    let e = fail(&mut s, "CREATE TABLE c9 (x INT, y INT, FOREIGN KEY (x, y) REFERENCES p(id))").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1239, "Incorrect foreign key definition for 'foreign key without name': Key reference and table reference don't match")
    );
    // information_schema.
    assert_eq!(
        query(&mut s, "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS").await,
        rows(&[
            &["c_ibfk_1", "PRIMARY", "RESTRICT", "RESTRICT", "p"],
            &["c_ibfk_2", "PRIMARY", "RESTRICT", "CASCADE", "p"],
            &["fkb", "b", "RESTRICT", "RESTRICT", "p"],
        ])
    );
    assert_eq!(
        query(
            &mut s,
            "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_NAME = 'c'"
        )
        .await,
        rows(&[
            &["PRIMARY", "PRIMARY KEY"],
            &["c_ibfk_1", "FOREIGN KEY"],
            &["c_ibfk_2", "FOREIGN KEY"],
            &["fkb", "FOREIGN KEY"]
        ])
    );
    assert_eq!(
        query(&mut s, "SELECT CONSTRAINT_NAME, COLUMN_NAME, POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = 'c'").await,
        rows(&[
            &["PRIMARY", "id", "NULL", "NULL", "NULL", "NULL"],
            &["c_ibfk_1", "x", "1", "test", "p", "id"],
            &["c_ibfk_2", "pid", "1", "test", "p", "id"],
            &["fkb", "x", "1", "test", "p", "b"],
        ])
    );
    // DROP / TRUNCATE of the parent.
    let e = fail(&mut s, "DROP TABLE p").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1451, "Cannot delete or update a parent row: a foreign key constraint fails")
    );
    let e = fail(&mut s, "TRUNCATE TABLE p").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1701, "Cannot truncate a table referenced in a foreign key constraint (`test`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`x`) REFERENCES `test`.`p` (`id`))")
    );
    // foreign_key_checks=0: tables in any order, parents dropped.
    exec(&mut s, "SET foreign_key_checks = 0").await;
    exec(&mut s, "CREATE TABLE c11 (x INT, FOREIGN KEY (x) REFERENCES nop(id))").await;
    assert!(show_create(&mut s, "c11")
        .await
        .contains("KEY `x` (`x`),\n  CONSTRAINT `c11_ibfk_1` FOREIGN KEY (`x`) REFERENCES `nop` (`id`)\n"));
    exec(&mut s, "INSERT INTO c11 VALUES (5)").await;
    exec(&mut s, "SET foreign_key_checks = 1").await;
    let e = fail(&mut s, "INSERT INTO c11 VALUES (6)").await;
    assert_eq!(e.message, "Cannot add or update a child row: a foreign key constraint fails (`test`.`c11`, CONSTRAINT `c11_ibfk_1` FOREIGN KEY (`x`) REFERENCES `nop` (`id`))");
    exec(&mut s, "DROP TABLE c, p").await;
}

#[tokio::test]
async fn foreign_key_enforcement() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE p (id INT PRIMARY KEY, v INT)").await;
    exec(&mut s, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE)")
        .await;
    exec(&mut s, "INSERT INTO p VALUES (1, 1), (2, 2)").await;
    let e = fail(&mut s, "INSERT INTO c VALUES (1, 3)").await;
    assert_eq!((e.code, e.state), (1452, "23000"));
    assert_eq!(e.message, format!("Cannot add or update a child row: a foreign key constraint fails {FK_C1}"));
    exec(&mut s, "INSERT INTO c VALUES (1, 1), (2, 1), (3, 2), (4, NULL)").await;
    let ok = exec(&mut s, "INSERT IGNORE INTO c VALUES (5, 9), (6, 2)").await;
    assert_eq!(ok.affected_rows, 1);
    assert_eq!(query(&mut s, "SHOW WARNINGS").await[0][1], "1452");
    assert_eq!(fail(&mut s, "UPDATE c SET pid = 7 WHERE id = 1").await.code, 1452);
    // RESTRICT on update (no ON UPDATE clause), CASCADE on delete.
    let e = fail(&mut s, "UPDATE p SET id = 10 WHERE id = 1").await;
    assert_eq!(e.message, format!("Cannot delete or update a parent row: a foreign key constraint fails {FK_C1}"));
    assert_eq!(exec(&mut s, "DELETE FROM p WHERE id = 1").await.affected_rows, 1);
    assert_eq!(query(&mut s, "SELECT id FROM c ORDER BY id").await, rows(&[&["3"], &["4"], &["6"]]));
    // REPLACE into a referenced table deletes as DELETE does.
    exec(&mut s, "REPLACE INTO p VALUES (2, 20)").await;
    assert_eq!(query(&mut s, "SELECT id FROM c ORDER BY id").await, rows(&[&["4"]]));
    // SET NULL and ON UPDATE CASCADE.
    exec(&mut s, "CREATE TABLE n (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id) ON DELETE SET NULL ON UPDATE CASCADE)").await;
    exec(&mut s, "INSERT INTO n VALUES (1, 2), (2, 2)").await;
    exec(&mut s, "UPDATE p SET id = 5 WHERE id = 2").await;
    assert_eq!(query(&mut s, "SELECT id, pid FROM n ORDER BY id").await, rows(&[&["1", "5"], &["2", "5"]]));
    exec(&mut s, "DELETE FROM p WHERE id = 5").await;
    assert_eq!(query(&mut s, "SELECT id, pid FROM n ORDER BY id").await, rows(&[&["1", "NULL"], &["2", "NULL"]]));
    // Self-referencing tables.
    exec(&mut s, "CREATE TABLE s (id INT PRIMARY KEY, par INT, FOREIGN KEY (par) REFERENCES s(id))").await;
    exec(&mut s, "INSERT INTO s VALUES (1, 1)").await;
    assert_eq!(fail(&mut s, "DELETE FROM s WHERE id = 1").await.code, 1451);
    assert_eq!(fail(&mut s, "UPDATE s SET par = 5 WHERE id = 1").await.code, 1452);
    exec(
        &mut s,
        "CREATE TABLE s2 (id INT PRIMARY KEY, par INT, FOREIGN KEY (par) REFERENCES s2(id) ON DELETE CASCADE)",
    )
    .await;
    exec(&mut s, "INSERT INTO s2 VALUES (1, NULL), (2, 1), (3, 2), (4, 4), (5, NULL)").await;
    exec(&mut s, "DELETE FROM s2 WHERE id = 1").await;
    exec(&mut s, "DELETE FROM s2 WHERE id = 4").await;
    assert_eq!(query(&mut s, "SELECT id FROM s2").await, rows(&[&["5"]]));
    exec(
        &mut s,
        "CREATE TABLE sr (id INT PRIMARY KEY, par INT, FOREIGN KEY (par) REFERENCES sr(id) ON UPDATE CASCADE)",
    )
    .await;
    exec(&mut s, "INSERT INTO sr VALUES (1, 1), (2, 1)").await;
    assert_eq!(fail(&mut s, "UPDATE sr SET id = 10 WHERE id = 1").await.code, 1451);
    // foreign_key_checks=0 skips the checks.
    exec(&mut s, "SET foreign_key_checks = 0").await;
    exec(&mut s, "INSERT INTO c VALUES (100, 100)").await;
    exec(&mut s, "SET foreign_key_checks = 1").await;
    // ALTER TABLE ADD FOREIGN KEY checks the rows; DROP FOREIGN KEY.
    let e = fail(&mut s, "ALTER TABLE n ADD CONSTRAINT nfk FOREIGN KEY (id) REFERENCES p(id)").await;
    assert_eq!(e.code, 1452);
    exec(&mut s, "ALTER TABLE c DROP FOREIGN KEY c_ibfk_1").await;
    exec(&mut s, "INSERT INTO c VALUES (101, 101)").await;
    exec(&mut s, "DELETE FROM c WHERE id > 99").await;
    exec(&mut s, "ALTER TABLE c ADD FOREIGN KEY (pid) REFERENCES p(id)").await;
    assert!(show_create(&mut s, "c")
        .await
        .contains("CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)\n"));
    let e = fail(&mut s, "ALTER TABLE c DROP FOREIGN KEY nope").await;
    assert_eq!((e.code, e.message.as_str()), (1091, "Can't DROP FOREIGN KEY `nope`; check that it exists"));
}

#[tokio::test]
async fn cascade_depth_limit() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE d0 (id INT PRIMARY KEY)").await;
    for i in 1..18 {
        exec(&mut s, &format!("CREATE TABLE d{i} (id INT PRIMARY KEY, FOREIGN KEY (id) REFERENCES d{}(id) ON DELETE CASCADE ON UPDATE CASCADE)", i - 1)).await;
    }
    for i in 0..18 {
        exec(&mut s, &format!("INSERT INTO d{i} VALUES (1)")).await;
    }
    let e = fail(&mut s, "DELETE FROM d0").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1296, "Got error 193 '`test`.`d15`, CONSTRAINT `d15_ibfk_1` FOREIGN KEY (`id`) REFERENCES `d14` (`id`) ON DELETE CASCADE ON UPDATE CASCADE' from InnoDB")
    );
    assert_eq!(fail(&mut s, "UPDATE d0 SET id = 2").await.code, 152);
    exec(&mut s, "DELETE FROM d4").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM d17").await, rows(&[&["0"]]));
}

/// A child insert S-locks its parent row: a concurrent DELETE of the parent waits for the
/// child's transaction, then fails with 1451 once the child is committed.
#[tokio::test]
async fn child_insert_locks_the_parent_row() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE p (id INT PRIMARY KEY)").await;
    exec(&mut a, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id))").await;
    exec(&mut a, "INSERT INTO p VALUES (1), (2)").await;
    let mut b = db.session();
    b.use_database("test").unwrap();
    exec(&mut b, "SET innodb_lock_wait_timeout = 1").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO c VALUES (1, 1)").await;
    // The lock is held until a's transaction ends.
    assert_eq!(fail(&mut b, "DELETE FROM p WHERE id = 1").await.code, 1205);
    exec(&mut b, "DELETE FROM p WHERE id = 2").await;
    let (rb, ra) = tokio::join!(run(&mut b, "DELETE FROM p WHERE id = 1"), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        run(&mut a, "COMMIT").await
    });
    ra.unwrap();
    assert_eq!(rb.unwrap_err().code, 1451);
    // A parent delete in progress makes a child insert wait, then fail once it commits.
    exec(&mut a, "INSERT INTO p VALUES (3)").await;
    exec(&mut b, "BEGIN").await;
    exec(&mut b, "DELETE FROM p WHERE id = 3").await;
    let (ra, rb) = tokio::join!(run(&mut a, "INSERT INTO c VALUES (2, 3)"), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        run(&mut b, "COMMIT").await
    });
    rb.unwrap();
    assert_eq!(ra.unwrap_err().code, 1452);
}

#[tokio::test]
async fn rename_and_like() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE pp (id INT PRIMARY KEY)").await;
    exec(&mut s, "CREATE TABLE cc (id INT, pid INT, CHECK (id > 0), FOREIGN KEY (pid) REFERENCES pp(id), CONSTRAINT zz CHECK (pid < 5))").await;
    exec(&mut s, "RENAME TABLE pp TO pp2").await;
    exec(&mut s, "RENAME TABLE cc TO cc2").await;
    // As MariaDB 10.11 shows it after the same renames.
    assert_eq!(
        show_create(&mut s, "cc2").await,
        "CREATE TABLE `cc2` (\n  `id` int(11) DEFAULT NULL,\n  `pid` int(11) DEFAULT NULL,\n  KEY `pid` (`pid`),\n  CONSTRAINT `cc2_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `pp2` (`id`),\n  CONSTRAINT `CONSTRAINT_1` CHECK (`id` > 0),\n  CONSTRAINT `zz` CHECK (`pid` < 5)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    exec(&mut s, "INSERT INTO pp2 VALUES (1)").await;
    exec(&mut s, "INSERT INTO cc2 VALUES (1, 1)").await;
    assert_eq!(fail(&mut s, "DELETE FROM pp2").await.code, 1451);
    exec(&mut s, "CREATE TABLE cl LIKE cc2").await;
    assert_eq!(
        show_create(&mut s, "cl").await,
        "CREATE TABLE `cl` (\n  `id` int(11) DEFAULT NULL,\n  `pid` int(11) DEFAULT NULL,\n  KEY `pid` (`pid`),\n  CONSTRAINT `CONSTRAINT_1` CHECK (`id` > 0),\n  CONSTRAINT `zz` CHECK (`pid` < 5)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(fail(&mut s, "INSERT INTO cl VALUES (0, 1)").await.code, 4025);
}
