//! Key ranges from values: converting SQL values to an index column's stored type, and turning
//! the intervals of an access (IN lists × ranges) into sorted, non-overlapping `KeyRange`s.
//!
//! Conversions are conservative: when a value cannot be represented exactly in the column's
//! type (1.5 against an INT column), the range widens to the neighbouring representable values
//! and the access's residual filter (which always re-checks the original predicate) decides.
//! So a range is never narrower than the rows that match; overlapping intervals are merged so
//! no row is returned twice.

use std::cmp::Ordering;

use selkie_storage::{ColumnType, Datum, Decimal, KeyRange};

use crate::types::Value;
use crate::value;

/// `value` as seen by an index column of some type.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyConv {
    /// Exactly this stored value.
    Exact(Datum),
    /// Not representable; matching stored values lie within [lo, hi].
    Approx { lo: Datum, hi: Datum },
    /// Smaller than every value of the column type (e.g. -1 for an UNSIGNED column).
    BelowAll,
    /// Larger than every value of the column type.
    AboveAll,
    /// SQL NULL: `col = NULL` and `col < NULL` match nothing.
    Null,
    /// The comparison does not follow the index order (a string column compared with a number
    /// compares numerically); the index cannot narrow it.
    Unusable,
}

/// Converts `v` for comparison with a column of type `ty`.
pub fn convert(ty: &ColumnType, v: &Value) -> KeyConv {
    if v.is_null() {
        return KeyConv::Null;
    }
    // TIME, ENUM and SET compare by their meaning, not by their stored text ('10:00' is
    // 10:00:00; `e = 1` names the first value): the index cannot narrow them yet.
    if matches!(ty, ColumnType::Time { .. } | ColumnType::Enum { .. } | ColumnType::Set { .. }) {
        return KeyConv::Unusable;
    }
    let ty = &*ty.stored_as();
    match ty {
        ColumnType::Int { width, unsigned, .. } => {
            let (min, max): (i128, i128) = if *unsigned {
                (0, width.unsigned_max() as i128)
            } else {
                let (lo, hi) = width.signed_range();
                (lo as i128, hi as i128)
            };
            let Some((lo, hi)) = integer_bounds(v) else {
                return KeyConv::Unusable;
            };
            if hi < min {
                return KeyConv::BelowAll;
            }
            if lo > max {
                return KeyConv::AboveAll;
            }
            let datum = |x: i128| if *unsigned { Datum::UInt(x as u64) } else { Datum::Int(x as i64) };
            let (clo, chi) = (lo.max(min), hi.min(max));
            if lo == hi {
                KeyConv::Exact(datum(lo))
            } else {
                KeyConv::Approx { lo: datum(clo), hi: datum(chi) }
            }
        }
        ColumnType::Decimal { scale, .. } => {
            let d = match v {
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::new(*u as i128, 0),
                Value::Decimal(d) => *d,
                Value::Bytes(b) => match std::str::from_utf8(b).ok().and_then(|s| Decimal::parse(s.trim())) {
                    Some(d) => d,
                    None => return KeyConv::Unusable,
                },
                _ => return KeyConv::Unusable,
            };
            let Some(r) = d.rescale(*scale) else {
                return KeyConv::Unusable;
            };
            match r.cmp(&d) {
                Ordering::Equal => KeyConv::Exact(Datum::Decimal(r)),
                Ordering::Greater => KeyConv::Approx { lo: Datum::Decimal(decimal_step(r, -1)), hi: Datum::Decimal(r) },
                Ordering::Less => KeyConv::Approx { lo: Datum::Decimal(r), hi: Datum::Decimal(decimal_step(r, 1)) },
            }
        }
        ColumnType::Double { .. } => match v {
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) | Value::Bytes(_) => {
                match value::to_f64(v) {
                    Some(f) if f.is_finite() => KeyConv::Exact(Datum::Double(f)),
                    _ => KeyConv::Unusable,
                }
            }
            _ => KeyConv::Unusable,
        },
        // FLOAT values are stored narrowed to f32; an f64 constant rarely equals one exactly,
        // and MySQL's comparison happens in double precision, so the index is not used.
        ColumnType::Float { .. } => KeyConv::Unusable,
        ColumnType::Char { .. }
        | ColumnType::VarChar { .. }
        | ColumnType::Text { .. }
        | ColumnType::Binary { .. }
        | ColumnType::VarBinary { .. }
        | ColumnType::Blob { .. } => match v {
            Value::Bytes(b) => KeyConv::Exact(Datum::Bytes(b.clone())),
            _ => KeyConv::Unusable,
        },
        ColumnType::Date => match temporal(v) {
            Some(dt) => {
                let date = dt.date();
                if selkie_storage::DateTime::new(date, 0, 0, 0, 0) == dt {
                    KeyConv::Exact(Datum::Date(date))
                } else {
                    KeyConv::Approx { lo: Datum::Date(date), hi: Datum::Date(date) }
                }
            }
            None => KeyConv::Unusable,
        },
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => match temporal(v) {
            Some(dt) => KeyConv::Exact(Datum::DateTime(dt)),
            None => KeyConv::Unusable,
        },
        // Newer types are mapped to the type they are stored as.
        _ => {
            unreachable!("stored_as maps newer types to the type they are stored as")
        }
    }
}

/// Floor and ceiling of a numeric view of `v`, for integer columns. None if `v` has no
/// meaningful numeric order (dates).
fn integer_bounds(v: &Value) -> Option<(i128, i128)> {
    match v {
        Value::Int(i) => Some((*i as i128, *i as i128)),
        Value::UInt(u) => Some((*u as i128, *u as i128)),
        Value::Decimal(d) => Some(decimal_floor_ceil(*d)),
        Value::Double(f) => float_floor_ceil(*f),
        Value::Bytes(b) => {
            let s = std::str::from_utf8(b).ok()?.trim();
            match Decimal::parse(s) {
                Some(d) => Some(decimal_floor_ceil(d)),
                None => float_floor_ceil(value::to_f64(v)?),
            }
        }
        Value::Date(_) | Value::DateTime(_) | Value::Null => None,
    }
}

/// `d` moved by one unit in its last place (`step` is ±1).
fn decimal_step(d: Decimal, step: i64) -> Decimal {
    if let Some(m) = d.mantissa_i128().and_then(|m| m.checked_add(step as i128)) {
        return Decimal::new(m, d.scale);
    }
    // Wide: move the magnitude away from or toward zero. Never zero here (zero fits an i128).
    let one = selkie_storage::wideint::U256::from_u64(1);
    let mag = d.magnitude();
    let away = d.is_negative() == (step < 0);
    let mag = if away { mag.checked_add(&one).unwrap_or(mag) } else { mag.wrapping_sub(&one) };
    Decimal::from_sign_magnitude(d.is_negative(), mag, d.scale).unwrap_or(d)
}

fn decimal_floor_ceil(d: Decimal) -> (i128, i128) {
    // Beyond i128 the bounds clamp anyway (see below).
    let m = d.mantissa_saturating();
    let f = selkie_storage::pow10(d.scale).unwrap_or(i128::MAX);
    let q = m / f;
    let r = m % f;
    if r == 0 {
        (q, q)
    } else if m < 0 {
        (q - 1, q)
    } else {
        (q, q + 1)
    }
}

/// Bounds outside i64/u64 are clamped to just beyond the widest integer column, which keeps the
/// BelowAll/AboveAll decisions right.
fn float_floor_ceil(f: f64) -> Option<(i128, i128)> {
    if f.is_nan() {
        return None;
    }
    const LIMIT: f64 = 2e19;
    let clamp = |x: f64| x.clamp(-LIMIT, LIMIT) as i128;
    Some((clamp(f.floor()), clamp(f.ceil())))
}

fn temporal(v: &Value) -> Option<selkie_storage::DateTime> {
    match v {
        Value::DateTime(dt) => Some(*dt),
        Value::Date(d) => Some(selkie_storage::DateTime::new(*d, 0, 0, 0, 0)),
        Value::Bytes(b) => value::parse_datetime(b),
        _ => None,
    }
}

/// A position in an index's key space: just before, or just after, every key that starts with
/// `key` (a key prefix). The empty prefix before/after is the start/end of the index.
#[derive(Clone, Debug, PartialEq)]
pub struct Pos {
    pub key: Vec<Datum>,
    pub after: bool,
}

impl Pos {
    pub fn before(key: Vec<Datum>) -> Pos {
        Pos { key, after: false }
    }
    pub fn after(key: Vec<Datum>) -> Pos {
        Pos { key, after: true }
    }
}

/// Orders positions in key space (NULL sorts first, as in the engine's key encoding).
pub fn cmp_pos(a: &Pos, b: &Pos) -> Ordering {
    for (x, y) in a.key.iter().zip(b.key.iter()) {
        match value::sort_compare(x, y) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    match a.key.len().cmp(&b.key.len()) {
        Ordering::Equal => a.after.cmp(&b.after),
        // `a` is a proper prefix of `b`: before(a) precedes and after(a) follows everything
        // that starts with `b`.
        Ordering::Less => {
            if a.after {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        Ordering::Greater => {
            if b.after {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
    }
}

/// A half-open piece of key space [lo, hi).
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    pub lo: Pos,
    pub hi: Pos,
}

/// Sorts intervals, drops empty ones and merges overlapping or touching ones, so that scanning
/// the result returns each key once, in index order.
pub fn normalize(mut intervals: Vec<Interval>) -> Vec<Interval> {
    intervals.retain(|iv| cmp_pos(&iv.lo, &iv.hi) == Ordering::Less);
    if intervals.len() <= 1 {
        return intervals;
    }
    intervals.sort_by(|a, b| cmp_pos(&a.lo, &b.lo));
    let mut out: Vec<Interval> = Vec::with_capacity(intervals.len());
    for iv in intervals {
        match out.last_mut() {
            Some(cur) if cmp_pos(&iv.lo, &cur.hi) != Ordering::Greater => {
                if cmp_pos(&iv.hi, &cur.hi) == Ordering::Greater {
                    cur.hi = iv.hi;
                }
            }
            _ => out.push(iv),
        }
    }
    out
}

/// The engine's form of a normalized interval.
pub fn to_key_range(iv: Interval) -> KeyRange {
    use std::ops::Bound;
    debug_assert!(cmp_pos(&iv.lo, &iv.hi) == Ordering::Less, "empty interval reached the scan");
    let lower = match iv.lo {
        Pos { key, after: false } if key.is_empty() => Bound::Unbounded,
        Pos { key, after: false } => Bound::Included(key),
        Pos { key, after: true } => Bound::Excluded(key),
    };
    let upper = match iv.hi {
        Pos { key, after: true } if key.is_empty() => Bound::Unbounded,
        Pos { key, after: true } => Bound::Included(key),
        Pos { key, after: false } => Bound::Excluded(key),
    };
    KeyRange { lower, upper }
}

/// If the interval covers exactly the keys equal to one full key of `width` columns, that key.
pub fn as_point(iv: &Interval, width: usize) -> Option<&[Datum]> {
    if !iv.lo.after && iv.hi.after && iv.lo.key.len() == width && iv.lo.key == iv.hi.key {
        Some(&iv.lo.key)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Datum {
        Datum::Int(v)
    }

    fn iv(lo: Pos, hi: Pos) -> Interval {
        Interval { lo, hi }
    }

    #[test]
    fn positions_order_prefixes_around_their_extensions() {
        let b1 = Pos::before(vec![i(1)]);
        let a1 = Pos::after(vec![i(1)]);
        let b12 = Pos::before(vec![i(1), i(2)]);
        let a12 = Pos::after(vec![i(1), i(2)]);
        assert_eq!(cmp_pos(&b1, &b12), Ordering::Less);
        assert_eq!(cmp_pos(&a12, &a1), Ordering::Less);
        assert_eq!(cmp_pos(&b12, &a12), Ordering::Less);
        assert_eq!(cmp_pos(&a1, &Pos::before(vec![i(2)])), Ordering::Less);
        assert_eq!(cmp_pos(&Pos::before(vec![]), &b1), Ordering::Less);
        assert_eq!(cmp_pos(&Pos::after(vec![]), &a12), Ordering::Greater);
    }

    #[test]
    fn normalize_sorts_dedups_and_merges() {
        let point = |v| iv(Pos::before(vec![i(v)]), Pos::after(vec![i(v)]));
        // IN (5, 1, 5, 3) → 1, 3, 5
        let out = normalize(vec![point(5), point(1), point(5), point(3)]);
        assert_eq!(out, vec![point(1), point(3), point(5)]);
        // BETWEEN 1 AND 10 OR BETWEEN 5 AND 15 OR BETWEEN 20 AND 30 → [1,15], [20,30]
        let between = |a, b| iv(Pos::before(vec![i(a)]), Pos::after(vec![i(b)]));
        let out = normalize(vec![between(20, 30), between(5, 15), between(1, 10)]);
        assert_eq!(out, vec![between(1, 15), between(20, 30)]);
        // Touching ranges merge: [1,5] and (5, 9] cover every key once either way.
        let out = normalize(vec![between(1, 5), iv(Pos::after(vec![i(5)]), Pos::after(vec![i(9)]))]);
        assert_eq!(out, vec![between(1, 9)]);
        // Empty intervals vanish: (5, 5) and [7, 3].
        let out = normalize(vec![iv(Pos::after(vec![i(5)]), Pos::before(vec![i(5)])), between(7, 3)]);
        assert!(out.is_empty());
    }

    #[test]
    fn decimal_floor_and_ceiling() {
        assert_eq!(decimal_floor_ceil(Decimal::new(15, 1)), (1, 2));
        assert_eq!(decimal_floor_ceil(Decimal::new(-15, 1)), (-2, -1));
        assert_eq!(decimal_floor_ceil(Decimal::new(20, 1)), (2, 2));
    }

    #[test]
    fn integer_conversions_are_exact_or_conservative() {
        use selkie_storage::IntWidth;
        let int = ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None };
        let uint = ColumnType::Int { width: IntWidth::Tiny, unsigned: true, display_width: None };
        assert_eq!(convert(&int, &Value::Int(5)), KeyConv::Exact(i(5)));
        assert_eq!(convert(&int, &Value::UInt(5)), KeyConv::Exact(i(5)));
        assert_eq!(convert(&int, &Value::Decimal(Decimal::new(55, 1))), KeyConv::Approx { lo: i(5), hi: i(6) });
        assert_eq!(convert(&int, &Value::Double(-0.5)), KeyConv::Approx { lo: i(-1), hi: i(0) });
        assert_eq!(convert(&int, &Value::Bytes(b"42".to_vec())), KeyConv::Exact(i(42)));
        assert_eq!(convert(&int, &Value::Null), KeyConv::Null);
        assert_eq!(convert(&int, &Value::Int(1 << 40)), KeyConv::AboveAll);
        assert_eq!(convert(&uint, &Value::Int(-3)), KeyConv::BelowAll);
        assert_eq!(convert(&uint, &Value::Int(255)), KeyConv::Exact(Datum::UInt(255)));
        assert_eq!(convert(&uint, &Value::Int(256)), KeyConv::AboveAll);
        let text = ColumnType::VarChar { len: 10 };
        assert_eq!(convert(&text, &Value::Int(5)), KeyConv::Unusable);
        assert_eq!(convert(&text, &Value::Bytes(b"x".to_vec())), KeyConv::Exact(Datum::Bytes(b"x".to_vec())));
    }

    #[test]
    fn decimal_column_rescales() {
        let dec = ColumnType::Decimal { precision: 10, scale: 2, unsigned: false };
        assert_eq!(convert(&dec, &Value::Int(3)), KeyConv::Exact(Datum::Decimal(Decimal::new(300, 2))));
        assert_eq!(
            convert(&dec, &Value::Decimal(Decimal::new(1234, 3))),
            KeyConv::Approx { lo: Datum::Decimal(Decimal::new(123, 2)), hi: Datum::Decimal(Decimal::new(124, 2)) }
        );
    }

    #[test]
    fn key_range_forms() {
        use std::ops::Bound;
        let r = to_key_range(iv(Pos::before(vec![]), Pos::after(vec![])));
        assert_eq!(r, KeyRange::all());
        let r = to_key_range(iv(Pos::before(vec![i(1)]), Pos::after(vec![i(1)])));
        assert_eq!(r, KeyRange::point(vec![i(1)]));
        let r = to_key_range(iv(Pos::after(vec![i(1)]), Pos::before(vec![i(9)])));
        assert_eq!(r, KeyRange { lower: Bound::Excluded(vec![i(1)]), upper: Bound::Excluded(vec![i(9)]) });
        assert_eq!(as_point(&iv(Pos::before(vec![i(1)]), Pos::after(vec![i(1)])), 1), Some(&[i(1)][..]));
        assert_eq!(as_point(&iv(Pos::before(vec![i(1)]), Pos::after(vec![i(1)])), 2), None);
    }
}
