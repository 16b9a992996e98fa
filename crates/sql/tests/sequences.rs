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

#[tokio::test]
async fn alter_sequence_as_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let row = "SELECT next_not_cached_value, minimum_value, maximum_value, start_value, increment, cache_size, \
               cycle_option, cycle_count FROM order_seq";
    exec(&mut s, "CREATE SEQUENCE order_seq").await;
    assert_eq!(query(&mut s, "SELECT NEXTVAL(order_seq), NEXTVAL(order_seq)").await, rows(&[&["1", "2"]]));
    // SETVAL within the reserved block moves the cache only: the row keeps its bound.
    assert_eq!(query(&mut s, "SELECT SETVAL(order_seq, 100), NEXTVAL(order_seq)").await, rows(&[&["100", "101"]]));
    assert_eq!(query(&mut s, "SELECT SETVAL(order_seq, 50), NEXTVAL(order_seq)").await, rows(&[&["NULL", "102"]]));
    assert_eq!(query(&mut s, row).await, rows(&[&["1001", "1", "9223372036854775806", "1", "1", "1000", "0", "0"]]));
    // RESTART WITH: the next value, stored at once.
    exec(&mut s, "ALTER SEQUENCE order_seq RESTART WITH 7").await;
    assert_eq!(query(&mut s, "SELECT next_not_cached_value FROM order_seq").await, rows(&[&["7"]]));
    assert_eq!(query(&mut s, "SELECT NEXTVAL(order_seq)").await, rows(&[&["7"]]));
    // Other options: the cache is dropped, the sequence goes on from its reserved bound.
    exec(&mut s, "ALTER SEQUENCE order_seq INCREMENT BY 5").await;
    assert_eq!(query(&mut s, "SELECT NEXTVAL(order_seq), NEXTVAL(order_seq)").await, rows(&[&["1007", "1012"]]));
    assert_eq!(query(&mut s, row).await, rows(&[&["6007", "1", "9223372036854775806", "1", "5", "1000", "0", "0"]]));
    exec(&mut s, "ALTER SEQUENCE order_seq maxvalue = 100 minvalue=2 start = 5 restart cycle").await;
    assert_eq!(query(&mut s, row).await, rows(&[&["5", "2", "100", "5", "5", "1000", "1", "0"]]));
    exec(&mut s, "ALTER SEQUENCE order_seq RESTART 100").await;
    assert_eq!(query(&mut s, "SELECT NEXTVAL(order_seq), NEXTVAL(order_seq)").await, rows(&[&["100", "2"]]));
    // A reserved block ends at MAXVALUE + 1.
    assert_eq!(query(&mut s, row).await, rows(&[&["101", "2", "100", "5", "5", "1000", "1", "1"]]));
    // NO MINVALUE / NO MAXVALUE are 1 and the largest value, whatever the direction; ALTER
    // starts round 0 again.
    exec(&mut s, "ALTER SEQUENCE order_seq NO MINVALUE NOMAXVALUE INCREMENT BY -1 NOCACHE NOCYCLE").await;
    assert_eq!(query(&mut s, row).await, rows(&[&["101", "1", "9223372036854775806", "5", "-1", "0", "0", "0"]]));
    assert_eq!(query(&mut s, "SELECT NEXTVAL(order_seq), NEXTVAL(order_seq)").await, rows(&[&["101", "100"]]));

    // Errors, as MariaDB's.
    let e = fail(&mut s, "ALTER SEQUENCE order_seq MINVALUE 10").await;
    assert_eq!((e.code, e.message.as_str()), (4085, "Sequence 'test.order_seq' has out of range value for options"));
    exec(&mut s, "CREATE SEQUENCE up").await;
    assert_eq!(fail(&mut s, "ALTER SEQUENCE up RESTART WITH 0").await.code, 4085);
    let e = fail(&mut s, "ALTER SEQUENCE order_seq INCREMENT BY 2 INCREMENT BY 3").await;
    assert_eq!((e.code, e.message.as_str()), (1225, "Option 'INCREMENT' used twice in statement"));
    assert_eq!(
        fail(&mut s, "ALTER SEQUENCE order_seq CACHE 5 NOCACHE").await.message,
        "Option 'CACHE' used twice in statement"
    );
    assert_eq!(fail(&mut s, "ALTER SEQUENCE order_seq").await.code, 1064);
    assert_eq!(fail(&mut s, "ALTER SEQUENCE order_seq NO CYCLE").await.code, 1064);
    assert_eq!(fail(&mut s, "ALTER SEQUENCE order_seq ENGINE=InnoDB").await.code, 1064);
    let e = fail(&mut s, "ALTER SEQUENCE nope RESTART").await;
    assert_eq!((e.code, e.message.as_str()), (4091, "Unknown SEQUENCE: 'nope'"));
    exec(&mut s, "ALTER SEQUENCE IF EXISTS nope RESTART").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Note", "4091", "Unknown SEQUENCE: 'test.nope'"]]));
    exec(&mut s, "CREATE TABLE tt (a INT)").await;
    let e = fail(&mut s, "ALTER SEQUENCE tt RESTART").await;
    assert_eq!((e.code, e.message.as_str()), (4089, "'test.tt' is not a SEQUENCE"));
    assert_eq!(fail(&mut s, "CREATE SEQUENCE c3 minvalue 3 no minvalue").await.code, 1225);
    assert_eq!(fail(&mut s, "CREATE SEQUENCE c4 restart with 3").await.code, 1064);

    // NO MAXVALUE on a descending sequence is the largest value too; INCREMENT 0 steps by 1
    // (auto_increment_increment's default).
    exec(&mut s, "CREATE SEQUENCE c2 increment by -1 no maxvalue").await;
    assert_eq!(
        query(&mut s, "SELECT * FROM c2").await,
        rows(&[&[
            "9223372036854775806",
            "-9223372036854775807",
            "9223372036854775806",
            "9223372036854775806",
            "-1",
            "1000",
            "0",
            "0"
        ]])
    );
    exec(&mut s, "CREATE SEQUENCE c7 increment 0").await;
    assert_eq!(query(&mut s, "SELECT nextval(c7), nextval(c7), increment FROM c7").await, rows(&[&["1", "2", "0"]]));

    // The definition is the table's: another session sees it.
    let mut s = db.session_in_test_db().await;
    assert!(query(&mut s, "SHOW CREATE SEQUENCE order_seq").await[0][1].contains("increment by -1 nocache nocycle"));
}

#[tokio::test]
async fn sequence_value_columns_are_named_as_written() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE SEQUENCE sq").await;
    assert_eq!(
        column_names(&mut s, "SELECT nextval(sq), next value for sq, lastval(sq), PREVIOUS VALUE FOR `sq`").await,
        vec!["nextval(sq)", "next value for sq", "lastval(sq)", "PREVIOUS VALUE FOR `sq`"]
    );
}
