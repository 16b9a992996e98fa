//! Aggregates over the MariaDB 10.11 test table
//! `g(i INT, d DECIMAL(5,2), f DOUBLE, s VARCHAR(10), dt DATETIME)` with rows
//! (1, 1.10, 1.5, 'a', '2024-01-01 00:00:00'), (2, 2.25, 2.5, 'bb', '2024-01-02 00:00:01'),
//! (4, NULL, NULL, NULL, NULL). Expected texts are MariaDB's output.

use super::*;

fn column(idx: usize) -> (SqlType, Vec<Value>) {
    let dt = |s: &str| Value::DateTime(parse_datetime(s.as_bytes()).unwrap());
    let rows: [[Value; 5]; 3] = [
        [Value::Int(1), literal("1.10"), Value::Double(1.5), literal("'a'"), dt("2024-01-01 00:00:00")],
        [Value::Int(2), literal("2.25"), Value::Double(2.5), literal("'bb'"), dt("2024-01-02 00:00:01")],
        [Value::Int(4), Value::Null, Value::Null, Value::Null, Value::Null],
    ];
    let types = [
        SqlType::Int { bits: 32, unsigned: false },
        SqlType::Decimal { precision: 5, scale: 2 },
        SqlType::Double,
        SqlType::text(10, false),
        SqlType::DateTime { fsp: 0 },
    ];
    (types[idx].clone(), rows.iter().map(|r| r[idx].clone()).collect())
}

fn aggregate(func: AggFunc, idx: usize) -> (Option<String>, Vec<u16>) {
    let (ty, values) = column(idx);
    let ctx = TestCtx::default();
    let mut st = AggState::new(func, &ty);
    for v in &values {
        st.update(v, &ctx).unwrap();
    }
    let result_type = aggregate_type(func, &ty);
    (shown(&st.finish(), Some(&result_type)), ctx.take_warnings().into_iter().map(|w| w.0).collect())
}

#[test]
fn aggregates_match_mariadb() {
    let (i, d, f, s, dt) = (0, 1, 2, 3, 4);
    let cases: &[(AggFunc, usize, Option<&str>)] = &[
        (AggFunc::StdDev, i, Some("1.2472")),
        (AggFunc::Variance, i, Some("1.5556")),
        (AggFunc::Avg, i, Some("2.3333")),
        (AggFunc::Avg, d, Some("1.675000")),
        (AggFunc::Avg, f, Some("2")),
        (AggFunc::Sum, i, Some("7")),
        (AggFunc::Sum, d, Some("3.35")),
        (AggFunc::Sum, f, Some("4")),
        (AggFunc::StdDev, f, Some("0.5")),
        (AggFunc::Variance, d, Some("0.330625")),
        (AggFunc::Sum, s, Some("0")),
        (AggFunc::Avg, s, Some("0")),
        (AggFunc::StdDev, s, Some("0")),
        (AggFunc::Min, s, Some("a")),
        (AggFunc::Max, s, Some("bb")),
        (AggFunc::Min, i, Some("1")),
        (AggFunc::Max, d, Some("2.25")),
        (AggFunc::Max, dt, Some("2024-01-02 00:00:01")),
        (AggFunc::Sum, dt, Some("40480203000001")),
        (AggFunc::Avg, dt, Some("20240101500000.5000")),
        (AggFunc::BitAnd, i, Some("0")),
        (AggFunc::BitOr, i, Some("7")),
        (AggFunc::BitXor, i, Some("7")),
        (AggFunc::GroupConcat, i, Some("1,2,4")),
        (AggFunc::GroupConcat, d, Some("1.10,2.25")),
        (AggFunc::GroupConcat, f, Some("1.5,2.5")),
        (AggFunc::GroupConcat, dt, Some("2024-01-01 00:00:00,2024-01-02 00:00:01")),
        (AggFunc::Count, s, Some("2")),
        (AggFunc::CountStar, s, Some("3")),
    ];
    let mut failures = Vec::new();
    for (func, idx, want) in cases {
        let (got, _) = aggregate(*func, *idx);
        if got.as_deref() != *want {
            failures.push(format!("{func:?} of column {idx}: got {got:?}, MariaDB {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn empty_groups() {
    // SELECT ... FROM g WHERE 0 on MariaDB 10.11.
    let ty = SqlType::Int { bits: 32, unsigned: false };
    let finish = |f| AggState::new(f, &ty).finish();
    assert_eq!(finish(AggFunc::Sum), Value::Null);
    assert_eq!(finish(AggFunc::Avg), Value::Null);
    assert_eq!(finish(AggFunc::Count), Value::Int(0));
    assert_eq!(finish(AggFunc::CountStar), Value::Int(0));
    assert_eq!(finish(AggFunc::BitAnd), Value::UInt(u64::MAX));
    assert_eq!(finish(AggFunc::BitOr), Value::UInt(0));
    assert_eq!(finish(AggFunc::Min), Value::Null);
    assert_eq!(finish(AggFunc::GroupConcat), Value::Null);
    assert_eq!(finish(AggFunc::StdDev), Value::Null);
}

#[test]
fn sum_of_bigints_is_exact() {
    // MariaDB: SELECT SUM(9223372036854775807) over 3 rows = 27670116110564327421.
    let ty = SqlType::Int { bits: 64, unsigned: false };
    let ctx = TestCtx::default();
    let mut st = AggState::new(AggFunc::Sum, &ty);
    for _ in 0..3 {
        st.update(&Value::Int(i64::MAX), &ctx).unwrap();
    }
    assert_eq!(shown(&st.finish(), None).unwrap(), "27670116110564327421");
    let mut st = AggState::new(AggFunc::Sum, &SqlType::Int { bits: 64, unsigned: true });
    st.update(&Value::UInt(u64::MAX), &ctx).unwrap();
    st.update(&Value::UInt(u64::MAX), &ctx).unwrap();
    assert_eq!(shown(&st.finish(), None).unwrap(), "36893488147419103230");
}

#[test]
fn group_concat_cut_and_separator() {
    // MariaDB with group_concat_max_len=4: '1,2,' and '1--2', each with warning 1260 for row 3.
    let ctx = TestCtx::default();
    for (sep, want) in [(&b","[..], "1,2,"), (&b"--"[..], "1--2")] {
        let mut st = AggState::new_group_concat(sep.to_vec(), 4);
        for v in [1, 2, 4] {
            st.update(&Value::Int(v), &ctx).unwrap();
        }
        assert_eq!(st.finish(), Value::Bytes(want.as_bytes().to_vec()));
        assert_eq!(ctx.take_warnings(), vec![(1260, "Row 3 was cut by GROUP_CONCAT()".to_string())]);
    }
    // Cut at a character boundary: 'é' is two bytes.
    let mut st = AggState::new_group_concat(b",".to_vec(), 3);
    st.update(&Value::Bytes("aé".into()), &ctx).unwrap();
    st.update(&Value::Bytes("x".into()), &ctx).unwrap();
    assert_eq!(st.finish(), Value::Bytes("aé".into()));
}

#[test]
fn welford_matches_two_pass_variance() {
    let xs: Vec<f64> = (0..1000).map(|k| 1e9 + (k as f64 * 0.37).sin() * 10.0).collect();
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let two_pass = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
    let ctx = TestCtx::default();
    let mut st = AggState::new(AggFunc::Variance, &SqlType::Double);
    for x in &xs {
        st.update(&Value::Double(*x), &ctx).unwrap();
    }
    let Value::Double(v) = st.finish() else { panic!("variance type") };
    assert!((v - two_pass).abs() <= two_pass * 1e-9, "{v} vs {two_pass}");
}
