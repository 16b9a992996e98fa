//! Assignment to columns: expected values, codes and messages checked against MariaDB 10.11 by
//! INSERT into a table `test`.`s` under sql_mode='STRICT_TRANS_TABLES' and sql_mode=''.

use selkie_storage::{ColumnDefault, IntWidth, LobSize};

use super::*;

fn col(name: &str, ty: ColumnType) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable: true,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

fn int(width: IntWidth, unsigned: bool) -> ColumnType {
    ColumnType::Int { width, unsigned, display_width: None }
}

const TARGET: StoreTarget<'static> = StoreTarget { db: "test", table: "s", row: 1 };

/// One assignment: column type, value, then the non-strict result text and warning, and the
/// strict-mode error (None = accepted silently in both modes).
struct StoreCase {
    name: &'static str,
    ty: ColumnType,
    value: &'static str,
    lenient: Option<&'static str>,
    warning: Option<(u16, &'static str)>,
    strict_error: Option<(u16, &'static str)>,
}

fn cases() -> Vec<StoreCase> {
    use ColumnType as T;
    let c =
        |name, ty, value, lenient, warning, strict_error| StoreCase { name, ty, value, lenient, warning, strict_error };
    let oor = |n: &'static str| -> (u16, &'static str) {
        (1264, Box::leak(format!("Out of range value for column '{n}' at row 1").into_boxed_str()))
    };
    let trunc = |n: &'static str| -> (u16, &'static str) {
        (1265, Box::leak(format!("Data truncated for column '{n}' at row 1").into_boxed_str()))
    };
    let too_long = |n: &'static str| -> (u16, &'static str) {
        (1406, Box::leak(format!("Data too long for column '{n}' at row 1").into_boxed_str()))
    };
    vec![
        c("ti", int(IntWidth::Tiny, false), "300", Some("127"), Some(oor("ti")), Some(oor("ti"))),
        c("ti", int(IntWidth::Tiny, false), "-300", Some("-128"), Some(oor("ti")), Some(oor("ti"))),
        c("tiu", int(IntWidth::Tiny, true), "-1", Some("0"), Some(oor("tiu")), Some(oor("tiu"))),
        c(
            "ti",
            int(IntWidth::Tiny, false),
            "'abc'",
            Some("0"),
            Some((1366, "Incorrect integer value: 'abc' for column `test`.`s`.`ti` at row 1")),
            Some((1366, "Incorrect integer value: 'abc' for column `test`.`s`.`ti` at row 1")),
        ),
        c("ti", int(IntWidth::Tiny, false), "'12abc'", Some("12"), Some(trunc("ti")), Some(trunc("ti"))),
        c(
            "ti",
            int(IntWidth::Tiny, false),
            "''",
            Some("0"),
            Some((1366, "Incorrect integer value: '' for column `test`.`s`.`ti` at row 1")),
            Some((1366, "Incorrect integer value: '' for column `test`.`s`.`ti` at row 1")),
        ),
        c("ti", int(IntWidth::Tiny, false), "'1.5'", Some("2"), None, None),
        c("ti", int(IntWidth::Tiny, false), "1.5", Some("2"), None, None),
        c("ti", int(IntWidth::Tiny, false), "2.5e0", Some("2"), None, None),
        c("ti", int(IntWidth::Tiny, false), "'2.5'", Some("3"), None, None),
        c("ti", int(IntWidth::Tiny, false), "' 5 '", Some("5"), None, None),
        c("i", int(IntWidth::Int, false), "'1e3'", Some("1000"), None, None),
        c("i", int(IntWidth::Int, false), "9999999999", Some("2147483647"), Some(oor("i")), Some(oor("i"))),
        c("i", int(IntWidth::Int, false), "-9999999999.5", Some("-2147483648"), Some(oor("i")), Some(oor("i"))),
        c("i", int(IntWidth::Int, false), "DATE'2024-01-02'", Some("20240102"), None, None),
        c("i", int(IntWidth::Int, false), "'0x10'", Some("0"), Some(trunc("i")), Some(trunc("i"))),
        c("bi", int(IntWidth::Big, false), "1e30", Some("9223372036854775807"), Some(oor("bi")), Some(oor("bi"))),
        c(
            "bi",
            int(IntWidth::Big, false),
            "'99999999999999999999'",
            Some("9223372036854775807"),
            Some(oor("bi")),
            Some(oor("bi")),
        ),
        c("bi", int(IntWidth::Big, false), "-9223372036854775808.4", Some("-9223372036854775808"), None, None),
        c("biu", int(IntWidth::Big, true), "-1", Some("0"), Some(oor("biu")), Some(oor("biu"))),
        c("biu", int(IntWidth::Big, true), "'-1'", Some("0"), Some(oor("biu")), Some(oor("biu"))),
        c("biu", int(IntWidth::Big, true), "18446744073709551615.4", Some("18446744073709551615"), None, None),
        c(
            "biu",
            int(IntWidth::Big, true),
            "1.8446744073709552e19",
            Some("18446744073709551615"),
            Some(oor("biu")),
            Some(oor("biu")),
        ),
        c("d", T::Decimal { precision: 5, scale: 2, unsigned: false }, "123.456", Some("123.46"), None, None),
        c(
            "d",
            T::Decimal { precision: 5, scale: 2, unsigned: false },
            "1234.5",
            Some("999.99"),
            Some(oor("d")),
            Some(oor("d")),
        ),
        c(
            "d",
            T::Decimal { precision: 5, scale: 2, unsigned: false },
            "'abc'",
            Some("0.00"),
            Some((1366, "Incorrect decimal value: 'abc' for column `test`.`s`.`d` at row 1")),
            Some((1366, "Incorrect decimal value: 'abc' for column `test`.`s`.`d` at row 1")),
        ),
        c("d", T::Decimal { precision: 5, scale: 2, unsigned: false }, "'1.005'", Some("1.01"), None, None),
        c("d", T::Decimal { precision: 5, scale: 2, unsigned: false }, "1.005e0", Some("1.01"), None, None),
        c(
            "d",
            T::Decimal { precision: 5, scale: 2, unsigned: false },
            "'12.3abc'",
            Some("12.30"),
            Some(trunc("d")),
            Some(trunc("d")),
        ),
        c(
            "d",
            T::Decimal { precision: 5, scale: 2, unsigned: false },
            "0.3333333333333333e0",
            Some("0.33"),
            None,
            None,
        ),
        c("f", T::FLOAT, "1e40", Some("3.40282e38"), Some(oor("f")), Some(oor("f"))),
        c("f", T::FLOAT, "'1e400'", Some("3.40282e38"), Some(oor("f")), Some(oor("f"))),
        c("f", T::FLOAT, "0.1", Some("0.1"), None, None),
        c("db", T::DOUBLE, "'1e400'", Some("1.7976931348623157e308"), Some(oor("db")), Some(oor("db"))),
        c(
            "db",
            T::DOUBLE,
            "'x'",
            Some("0"),
            Some((1366, "Incorrect double value: 'x' for column `test`.`s`.`db` at row 1")),
            Some((1366, "Incorrect double value: 'x' for column `test`.`s`.`db` at row 1")),
        ),
        c("c", T::Char { len: 3 }, "'abcd'", Some("abc"), Some(trunc("c")), Some(too_long("c"))),
        c("c", T::Char { len: 3 }, "'ab  '", Some("ab"), None, None),
        c("c", T::Char { len: 3 }, "'abc   '", Some("abc"), None, None),
        c("c", T::Char { len: 3 }, "'é'", Some("é"), None, None),
        c("c", T::Char { len: 3 }, "123", Some("123"), None, None),
        c("vc", T::VarChar { len: 3 }, "'abcd'", Some("abc"), Some(trunc("vc")), Some(too_long("vc"))),
        c("vc", T::VarChar { len: 3 }, "'abc  '", Some("abc"), None, None),
        c("vc", T::VarChar { len: 3 }, "'ab   '", Some("ab "), None, None),
        c("vc", T::VarChar { len: 3 }, "1.50", Some("1.5"), Some(trunc("vc")), Some(too_long("vc"))),
        c(
            "tx",
            T::Text { size: LobSize::Tiny },
            "REPEAT('a', 300)",
            Some(&*"a".repeat(255).leak()),
            Some(trunc("tx")),
            Some(too_long("tx")),
        ),
        // The 255-byte limit splits a character: 1366 from that character on, not 1406.
        c(
            "tx",
            T::Text { size: LobSize::Tiny },
            "REPEAT('é', 128)",
            Some(&*"é".repeat(127).leak()),
            Some((1366, "Incorrect string value: '\\xC3\\xA9' for column `test`.`s`.`tx` at row 1")),
            Some((1366, "Incorrect string value: '\\xC3\\xA9' for column `test`.`s`.`tx` at row 1")),
        ),
        c(
            "tx",
            T::Text { size: LobSize::Tiny },
            "REPEAT('é', 200)",
            Some(&*"é".repeat(127).leak()),
            Some((
                1366,
                "Incorrect string value: '\\xC3\\xA9\\xC3\\xA9\\xC3\\xA9...' for column `test`.`s`.`tx` at row 1",
            )),
            Some((
                1366,
                "Incorrect string value: '\\xC3\\xA9\\xC3\\xA9\\xC3\\xA9...' for column `test`.`s`.`tx` at row 1",
            )),
        ),
        c(
            "tx",
            T::Text { size: LobSize::Tiny },
            "REPEAT('€', 86)",
            Some(&*"€".repeat(85).leak()),
            Some(trunc("tx")),
            Some(too_long("tx")),
        ),
        c("b", T::Binary { len: 3 }, "'abcd'", Some("abc"), Some(trunc("b")), Some(too_long("b"))),
        c("b", T::Binary { len: 3 }, "'a'", Some("a\0\0"), None, None),
        c("b", T::Binary { len: 3 }, "'abc  '", Some("abc"), Some(trunc("b")), Some(too_long("b"))),
        c("vb", T::VarBinary { len: 3 }, "'abcd'", Some("abc"), Some(trunc("vb")), Some(too_long("vb"))),
        c(
            "dt",
            T::Date,
            "'2024-02-30'",
            Some("0000-00-00"),
            Some(trunc("dt")),
            Some((1292, "Incorrect date value: '2024-02-30' for column `test`.`s`.`dt` at row 1")),
        ),
        c(
            "dt",
            T::Date,
            "'abc'",
            Some("0000-00-00"),
            Some(trunc("dt")),
            Some((1292, "Incorrect date value: 'abc' for column `test`.`s`.`dt` at row 1")),
        ),
        c(
            "dt",
            T::Date,
            "''",
            Some("0000-00-00"),
            Some(trunc("dt")),
            Some((1292, "Incorrect date value: '' for column `test`.`s`.`dt` at row 1")),
        ),
        c("dt", T::Date, "'2024-01-02 03:04:05'", Some("2024-01-02"), None, None),
        c("dt", T::Date, "20240102", Some("2024-01-02"), None, None),
        c("dt", T::Date, "'2024-00-00'", Some("2024-00-00"), None, None),
        c("dt", T::Date, "'24-01-02'", Some("2024-01-02"), None, None),
        c("dt", T::Date, "700101", Some("1970-01-01"), None, None),
        c(
            "dt",
            T::Date,
            "99",
            Some("0000-00-00"),
            Some(trunc("dt")),
            Some((1292, "Incorrect date value: '99' for column `test`.`s`.`dt` at row 1")),
        ),
        c("dtm", T::DateTime { fsp: 0 }, "'2024-01-02 03:04:05.678'", Some("2024-01-02 03:04:05"), None, None),
        c("dtm2", T::DateTime { fsp: 2 }, "'2024-01-02 03:04:05.678'", Some("2024-01-02 03:04:05.67"), None, None),
        c(
            "dtm",
            T::DateTime { fsp: 0 },
            "'2024-13-01'",
            Some("0000-00-00 00:00:00"),
            Some(trunc("dtm")),
            Some((1292, "Incorrect datetime value: '2024-13-01' for column `test`.`s`.`dtm` at row 1")),
        ),
        c(
            "dtm",
            T::DateTime { fsp: 0 },
            "'2024-01-02 03:04:05x'",
            Some("2024-01-02 03:04:05"),
            Some(trunc("dtm")),
            Some((1292, "Incorrect datetime value: '2024-01-02 03:04:05x' for column `test`.`s`.`dtm` at row 1")),
        ),
        c("dtm", T::DateTime { fsp: 0 }, "20240102030405.5", Some("2024-01-02 03:04:05"), None, None),
        c(
            "dtm",
            T::DateTime { fsp: 0 },
            "1.5",
            Some("0000-00-00 00:00:00"),
            Some(trunc("dtm")),
            Some((1292, "Incorrect datetime value: '1.5' for column `test`.`s`.`dtm` at row 1")),
        ),
        c("ts", T::Timestamp { fsp: 0 }, "'2024-01-02'", Some("2024-01-02 00:00:00"), None, None),
        c("ts", T::Timestamp { fsp: 0 }, "'0000-00-00 00:00:00'", Some("0000-00-00 00:00:00"), None, None),
        c(
            "ts",
            T::Timestamp { fsp: 0 },
            "'1960-01-01'",
            Some("0000-00-00 00:00:00"),
            Some(oor("ts")),
            Some((1292, "Incorrect datetime value: '1960-01-01' for column `test`.`s`.`ts` at row 1")),
        ),
        c(
            "ts",
            T::Timestamp { fsp: 0 },
            "'2040-01-01'",
            Some("0000-00-00 00:00:00"),
            Some(oor("ts")),
            Some((1292, "Incorrect datetime value: '2040-01-01' for column `test`.`s`.`ts` at row 1")),
        ),
        c("ti", int(IntWidth::Tiny, false), "NULL", None, None, None),
    ]
}

#[test]
fn store_matches_mariadb_in_both_modes() {
    let mut failures = Vec::new();
    for case in cases() {
        let column = col(case.name, case.ty.clone());
        let ty = SqlType::from_column(&case.ty);
        // Non-strict: clamped value plus warning.
        let lenient = TestCtx::default();
        match store_for_column_at(literal(case.value), &column, Some(&TARGET), &lenient) {
            Ok(v) => {
                let got = shown(&v, Some(&ty));
                if got.as_deref() != case.lenient {
                    failures.push(format!(
                        "{} <- {}: non-strict value {:?}, want {:?}",
                        case.name, case.value, got, case.lenient
                    ));
                }
                let warnings = lenient.take_warnings();
                let want: Vec<(u16, String)> = case.warning.iter().map(|(c, m)| (*c, m.to_string())).collect();
                if warnings != want {
                    failures.push(format!("{} <- {}: warnings {:?}, want {:?}", case.name, case.value, warnings, want));
                }
            }
            Err(e) => failures.push(format!("{} <- {}: non-strict error {e}", case.name, case.value)),
        }
        // Strict: the error, or the same value without warnings.
        let strict = TestCtx::strict();
        let result = store_for_column_at(literal(case.value), &column, Some(&TARGET), &strict);
        match (&result, case.strict_error) {
            (Err(e), Some((code, msg))) if e.code == code && e.message == msg => {}
            (Ok(v), None) if shown(v, Some(&ty)).as_deref() == case.lenient => {}
            _ => failures
                .push(format!("{} <- {}: strict {:?}, want {:?}", case.name, case.value, result, case.strict_error)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_utf8_is_rejected_or_replaced() {
    let column = col("vc", ColumnType::VarChar { len: 10 });
    let strict = TestCtx::strict();
    let e = store_for_column_at(Value::Bytes(vec![0xFF, 0xFE, b'A']), &column, Some(&TARGET), &strict).unwrap_err();
    assert_eq!(e.code, 1366);
    assert_eq!(e.message, "Incorrect string value: '\\xFF\\xFEA' for column `test`.`s`.`vc` at row 1");
    let lenient = TestCtx::default();
    let v = store_for_column_at(Value::Bytes(vec![b'a', 0xC3]), &column, Some(&TARGET), &lenient).unwrap();
    assert_eq!(v, Value::Bytes(b"a?".to_vec()));
    assert_eq!(lenient.take_warnings()[0].1, "Incorrect string value: '\\xC3' for column `test`.`s`.`vc` at row 1");
}

#[test]
fn messages_without_table_name_and_with_row_number() {
    let column = col("c", int(IntWidth::Int, false));
    let ctx = TestCtx::strict();
    let e = store_for_column(Value::Bytes(b"x".to_vec()), &column, &ctx).unwrap_err();
    assert_eq!(e.message, "Incorrect integer value: 'x' for column `c` at row 1");
    let target = StoreTarget { db: "d", table: "t", row: 7 };
    let e = store_for_column_at(Value::Int(1 << 40), &column, Some(&target), &ctx).unwrap_err();
    assert_eq!(e.message, "Out of range value for column 'c' at row 7");
}

#[test]
fn implicit_defaults() {
    assert_eq!(implicit_default(&int(IntWidth::Int, false)), Value::Int(0));
    assert_eq!(implicit_default(&int(IntWidth::Big, true)), Value::UInt(0));
    assert_eq!(
        implicit_default(&ColumnType::Decimal { precision: 5, scale: 2, unsigned: false }),
        Value::Decimal(Decimal::new(0, 2))
    );
    assert_eq!(implicit_default(&ColumnType::DOUBLE), Value::Double(0.0));
    assert_eq!(implicit_default(&ColumnType::VarChar { len: 5 }), Value::Bytes(Vec::new()));
    assert_eq!(implicit_default(&ColumnType::Binary { len: 2 }), Value::Bytes(vec![0, 0]));
    assert_eq!(implicit_default(&ColumnType::Date), Value::Date(Date(0)));
    assert_eq!(implicit_default(&ColumnType::Timestamp { fsp: 0 }), Value::DateTime(DateTime(0)));
}
