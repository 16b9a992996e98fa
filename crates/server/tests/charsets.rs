//! Character set introducers end to end: statement text carrying raw bytes (mysqlclient's
//! `binary_prefix` sends BLOB values as `_binary'<bytes>'`), stored and read back unchanged,
//! and the metadata MariaDB gives introduced literals.

use crate::common;

use common::{runtime, Selkied};
use selkie_protocol::client::Response;
use selkie_protocol::constants::FieldType;

#[test]
fn binary_introducer_keeps_raw_bytes_into_a_blob() {
    let server = Selkied::start();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE cs").await.unwrap();
        c.execute_text("CREATE TABLE cs.b (id INT PRIMARY KEY, v BLOB)").await.unwrap();
        // COM_QUERY with bytes that are not UTF-8 right after `_binary`, glued and spaced.
        c.send_raw(
            b"\x03INSERT INTO cs.b VALUES (1, _binary'\x80\xff\\0a'), (2, _binary '\xfe\xc3'), (3, _binary'ab')",
        )
        .await
        .unwrap();
        c.read_ok().await.unwrap();
        let rows = c.query_rows("SELECT id, HEX(v), LENGTH(v) FROM cs.b ORDER BY id").await.unwrap();
        let expect = [["1", "80FF0061", "4"], ["2", "FEC3", "2"], ["3", "6162", "2"]];
        let got: Vec<Vec<String>> = rows.into_iter().map(|r| r.into_iter().map(|v| v.unwrap()).collect()).collect();
        assert_eq!(got, expect.map(|r| r.map(str::to_string)));

        // A _binary literal is a binary string: VARBINARY, charset 63.
        let mut results = c.query("SELECT _binary'ab', CHARSET(_binary'ab'), 'x', X'41'").await.unwrap();
        let Some(Response::Rows(rs)) = results.pop() else { panic!("rows") };
        let meta: Vec<(FieldType, u16)> = rs.columns.iter().map(|c| (c.field_type, c.charset)).collect();
        assert_eq!(meta[0], (FieldType::VarString, 63));
        assert_eq!(meta[2], (FieldType::VarString, 45));
        assert_eq!(meta[3], (FieldType::VarString, 63));
        let row: Vec<Option<Vec<u8>>> = rs.rows[0].clone().into_iter().map(|c| c.map(|b| b.to_vec())).collect();
        assert_eq!(row[0].as_deref(), Some(&b"ab"[..]));
        assert_eq!(row[1].as_deref(), Some(&b"binary"[..]));
    });
}
