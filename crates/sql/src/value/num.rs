//! Numeric core: reading numbers out of strings the way MySQL does, and exact DECIMAL
//! arithmetic on `selkie_storage::Decimal`.
//!
//! A DECIMAL holds up to 76 digits in a 256-bit mantissa (types stop at 65, MariaDB's limit),
//! but the product of two such numbers, or a dividend scaled up by the divisor's scale plus the
//! division increment, needs up to ~150 digits before it is rounded back: intermediates are
//! 512-bit (`U512`). Values that fit an i128 take i128 fast paths.

use std::cmp::Ordering;

use selkie_storage::wideint::{U256, U512};
use selkie_storage::{Decimal, DECIMAL_MAX_VALUE_DIGITS};

/// Most digits a DECIMAL type may have (MariaDB's DECIMAL_MAX_PRECISION).
pub const MAX_DECIMAL_DIGITS: u32 = 65;
/// Most significant digits a DECIMAL value may hold (see `selkie_storage::DECIMAL_MAX_VALUE_DIGITS`).
pub const MAX_VALUE_DIGITS: u32 = DECIMAL_MAX_VALUE_DIGITS as u32;
/// Largest DECIMAL scale.
pub const MAX_DECIMAL_SCALE: u32 = 38;
/// MariaDB's `div_precision_increment` default: `/` adds this many digits to the dividend's scale.
pub const DIV_PRECISION_INCREMENT: u32 = 4;
/// Largest mantissa magnitude that fits the i128 fast paths' 38 digits: 10^38 - 1.
pub const MAX_I128_MANTISSA: u128 = 99_999_999_999_999_999_999_999_999_999_999_999_999;

// ---------------------------------------------------------------------------------------------
// Lexing numbers out of strings
// ---------------------------------------------------------------------------------------------

/// How much of a string a numeric conversion used. MariaDB warns differently for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumQuality {
    /// The string is exactly a number (surrounding whitespace is ignored).
    Exact,
    /// A numeric prefix was used and the rest ignored ('12abc').
    Truncated,
    /// No digits at all ('abc', '', '-').
    NotANumber,
}

/// The parts of the longest numeric prefix `[ws][sign]digits[.digits][e[sign]digits]`.
#[derive(Clone, Copy, Debug)]
pub struct NumLexeme<'a> {
    pub negative: bool,
    pub int_digits: &'a [u8],
    pub frac_digits: &'a [u8],
    /// Decimal exponent (clamped to ±100_000, far beyond any representable value).
    pub exponent: i64,
    /// True when the prefix stopped at '.' or 'e' (after the integer digits); used by the
    /// integer-only reading of CAST(... AS SIGNED), which stops at the point.
    pub has_fraction_or_exponent: bool,
    pub quality: NumQuality,
}

/// Exponents beyond this are clamped: 10^100000 overflows every numeric type anyway.
const MAX_LEXED_EXPONENT: i64 = 100_000;

pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn rest_quality(s: &[u8], pos: usize) -> NumQuality {
    if s[pos..].iter().all(|&b| is_space(b)) {
        NumQuality::Exact
    } else {
        NumQuality::Truncated
    }
}

/// Splits the longest numeric prefix of `s`.
pub fn lex_number(s: &[u8]) -> NumLexeme<'_> {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        negative = s[i] == b'-';
        i += 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = &s[int_start..i];
    let mut frac_digits: &[u8] = &[];
    let mut has_fraction_or_exponent = false;
    if i < s.len() && s[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if !int_digits.is_empty() || j > frac_start {
            frac_digits = &s[frac_start..j];
            has_fraction_or_exponent = true;
            i = j;
        }
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return NumLexeme {
            negative: false,
            int_digits: &[],
            frac_digits: &[],
            exponent: 0,
            has_fraction_or_exponent: false,
            quality: NumQuality::NotANumber,
        };
    }
    let mut exponent = 0i64;
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        let mut exp_negative = false;
        if j < s.len() && (s[j] == b'-' || s[j] == b'+') {
            exp_negative = s[j] == b'-';
            j += 1;
        }
        let exp_start = j;
        let mut e = 0i64;
        while j < s.len() && s[j].is_ascii_digit() {
            e = (e * 10 + (s[j] - b'0') as i64).min(MAX_LEXED_EXPONENT);
            j += 1;
        }
        if j > exp_start {
            exponent = if exp_negative { -e } else { e };
            has_fraction_or_exponent = true;
            i = j;
        }
    }
    NumLexeme { negative, int_digits, frac_digits, exponent, has_fraction_or_exponent, quality: rest_quality(s, i) }
}

impl NumLexeme<'_> {
    /// The value as the nearest double (correctly rounded; huge values become ±f64::MAX).
    pub fn to_f64(self) -> f64 {
        let v = self.to_f64_unclamped();
        if v.is_infinite() {
            if v > 0.0 {
                f64::MAX
            } else {
                f64::MIN
            }
        } else {
            v
        }
    }

    /// The nearest double, ±infinity when beyond the double range (column stores report that).
    pub fn to_f64_unclamped(self) -> f64 {
        if self.quality == NumQuality::NotANumber {
            return 0.0;
        }
        let mut text = String::with_capacity(self.int_digits.len() + self.frac_digits.len() + 24);
        if self.negative {
            text.push('-');
        }
        text.push_str(if self.int_digits.is_empty() { "0" } else { ascii(self.int_digits) });
        if !self.frac_digits.is_empty() {
            text.push('.');
            text.push_str(ascii(self.frac_digits));
        }
        if self.exponent != 0 {
            text.push('e');
            text.push_str(&self.exponent.to_string());
        }
        text.parse().unwrap_or(0.0)
    }

    /// The value as an exact DECIMAL (rounded to 38 fractional digits at most, and to 76
    /// significant digits). `Err(negative)` if it has more than 76 integer digits.
    pub fn to_decimal(self) -> Result<Decimal, bool> {
        if self.quality == NumQuality::NotANumber {
            return Ok(Decimal::new(0, 0));
        }
        // digits * 10^(exponent - frac_len), built from the significant digits only.
        let mut digits: Vec<u8> = Vec::with_capacity(self.int_digits.len() + self.frac_digits.len());
        digits.extend_from_slice(self.int_digits);
        digits.extend_from_slice(self.frac_digits);
        let mut scale: i64 = self.frac_digits.len() as i64 - self.exponent;
        let first_nonzero = digits.iter().position(|&d| d != b'0');
        let Some(first_nonzero) = first_nonzero else {
            return Ok(Decimal::new(0, 0));
        };
        let digits = &digits[first_nonzero..];
        // Integer digits = len - scale; too many means out of range.
        let int_digit_count = digits.len() as i64 - scale;
        if int_digit_count > MAX_VALUE_DIGITS as i64 {
            return Err(self.negative);
        }
        // Keep at most 38 fractional digits and 76 significant digits in all.
        let mut keep = digits.len() as i64;
        if scale > MAX_DECIMAL_SCALE as i64 {
            keep -= scale - MAX_DECIMAL_SCALE as i64;
            scale = MAX_DECIMAL_SCALE as i64;
        }
        if keep > MAX_VALUE_DIGITS as i64 {
            scale -= keep - MAX_VALUE_DIGITS as i64;
            keep = MAX_VALUE_DIGITS as i64;
        }
        let mut mag = if keep > 0 {
            U512::from_decimal_digits(&digits[..keep as usize]).expect("at most 76 digits")
        } else {
            U512::ZERO
        };
        // Round half away from zero on the first dropped digit.
        let dropped_first = if keep >= 0 { digits.get(keep as usize).copied() } else { None };
        if keep >= 0 && dropped_first.is_some_and(|d| d >= b'5') {
            mag = mag.checked_add(&U512::from_u64(1)).expect("no overflow");
        }
        if scale < 0 {
            mag = mag.checked_mul(&U512::pow10(-scale as u32).ok_or(self.negative)?).ok_or(self.negative)?;
            scale = 0;
        }
        fit_decimal(self.negative, mag, scale as u32).map_err(|_| self.negative)
    }

    /// Integer reading (CAST AS SIGNED/UNSIGNED): only the integer digits, saturating.
    /// Returns the value as i128 clamped to [i64::MIN, u64::MAX] and whether it overflowed.
    pub fn to_integer_digits(self) -> (i128, bool) {
        let mut v: i128 = 0;
        let mut overflow = false;
        for &d in self.int_digits {
            v = v * 10 + (d - b'0') as i128;
            if v > u64::MAX as i128 {
                overflow = true;
                v = u64::MAX as i128;
                break;
            }
        }
        if self.negative {
            v = -v;
            if v < i64::MIN as i128 {
                overflow = true;
                v = i64::MIN as i128;
            }
        }
        (v, overflow)
    }
}

fn ascii(b: &[u8]) -> &str {
    // Lexed digit runs are ASCII by construction.
    std::str::from_utf8(b).unwrap_or("0")
}

// ---------------------------------------------------------------------------------------------
// Exact DECIMAL arithmetic
// ---------------------------------------------------------------------------------------------

/// A DECIMAL result that does not fit 76 digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecimalOverflow;

fn magnitude(d: Decimal) -> U512 {
    d.magnitude().resize().expect("widening")
}

/// Builds a Decimal from sign, magnitude and scale, rounding away fractional digits until it fits
/// 76 digits (and scale <= 38).
pub fn fit_decimal(negative: bool, mag: U512, scale: u32) -> Result<Decimal, DecimalOverflow> {
    let mut mag = mag;
    let mut scale = scale;
    if scale > MAX_DECIMAL_SCALE {
        mag = mag.round_div_pow10(scale - MAX_DECIMAL_SCALE);
        scale = MAX_DECIMAL_SCALE;
    }
    let digits = mag.digits();
    if digits > MAX_VALUE_DIGITS {
        let drop = digits - MAX_VALUE_DIGITS;
        if drop > scale {
            return Err(DecimalOverflow);
        }
        mag = mag.round_div_pow10(drop);
        scale -= drop;
        if mag.digits() > MAX_VALUE_DIGITS {
            // Rounding carried to 10^76: exact division by ten keeps the value.
            if scale == 0 {
                return Err(DecimalOverflow);
            }
            mag = mag.div_rem_u64(10).0;
            scale -= 1;
        }
    }
    let mag: U256 = mag.resize().ok_or(DecimalOverflow)?;
    Decimal::from_sign_magnitude(negative, mag, scale as u8).ok_or(DecimalOverflow)
}

/// Magnitude of `d` scaled up to `scale` (>= d.scale) in 512 bits (< 10^114: always fits).
fn aligned(d: Decimal, scale: u32) -> U512 {
    debug_assert!(scale >= d.scale as u32);
    let factor = U512::pow10(scale - d.scale as u32).expect("scale difference <= 38");
    magnitude(d).checked_mul(&factor).expect("fits 512 bits")
}

pub fn dec_cmp(a: Decimal, b: Decimal) -> Ordering {
    a.cmp(&b)
}

/// Signed sum of two aligned magnitudes.
fn signed_add(neg_a: bool, a: U512, neg_b: bool, b: U512) -> (bool, U512) {
    if neg_a == neg_b {
        // Each side < 10^114, so this cannot overflow.
        (neg_a, a.checked_add(&b).expect("sum fits 512 bits"))
    } else if a >= b {
        (neg_a, a.wrapping_sub(&b))
    } else {
        (neg_b, b.wrapping_sub(&a))
    }
}

pub fn dec_add(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    let s = a.scale.max(b.scale);
    if let (Some(x), Some(y)) = (a.mantissa_i128(), b.mantissa_i128()) {
        let fx = selkie_storage::pow10(s - a.scale);
        let fy = selkie_storage::pow10(s - b.scale);
        if let (Some(x), Some(y)) = (fx.and_then(|f| x.checked_mul(f)), fy.and_then(|f| y.checked_mul(f))) {
            if let Some(m) = x.checked_add(y) {
                if m.unsigned_abs() <= MAX_I128_MANTISSA {
                    return Ok(Decimal::new(m, s));
                }
            }
        }
    }
    let s = s as u32;
    let (neg, mag) = signed_add(a.is_negative(), aligned(a, s), b.is_negative(), aligned(b, s));
    fit_decimal(neg, mag, s)
}

pub fn dec_neg(a: Decimal) -> Decimal {
    a.negated()
}

pub fn dec_sub(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    dec_add(a, dec_neg(b))
}

pub fn dec_mul(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    let scale = a.scale as u32 + b.scale as u32;
    if scale <= MAX_DECIMAL_SCALE {
        if let (Some(x), Some(y)) = (a.mantissa_i128(), b.mantissa_i128()) {
            if let Some(m) = x.checked_mul(y) {
                if m.unsigned_abs() <= MAX_I128_MANTISSA {
                    return Ok(Decimal::new(m, scale as u8));
                }
            }
        }
    }
    let negative = a.is_negative() != b.is_negative();
    // Each magnitude < 10^76 < 2^253: the product fits 512 bits.
    let mag = magnitude(a).checked_mul(&magnitude(b)).expect("fits 512 bits");
    fit_decimal(negative, mag, scale)
}

/// Decimal digits in one word of MariaDB's DECIMAL (`DIG_PER_DEC1`).
const DIGITS_PER_WORD: u32 = 9;

/// `a / b` as MariaDB's decimal_div computes it: the quotient truncated to
/// `a.scale + b.scale + div_precision_increment` digits rounded up to whole 9-digit words. The
/// result type's scale is only `a.scale + 4` (see `arith_type`); the extra digits are what make
/// `1/7*7` 1.0000 (0.142857142 * 7 = 0.999999994) rather than 1.0003, and the text protocol
/// rounds to the type's scale. The caller handles b = 0.
pub fn dec_div(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    dec_div_with(a, b, DIV_PRECISION_INCREMENT)
}

/// `dec_div` under the session's div_precision_increment.
pub fn dec_div_with(a: Decimal, b: Decimal, increment: u32) -> Result<Decimal, DecimalOverflow> {
    assert!(!b.is_zero(), "dec_div by zero");
    let wanted = a.scale as u32 + b.scale as u32 + increment;
    let result_scale = wanted.div_ceil(DIGITS_PER_WORD) * DIGITS_PER_WORD;
    let result_scale = result_scale.min(MAX_DECIMAL_SCALE).max(a.scale as u32);
    // q = |a| * 10^(result_scale - a.scale + b.scale) / |b|; |a| < 10^76 and the shift is at most
    // 76, so the numerator stays below 10^152 < 2^512.
    let shift = result_scale + b.scale as u32 - a.scale as u32;
    let numerator = U512::pow10(shift).and_then(|p| p.checked_mul(&magnitude(a))).ok_or(DecimalOverflow)?;
    let (q, _) = numerator.div_rem(&magnitude(b));
    let negative = a.is_negative() != b.is_negative();
    fit_decimal(negative, q, result_scale)
}

/// Truncated quotient `a DIV b` as an integer (b != 0). None if beyond ±2^127.
pub fn dec_int_div(a: Decimal, b: Decimal) -> Option<i128> {
    assert!(!b.is_zero(), "dec_int_div by zero");
    let s = a.scale.max(b.scale) as u32;
    let (q, _) = aligned(a, s).div_rem(&aligned(b, s));
    let q = q.to_u128()?;
    let q = i128::try_from(q).ok()?;
    Some(if a.is_negative() != b.is_negative() { -q } else { q })
}

/// `a MOD b` (sign of the dividend), scale max(a.scale, b.scale). b != 0.
pub fn dec_rem(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    assert!(!b.is_zero(), "dec_rem by zero");
    let s = a.scale.max(b.scale) as u32;
    let (_, r) = aligned(a, s).div_rem(&aligned(b, s));
    fit_decimal(a.is_negative(), r, s)
}

/// How ROUND and TRUNCATE drop digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundMode {
    HalfAwayFromZero,
    TowardZero,
}

/// ROUND/TRUNCATE(d, digits): the result has scale `clamp(digits, 0, d.scale)`; negative digits
/// zero out integer digits.
pub fn dec_round(d: Decimal, digits: i64, mode: RoundMode) -> Result<Decimal, DecimalOverflow> {
    let target_scale = digits.clamp(0, d.scale as i64) as u32;
    // Digits to remove below the point-relative position `digits`.
    let remove = d.scale as i64 - digits;
    if remove <= 0 {
        return Ok(d);
    }
    let negative = d.is_negative();
    let mag = magnitude(d);
    let Some(p) = U512::pow10(remove.min(200) as u32) else {
        return Ok(Decimal::new(0, target_scale as u8));
    };
    let (q, r) = mag.div_rem(&p);
    let q = match mode {
        RoundMode::TowardZero => q,
        RoundMode::HalfAwayFromZero => {
            // r >= p/2 without overflowing 2r.
            if r >= p.wrapping_sub(&r) {
                q.checked_add(&U512::from_u64(1)).ok_or(DecimalOverflow)?
            } else {
                q
            }
        }
    };
    if q.is_zero() {
        return Ok(Decimal::new(0, target_scale as u8));
    }
    // q counts units of 10^-digits; bring it to scale target_scale (multiply when digits < 0).
    let value_scale = digits; // q * 10^-digits
    let mag = if value_scale < target_scale as i64 {
        // digits < 0: q * 10^(-digits)
        let up = (target_scale as i64 - value_scale) as u32;
        U512::pow10(up).and_then(|p| q.checked_mul(&p)).ok_or(DecimalOverflow)?
    } else {
        q
    };
    fit_decimal(negative, mag, target_scale)
}

/// The value with trailing fractional zeros removed (canonical form for hashing).
pub fn dec_normalize(d: Decimal) -> Decimal {
    if let Some(mut m) = d.mantissa_i128() {
        let mut s = d.scale;
        while s > 0 && m % 10 == 0 {
            m /= 10;
            s -= 1;
        }
        if m == 0 {
            s = 0;
        }
        return Decimal::new(m, s);
    }
    let mut mag = d.magnitude();
    let mut s = d.scale;
    while s > 0 {
        let (q, r) = mag.div_rem_u64(10);
        if r != 0 {
            break;
        }
        mag = q;
        s -= 1;
    }
    Decimal::from_sign_magnitude(d.is_negative(), mag, s).expect("smaller than the input")
}

/// Nearest double (correctly rounded).
pub fn dec_to_f64(d: Decimal) -> f64 {
    const EXACT_F64_INT: u128 = 1 << 53;
    if let Some(m) = d.mantissa_i128() {
        if m.unsigned_abs() < EXACT_F64_INT && d.scale <= 22 {
            // Both operands exact, one IEEE division: correctly rounded.
            return m as f64 / 10f64.powi(d.scale as i32);
        }
    }
    d.to_string().parse().unwrap_or(0.0)
}

/// A double as DECIMAL through its shortest round-trip digits (MariaDB converts 1.005e0 to
/// 1.005, not to 1.00499999...). Err on overflow (more than 76 integer digits).
pub fn dec_from_f64(x: f64) -> Result<Decimal, bool> {
    if !x.is_finite() {
        return Err(x < 0.0);
    }
    let text = format!("{:e}", x);
    lex_number(text.as_bytes()).to_decimal()
}

/// Integer digits of a type of `bits` width (for DECIMAL precision of integer operands).
pub fn int_type_digits(bits: u32, unsigned: bool) -> u32 {
    match bits {
        0..=8 => 3,
        9..=16 => 5,
        17..=24 => 8,
        25..=32 => 10,
        _ => {
            if unsigned {
                20
            } else {
                19
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        lex_number(s.as_bytes()).to_decimal().unwrap()
    }

    #[test]
    fn lex_prefixes_and_quality() {
        let l = lex_number(b"  12abc");
        assert_eq!(l.quality, NumQuality::Truncated);
        assert_eq!(l.to_f64(), 12.0);
        assert_eq!(lex_number(b" 12 ").quality, NumQuality::Exact);
        assert_eq!(lex_number(b"abc").quality, NumQuality::NotANumber);
        assert_eq!(lex_number(b"").quality, NumQuality::NotANumber);
        assert_eq!(lex_number(b"-").quality, NumQuality::NotANumber);
        assert_eq!(lex_number(b".5").to_f64(), 0.5);
        assert_eq!(lex_number(b"5.").to_f64(), 5.0);
        assert_eq!(lex_number(b"1e2").to_f64(), 100.0);
        let l = lex_number(b"1e");
        assert_eq!((l.to_f64(), l.quality), (1.0, NumQuality::Truncated));
        assert_eq!(lex_number(b"0x10").quality, NumQuality::Truncated);
        assert_eq!(lex_number(b"1e400").to_f64(), f64::MAX);
    }

    #[test]
    fn lex_to_decimal_rounds_and_overflows() {
        assert_eq!(d("1.005"), Decimal::new(1005, 3));
        assert_eq!(d("-0012.50"), Decimal::new(-1250, 2));
        assert_eq!(d("1e3"), Decimal::new(1000, 0));
        assert_eq!(d("1.5e-2"), Decimal::new(15, 3));
        let long = format!("0.{}5", "0".repeat(38));
        assert_eq!(d(&long), Decimal::new(1, 38));
        assert!(lex_number("9".repeat(77).as_bytes()).to_decimal().is_err());
        assert_eq!(d(&"9".repeat(76)).to_string(), "9".repeat(76));
        // 76 nines then .9 rounds to 10^76: out of range.
        assert!(lex_number(format!("{}.9", "9".repeat(76)).as_bytes()).to_decimal().is_err());
        // 70 digits then a fraction: rounded to 76 significant digits.
        assert_eq!(d(&format!("{}.123456789", "1".repeat(70))).to_string(), format!("{}.123457", "1".repeat(70)));
    }

    #[test]
    fn decimal_ops_known_values() {
        // Expected values checked against MariaDB 10.11.
        // Whole 9-digit words, truncated (the type's scale, dividend's + 4, rounds them).
        assert_eq!(dec_div(d("1"), d("3")).unwrap().to_string(), "0.333333333");
        assert_eq!(dec_div(d("1.00"), d("3.0")).unwrap().to_string(), "0.333333333");
        assert_eq!(dec_div(d("2"), d("3")).unwrap().to_string(), "0.666666666");
        assert_eq!(dec_div(d("1.5"), d("1.25")).unwrap().to_string(), "1.200000000");
        assert_eq!(dec_div(d("-10"), d("4")).unwrap().to_string(), "-2.500000000");
        assert_eq!(dec_div(d("1.1234567"), d("3")).unwrap().to_string(), "0.374485566666666666");
        assert_eq!(dec_mul(d("1.5"), d("1.25")).unwrap().to_string(), "1.875");
        assert_eq!(
            dec_mul(d("1234567890123456789012345678901234567.8"), d("10.5")).unwrap().to_string(),
            "12962962846296296284629629628462962961.90"
        );
        assert_eq!(
            dec_mul(d("123456789012.345678"), d("-98765.4321")).unwrap().to_string(),
            "-12193263112482853.1222374638"
        );
        assert_eq!(dec_rem(d("-7.5"), d("2")).unwrap().to_string(), "-1.5");
        assert_eq!(dec_rem(d("10"), d("3.5")).unwrap().to_string(), "3.0");
        assert_eq!(dec_int_div(d("7.9"), d("2")), Some(3));
        assert_eq!(dec_int_div(d("-7"), d("2")), Some(-3));
        assert_eq!(dec_add(d("0.1"), d("0.2")).unwrap().to_string(), "0.3");
        assert!(dec_mul(d(&"9".repeat(65)), d(&"9".repeat(65))).is_err());
        assert_eq!(dec_cmp(d("1.10"), d("1.1")), Ordering::Equal);
        assert_eq!(dec_cmp(d("-1.10"), d("-1.2")), Ordering::Greater);
    }

    #[test]
    fn decimal_ops_beyond_38_digits() {
        // Expected values checked against MariaDB 10.11.
        let n50 = "12345678901234567890123456789012345678901234567890";
        assert_eq!(dec_add(d(n50), d("1")).unwrap().to_string(), "12345678901234567890123456789012345678901234567891");
        assert_eq!(dec_mul(d(&"9".repeat(65)), d("10")).unwrap().to_string(), format!("{}0", "9".repeat(65)));
        assert_eq!(dec_add(d(&"9".repeat(65)), d("1")).unwrap().to_string(), format!("1{}", "0".repeat(65)));
        let max30 = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        assert_eq!(
            dec_add(d(&max30), d("0.000000000000000000000000000001")).unwrap().to_string(),
            format!("1{}.{}", "0".repeat(35), "0".repeat(30))
        );
        // The exact product rounded to 38 digits (MariaDB's word-wise multiplication of these
        // 58- and 50-digit fractions ends in ...819230).
        assert_eq!(
            dec_mul(
                d("1.2345678901234567890123456789012345678901234567890123456789"),
                d("1.2345678901234567890123456789012345678901234567890")
            )
            .unwrap()
            .to_string(),
            "1.52415787532388367504953515625666819450"
        );
        assert_eq!(
            dec_div(d(n50), d("7")).unwrap().to_string(),
            "1763668414462081127160493827001763668414462081127.142857142"
        );
        assert_eq!(dec_rem(d(n50), d("7")).unwrap().to_string(), "1");
        assert_eq!(dec_int_div(d(n50), d("7")), None);
        assert_eq!(
            dec_sub(d(&format!("-{}", "9".repeat(65))), d("1")).unwrap().to_string(),
            format!("-1{}", "0".repeat(65))
        );
        let r = |s: &str, n: i64, m: RoundMode| dec_round(d(s), n, m).unwrap().to_string();
        let x = format!("{n50}.55");
        assert_eq!(r(&x, 1, RoundMode::HalfAwayFromZero), format!("{n50}.6"));
        assert_eq!(r(&x, 1, RoundMode::TowardZero), format!("{n50}.5"));
        assert_eq!(
            r(&format!("-{n50}"), -10, RoundMode::HalfAwayFromZero),
            "-12345678901234567890123456789012345678900000000000"
        );
        assert_eq!(dec_normalize(d(&format!("{n50}.500"))).to_string(), format!("{n50}.5"));
        assert_eq!(dec_to_f64(d(n50)), 1.2345678901234567e49);
        assert_eq!(dec_from_f64(1e60).unwrap().to_string(), format!("1{}", "0".repeat(60)));
        assert_eq!(dec_cmp(d(n50), d(&format!("{n50}.0"))), Ordering::Equal);
        assert_eq!(dec_cmp(d(&format!("-{n50}")), d("-1")), Ordering::Less);
    }

    #[test]
    fn decimal_round_and_truncate() {
        let r = |s: &str, n: i64| dec_round(d(s), n, RoundMode::HalfAwayFromZero).unwrap().to_string();
        let t = |s: &str, n: i64| dec_round(d(s), n, RoundMode::TowardZero).unwrap().to_string();
        assert_eq!(r("1.555", 2), "1.56");
        assert_eq!(r("-1.555", 2), "-1.56");
        assert_eq!(r("1.5", 0), "2");
        assert_eq!(r("-2.5", 0), "-3");
        assert_eq!(r("1234", -2), "1200");
        assert_eq!(r("1250", -2), "1300");
        assert_eq!(r("1.55", 5), "1.55");
        assert_eq!(r("123.456", -5), "0");
        assert_eq!(t("1.999", 1), "1.9");
        assert_eq!(t("-1.999", 1), "-1.9");
        assert_eq!(t("1999", -2), "1900");
    }

    #[test]
    fn double_to_decimal_uses_shortest_digits() {
        assert_eq!(dec_from_f64(1.005).unwrap(), Decimal::new(1005, 3));
        assert_eq!(dec_from_f64(0.1).unwrap(), Decimal::new(1, 1));
        assert_eq!(dec_from_f64(-1e20).unwrap().to_string(), "-100000000000000000000");
        assert!(dec_from_f64(1e80).is_err());
        assert_eq!(dec_from_f64(-1e40).unwrap().to_string(), format!("-1{}", "0".repeat(40)));
        assert_eq!(dec_to_f64(Decimal::new(1, 1)), 0.1);
        assert_eq!(dec_to_f64(d("12345678901234567890.123")), 12345678901234567890.123f64);
    }
}
