//! LOAD DATA LOCAL INFILE over the wire: the server asks for the file (a 0xFB packet), the
//! client streams it, and the result follows, as with MariaDB.

use crate::common;

use common::{runtime, Selkied};
use mysql_async::prelude::*;

#[test]
fn load_data_local_infile_with_mysql_async() {
    let server = Selkied::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.csv");
    let mut text = String::from("id,name\n");
    for i in 1..=2500 {
        text.push_str(&format!("{i},\"n{i}\"\n"));
    }
    text.push_str("1,dup\n");
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap().to_string();
    runtime().block_on(async {
        let opts = mysql_async::OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(server.port)
            .user(Some("root"))
            .local_infile_handler(Some(mysql_async::WhiteListFsHandler::new(std::slice::from_ref(&p))));
        let mut conn = mysql_async::Conn::new(opts).await.unwrap();
        conn.query_drop("CREATE DATABASE ld").await.unwrap();
        conn.query_drop("USE ld").await.unwrap();
        conn.query_drop("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10))").await.unwrap();
        conn.query_drop(format!(
            "LOAD DATA LOCAL INFILE '{p}' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"' IGNORE 1 LINES"
        ))
        .await
        .unwrap();
        // LOCAL implies IGNORE: the duplicate is a warning, not an error.
        assert_eq!((conn.affected_rows(), conn.get_warnings()), (2500, 1));
        assert_eq!(conn.info().to_string(), "Records: 2501  Deleted: 0  Skipped: 1  Warnings: 1");
        let sum: Option<(i64, String)> = conn.query_first("SELECT SUM(id), MAX(name) FROM t").await.unwrap();
        assert_eq!(sum, Some((3_126_250, "n999".to_string())));
        // The connection goes on normally.
        let one: Option<i64> = conn.query_first("SELECT 1").await.unwrap();
        assert_eq!(one, Some(1));
    });
}
