//! IPv6 address functions: INET6_ATON, INET6_NTOA, IS_IPV6, IS_IPV4_COMPAT and IS_IPV4_MAPPED,
//! with MariaDB 10.11's parsing and printing rules (sql/sql_type_inet.cc), which are not quite
//! the RFC's: a group of four hex digits at most, IPv4 octets of up to three digits with leading
//! zeros allowed, a single zero group compressed to `::`, and `::a.b.c.d` printed for IPv4-
//! compatible addresses but `::1` for the loopback.
//!
//! These are the functions over VARBINARY(4)/VARBINARY(16) values, not the INET4/INET6 column
//! types.

use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("INET6_ATON", 1, 1, true, rt_inet6_aton, inet6_aton),
    func!("INET6_NTOA", 1, 1, true, rt_inet6_ntoa, inet6_ntoa),
    func!("IS_IPV6", 1, 1, true, rt_int, is_ipv6),
    func!("IS_IPV4_COMPAT", 1, 1, true, rt_int, is_ipv4_compat),
    func!("IS_IPV4_MAPPED", 1, 1, true, rt_int, is_ipv4_mapped),
];

/// Longest text of an IPv4 address ('255.255.255.255').
const IPV4_MAX_CHARS: usize = 15;
/// Longest text of an IPv6 address: eight groups of four digits and seven colons.
const IPV6_MAX_CHARS: usize = 39;
const IPV4_BYTES: usize = 4;
const IPV6_BYTES: usize = 16;

/// VARBINARY(16), as MariaDB's.
fn rt_inet6_aton(_: &[SqlType]) -> SqlType {
    SqlType::Bytes { max_len: IPV6_BYTES as u32, lob: false }
}
/// VARCHAR(39).
fn rt_inet6_ntoa(_: &[SqlType]) -> SqlType {
    SqlType::text(IPV6_MAX_CHARS as u32, false)
}

/// MariaDB's `ascii_to_ipv4`: four dot-separated decimal octets of one to three digits.
fn parse_ipv4(s: &[u8]) -> Option<[u8; IPV4_BYTES]> {
    if !(7..=IPV4_MAX_CHARS).contains(&s.len()) || s.last() == Some(&b'.') {
        return None;
    }
    let (mut out, mut dots, mut value, mut digits) = ([0u8; IPV4_BYTES], 0usize, 0u32, 0);
    for &c in s {
        match c {
            b'0'..=b'9' => {
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if digits > 3 || value > 255 {
                    return None;
                }
            }
            b'.' => {
                if digits == 0 || dots == 3 {
                    return None;
                }
                out[dots] = value as u8;
                dots += 1;
                (value, digits) = (0, 0);
            }
            _ => return None,
        }
    }
    if dots != 3 {
        return None;
    }
    out[3] = value as u8;
    Some(out)
}

/// MariaDB's `ascii_to_ipv6`: hex groups of up to four digits, at most one `::`, an IPv4
/// address as the last 32 bits.
fn parse_ipv6(s: &[u8]) -> Option<[u8; IPV6_BYTES]> {
    if !(2..=IPV6_MAX_CHARS).contains(&s.len()) {
        return None;
    }
    let mut out = [0u8; IPV6_BYTES];
    let mut p = 0;
    // A leading colon must be the start of "::".
    if s[0] == b':' {
        p = 1;
        if s[1] != b':' {
            return None;
        }
    }
    let (mut dst, mut gap, mut group_start, mut digits, mut group) = (0usize, None, p, 0, 0u16);
    while p < s.len() {
        let c = s[p];
        p += 1;
        match c {
            b':' => {
                group_start = p;
                if digits == 0 {
                    if gap.is_some() {
                        return None;
                    }
                    gap = Some(dst);
                    continue;
                }
                // A group ends at a colon that something follows.
                if p >= s.len() || dst + 2 > IPV6_BYTES {
                    return None;
                }
                out[dst..dst + 2].copy_from_slice(&group.to_be_bytes());
                dst += 2;
                (digits, group) = (0, 0);
            }
            b'.' => {
                if dst + IPV4_BYTES > IPV6_BYTES {
                    return None;
                }
                out[dst..dst + IPV4_BYTES].copy_from_slice(&parse_ipv4(&s[group_start..])?);
                dst += IPV4_BYTES;
                digits = 0;
                break;
            }
            _ => {
                let v = (c as char).to_digit(16)?;
                if digits >= 4 {
                    return None;
                }
                group = (group << 4) | v as u16;
                digits += 1;
            }
        }
    }
    if digits > 0 {
        if dst + 2 > IPV6_BYTES {
            return None;
        }
        out[dst..dst + 2].copy_from_slice(&group.to_be_bytes());
        dst += 2;
    }
    if let Some(at) = gap {
        // "::" stands for at least one zero group.
        if dst == IPV6_BYTES {
            return None;
        }
        let tail = dst - at;
        out.copy_within(at..dst, IPV6_BYTES - tail);
        out[at..IPV6_BYTES - tail].fill(0);
        dst = IPV6_BYTES;
    }
    (dst == IPV6_BYTES).then_some(out)
}

/// The address bytes of a text: 4 for IPv4, 16 for IPv6. A number is no address for MariaDB
/// (INET6_ATON(123) is NULL).
fn address_of(v: &Value) -> Option<Vec<u8>> {
    let Value::Bytes(s) = v else {
        return None;
    };
    if let Some(a) = parse_ipv4(s) {
        return Some(a.to_vec());
    }
    parse_ipv6(s).map(|a| a.to_vec())
}

fn inet6_aton(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(address_of(&args[0]).map_or(Value::Null, Value::Bytes))
}

/// MariaDB's `ipv6_to_str`: the longest run of zero groups (the first of equal ones, even a
/// single group) becomes `::`; an IPv4-compatible or -mapped address ends in dotted form.
fn format_ipv6(a: &[u8; IPV6_BYTES]) -> String {
    let words: Vec<u16> = a.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]])).collect();
    let (mut gap, mut run): ((usize, usize), Option<(usize, usize)>) = ((0, 0), None);
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            run = Some(run.map_or((i, 1), |(at, n)| (at, n + 1)));
        } else if let Some(r) = run.take() {
            if r.1 > gap.1 {
                gap = r;
            }
        }
    }
    if let Some(r) = run {
        if r.1 > gap.1 {
            gap = r;
        }
    }
    if gap.0 == 0 && (gap.1 == 6 || (gap.1 == 5 && words[5] == 0xffff)) {
        let prefix = if gap.1 == 6 { "::" } else { "::ffff:" };
        return format!("{prefix}{}.{}.{}.{}", a[12], a[13], a[14], a[15]);
    }
    let mut out = String::with_capacity(IPV6_MAX_CHARS);
    let mut i = 0;
    while i < words.len() {
        if gap.1 > 0 && i == gap.0 {
            out.push_str(if i == 0 { "::" } else { ":" });
            i += gap.1;
            continue;
        }
        out.push_str(&format!("{:x}", words[i]));
        if i + 1 < words.len() {
            out.push(':');
        }
        i += 1;
    }
    out
}

/// Only a binary string of 4 or 16 bytes is an address (MariaDB also wants the argument typed
/// binary; here a character string of that length is read as bytes too).
fn inet6_ntoa(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let Value::Bytes(b) = &args[0] else {
        return Ok(Value::Null);
    };
    let textual = match b.len() {
        IPV4_BYTES => format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]),
        IPV6_BYTES => format_ipv6(b.as_slice().try_into().expect("16 bytes")),
        _ => return Ok(Value::Null),
    };
    Ok(Value::Bytes(textual.into_bytes()))
}

fn is_ipv6(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let ok = matches!(&args[0], Value::Bytes(s) if parse_ipv6(s).is_some());
    Ok(Value::Int(i64::from(ok)))
}

/// The 16 address bytes of an argument, or None.
fn ipv6_bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::Bytes(b) if b.len() == IPV6_BYTES => Some(b),
        _ => None,
    }
}

/// `::a.b.c.d`: 96 zero bits, then an IPv4 address other than 0.0.0.0 and 0.0.0.1 (the
/// unspecified and loopback IPv6 addresses), as the IN6_IS_ADDR_V4COMPAT macro MariaDB uses.
fn is_ipv4_compat(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let ok = ipv6_bytes(&args[0])
        .is_some_and(|b| b[..12].iter().all(|&x| x == 0) && u32::from_be_bytes([b[12], b[13], b[14], b[15]]) > 1);
    Ok(Value::Int(i64::from(ok)))
}

/// `::ffff:a.b.c.d`.
fn is_ipv4_mapped(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let ok = ipv6_bytes(&args[0]).is_some_and(|b| b[..10].iter().all(|&x| x == 0) && b[10..12] == [0xff, 0xff]);
    Ok(Value::Int(i64::from(ok)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aton(s: &str) -> Option<String> {
        address_of(&Value::Bytes(s.as_bytes().to_vec())).map(|b| b.iter().map(|x| format!("{x:02X}")).collect())
    }

    fn ntoa(hex: &str) -> String {
        let bytes: Vec<u8> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        let Value::Bytes(b) = inet6_ntoa(&[Value::Bytes(bytes)], &crate::value::tests::TestCtx::default()).unwrap()
        else {
            panic!("NULL")
        };
        String::from_utf8(b).unwrap()
    }

    /// Cases measured on MariaDB 10.11.
    #[test]
    fn aton_parses_as_mariadb() {
        assert_eq!(aton("01.2.3.4").as_deref(), Some("01020304"));
        assert_eq!(aton("1.2.3"), None);
        assert_eq!(aton("1.2.3.4 "), None);
        assert_eq!(aton("::ffff:1.2.3.4").as_deref(), Some("00000000000000000000FFFF01020304"));
        assert_eq!(aton("1::2:3.4.5.6").as_deref(), Some("00010000000000000000000203040506"));
        assert_eq!(aton("1:2:3:4:5:6:7::").as_deref(), Some("00010002000300040005000600070000"));
        assert_eq!(aton("::1").as_deref(), Some("00000000000000000000000000000001"));
        for bad in [":1", "::1:2:3:4:5:6:7:8", "00001::", "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:"]
        {
            assert_eq!(aton(bad), None, "{bad}");
        }
        assert_eq!(address_of(&Value::Int(123)), None);
    }

    #[test]
    fn ntoa_prints_as_mariadb() {
        assert_eq!(ntoa("00000000000000000000FFFF01020304"), "::ffff:1.2.3.4");
        assert_eq!(ntoa("00000000000000000000000001020304"), "::1.2.3.4");
        assert_eq!(ntoa("00000000000000000000000000000001"), "::1");
        assert_eq!(ntoa("00000000000000000000000000000102"), "::102");
        assert_eq!(ntoa("20010db8000000000000000000000001"), "2001:db8::1");
        assert_eq!(ntoa("00010000000000010000000000000001"), "1:0:0:1::1");
        assert_eq!(ntoa("00010000000200030004000500060007"), "1::2:3:4:5:6:7");
        assert_eq!(ntoa("00000001000000000000000000000000"), "0:1::");
        assert_eq!(ntoa("00000000000000000000000000000000"), "::");
        assert_eq!(ntoa("01020304"), "1.2.3.4");
    }

    #[test]
    fn ipv4_compat_excludes_loopback() {
        let b = |s: &str| Value::Bytes(address_of(&Value::Bytes(s.into())).unwrap());
        let ctx = crate::value::tests::TestCtx::default();
        assert_eq!(is_ipv4_compat(&[b("::1.2.3.4")], &ctx).unwrap(), Value::Int(1));
        assert_eq!(is_ipv4_compat(&[b("::1")], &ctx).unwrap(), Value::Int(0));
        assert_eq!(is_ipv4_compat(&[b("::")], &ctx).unwrap(), Value::Int(0));
        assert_eq!(is_ipv4_mapped(&[b("::ffff:1.2.3.4")], &ctx).unwrap(), Value::Int(1));
        assert_eq!(is_ipv4_mapped(&[b("1.2.3.4")], &ctx).unwrap(), Value::Int(0));
        assert_eq!(is_ipv6(&[Value::Bytes(b"1.2.3.4".to_vec())], &ctx).unwrap(), Value::Int(0));
    }
}
