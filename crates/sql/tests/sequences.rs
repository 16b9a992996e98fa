//! Sequences: CREATE / DROP SEQUENCE, NEXTVAL and NEXT VALUE FOR, LASTVAL and PREVIOUS VALUE
//! FOR, SETVAL, the sequence's row, SHOW CREATE SEQUENCE / TABLE, listings; results as
//! MariaDB 10.11 gives them (checked on a private MariaDB).

use crate::common;
use common::*;

#[tokio::test]
async fn sequences_hand_out_values_as_mariadb_does() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE SEQUENCE sq").await;
    assert_eq!(
        query(&mut s, "SELECT * FROM sq").await,
        rows(&[&["1", "1", "9223372036854775806", "1", "1", "1000", "0", "0"]])
    );
    assert_eq!(
        query(&mut s, "SELECT nextval(sq), next value for sq, lastval(sq), previous value for sq").await,
        rows(&[&["1", "2", "2", "2"]])
    );
    assert_eq!(query(&mut s, "SELECT next_not_cached_value FROM sq").await, rows(&[&["1001"]]));
    assert_eq!(
        query(&mut s, "SHOW CREATE SEQUENCE sq").await,
        rows(&[&[
            "sq",
            "CREATE SEQUENCE `sq` start with 1 minvalue 1 maxvalue 9223372036854775806 increment by 1 cache 1000 nocycle ENGINE=InnoDB"
        ]])
    );
    assert!(query(&mut s, "SHOW CREATE TABLE sq").await[0][1].ends_with(") ENGINE=InnoDB SEQUENCE=1"));
    assert_eq!(query(&mut s, "SHOW FULL TABLES").await, rows(&[&["sq", "SEQUENCE"]]));

    // Descending, NOCACHE, options in any order, `=` forms.
    exec(&mut s, "CREATE SEQUENCE x3 increment by -1").await;
    assert_eq!(query(&mut s, "SELECT nextval(x3), nextval(x3)").await, rows(&[&["-1", "-2"]]));
    exec(&mut s, "CREATE SEQUENCE x5 nocache nocycle increment = 5 start = 3 minvalue = 1").await;
    assert_eq!(query(&mut s, "SELECT nextval(x5), nextval(x5)").await, rows(&[&["3", "8"]]));
    assert_eq!(query(&mut s, "SELECT next_not_cached_value, cache_size FROM x5").await, rows(&[&["13", "0"]]));
    // SETVAL: moves forward only; the next value follows it unless is_used = 0.
    assert_eq!(query(&mut s, "SELECT setval(x5, 100), nextval(x5)").await, rows(&[&["100", "105"]]));
    assert_eq!(query(&mut s, "SELECT setval(x5, 7, 0), nextval(x5)").await, rows(&[&["NULL", "110"]]));
    assert_eq!(query(&mut s, "SELECT setval(x5, 200, 0), nextval(x5)").await, rows(&[&["200", "200"]]));

    // Running out, and cycling.
    exec(&mut s, "CREATE SEQUENCE x4 maxvalue 3 cache 2").await;
    assert_eq!(query(&mut s, "SELECT nextval(x4), nextval(x4), nextval(x4)").await, rows(&[&["1", "2", "3"]]));
    let e = fail(&mut s, "SELECT nextval(x4)").await;
    assert_eq!((e.code, e.message.as_str()), (4084, "Sequence 'test.x4' has run out"));
    exec(&mut s, "CREATE SEQUENCE x6 cycle maxvalue 2 cache 1").await;
    assert_eq!(query(&mut s, "SELECT nextval(x6), nextval(x6), nextval(x6)").await, rows(&[&["1", "2", "1"]]));
    assert_eq!(query(&mut s, "SELECT next_not_cached_value, cycle_count FROM x6").await, rows(&[&["2", "1"]]));

    // Errors.
    assert_eq!(fail(&mut s, "CREATE SEQUENCE x1 minvalue 10 maxvalue 5").await.code, 4085);
    assert_eq!(fail(&mut s, "SELECT nextval(nope)").await.message, "Unknown SEQUENCE: 'nope'");
    exec(&mut s, "CREATE TABLE tt (a INT)").await;
    assert_eq!(fail(&mut s, "SELECT nextval(tt)").await.message, "'test.tt' is not a SEQUENCE");
    assert_eq!(fail(&mut s, "DROP SEQUENCE tt").await.code, 4090);
    assert_eq!(fail(&mut s, "DROP SEQUENCE nope").await.message, "Unknown SEQUENCE: 'test.nope'");
    exec(&mut s, "DROP SEQUENCE IF EXISTS nope").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Note", "4091", "Unknown SEQUENCE: 'test.nope'"]]));

    // LASTVAL is per session; the values are the server's.
    let mut other = db.session_in_test_db().await;
    assert_eq!(query(&mut other, "SELECT lastval(sq), nextval(sq)").await, rows(&[&["NULL", "3"]]));
    // In INSERT, and not taken back by a rollback.
    exec(&mut s, "CREATE TABLE ids (id BIGINT PRIMARY KEY, v INT)").await;
    exec(&mut s, "BEGIN").await;
    exec(&mut s, "INSERT INTO ids VALUES (NEXT VALUE FOR sq, 1), (nextval(sq), 2)").await;
    exec(&mut s, "ROLLBACK").await;
    exec(&mut s, "INSERT INTO ids VALUES (NEXT VALUE FOR sq, 3)").await;
    assert_eq!(query(&mut s, "SELECT id, v FROM ids").await, rows(&[&["6", "3"]]));
    exec(&mut s, "DROP SEQUENCE sq, x3").await;
    assert_eq!(fail(&mut s, "SELECT nextval(sq)").await.code, 4091);
}
