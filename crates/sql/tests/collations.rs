//! Character sets and collations of expressions: introducers, COLLATE, CHARSET(),
//! COLLATION(), COERCIBILITY(), checked against MariaDB 10.11's answers.

mod common;
use common::*;

#[tokio::test]
async fn introducers_give_literals_their_character_set() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci").await;
    let rows = query(
        &mut s,
        "SELECT CHARSET(_binary'ab'), COLLATION(_latin1'x'), COERCIBILITY('x'), _utf8mb4 X'C3A9', _latin1'é', \
         COLLATION('a'), COERCIBILITY(X'41'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(USER()), \
         CHARSET(1), _binary'ab', HEX(_binary X'80FF'), COLLATION(_utf8'a'), _latin1 X'E9'",
    )
    .await;
    assert_eq!(
        rows[0],
        [
            "binary",
            "latin1_swedish_ci",
            "4",
            "é",
            "Ã©",
            "utf8mb4_general_ci",
            "4",
            "5",
            "6",
            "3",
            "binary",
            "ab",
            "80FF",
            "utf8mb3_general_ci",
            "é"
        ]
    );
    assert_eq!(fail(&mut s, "SELECT _utf8mb4 X'FF'").await.code, 1300);
    assert_eq!(fail(&mut s, "SELECT _foo'a'").await.code, 1054);
}

#[tokio::test]
async fn coercibility_follows_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE c (a VARCHAR(10), b VARBINARY(10), n INT)").await;
    exec(&mut s, "INSERT INTO c VALUES ('x', 'y', 1)").await;
    exec(&mut s, "SET @u = 's'").await;
    let rows = query(
        &mut s,
        "SELECT COERCIBILITY(CONCAT(1)), COERCIBILITY(CONCAT('a', a)), COERCIBILITY(CAST(1 AS CHAR)), \
         COERCIBILITY(@u), COERCIBILITY(@@version), COERCIBILITY(a), COERCIBILITY(b), COERCIBILITY(UPPER('a')), \
         COERCIBILITY(DATABASE()), COERCIBILITY(CONCAT(a, 'x' COLLATE utf8mb4_bin)), COERCIBILITY(n), \
         COERCIBILITY(NOW()), COERCIBILITY(CONCAT(n, 'a')), COERCIBILITY(CONCAT(NULL)), COLLATION('a' COLLATE utf8mb4_bin) \
         FROM c",
    )
    .await;
    assert_eq!(rows[0], ["4", "2", "2", "2", "3", "2", "2", "4", "3", "0", "5", "5", "4", "6", "utf8mb4_bin"]);
    let e = fail(&mut s, "SELECT 'a' COLLATE latin1_bin").await;
    assert_eq!((e.code, e.message.as_str()), (1253, "COLLATION 'latin1_bin' is not valid for CHARACTER SET 'utf8mb4'"));
    assert_eq!(fail(&mut s, "SELECT 'a' COLLATE foo").await.code, 1273);
}
