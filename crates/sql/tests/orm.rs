//! What ORMs send on their first connection and insert, as MariaDB 10.11 answers it:
//! INSERT / REPLACE / DELETE ... RETURNING. Expected values were checked against MariaDB.

mod common;
use common::*;

#[tokio::test]
async fn insert_replace_delete_returning() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE r (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL DEFAULT 'x', u INT UNIQUE, n DECIMAL(5,2))").await;
    let sql = "INSERT INTO r (name, u) VALUES ('a', 1), ('b', 2) RETURNING id, name, id*2, concat(name,'!') AS c, r.*";
    assert_eq!(column_names(&mut s, sql).await, ["id", "name", "id*2", "c", "id", "name", "u", "n"]);
    assert_eq!(query(&mut s, "SELECT ROW_COUNT(), LAST_INSERT_ID()").await, rows(&[&["-1", "1"]]));
    assert_eq!(query(&mut s, "SELECT id, name FROM r").await, rows(&[&["1", "a"], &["2", "b"]]));
    assert_eq!(query(&mut s, "INSERT INTO r SET n = 1.5 RETURNING *").await, rows(&[&["3", "x", "NULL", "1.50"]]));
    // The metadata is the SELECT's: table columns keep their origin, expressions are computed.
    let (cols, _) = result(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING id, id * 2 AS d, name").await;
    assert_eq!((cols[0].table.as_str(), cols[0].org_name.as_str()), ("r", "id"));
    assert_eq!((cols[1].name.as_str(), cols[1].table.as_str()), ("d", ""));
    // ON DUPLICATE KEY UPDATE returns the row as updated (or as left); IGNORE skips duplicates.
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name")
            .await,
        rows(&[&["1", "cc"]])
    );
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name")
            .await,
        rows(&[&["1", "cc"]])
    );
    assert_eq!(
        query(&mut s, "INSERT IGNORE INTO r (name, u) VALUES ('d', 2), ('e', 3) RETURNING name, u").await,
        rows(&[&["e", "3"]])
    );
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Warning", "1062", "Duplicate entry '2' for key 'u'"]]));
    assert_eq!(
        query(&mut s, "REPLACE INTO r (id, name) VALUES (1, 'z') RETURNING id, name").await,
        rows(&[&["1", "z"]])
    );
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) SELECT name, u + 10 FROM r WHERE u IS NOT NULL RETURNING u").await,
        rows(&[&["12"], &["13"]])
    );
    assert_eq!(
        query(&mut s, "DELETE FROM r WHERE u > 10 RETURNING *, 1+1")
            .await
            .iter()
            .map(|r| r[2].clone())
            .collect::<Vec<_>>(),
        ["12", "13"]
    );
    assert_eq!(query(&mut s, "DELETE FROM r WHERE id > 100 RETURNING id").await, Vec::<Vec<String>>::new());
    assert_eq!(query(&mut s, "SELECT ROW_COUNT()").await, rows(&[&["-1"]]));
    let e = fail(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING nosuch").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'nosuch' in 'RETURNING'"));
    let e = fail(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING sum(id)").await;
    assert_eq!(e.code, 1111);
    let e = fail(&mut s, "UPDATE r SET name = 'x' RETURNING id").await;
    assert_eq!(e.code, 1064);
    assert!(e.message.ends_with("near 'RETURNING id' at line 1"), "{}", e.message);

    // Prepared: the result columns are known at PREPARE; values come from each execution.
    let info = s.prepare("INSERT INTO r (name, n) VALUES (?, ?) RETURNING id, name, n").unwrap();
    assert_eq!(info.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "name", "n"]);
    let params = [selkie_sql::Value::Bytes(b"p".to_vec()), selkie_sql::Value::Int(2)];
    let got = prepared_rows(&mut s, info.statement_id, &params).await;
    assert_eq!(got[0][1..], ["p".to_string(), "2.00".to_string()]);
}
