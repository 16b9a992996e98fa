//! Numeric core: reading numbers out of strings the way MySQL does, a small 256-bit unsigned
//! integer for intermediate results, and exact DECIMAL arithmetic on `selkie_storage::Decimal`.
//!
//! Why a 256-bit intermediate: a DECIMAL holds up to 38 digits in an i128, but the product of two
//! such numbers, or a dividend scaled up by the divisor's scale plus the division increment, needs
//! up to ~80 digits before it is rounded back to 38. Doing that exactly (instead of through f64)
//! is what makes `DECIMAL` arithmetic exact, as in MariaDB.

use std::cmp::Ordering;

use selkie_storage::Decimal;

/// Most significant digits a DECIMAL value may hold (i128 holds every 38-digit number).
pub const MAX_DECIMAL_DIGITS: u32 = 38;
/// Largest DECIMAL scale.
pub const MAX_DECIMAL_SCALE: u32 = 38;
/// MariaDB's `div_precision_increment` default: `/` adds this many digits to the dividend's scale.
pub const DIV_PRECISION_INCREMENT: u32 = 4;
/// Largest mantissa magnitude: 10^38 - 1.
pub const MAX_MANTISSA: u128 = 99_999_999_999_999_999_999_999_999_999_999_999_999;

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

    /// The value as an exact DECIMAL (rounded to 38 fractional digits at most).
    /// `Err(negative)` if it has more than 38 integer digits.
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
        if int_digit_count > MAX_DECIMAL_DIGITS as i64 {
            return Err(self.negative);
        }
        // Keep at most 38 fractional digits and 38 significant digits in all.
        let mut keep = digits.len() as i64;
        if scale > MAX_DECIMAL_SCALE as i64 {
            keep -= scale - MAX_DECIMAL_SCALE as i64;
            scale = MAX_DECIMAL_SCALE as i64;
        }
        if keep > MAX_DECIMAL_DIGITS as i64 {
            scale -= keep - MAX_DECIMAL_DIGITS as i64;
            keep = MAX_DECIMAL_DIGITS as i64;
        }
        let mut mantissa: u128 = 0;
        if keep > 0 {
            for &d in &digits[..keep as usize] {
                mantissa = mantissa * 10 + (d - b'0') as u128;
            }
        }
        // Round half away from zero on the first dropped digit.
        let dropped_first = if keep >= 0 { digits.get(keep as usize).copied() } else { None };
        if keep >= 0 && dropped_first.is_some_and(|d| d >= b'5') {
            mantissa += 1;
        }
        if mantissa > MAX_MANTISSA {
            // Rounding carried into a 39th digit: drop one more fractional digit (exact, the
            // value is a power of ten) or fail if there is none.
            if scale <= 0 {
                return Err(self.negative);
            }
            mantissa /= 10;
            scale -= 1;
        }
        while scale < 0 {
            mantissa *= 10;
            scale += 1;
            if mantissa > MAX_MANTISSA {
                return Err(self.negative);
            }
        }
        let m = mantissa as i128;
        Ok(Decimal::new(if self.negative { -m } else { m }, scale as u8))
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
// 256-bit unsigned integer (slow paths only)
// ---------------------------------------------------------------------------------------------

/// Unsigned 256-bit integer; field order makes the derived `Ord` numeric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct U256 {
    pub hi: u128,
    pub lo: u128,
}

impl U256 {
    pub const ZERO: U256 = U256 { hi: 0, lo: 0 };

    pub fn from_u128(v: u128) -> U256 {
        U256 { hi: 0, lo: v }
    }

    /// Full 256-bit product of two u128.
    pub fn mul_wide(a: u128, b: u128) -> U256 {
        let (a0, a1) = (a as u64 as u128, a >> 64);
        let (b0, b1) = (b as u64 as u128, b >> 64);
        let p00 = a0 * b0;
        let p01 = a0 * b1;
        let p10 = a1 * b0;
        let p11 = a1 * b1;
        let (mid, mid_carry) = p01.overflowing_add(p10);
        let (lo, lo_carry) = p00.overflowing_add(mid << 64);
        let hi = p11 + (mid >> 64) + ((mid_carry as u128) << 64) + lo_carry as u128;
        U256 { hi, lo }
    }

    pub fn checked_mul_u128(self, m: u128) -> Option<U256> {
        let low = U256::mul_wide(self.lo, m);
        let high = self.hi.checked_mul(m)?;
        Some(U256 { hi: low.hi.checked_add(high)?, lo: low.lo })
    }

    pub fn checked_add(self, o: U256) -> Option<U256> {
        let (lo, carry) = self.lo.overflowing_add(o.lo);
        let hi = self.hi.checked_add(o.hi)?.checked_add(carry as u128)?;
        Some(U256 { hi, lo })
    }

    /// `self - o`; the caller guarantees `self >= o`.
    pub fn sub(self, o: U256) -> U256 {
        debug_assert!(self >= o);
        let (lo, borrow) = self.lo.overflowing_sub(o.lo);
        U256 { hi: self.hi - o.hi - borrow as u128, lo }
    }

    pub fn to_u128(self) -> Option<u128> {
        if self.hi == 0 {
            Some(self.lo)
        } else {
            None
        }
    }

    fn bit(self, i: u32) -> bool {
        if i >= 128 {
            (self.hi >> (i - 128)) & 1 == 1
        } else {
            (self.lo >> i) & 1 == 1
        }
    }

    fn bits(self) -> u32 {
        if self.hi != 0 {
            256 - self.hi.leading_zeros()
        } else {
            128 - self.lo.leading_zeros()
        }
    }

    fn shl1_or(self, bit: bool) -> U256 {
        U256 { hi: (self.hi << 1) | (self.lo >> 127), lo: (self.lo << 1) | bit as u128 }
    }

    fn set_bit(&mut self, i: u32) {
        if i >= 128 {
            self.hi |= 1 << (i - 128);
        } else {
            self.lo |= 1 << i;
        }
    }

    /// Quotient and remainder. `d` must be non-zero and below 2^255 (so the shifted remainder
    /// cannot overflow); every divisor used here is far smaller.
    pub fn div_rem(self, d: U256) -> (U256, U256) {
        assert!(d != U256::ZERO, "U256 division by zero");
        debug_assert!(d.hi >> 127 == 0);
        if let (Some(n), Some(dd)) = (self.to_u128(), d.to_u128()) {
            return (U256::from_u128(n / dd), U256::from_u128(n % dd));
        }
        let mut q = U256::ZERO;
        let mut r = U256::ZERO;
        for i in (0..self.bits()).rev() {
            r = r.shl1_or(self.bit(i));
            if r >= d {
                r = r.sub(d);
                q.set_bit(i);
            }
        }
        (q, r)
    }

    /// 10^k, or None if it does not fit.
    pub fn pow10(k: u32) -> Option<U256> {
        let mut v = U256::from_u128(1);
        let mut left = k;
        while left > 0 {
            let step = left.min(38);
            v = v.checked_mul_u128(10u128.pow(step))?;
            left -= step;
        }
        Some(v)
    }

    /// Number of decimal digits (0 for zero).
    pub fn digits(self) -> u32 {
        let mut n = 0;
        while n < 78 {
            match U256::pow10(n) {
                Some(p) if self >= p => n += 1,
                _ => break,
            }
        }
        n
    }

    /// `round(self / 10^k)` half away from zero (self is a magnitude).
    pub fn round_div_pow10(self, k: u32) -> U256 {
        if k == 0 {
            return self;
        }
        let Some(p) = U256::pow10(k) else {
            return U256::ZERO;
        };
        let (q, r) = self.div_rem(p);
        // r >= p/2  <=>  2r >= p; 2r cannot overflow because r < p < 2^255.
        if r.shl1_or(false) >= p {
            q.checked_add(U256::from_u128(1)).unwrap_or(q)
        } else {
            q
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Exact DECIMAL arithmetic
// ---------------------------------------------------------------------------------------------

/// A DECIMAL result that does not fit 38 integer digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecimalOverflow;

fn magnitude(d: Decimal) -> U256 {
    U256::from_u128(d.mantissa.unsigned_abs())
}

/// Builds a Decimal from sign, magnitude and scale, rounding away fractional digits until it fits
/// 38 digits (and scale <= 38).
pub fn fit_decimal(negative: bool, mag: U256, scale: u32) -> Result<Decimal, DecimalOverflow> {
    let mut mag = mag;
    let mut scale = scale;
    if scale > MAX_DECIMAL_SCALE {
        mag = mag.round_div_pow10(scale - MAX_DECIMAL_SCALE);
        scale = MAX_DECIMAL_SCALE;
    }
    let digits = mag.digits();
    if digits > MAX_DECIMAL_DIGITS {
        let drop = digits - MAX_DECIMAL_DIGITS;
        if drop > scale {
            return Err(DecimalOverflow);
        }
        mag = mag.round_div_pow10(drop);
        scale -= drop;
    }
    let mut m = mag.to_u128().ok_or(DecimalOverflow)?;
    if m > MAX_MANTISSA {
        // Rounding carried to 10^38: exact division by ten keeps the value.
        if scale == 0 {
            return Err(DecimalOverflow);
        }
        m /= 10;
        scale -= 1;
    }
    debug_assert!(m <= MAX_MANTISSA && scale <= MAX_DECIMAL_SCALE);
    let m = m as i128;
    Ok(Decimal::new(if negative { -m } else { m }, scale as u8))
}

/// Magnitude of `d` scaled up to `scale` (>= d.scale) as a 256-bit integer.
fn aligned(d: Decimal, scale: u32) -> U256 {
    debug_assert!(scale >= d.scale as u32);
    let factor = U256::pow10(scale - d.scale as u32).expect("scale difference <= 38");
    // |mantissa| < 2^127 and factor <= 10^38 < 2^127: the product fits 256 bits.
    factor.checked_mul_u128(d.mantissa.unsigned_abs()).expect("fits 256 bits")
}

pub fn dec_cmp(a: Decimal, b: Decimal) -> Ordering {
    if a.scale == b.scale {
        return a.mantissa.cmp(&b.mantissa);
    }
    match (a.mantissa.signum(), b.mantissa.signum()) {
        (x, y) if x != y => return x.cmp(&y),
        _ => {}
    }
    let s = a.scale.max(b.scale) as u32;
    let (ma, mb) = (aligned(a, s), aligned(b, s));
    if a.mantissa < 0 {
        mb.cmp(&ma)
    } else {
        ma.cmp(&mb)
    }
}

/// Signed sum of two aligned magnitudes.
fn signed_add(neg_a: bool, a: U256, neg_b: bool, b: U256) -> (bool, U256) {
    if neg_a == neg_b {
        // Each side < 2^254 (aligned 38-digit values), so this cannot overflow.
        (neg_a, a.checked_add(b).expect("sum fits 256 bits"))
    } else if a >= b {
        (neg_a, a.sub(b))
    } else {
        (neg_b, b.sub(a))
    }
}

pub fn dec_add(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    let s = a.scale.max(b.scale);
    if let (Some(x), Some(y)) = (a.rescale(s), b.rescale(s)) {
        if let Some(m) = x.mantissa.checked_add(y.mantissa) {
            if m.unsigned_abs() <= MAX_MANTISSA {
                return Ok(Decimal::new(m, s));
            }
        }
    }
    let s = s as u32;
    let (neg, mag) = signed_add(a.mantissa < 0, aligned(a, s), b.mantissa < 0, aligned(b, s));
    fit_decimal(neg && mag != U256::ZERO, mag, s)
}

pub fn dec_neg(a: Decimal) -> Decimal {
    Decimal::new(-a.mantissa, a.scale)
}

pub fn dec_sub(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    dec_add(a, dec_neg(b))
}

pub fn dec_mul(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    let scale = a.scale as u32 + b.scale as u32;
    if scale <= MAX_DECIMAL_SCALE {
        if let Some(m) = a.mantissa.checked_mul(b.mantissa) {
            if m.unsigned_abs() <= MAX_MANTISSA {
                return Ok(Decimal::new(m, scale as u8));
            }
        }
    }
    let negative = (a.mantissa < 0) != (b.mantissa < 0);
    let mag = U256::mul_wide(a.mantissa.unsigned_abs(), b.mantissa.unsigned_abs());
    fit_decimal(negative && mag != U256::ZERO, mag, scale)
}

/// Decimal digits in one word of MariaDB's DECIMAL (`DIG_PER_DEC1`).
const DIGITS_PER_WORD: u32 = 9;

/// `a / b` as MariaDB's decimal_div computes it: the quotient truncated to
/// `a.scale + b.scale + div_precision_increment` digits rounded up to whole 9-digit words. The
/// result type's scale is only `a.scale + 4` (see `arith_type`); the extra digits are what make
/// `1/7*7` 1.0000 (0.142857142 * 7 = 0.999999994) rather than 1.0003, and the text protocol
/// rounds to the type's scale. The caller handles b = 0.
pub fn dec_div(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    assert!(b.mantissa != 0, "dec_div by zero");
    let wanted = a.scale as u32 + b.scale as u32 + DIV_PRECISION_INCREMENT;
    let result_scale = wanted.div_ceil(DIGITS_PER_WORD) * DIGITS_PER_WORD;
    let result_scale = result_scale.min(MAX_DECIMAL_SCALE).max(a.scale as u32);
    // q = |a| * 10^(result_scale - a.scale + b.scale) / |b|
    let shift = result_scale + b.scale as u32 - a.scale as u32;
    let numerator =
        U256::pow10(shift).and_then(|p| p.checked_mul_u128(a.mantissa.unsigned_abs())).ok_or(DecimalOverflow)?;
    let divisor = U256::from_u128(b.mantissa.unsigned_abs());
    let (q, _) = numerator.div_rem(divisor);
    let negative = (a.mantissa < 0) != (b.mantissa < 0);
    fit_decimal(negative && q != U256::ZERO, q, result_scale)
}

/// Truncated quotient `a DIV b` as an integer (b != 0). None if beyond ±2^127.
pub fn dec_int_div(a: Decimal, b: Decimal) -> Option<i128> {
    assert!(b.mantissa != 0, "dec_int_div by zero");
    let s = a.scale.max(b.scale) as u32;
    let (q, _) = aligned(a, s).div_rem(aligned(b, s));
    let q = q.to_u128()?;
    let q = i128::try_from(q).ok()?;
    Some(if (a.mantissa < 0) != (b.mantissa < 0) { -q } else { q })
}

/// `a MOD b` (sign of the dividend), scale max(a.scale, b.scale). b != 0.
pub fn dec_rem(a: Decimal, b: Decimal) -> Result<Decimal, DecimalOverflow> {
    assert!(b.mantissa != 0, "dec_rem by zero");
    let s = a.scale.max(b.scale) as u32;
    let (_, r) = aligned(a, s).div_rem(aligned(b, s));
    fit_decimal(a.mantissa < 0 && r != U256::ZERO, r, s)
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
    let negative = d.mantissa < 0;
    let mag = magnitude(d);
    let Some(p) = U256::pow10(remove.min(100) as u32) else {
        return Ok(Decimal::new(0, target_scale as u8));
    };
    let (q, r) = mag.div_rem(p);
    let q = match mode {
        RoundMode::TowardZero => q,
        RoundMode::HalfAwayFromZero => {
            if r.shl1_or(false) >= p {
                q.checked_add(U256::from_u128(1)).ok_or(DecimalOverflow)?
            } else {
                q
            }
        }
    };
    if q == U256::ZERO {
        return Ok(Decimal::new(0, target_scale as u8));
    }
    // q counts units of 10^-digits; bring it to scale target_scale (multiply when digits < 0).
    let value_scale = digits; // q * 10^-digits
    let mag = if value_scale < target_scale as i64 {
        // digits < 0: q * 10^(-digits)
        let up = (target_scale as i64 - value_scale) as u32;
        U256::pow10(up).and_then(|p| q.checked_mul_u128(p.to_u128()?)).ok_or(DecimalOverflow)?
    } else {
        q
    };
    fit_decimal(negative && mag != U256::ZERO, mag, target_scale)
}

/// The value with trailing fractional zeros removed (canonical form for hashing).
pub fn dec_normalize(d: Decimal) -> Decimal {
    let mut m = d.mantissa;
    let mut s = d.scale;
    while s > 0 && m % 10 == 0 {
        m /= 10;
        s -= 1;
    }
    if m == 0 {
        s = 0;
    }
    Decimal::new(m, s)
}

/// Nearest double (correctly rounded).
pub fn dec_to_f64(d: Decimal) -> f64 {
    const EXACT_F64_INT: u128 = 1 << 53;
    if d.mantissa.unsigned_abs() < EXACT_F64_INT && d.scale <= 22 {
        // Both operands exact, one IEEE division: correctly rounded.
        return d.mantissa as f64 / 10f64.powi(d.scale as i32);
    }
    d.to_string().parse().unwrap_or(0.0)
}

/// A double as DECIMAL through its shortest round-trip digits (MariaDB converts 1.005e0 to
/// 1.005, not to 1.00499999...). Err on overflow (more than 38 integer digits).
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
        assert!(lex_number("9".repeat(39).as_bytes()).to_decimal().is_err());
        assert_eq!(d(&"9".repeat(38)).mantissa as u128, MAX_MANTISSA);
        // 38 nines then .9 rounds to 10^38: out of range.
        assert!(lex_number(format!("{}.9", "9".repeat(38)).as_bytes()).to_decimal().is_err());
    }

    #[test]
    fn u256_mul_div_roundtrip() {
        let a = u128::MAX;
        let b = 12345678901234567890123456789u128;
        let p = U256::mul_wide(a, b);
        let (q, r) = p.div_rem(U256::from_u128(b));
        assert_eq!(q, U256::from_u128(a));
        assert_eq!(r, U256::ZERO);
        assert_eq!(U256::pow10(38).unwrap().to_u128(), Some(10u128.pow(38)));
        assert_eq!(U256::pow10(77).unwrap().digits(), 78);
        assert!(U256::pow10(78).is_none());
        assert_eq!(U256::from_u128(15).round_div_pow10(1), U256::from_u128(2));
        assert_eq!(U256::from_u128(14).round_div_pow10(1), U256::from_u128(1));
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
        // MariaDB keeps 65 digits (…961.90); with 38 digits the product is rounded to fit.
        assert_eq!(
            dec_mul(d("1234567890123456789012345678901234567.8"), d("10.5")).unwrap().to_string(),
            "12962962846296296284629629628462962962"
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
        assert!(dec_mul(d(&"9".repeat(38)), d("10")).is_err());
        assert_eq!(dec_cmp(d("1.10"), d("1.1")), Ordering::Equal);
        assert_eq!(dec_cmp(d("-1.10"), d("-1.2")), Ordering::Greater);
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
        assert!(dec_from_f64(1e40).is_err());
        assert_eq!(dec_to_f64(Decimal::new(1, 1)), 0.1);
        assert_eq!(dec_to_f64(d("12345678901234567890.123")), 12345678901234567890.123f64);
    }
}
