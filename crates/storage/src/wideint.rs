//! Fixed-width integers wider than i128, for DECIMAL values of up to 65 digits.
//!
//! A leaf module: it imports nothing from the crate.
//!
//! Why hand-written rather than a crate: DECIMAL needs only a handful of operations (add, sub,
//! multiply with overflow check, divide, compare, decimal text), on 256 bits for stored values
//! and 512 bits for the intermediates of products and quotients (two 65-digit operands make a
//! 130-digit product). The limbs are `u64`, so a `Decimal` keeps 8-byte alignment and a `Datum`
//! stays 48 bytes (a 16-byte aligned i128 pair would not).

use std::cmp::Ordering;
use std::fmt;

/// Unsigned integer of `N` 64-bit limbs, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UInt<const N: usize>(pub [u64; N]);

/// The width of a stored DECIMAL mantissa's magnitude.
pub type U256 = UInt<4>;
/// The width of DECIMAL intermediates (products, scaled dividends).
pub type U512 = UInt<8>;

impl<const N: usize> Ord for UInt<N> {
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..N).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        Ordering::Equal
    }
}

impl<const N: usize> PartialOrd for UInt<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// 10^19, the largest power of ten in a u64: text conversion works in 19-digit chunks.
const TEN19: u64 = 10_000_000_000_000_000_000;

impl<const N: usize> UInt<N> {
    pub const ZERO: Self = UInt([0; N]);

    pub const fn from_u128(v: u128) -> Self {
        let mut l = [0u64; N];
        l[0] = v as u64;
        l[1] = (v >> 64) as u64;
        UInt(l)
    }

    pub fn from_u64(v: u64) -> Self {
        let mut l = [0u64; N];
        l[0] = v;
        UInt(l)
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    pub fn to_u128(&self) -> Option<u128> {
        if self.0[2..].iter().any(|&l| l != 0) {
            return None;
        }
        Some(self.0[0] as u128 | (self.0[1] as u128) << 64)
    }

    fn to_u64(self) -> Option<u64> {
        if self.0[1..].iter().any(|&l| l != 0) {
            return None;
        }
        Some(self.0[0])
    }

    /// The same value in `M` limbs; `None` if it does not fit.
    pub fn resize<const M: usize>(&self) -> Option<UInt<M>> {
        let mut out = [0u64; M];
        for (i, &l) in self.0.iter().enumerate() {
            if i < M {
                out[i] = l;
            } else if l != 0 {
                return None;
            }
        }
        Some(UInt(out))
    }

    /// Significant bits (0 for zero).
    pub fn bits(&self) -> u32 {
        for i in (0..N).rev() {
            if self.0[i] != 0 {
                return (i as u32 + 1) * 64 - self.0[i].leading_zeros();
            }
        }
        0
    }

    pub fn checked_add(&self, o: &Self) -> Option<Self> {
        let mut out = [0u64; N];
        let mut carry = false;
        for (i, slot) in out.iter_mut().enumerate() {
            let (s, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s, c2) = s.overflowing_add(carry as u64);
            *slot = s;
            carry = c1 || c2;
        }
        (!carry).then_some(UInt(out))
    }

    /// `self - o`, wrapping (two's complement) when `o > self`.
    pub fn wrapping_sub(&self, o: &Self) -> Self {
        let mut out = [0u64; N];
        let mut borrow = false;
        for (i, slot) in out.iter_mut().enumerate() {
            let (s, b1) = self.0[i].overflowing_sub(o.0[i]);
            let (s, b2) = s.overflowing_sub(borrow as u64);
            *slot = s;
            borrow = b1 || b2;
        }
        UInt(out)
    }

    pub fn checked_sub(&self, o: &Self) -> Option<Self> {
        (*self >= *o).then(|| self.wrapping_sub(o))
    }

    pub fn checked_mul_u64(&self, m: u64) -> Option<Self> {
        let mut out = [0u64; N];
        let mut carry = 0u64;
        for (i, slot) in out.iter_mut().enumerate() {
            let p = self.0[i] as u128 * m as u128 + carry as u128;
            *slot = p as u64;
            carry = (p >> 64) as u64;
        }
        (carry == 0).then_some(UInt(out))
    }

    pub fn checked_mul(&self, o: &Self) -> Option<Self> {
        let mut out = [0u64; N];
        for i in 0..N {
            if self.0[i] == 0 {
                continue;
            }
            let mut carry = 0u64;
            for j in 0..N {
                let p = self.0[i] as u128 * o.0[j] as u128 + carry as u128;
                if i + j < N {
                    let s = out[i + j] as u128 + (p as u64) as u128;
                    out[i + j] = s as u64;
                    carry = ((p >> 64) + (s >> 64)) as u64;
                } else if p != 0 {
                    return None;
                }
            }
            if carry != 0 {
                return None;
            }
        }
        Some(UInt(out))
    }

    /// Quotient and remainder by a non-zero `u64`.
    pub fn div_rem_u64(&self, d: u64) -> (Self, u64) {
        assert!(d != 0, "UInt division by zero");
        let mut out = [0u64; N];
        let mut rem = 0u128;
        for i in (0..N).rev() {
            let cur = (rem << 64) | self.0[i] as u128;
            out[i] = (cur / d as u128) as u64;
            rem = cur % d as u128;
        }
        (UInt(out), rem as u64)
    }

    fn shl1(&mut self) {
        for i in (1..N).rev() {
            self.0[i] = (self.0[i] << 1) | (self.0[i - 1] >> 63);
        }
        self.0[0] <<= 1;
    }

    fn bit(&self, i: u32) -> bool {
        (self.0[(i / 64) as usize] >> (i % 64)) & 1 == 1
    }

    /// Quotient and remainder by a non-zero divisor. Shift-and-subtract beyond one limb: these
    /// are the slow paths of wide DECIMAL division only.
    pub fn div_rem(&self, d: &Self) -> (Self, Self) {
        assert!(!d.is_zero(), "UInt division by zero");
        if let Some(small) = d.to_u64() {
            let (q, r) = self.div_rem_u64(small);
            return (q, UInt::from_u64(r));
        }
        if self < d {
            return (UInt::ZERO, *self);
        }
        let mut q = UInt::ZERO;
        let mut r = UInt::ZERO;
        for i in (0..self.bits()).rev() {
            // r < d, so 2r + 1 overflows only when d's top bit is set; then the subtraction below
            // still gives the right remainder in wrapping arithmetic.
            let top = r.bit(N as u32 * 64 - 1);
            r.shl1();
            r.0[0] |= self.bit(i) as u64;
            if top || r >= *d {
                r = r.wrapping_sub(d);
                q.0[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        (q, r)
    }

    /// 10^k, or `None` if it does not fit.
    pub fn pow10(k: u32) -> Option<Self> {
        let mut v = UInt::from_u64(1);
        let mut left = k;
        while left > 0 {
            let step = left.min(19);
            v = v.checked_mul_u64(10u64.pow(step))?;
            left -= step;
        }
        Some(v)
    }

    /// Number of decimal digits (0 for zero).
    pub fn digits(&self) -> u32 {
        if let Some(v) = self.to_u128() {
            return if v == 0 { 0 } else { v.ilog10() + 1 };
        }
        let mut n = 0;
        let mut v = *self;
        while v.to_u128().is_none() {
            v = v.div_rem_u64(TEN19).0;
            n += 19;
        }
        n + v.to_u128().map_or(0, |v| if v == 0 { 0 } else { v.ilog10() + 1 })
    }

    /// `round(self / 10^k)`, halves away from zero.
    pub fn round_div_pow10(&self, k: u32) -> Self {
        if k == 0 {
            return *self;
        }
        let Some(p) = UInt::<N>::pow10(k) else {
            return UInt::ZERO;
        };
        let (q, r) = self.div_rem(&p);
        // r >= p - r  <=>  2r >= p, without overflowing 2r.
        if r >= p.wrapping_sub(&r) {
            q.checked_add(&UInt::from_u64(1)).unwrap_or(q)
        } else {
            q
        }
    }

    /// Decimal digits, most significant first ("0" for zero).
    pub fn to_decimal_string(&self) -> String {
        if let Some(v) = self.to_u128() {
            return v.to_string();
        }
        let mut chunks = Vec::new();
        let mut v = *self;
        while !v.is_zero() {
            let (q, r) = v.div_rem_u64(TEN19);
            chunks.push(r);
            v = q;
        }
        let mut s = chunks.last().map_or(String::from("0"), |c| c.to_string());
        for c in chunks.iter().rev().skip(1) {
            s.push_str(&format!("{c:019}"));
        }
        s
    }

    /// Parses ASCII digits; `None` on anything else or overflow.
    pub fn from_decimal_digits(digits: &[u8]) -> Option<Self> {
        let mut v = UInt::ZERO;
        for chunk in digits.chunks(19) {
            let mut c = 0u64;
            for &b in chunk {
                if !b.is_ascii_digit() {
                    return None;
                }
                c = c * 10 + (b - b'0') as u64;
            }
            v = v.checked_mul_u64(10u64.pow(chunk.len() as u32))?.checked_add(&UInt::from_u64(c))?;
        }
        Some(v)
    }
}

impl<const N: usize> fmt::Display for UInt<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_decimal_string())
    }
}

/// Signed 256-bit integer in two's complement: a DECIMAL mantissa. 8-byte aligned on purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct I256(pub U256);

impl I256 {
    pub const ZERO: I256 = I256(UInt([0; 4]));

    pub const fn from_i128(v: i128) -> I256 {
        let ext = if v < 0 { u64::MAX } else { 0 };
        I256(UInt([v as u64, (v >> 64) as u64, ext, ext]))
    }

    /// The value as i128 when it fits: the upper limbs are the sign extension of bit 127.
    #[inline]
    pub fn to_i128(self) -> Option<i128> {
        let l = self.0 .0;
        let ext = if (l[1] as i64) < 0 { u64::MAX } else { 0 };
        (l[2] == ext && l[3] == ext).then(|| (l[0] as u128 | (l[1] as u128) << 64) as i128)
    }

    pub fn is_negative(self) -> bool {
        (self.0 .0[3] as i64) < 0
    }

    pub fn is_zero(self) -> bool {
        self.0.is_zero()
    }

    pub fn signum(self) -> i32 {
        if self.is_negative() {
            -1
        } else if self.is_zero() {
            0
        } else {
            1
        }
    }

    /// Two's complement negation (the caller keeps magnitudes below 2^255).
    pub fn wrapping_neg(self) -> I256 {
        I256(UInt::ZERO.wrapping_sub(&self.0))
    }

    pub fn unsigned_abs(self) -> U256 {
        if self.is_negative() {
            self.wrapping_neg().0
        } else {
            self.0
        }
    }

    /// `±mag`; `None` if the magnitude needs the sign bit.
    pub fn from_sign_magnitude(negative: bool, mag: U256) -> Option<I256> {
        if mag.0[3] >> 63 != 0 {
            return None;
        }
        let v = I256(mag);
        Some(if negative { v.wrapping_neg() } else { v })
    }
}

impl Ord for I256 {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Same sign: two's complement orders like the unsigned bit patterns.
            _ => self.0.cmp(&other.0),
        }
    }
}

impl PartialOrd for I256 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i128_round_trip_and_order() {
        for v in [0i128, 1, -1, i128::MAX, i128::MIN, 12345, -98765432109876543210] {
            assert_eq!(I256::from_i128(v).to_i128(), Some(v));
        }
        let big = I256::from_sign_magnitude(false, U256::pow10(70).unwrap()).unwrap();
        assert_eq!(big.to_i128(), None);
        assert!(big > I256::from_i128(i128::MAX));
        assert!(big.wrapping_neg() < I256::from_i128(i128::MIN));
        assert_eq!(big.wrapping_neg().unsigned_abs(), U256::pow10(70).unwrap());
        assert_eq!(I256::from_i128(-5).signum(), -1);
    }

    #[test]
    fn mul_div_text() {
        let a =
            U512::from_decimal_digits(b"99999999999999999999999999999999999999999999999999999999999999999").unwrap();
        let p = a.checked_mul(&a).unwrap();
        assert_eq!(p.digits(), 130);
        let (q, r) = p.div_rem(&a);
        assert_eq!((q, r), (a, U512::ZERO));
        assert_eq!(a.to_decimal_string(), "9".repeat(65));
        assert_eq!(U256::pow10(77).unwrap().digits(), 78);
        assert!(U256::pow10(78).is_none());
        assert!(U256::pow10(40).unwrap().checked_mul(&U256::pow10(40).unwrap()).is_none());
        assert_eq!(UInt::<4>::from_u64(15).round_div_pow10(1), UInt::from_u64(2));
        assert_eq!(UInt::<4>::from_u64(14).round_div_pow10(1), UInt::from_u64(1));
        let (q, r) = U256::pow10(70).unwrap().div_rem(&U256::from_u128(12345678901234567890123));
        assert_eq!(
            q.checked_mul(&U256::from_u128(12345678901234567890123)).unwrap().checked_add(&r).unwrap(),
            U256::pow10(70).unwrap()
        );
        assert_eq!(U256::ZERO.to_decimal_string(), "0");
        let top = UInt::<4>([0, 0, 0, 1 << 63]);
        let (q, r) = top.div_rem(&UInt([1, 0, 0, 1 << 62]));
        assert_eq!((q, r), (UInt::from_u64(1), UInt([u64::MAX, u64::MAX, u64::MAX, (1 << 62) - 1])));
    }
}
