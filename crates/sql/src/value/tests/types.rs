//! Result types and wire metadata, checked against `mariadb --column-type-info` on MariaDB 10.11
//! (utf8mb4 client, table default charset utf8mb4).

use selkie_storage::{IntWidth, LobSize};

use super::*;
use crate::types::{charset, charset::UTF8MB4_GENERAL_CI as UTF8, column_flags as flags, FieldType};

fn meta(ft: FieldType, length: u32, decimals: u8, charset: u16, fl: u16) -> FieldMeta {
    FieldMeta { field_type: ft, length, decimals, charset, flags: fl }
}

#[test]
fn column_metadata_matches_mariadb() {
    use ColumnType as T;
    let int = |width, unsigned| T::Int { width, unsigned, display_width: None };
    let num = flags::NUM;
    let cases: Vec<(T, FieldMeta)> = vec![
        (int(IntWidth::Int, false), meta(FieldType::Long, 11, 0, charset::BINARY, num)),
        (int(IntWidth::Int, true), meta(FieldType::Long, 10, 0, charset::BINARY, num | flags::UNSIGNED)),
        (int(IntWidth::Tiny, false), meta(FieldType::Tiny, 4, 0, charset::BINARY, num)),
        (int(IntWidth::Tiny, true), meta(FieldType::Tiny, 3, 0, charset::BINARY, num | flags::UNSIGNED)),
        (int(IntWidth::Small, false), meta(FieldType::Short, 6, 0, charset::BINARY, num)),
        (int(IntWidth::Medium, false), meta(FieldType::Int24, 9, 0, charset::BINARY, num)),
        (int(IntWidth::Big, false), meta(FieldType::LongLong, 20, 0, charset::BINARY, num)),
        (int(IntWidth::Big, true), meta(FieldType::LongLong, 20, 0, charset::BINARY, num | flags::UNSIGNED)),
        (
            T::Int { width: IntWidth::Int, unsigned: false, display_width: Some(5) },
            meta(FieldType::Long, 5, 0, charset::BINARY, num),
        ),
        (
            T::Int { width: IntWidth::Tiny, unsigned: false, display_width: Some(1) },
            meta(FieldType::Tiny, 1, 0, charset::BINARY, num),
        ),
        (
            T::Decimal { precision: 10, scale: 2, unsigned: false },
            meta(FieldType::NewDecimal, 12, 2, charset::BINARY, num),
        ),
        (
            T::Decimal { precision: 5, scale: 0, unsigned: false },
            meta(FieldType::NewDecimal, 6, 0, charset::BINARY, num),
        ),
        (T::FLOAT, meta(FieldType::Float, 12, 31, charset::BINARY, num)),
        (T::DOUBLE, meta(FieldType::Double, 22, 31, charset::BINARY, num)),
        (T::Char { len: 10 }, meta(FieldType::String, 40, 0, UTF8, 0)),
        (T::VarChar { len: 20 }, meta(FieldType::VarString, 80, 0, UTF8, 0)),
        (T::Text { size: LobSize::Normal }, meta(FieldType::Blob, 262_140, 0, UTF8, flags::BLOB)),
        (T::Text { size: LobSize::Tiny }, meta(FieldType::Blob, 1020, 0, UTF8, flags::BLOB)),
        (T::Text { size: LobSize::Medium }, meta(FieldType::Blob, 67_108_860, 0, UTF8, flags::BLOB)),
        (T::Text { size: LobSize::Long }, meta(FieldType::Blob, 4_294_967_295, 0, UTF8, flags::BLOB)),
        (T::Binary { len: 4 }, meta(FieldType::String, 4, 0, charset::BINARY, flags::BINARY)),
        (T::VarBinary { len: 8 }, meta(FieldType::VarString, 8, 0, charset::BINARY, flags::BINARY)),
        (
            T::Blob { size: LobSize::Normal },
            meta(FieldType::Blob, 65_535, 0, charset::BINARY, flags::BLOB | flags::BINARY),
        ),
        (T::Date, meta(FieldType::Date, 10, 0, charset::BINARY, flags::BINARY)),
        (T::DateTime { fsp: 0 }, meta(FieldType::DateTime, 19, 0, charset::BINARY, flags::BINARY)),
        (T::DateTime { fsp: 3 }, meta(FieldType::DateTime, 23, 3, charset::BINARY, flags::BINARY)),
        (T::Timestamp { fsp: 0 }, meta(FieldType::Timestamp, 19, 0, charset::BINARY, flags::UNSIGNED | flags::BINARY)),
        (T::Timestamp { fsp: 6 }, meta(FieldType::Timestamp, 26, 6, charset::BINARY, flags::UNSIGNED | flags::BINARY)),
    ];
    for (ty, want) in cases {
        assert_eq!(column_field_meta(&ty), want, "{ty:?}");
        // SqlType metadata agrees except for CHAR/BINARY (VAR_STRING), display widths and the
        // BINARY flag of computed numbers.
        let generic = SqlType::from_column(&ty).field_meta();
        let generic_flags =
            if generic.flags & flags::NUM != 0 { generic.flags & !flags::BINARY } else { generic.flags };
        assert_eq!(
            (generic.decimals, generic.charset, generic_flags),
            (want.decimals, want.charset, want.flags),
            "{ty:?}"
        );
    }
}

#[test]
fn computed_metadata_matches_mariadb() {
    // (expression type, MariaDB metadata of e.g. `i+1.5` with i INT, d DECIMAL(5,2)). MariaDB
    // also flags computed numbers BINARY (not needed by clients: their charset is binary), and
    // sizes computed integers and doubles from operand display widths, which a SqlType does not
    // carry: `None` lengths are not compared.
    let int32 = SqlType::Int { bits: 32, unsigned: false };
    let d52 = SqlType::Decimal { precision: 5, scale: 2 };
    let dec = |len, decimals| (FieldType::NewDecimal, Some(len), decimals, flags::BINARY | flags::NUM);
    type Want = (FieldType, Option<u32>, u8, u16);
    let cases: Vec<(SqlType, Want)> = vec![
        (arith_type(ArithOp::Add, &int32, &int32), (FieldType::LongLong, None, 0, flags::BINARY | flags::NUM)),
        (arith_type(ArithOp::Add, &int32, &SqlType::Decimal { precision: 2, scale: 1 }), dec(14, 1)),
        (arith_type(ArithOp::Div, &int32, &int32), dec(16, 4)),
        (arith_type(ArithOp::Mul, &int32, &d52), dec(17, 2)),
        (arith_type(ArithOp::IntDiv, &int32, &int32), (FieldType::LongLong, None, 0, flags::BINARY | flags::NUM)),
        (arith_type(ArithOp::Add, &int32, &SqlType::Double), (FieldType::Double, None, 31, flags::BINARY | flags::NUM)),
        (
            arith_type(ArithOp::Add, &int32, &SqlType::text(1, false)),
            (FieldType::Double, None, 31, flags::BINARY | flags::NUM),
        ),
        (aggregate_type(AggFunc::Sum, &int32), dec(33, 0)),
        (aggregate_type(AggFunc::Avg, &int32), dec(16, 4)),
        (aggregate_type(AggFunc::Sum, &d52), dec(29, 2)),
        (aggregate_type(AggFunc::Avg, &d52), dec(11, 6)),
        (aggregate_type(AggFunc::Sum, &SqlType::Double), (FieldType::Double, None, 31, flags::BINARY | flags::NUM)),
        (aggregate_type(AggFunc::Min, &int32), (FieldType::Long, Some(11), 0, flags::BINARY | flags::NUM)),
        (aggregate_type(AggFunc::Count, &int32), (FieldType::LongLong, None, 0, flags::BINARY | flags::NUM)),
        (
            aggregate_type(AggFunc::BitOr, &int32),
            (FieldType::LongLong, None, 0, flags::BINARY | flags::NUM | flags::UNSIGNED),
        ),
        (
            aggregate_type(AggFunc::GroupConcat, &SqlType::text(10, false)),
            (FieldType::Blob, Some(4_194_304), 0, flags::BLOB),
        ),
        (cast_type(CastTarget::Decimal { precision: 10, scale: 3 }), dec(12, 3)),
        (cast_type(CastTarget::Unsigned), (FieldType::LongLong, None, 0, flags::BINARY | flags::NUM | flags::UNSIGNED)),
        (cast_type(CastTarget::DateTime { fsp: 2 }), (FieldType::DateTime, Some(22), 2, flags::BINARY)),
        (SqlType::Null, (FieldType::Null, Some(0), 0, flags::BINARY | flags::NUM)),
    ];
    for (ty, (field_type, length, decimals, fl)) in cases {
        let m = ty.field_meta();
        assert_eq!((m.field_type, m.decimals, m.flags), (field_type, decimals, fl), "{ty:?}");
        if let Some(len) = length {
            assert_eq!(m.length, len, "{ty:?}");
        }
    }
}

#[test]
fn types_of_values() {
    assert_eq!(SqlType::of_value(&Value::Int(1)), SqlType::Int { bits: 32, unsigned: false });
    assert_eq!(SqlType::of_value(&Value::Int(123456789012)), SqlType::Int { bits: 64, unsigned: false });
    assert_eq!(SqlType::of_value(&Value::UInt(u64::MAX)), SqlType::Int { bits: 64, unsigned: true });
    assert_eq!(SqlType::of_value(&Value::Decimal(Decimal::new(15, 1))), SqlType::Decimal { precision: 2, scale: 1 });
    assert_eq!(SqlType::of_value(&Value::Decimal(Decimal::new(5, 3))), SqlType::Decimal { precision: 4, scale: 3 });
    assert_eq!(SqlType::of_value(&Value::Bytes("é".into())), SqlType::text(1, false));
    assert_eq!(SqlType::of_value(&Value::Null), SqlType::Null);
    let dt = DateTime::new(Date::new(2024, 1, 1), 0, 0, 0, 5);
    assert_eq!(SqlType::of_value(&Value::DateTime(dt)), SqlType::DateTime { fsp: 6 });
}

#[test]
fn unify_branches() {
    let i = |bits, unsigned| SqlType::Int { bits, unsigned };
    let text = |n| SqlType::text(n, false);
    assert_eq!(SqlType::unify(&SqlType::Null, &i(32, false)), i(32, false));
    assert_eq!(SqlType::unify(&i(8, false), &i(32, false)), i(32, false));
    assert_eq!(SqlType::unify(&i(32, true), &i(32, false)), i(64, false));
    assert_eq!(SqlType::unify(&i(64, true), &i(64, false)), SqlType::Decimal { precision: 20, scale: 0 });
    assert_eq!(
        SqlType::unify(&i(32, false), &SqlType::Decimal { precision: 3, scale: 1 }),
        SqlType::Decimal { precision: 11, scale: 1 }
    );
    assert_eq!(SqlType::unify(&SqlType::Float, &SqlType::Float), SqlType::Float);
    assert_eq!(SqlType::unify(&SqlType::Float, &i(32, false)), SqlType::Double);
    assert_eq!(SqlType::unify(&text(3), &i(32, false)), text(11));
    assert_eq!(SqlType::unify(&SqlType::Date, &SqlType::DateTime { fsp: 3 }), SqlType::DateTime { fsp: 3 });
    assert_eq!(SqlType::unify(&SqlType::Date, &text(5)), text(10));
    assert_eq!(
        SqlType::unify(&SqlType::Bytes { max_len: 4, lob: false }, &text(2)),
        SqlType::Bytes { max_len: 16, lob: false }
    );
    assert!(SqlType::unify(&text(2), &SqlType::text(70000, true)).is_lob());
}

#[test]
fn constant_arguments_fix_result_types() {
    let round = lookup_function("ROUND").unwrap();
    let d = SqlType::Decimal { precision: 4, scale: 3 };
    let two = Value::Int(2);
    let ty = return_type_with_constants(
        round,
        &[d.clone(), SqlType::Int { bits: 32, unsigned: false }],
        &[None, Some(&two)],
    );
    assert_eq!(ty, SqlType::Decimal { precision: 4, scale: 2 });
    let now = lookup_function("NOW").unwrap();
    let three = Value::Int(3);
    assert_eq!(
        return_type_with_constants(now, &[SqlType::Int { bits: 32, unsigned: false }], &[Some(&three)]),
        SqlType::DateTime { fsp: 3 }
    );
    let std = lookup_function("STR_TO_DATE").unwrap();
    let fmt = Value::Bytes(b"%Y-%m-%d".to_vec());
    let text = SqlType::text(10, false);
    assert_eq!(return_type_with_constants(std, &[text.clone(), text.clone()], &[None, Some(&fmt)]), SqlType::Date);
    let fmt = Value::Bytes(b"%Y-%m-%d %H:%i".to_vec());
    assert_eq!(
        return_type_with_constants(std, &[text.clone(), text], &[None, Some(&fmt)]),
        SqlType::DateTime { fsp: 0 }
    );
}
