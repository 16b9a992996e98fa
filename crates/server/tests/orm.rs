//! What ORMs need from the wire: CLIENT_FOUND_ROWS (UPDATE reports matched rows, as Django's
//! save() of an unchanged row expects) and INSERT/DELETE ... RETURNING through both protocols.
//! Expected values were checked against MariaDB 10.11 with the same client flags.

use crate::common;

use common::{runtime, Selkied};
use selkie_protocol::client::{ClientOptions, Response};
use selkie_protocol::command::ParamType;
use selkie_protocol::constants::capabilities::*;
use selkie_protocol::constants::FieldType;
use selkie_protocol::value::BinaryValue;

fn rows(v: &[&[Option<&str>]]) -> Vec<Vec<Option<String>>> {
    v.iter().map(|r| r.iter().map(|c| c.map(str::to_string)).collect()).collect()
}

#[test]
fn client_found_rows_reports_matched_rows() {
    let server = Selkied::start();
    runtime().block_on(async {
        let mut setup = server.root().await;
        setup.execute_text("CREATE DATABASE fr").await.unwrap();
        setup.execute_text("CREATE TABLE fr.t (id INT PRIMARY KEY, a INT)").await.unwrap();
        setup.execute_text("INSERT INTO fr.t VALUES (1,1),(2,2)").await.unwrap();
        for (found_rows, expected) in [(false, [1, 0, 2, 0]), (true, [2, 1, 2, 0])] {
            let mut opts = ClientOptions::new("root", "");
            if found_rows {
                opts.capabilities |= CLIENT_FOUND_ROWS;
            }
            let mut c = server.connect(&opts).await.unwrap();
            c.execute_text("UPDATE fr.t SET a = 2 WHERE id = 1").await.unwrap();
            c.execute_text("UPDATE fr.t SET a = 1 WHERE id = 1").await.unwrap();
            let update = c.execute_text("UPDATE fr.t SET a = 1 WHERE id IN (1,2)").await.unwrap();
            assert_eq!(update.affected_rows, expected[0], "found_rows={found_rows}");
            assert_eq!(update.info, b"Rows matched: 2  Changed: 1  Warnings: 0");
            let count = c.query_rows("SELECT ROW_COUNT()").await.unwrap();
            assert_eq!(count, rows(&[&[Some(&expected[0].to_string())]]));
            let same = c.execute_text("INSERT INTO fr.t VALUES (1,5) ON DUPLICATE KEY UPDATE a = 1").await.unwrap();
            assert_eq!(same.affected_rows, expected[1], "found_rows={found_rows}");
            let changed = c.execute_text("INSERT INTO fr.t VALUES (2,5) ON DUPLICATE KEY UPDATE a = 3").await.unwrap();
            assert_eq!(changed.affected_rows, expected[2]);
            c.execute_text("UPDATE fr.t SET a = 2 WHERE id = 2").await.unwrap();
            let none = c.execute_text("UPDATE fr.t SET a = a WHERE id = 7").await.unwrap();
            assert_eq!(none.affected_rows, expected[3]);
        }
    });
}

/// INSERT ... RETURNING as Django sends it, prepared: the column definitions come with the
/// PREPARE response and the rows in the binary protocol (MariaDB: id LONG, name VAR_STRING).
#[test]
fn returning_through_the_binary_protocol() {
    let server = Selkied::start();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE app").await.unwrap();
        c.execute_text("CREATE TABLE app.item (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL)")
            .await
            .unwrap();
        let p = c.prepare("INSERT INTO app.item (name) VALUES (?) RETURNING id, name").await.unwrap();
        assert_eq!(p.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "name"]);
        assert_eq!(p.columns[0].field_type, FieldType::Long);
        let text = ParamType { column_type: FieldType::VarString, unsigned: false };
        for (name, id) in [("a", 1), ("b", 2)] {
            let results = c.execute(p.statement_id, &[(text, BinaryValue::Bytes(name.into()))]).await.unwrap();
            let [Response::Rows(rs)] = &results[..] else { panic!("{results:?}") };
            assert_eq!(rs.columns[1].field_type, FieldType::VarString);
            assert_eq!(rs.rows, vec![vec![BinaryValue::Int(id), BinaryValue::Bytes(name.into())]]);
        }
        let results = c.query("DELETE FROM app.item WHERE id = 1 RETURNING name").await.unwrap();
        let [Response::Rows(rs)] = &results[..] else { panic!("{results:?}") };
        assert_eq!(rs.rows, vec![vec![Some(b"a".to_vec())]]);
    });
}
