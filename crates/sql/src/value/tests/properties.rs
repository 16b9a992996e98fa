//! Property tests: comparison is an order, grouping keys agree with comparison, LIKE agrees with
//! a naive matcher, DECIMAL arithmetic agrees with i128 arithmetic, printed doubles round-trip.
//! Case counts grow with SELKIE_STRESS=1.

use std::cmp::Ordering;

use proptest::prelude::*;
use selkie_storage::Decimal;

use super::*;

fn cases() -> u32 {
    if std::env::var("SELKIE_STRESS").is_ok_and(|v| v == "1") {
        20_000
    } else {
        400
    }
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() }
}

/// Values of one kind (kind 0..7), so that "same-typed" properties apply.
fn value_of_kind(kind: u8) -> BoxedStrategy<Value> {
    match kind {
        0 => prop_oneof![any::<i64>(), -3i64..3].prop_map(Value::Int).boxed(),
        1 => prop_oneof![any::<u64>(), 0u64..3].prop_map(Value::UInt).boxed(),
        2 => {
            prop_oneof![any::<f64>().prop_filter("finite", |x| x.is_finite()), (-3i32..3).prop_map(|x| x as f64 / 2.0)]
                .prop_map(Value::Double)
                .boxed()
        }
        3 => (-10i128.pow(20)..10i128.pow(20), 0u8..8, 0u8..3)
            .prop_map(|(m, s, pad)| {
                // Trailing zeros (pad) give equal values with different scales: 1.1 vs 1.10.
                let d = Decimal::new(m % 1000, s).rescale(s + pad).unwrap_or(Decimal::new(m, s));
                Value::Decimal(d)
            })
            .boxed(),
        4 => proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(0xC3), Just(0xA9)], 0..5)
            .prop_map(Value::Bytes)
            .boxed(),
        5 => (0u32..3000, 0u32..13, 0u32..29).prop_map(|(y, m, d)| Value::Date(Date::new(y, m, d))).boxed(),
        _ => (2000u32..2002, 1u32..3, 1u32..3, 0u32..2, 0u32..1_000_000)
            .prop_map(|(y, m, d, h, us)| Value::DateTime(DateTime::new(Date::new(y, m, d), h, 0, 0, us % 3)))
            .boxed(),
    }
}

fn same_kind_triple() -> impl Strategy<Value = (Value, Value, Value)> {
    (0u8..7).prop_flat_map(|k| (value_of_kind(k), value_of_kind(k), value_of_kind(k)))
}

/// Integers and decimals compare exactly with each other, so mixing them keeps an order.
fn exact_number() -> BoxedStrategy<Value> {
    prop_oneof![value_of_kind(0), value_of_kind(1), value_of_kind(3)].boxed()
}

fn key(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    group_key(v, &mut out);
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn compare_is_an_order((a, b, c) in same_kind_triple()) {
        let ab = compare(&a, &b).unwrap();
        prop_assert_eq!(ab, compare(&b, &a).unwrap().reverse(), "antisymmetry {:?} {:?}", a, b);
        prop_assert_eq!(compare(&a, &a), Some(Ordering::Equal));
        let bc = compare(&b, &c).unwrap();
        if ab != Ordering::Greater && bc != Ordering::Greater {
            prop_assert_ne!(compare(&a, &c).unwrap(), Ordering::Greater, "transitivity {:?} {:?} {:?}", a, b, c);
        }
    }

    #[test]
    fn exact_numbers_compare_as_i128(a in exact_number(), b in exact_number(), c in exact_number()) {
        let ab = compare(&a, &b).unwrap();
        prop_assert_eq!(ab, compare(&b, &a).unwrap().reverse());
        if ab != Ordering::Greater && compare(&b, &c).unwrap() != Ordering::Greater {
            prop_assert_ne!(compare(&a, &c).unwrap(), Ordering::Greater);
        }
    }

    #[test]
    fn group_key_equality_is_compare_equality((a, b, _) in same_kind_triple()) {
        let equal = compare(&a, &b) == Some(Ordering::Equal);
        prop_assert_eq!(key(&a) == key(&b), equal, "{:?} vs {:?}", a, b);
    }

    #[test]
    fn group_keys_concatenate_unambiguously(a in value_of_kind(4), b in value_of_kind(4), c in value_of_kind(4), d in value_of_kind(4)) {
        let mut k1 = key(&a);
        k1.extend(key(&b));
        let mut k2 = key(&c);
        k2.extend(key(&d));
        prop_assert_eq!(k1 == k2, a == c && b == d);
    }

    #[test]
    fn sort_compare_puts_null_first(a in value_of_kind(0)) {
        prop_assert_eq!(sort_compare(&Value::Null, &a), Ordering::Less);
        prop_assert_eq!(sort_compare(&a, &Value::Null), Ordering::Greater);
        prop_assert_eq!(sort_compare(&Value::Null, &Value::Null), Ordering::Equal);
        prop_assert_eq!(compare(&Value::Null, &a), None);
    }

    #[test]
    fn like_agrees_with_naive_matcher(
        s in proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("é"), Just("%"), Just("_")], 0..8),
        p in proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("é"), Just("%"), Just("_"), Just("\\")], 0..7),
    ) {
        let s: String = s.concat();
        let p: String = p.concat();
        let fast = LikePattern::compile(p.as_bytes(), b'\\').matches(s.as_bytes());
        prop_assert_eq!(fast, naive_like(&s.chars().collect::<Vec<_>>(), &parse_naive(&p)), "{:?} LIKE {:?}", s, p);
    }

    #[test]
    fn decimal_arithmetic_agrees_with_i128(
        ma in -10i128.pow(17)..10i128.pow(17), sa in 0u8..10,
        mb in -10i128.pow(17)..10i128.pow(17), sb in 0u8..10,
    ) {
        let ctx = TestCtx::default();
        let (a, b) = (Decimal::new(ma, sa), Decimal::new(mb, sb));
        let s = sa.max(sb);
        let (xa, xb) = (ma * 10i128.pow((s - sa) as u32), mb * 10i128.pow((s - sb) as u32));
        let dec = |v: Value| match v { Value::Decimal(d) => d, other => panic!("not a decimal: {other:?}") };
        let sum = dec(arith(ArithOp::Add, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap());
        prop_assert_eq!(sum, Decimal::new(xa + xb, s));
        let diff = dec(arith(ArithOp::Sub, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap());
        prop_assert_eq!(diff, Decimal::new(xa - xb, s));
        let prod = dec(arith(ArithOp::Mul, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap());
        prop_assert_eq!(prod, Decimal::new(ma * mb, sa + sb));
        if mb != 0 {
            // a/b at scale sa+4, rounded half away from zero: q = round(ma * 10^(4+sb) / mb).
            let num = ma * 10i128.pow(4 + sb as u32);
            let (q, r) = (num / mb, num % mb);
            let q = if 2 * r.abs() >= mb.abs() { q + num.signum() * mb.signum() } else { q };
            // The quotient keeps whole 9-digit words (truncated), as MariaDB's decimal_div;
            // rounded to the type's scale it is the correctly rounded quotient.
            let quot = dec(arith(ArithOp::Div, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap());
            let words_scale = (sa as u32 + sb as u32 + 4).div_ceil(9) * 9;
            prop_assert_eq!(quot.scale as u32, words_scale);
            // When the words hold no digit beyond the type's scale the quotient is truncated.
            let q = if words_scale == sa as u32 + 4 { num / mb } else { q };
            prop_assert_eq!(quot.rescale(sa + 4).unwrap(), Decimal::new(q, sa + 4));
            let rem = dec(arith(ArithOp::Rem, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap());
            prop_assert_eq!(rem, Decimal::new(xa % xb, s));
            let idiv = arith(ArithOp::IntDiv, &Value::Decimal(a), &Value::Decimal(b), &ctx).unwrap();
            prop_assert_eq!(idiv, Value::Int((xa / xb) as i64));
        }
    }

    #[test]
    fn integer_arithmetic_agrees_with_i128(a in any::<i64>(), b in any::<i64>()) {
        let ctx = TestCtx::default();
        for (op, r) in [(ArithOp::Add, a as i128 + b as i128), (ArithOp::Sub, a as i128 - b as i128), (ArithOp::Mul, a as i128 * b as i128)] {
            match arith(op, &Value::Int(a), &Value::Int(b), &ctx) {
                Ok(v) => prop_assert_eq!(v, Value::Int(i64::try_from(r).unwrap())),
                Err(e) => {
                    prop_assert!(i64::try_from(r).is_err());
                    prop_assert_eq!(e.code, 1690);
                }
            }
        }
    }

    #[test]
    fn printed_doubles_round_trip(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let text = shown(&Value::Double(x), None).unwrap();
        let back: f64 = text.parse().unwrap();
        prop_assert_eq!(back, if x == 0.0 { 0.0 } else { x }, "{}", text);
        prop_assert_eq!(to_f64(&Value::Bytes(text.into_bytes())), Some(back));
    }

    #[test]
    fn decimals_round_trip_through_text(m in any::<i64>(), s in 0u8..20) {
        let d = Decimal::new(m as i128, s);
        let text = to_text_bytes(&Value::Decimal(d)).unwrap();
        let ctx = TestCtx::default();
        let back = cast(&Value::Bytes(text), CastTarget::Decimal { precision: 38, scale: s }, &ctx).unwrap();
        prop_assert_eq!(back, Value::Decimal(d));
        prop_assert!(ctx.take_warnings().is_empty());
    }

    #[test]
    fn dates_round_trip_through_text(y in 0u32..10000, m in 1u32..13, d in 1u32..29, h in 0u32..24, us in 0u32..1_000_000) {
        let dt = DateTime::new(Date::new(y, m, d), h, 59, 58, us);
        let text = shown(&Value::DateTime(dt), Some(&SqlType::DateTime { fsp: 6 })).unwrap();
        prop_assert_eq!(parse_datetime(text.as_bytes()), Some(dt));
    }

    #[test]
    fn bad_input_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        let ctx = TestCtx::default();
        let v = Value::Bytes(bytes.clone());
        let _ = parse_datetime(&bytes);
        let _ = to_i64(&v);
        let _ = to_f64(&v);
        let _ = truthy(&v);
        for t in [CastTarget::Signed, CastTarget::Unsigned, CastTarget::Decimal { precision: 10, scale: 2 }, CastTarget::Date, CastTarget::DateTime { fsp: 6 }] {
            let _ = cast(&v, t, &ctx);
        }
        let _ = arith(ArithOp::Div, &v, &Value::Int(3), &ctx);
        let _ = date_add(&v, &Value::Int(1), IntervalUnit::Month, false, &ctx);
        for name in ["STR_TO_DATE", "DATE_FORMAT", "CONV", "UNHEX", "FROM_BASE64", "SUBSTRING", "LPAD", "FORMAT"] {
            let f = lookup_function(name).unwrap();
            let args: Vec<Value> = (0..f.min_args).map(|_| v.clone()).collect();
            let _ = (f.eval)(&args, &ctx);
        }
    }
}

/// A pattern element for the naive matcher.
#[derive(Debug)]
enum Naive {
    Char(char),
    One,
    Any,
}

fn parse_naive(p: &str) -> Vec<Naive> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                out.push(Naive::Char(chars[i + 1]));
                i += 1;
            }
            '%' => out.push(Naive::Any),
            '_' => out.push(Naive::One),
            c => out.push(Naive::Char(c)),
        }
        i += 1;
    }
    out
}

/// Exponential reference matcher over characters.
fn naive_like(s: &[char], p: &[Naive]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(Naive::Any) => (0..=s.len()).any(|k| naive_like(&s[k..], &p[1..])),
        Some(Naive::One) => !s.is_empty() && naive_like(&s[1..], &p[1..]),
        Some(Naive::Char(c)) => s.first() == Some(c) && naive_like(&s[1..], &p[1..]),
    }
}
