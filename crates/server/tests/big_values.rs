//! Values larger than 4 MiB through SQL and the wire, up to max_allowed_packet (1 GiB here):
//! 20 MiB and 100 MiB LONGBLOBs as text literals, as prepared-statement parameters and through
//! COM_STMT_SEND_LONG_DATA, read back byte-exact in text and binary rows (rows over 16 MiB
//! travel as several wire packets both ways); LONGTEXT with multi-byte characters; UPDATE and
//! ROLLBACK of such a value; a row of two 10 MiB columns; and MariaDB's limits: packets over
//! max_allowed_packet (1153, connection closed), long data over it (1105 until COM_STMT_RESET),
//! string functions over it (NULL and 1301), SET GLOBAL max_allowed_packet for new connections.
//!
//! The tests that move hundreds of MiB take `BIG` so that only one of them holds that memory at
//! a time (CI runs tests in parallel on small machines).

use crate::common;

use std::sync::Mutex;

use common::{runtime, server_error, Selkied, TcpClient};
use selkie_protocol::client::{ClientOptions, Response};
use selkie_protocol::command::ParamType;
use selkie_protocol::constants::FieldType;
use selkie_protocol::value::BinaryValue;
use selkie_protocol::ProtocolError;

static BIG: Mutex<()> = Mutex::new(());

const MIB: usize = 1 << 20;

fn big_server() -> Selkied {
    Selkied::builder().max_allowed_packet("1G").start()
}

/// `len` bytes of every value 0..=255 in a pattern that does not repeat with a short period
/// (a misplaced chunk or packet boundary shows up as a mismatch).
fn binary_pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Printable ASCII (quotes and backslashes included, escaped by `quoted`).
fn text_pattern(len: usize, seed: u64) -> Vec<u8> {
    binary_pattern(len, seed).into_iter().map(|b| b' ' + b % 95).collect()
}

fn hex_literal(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = Vec::with_capacity(bytes.len() * 2 + 3);
    s.extend_from_slice(b"X'");
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize]);
        s.push(DIGITS[(b & 15) as usize]);
    }
    s.push(b'\'');
    String::from_utf8(s).unwrap()
}

/// A single-quoted SQL string literal of UTF-8 text.
fn quoted(text: &[u8]) -> String {
    let mut s = Vec::with_capacity(text.len() + text.len() / 32 + 2);
    s.push(b'\'');
    for &b in text {
        if b == b'\'' || b == b'\\' {
            s.push(b'\\');
        }
        s.push(b);
    }
    s.push(b'\'');
    String::from_utf8(s).unwrap()
}

/// The single value of a one-row, one-column text result.
async fn text_value(c: &mut TcpClient, sql: &str) -> Option<Vec<u8>> {
    let mut results = c.query(sql).await.unwrap();
    let Some(Response::Rows(mut rs)) = results.pop() else { panic!("{sql}: no rows") };
    assert_eq!(rs.rows.len(), 1, "{sql}");
    rs.rows.pop().unwrap().pop().unwrap()
}

/// The single row of a prepared statement's binary result.
async fn binary_row(c: &mut TcpClient, id: u32, params: &[(ParamType, BinaryValue)]) -> Vec<BinaryValue> {
    let mut results = c.execute(id, params).await.unwrap();
    let Some(Response::Rows(mut rs)) = results.pop() else { panic!("no rows") };
    assert_eq!(rs.rows.len(), 1);
    rs.rows.pop().unwrap()
}

fn assert_same(got: &[u8], want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(at) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!("{what}: first difference at byte {at}");
    }
}

const INT: ParamType = ParamType { column_type: FieldType::Long, unsigned: false };
const BLOB: ParamType = ParamType { column_type: FieldType::Blob, unsigned: false };

async fn root_in(server: &Selkied, db: &str) -> TcpClient {
    let mut c = server.root().await;
    c.init_db(db).await.unwrap();
    c
}

#[test]
fn longblobs_of_20_and_100_mib_as_literals_parameters_and_long_data() {
    let _big = BIG.lock().unwrap_or_else(|e| e.into_inner());
    let server = big_server();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE big").await.unwrap();
        c.init_db("big").await.unwrap();
        c.execute_text("CREATE TABLE t (id INT PRIMARY KEY, b LONGBLOB)").await.unwrap();
        let select = c.prepare("SELECT b FROM t WHERE id = ?").await.unwrap();

        // Text literals: a 20 MiB hex literal of any bytes, a 100 MiB quoted string.
        let v20 = binary_pattern(20 * MIB, 1);
        c.execute_text(&format!("INSERT INTO t VALUES (1, {})", hex_literal(&v20))).await.unwrap();
        let v100 = text_pattern(100 * MIB, 2);
        c.execute_text(&format!("INSERT INTO t VALUES (2, {})", quoted(&v100))).await.unwrap();
        assert_same(&text_value(&mut c, "SELECT b FROM t WHERE id = 1").await.unwrap(), &v20, "hex literal");
        assert_same(&text_value(&mut c, "SELECT b FROM t WHERE id = 2").await.unwrap(), &v100, "quoted literal");

        // Parameters (the COM_STMT_EXECUTE packet itself spans several wire packets).
        let insert = c.prepare("INSERT INTO t VALUES (?, ?)").await.unwrap();
        for (id, v) in [(3, &v20), (4, &v100)] {
            let params = [(INT, BinaryValue::Int(id)), (BLOB, BinaryValue::Bytes(v.clone()))];
            c.execute(insert.statement_id, &params).await.unwrap();
            let row = binary_row(&mut c, select.statement_id, &[(INT, BinaryValue::Int(id))]).await;
            let [BinaryValue::Bytes(got)] = &row[..] else { panic!("{row:?}") };
            assert_same(got, v, "parameter");
        }
        drop(v100);

        // COM_STMT_SEND_LONG_DATA: 100 MiB in 8 MiB chunks (the last one shorter).
        let v_long = binary_pattern(100 * MIB + 12345, 3);
        for chunk in v_long.chunks(8 * MIB) {
            c.send_long_data(insert.statement_id, 1, chunk).await.unwrap();
        }
        c.execute_with_long_data(insert.statement_id, &[(INT, BinaryValue::Int(5)), (BLOB, BinaryValue::Null)], &[1])
            .await
            .unwrap();
        let row = binary_row(&mut c, select.statement_id, &[(INT, BinaryValue::Int(5))]).await;
        let [BinaryValue::Bytes(got)] = &row[..] else { panic!() };
        assert_same(got, &v_long, "long data");
        drop(v_long);

        let lengths = c.query_rows("SELECT id, LENGTH(b) FROM t ORDER BY id").await.unwrap();
        let want: Vec<Vec<Option<String>>> =
            [(1, 20 * MIB), (2, 100 * MIB), (3, 20 * MIB), (4, 100 * MIB), (5, 100 * MIB + 12345)]
                .iter()
                .map(|(id, n)| vec![Some(id.to_string()), Some(n.to_string())])
                .collect();
        assert_eq!(lengths, want);

        // String functions follow max_allowed_packet (1 GiB here), not MariaDB's default 16 MiB.
        c.execute_text("INSERT INTO t VALUES (6, REPEAT('ab', 10485760))").await.unwrap();
        assert_eq!(
            c.query_rows("SELECT LENGTH(b), MD5(b) = MD5(REPEAT('ab', 10485760)) FROM t WHERE id = 6").await.unwrap(),
            [[Some("20971520".to_string()), Some("1".to_string())]]
        );
        assert_eq!(
            c.query_rows("SELECT LENGTH(CONCAT(b, b, b)) FROM t WHERE id = 4").await.unwrap(),
            [[Some((300 * MIB).to_string())]]
        );
    });
}

#[test]
fn longtext_update_rollback_and_a_row_of_two_10_mib_columns() {
    let _big = BIG.lock().unwrap_or_else(|e| e.into_inner());
    let server = big_server();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE big").await.unwrap();
        c.init_db("big").await.unwrap();

        // LONGTEXT of 1-, 2-, 3- and 4-byte characters (utf8mb4), 24 MiB.
        c.execute_text("CREATE TABLE docs (id INT PRIMARY KEY, body LONGTEXT) DEFAULT CHARSET=utf8mb4").await.unwrap();
        let unit = "aé€😀".repeat(1024); // 10 bytes, 4 characters, a 10 KiB unit
        let text = unit.repeat(24 * MIB / unit.len());
        c.execute_text(&format!("INSERT INTO docs VALUES (1, {})", quoted(text.as_bytes()))).await.unwrap();
        let chars = text.chars().count();
        assert_eq!(
            c.query_rows("SELECT CHAR_LENGTH(body), LENGTH(body) FROM docs").await.unwrap(),
            [[Some(chars.to_string()), Some(text.len().to_string())]]
        );
        assert_same(&text_value(&mut c, "SELECT body FROM docs").await.unwrap(), text.as_bytes(), "longtext");
        assert_eq!(
            c.query_rows("SELECT SUBSTRING(body, 4000001, 4) FROM docs").await.unwrap(),
            [[Some("aé€😀".to_string())]]
        );

        // UPDATE to twice the size inside a transaction, then ROLLBACK: the old value is back.
        c.execute_text("BEGIN").await.unwrap();
        let ok = c.execute_text("UPDATE docs SET body = CONCAT(body, body) WHERE id = 1").await.unwrap();
        assert_eq!(ok.affected_rows, 1);
        assert_eq!(
            c.query_rows("SELECT LENGTH(body) FROM docs").await.unwrap(),
            [[Some((2 * text.len()).to_string())]]
        );
        let mut other = root_in(&server, "big").await;
        assert_eq!(
            other.query_rows("SELECT LENGTH(body) FROM docs").await.unwrap(),
            [[Some(text.len().to_string())]],
            "another session reads the committed value"
        );
        c.execute_text("ROLLBACK").await.unwrap();
        assert_same(&text_value(&mut c, "SELECT body FROM docs").await.unwrap(), text.as_bytes(), "after rollback");
        // ... and committed.
        c.execute_text("UPDATE docs SET body = CONCAT(body, 'end') WHERE id = 1").await.unwrap();
        let got = text_value(&mut other, "SELECT body FROM docs").await.unwrap();
        assert_same(&got[..text.len()], text.as_bytes(), "committed update");
        assert_eq!(&got[text.len()..], b"end");
        drop(got);

        // One row of two 10 MiB columns: a 20 MiB row, several wire packets in both directions.
        c.execute_text("CREATE TABLE pair (id INT PRIMARY KEY, a LONGBLOB, b LONGBLOB)").await.unwrap();
        let a = binary_pattern(10 * MIB, 4);
        let b = binary_pattern(10 * MIB, 5);
        let insert = c.prepare("INSERT INTO pair VALUES (?, ?, ?)").await.unwrap();
        let params =
            [(INT, BinaryValue::Int(1)), (BLOB, BinaryValue::Bytes(a.clone())), (BLOB, BinaryValue::Bytes(b.clone()))];
        c.execute(insert.statement_id, &params).await.unwrap();
        let mut results = c.query("SELECT a, b FROM pair").await.unwrap();
        let Some(Response::Rows(rs)) = results.pop() else { panic!() };
        assert_same(rs.rows[0][0].as_deref().unwrap(), &a, "column a");
        assert_same(rs.rows[0][1].as_deref().unwrap(), &b, "column b");
        let select = c.prepare("SELECT b, id, a FROM pair WHERE id = ?").await.unwrap();
        let row = binary_row(&mut c, select.statement_id, &[(INT, BinaryValue::Int(1))]).await;
        assert_eq!(row[1], BinaryValue::Int(1));
        let (BinaryValue::Bytes(got_b), BinaryValue::Bytes(got_a)) = (&row[0], &row[2]) else { panic!() };
        assert_same(got_a, &a, "binary a");
        assert_same(got_b, &b, "binary b");
        c.ping().await.unwrap();
    });
}

#[test]
fn packets_and_long_data_over_max_allowed_packet() {
    let server = Selkied::builder().max_allowed_packet("1M").start();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE lim").await.unwrap();
        c.init_db("lim").await.unwrap();
        c.execute_text("CREATE TABLE t (id INT PRIMARY KEY, b LONGBLOB)").await.unwrap();

        // A query of exactly max_allowed_packet bytes is accepted; one byte more is refused
        // with 1153 (08S01) and the connection is closed, as MariaDB does.
        let head = "SELECT LENGTH('";
        let fits = format!("{head}{}')", "x".repeat(MIB - 1 - head.len() - 2));
        assert_eq!(fits.len() + 1, MIB, "COM_QUERY byte + text");
        assert_eq!(c.query_rows(&fits).await.unwrap(), [[Some((MIB - 1 - head.len() - 2).to_string())]]);
        let over = format!("{head}{}')", "x".repeat(MIB - head.len() - 2));
        match c.query(&over).await {
            Err(ProtocolError::Server(e)) => {
                assert_eq!((e.code, e.state.as_str()), (1153, "08S01"));
                assert_eq!(e.message, "Got a packet bigger than 'max_allowed_packet' bytes");
            }
            other => panic!("{other:?}"),
        }
        assert!(c.ping().await.is_err(), "the connection is closed after 1153");

        // Long data beyond max_allowed_packet: 1105 at execute, and at every execute after it
        // until COM_STMT_RESET (MariaDB keeps the statement in its error state).
        let mut c = root_in(&server, "lim").await;
        let insert = c.prepare("INSERT INTO t VALUES (?, ?)").await.unwrap();
        let chunk = vec![b'x'; 400_000];
        for _ in 0..3 {
            c.send_long_data(insert.statement_id, 1, &chunk).await.unwrap();
        }
        let small = |id| [(INT, BinaryValue::Int(id)), (BLOB, BinaryValue::Bytes(b"y".to_vec()))];
        for id in [1, 2] {
            let (code, message) = server_error(
                c.execute_with_long_data(
                    insert.statement_id,
                    &[(INT, BinaryValue::Int(id)), (BLOB, BinaryValue::Null)],
                    &[1],
                )
                .await,
            );
            assert_eq!(code, 1105);
            assert_eq!(
                message,
                "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes"
            );
        }
        assert_eq!(server_error(c.execute(insert.statement_id, &small(3)).await).0, 1105);
        c.reset_statement(insert.statement_id).await.unwrap();
        c.execute(insert.statement_id, &small(4)).await.unwrap();
        // Exactly max_allowed_packet in four chunks is accepted.
        for _ in 0..4 {
            c.send_long_data(insert.statement_id, 1, &vec![b'q'; MIB / 4]).await.unwrap();
        }
        c.execute_with_long_data(insert.statement_id, &[(INT, BinaryValue::Int(5)), (BLOB, BinaryValue::Null)], &[1])
            .await
            .unwrap();
        assert_eq!(
            c.query_rows("SELECT id, LENGTH(b) FROM t ORDER BY id").await.unwrap(),
            [[Some("4".to_string()), Some("1".to_string())], [Some("5".to_string()), Some(MIB.to_string())]]
        );
        // A result row larger than max_allowed_packet is still sent (the limit is on what the
        // server accepts and on single function results), as MariaDB does.
        let rs = c.query("SELECT b, b FROM t WHERE id = 5").await.unwrap();
        let [Response::Rows(rs)] = &rs[..] else { panic!() };
        assert_eq!(rs.rows[0].iter().map(|v| v.as_ref().map(Vec::len)).collect::<Vec<_>>(), [Some(MIB), Some(MIB)]);

        // String functions: NULL and 1301 beyond the session's max_allowed_packet.
        let rs = c.query("SELECT REPEAT('ab', 524289), LENGTH(REPEAT('ab', 524288)), CONCAT(b, b) FROM t WHERE id = 5")
            .await
            .unwrap();
        let [Response::Rows(rs)] = &rs[..] else { panic!() };
        assert_eq!(rs.rows, [vec![None, Some(MIB.to_string().into_bytes()), None]]);
        assert_eq!(
            c.query_rows("SHOW WARNINGS").await.unwrap(),
            [
                [Some("Warning"), Some("1301"), Some("Result of repeat() was larger than max_allowed_packet (1048576) - truncated")],
                [Some("Warning"), Some("1301"), Some("Result of concat() was larger than max_allowed_packet (1048576) - truncated")],
            ]
            .map(|r| r.map(|v| v.map(str::to_string)).to_vec())
        );
        // In strict mode an INSERT or UPDATE turns the warning into an error.
        let (code, message) = server_error(c.execute_text("UPDATE t SET b = CONCAT(b, b) WHERE id = 5").await);
        assert_eq!((code, message.as_str()), (1301, "Result of concat() was larger than max_allowed_packet (1048576) - truncated"));
    });
}

#[test]
fn set_global_max_allowed_packet_applies_to_new_connections() {
    let server = Selkied::start();
    runtime().block_on(async {
        let mut old = server.root().await;
        let mut c = server.root().await;
        let (code, _) = server_error(c.execute_text("SET SESSION max_allowed_packet = 1048576").await);
        assert_eq!(code, 1621);
        c.execute_text("SET GLOBAL max_allowed_packet = 1000000").await.unwrap();
        assert_eq!(
            c.query_rows("SHOW WARNINGS").await.unwrap(),
            [[
                Some("Warning".to_string()),
                Some("1292".to_string()),
                Some("Truncated incorrect max_allowed_packet value: '1000000'".to_string())
            ]]
        );
        assert_eq!(
            c.query_rows("SELECT @@global.max_allowed_packet, @@session.max_allowed_packet").await.unwrap(),
            [[Some("999424".to_string()), Some("16777216".to_string())]]
        );
        let mut new = server.connect(&ClientOptions::new("root", "")).await.unwrap();
        assert_eq!(new.query_rows("SELECT @@max_allowed_packet").await.unwrap(), [[Some("999424".to_string())]]);
        assert_eq!(
            new.query_rows("SHOW VARIABLES LIKE 'max_allowed_packet'").await.unwrap(),
            [[Some("max_allowed_packet".to_string()), Some("999424".to_string())]]
        );
        // The new connection's packets and function results are limited by the new value...
        let q = format!("SELECT LENGTH('{}')", "x".repeat(999_424));
        assert_eq!(server_error(new.query(&q).await).0, 1153);
        // ... the old one keeps the value it connected with.
        assert_eq!(old.query_rows(&q).await.unwrap(), [[Some("999424".to_string())]]);
        assert_eq!(
            old.query_rows("SELECT LENGTH(REPEAT('a', 16777216)), REPEAT('a', 16777217)").await.unwrap(),
            [[Some("16777216".to_string()), None]]
        );
        c.execute_text("SET GLOBAL max_allowed_packet = 2000000000").await.unwrap();
        assert_eq!(
            c.query_rows("SELECT @@global.max_allowed_packet").await.unwrap(),
            [[Some("1073741824".to_string())]]
        );
    });
}
