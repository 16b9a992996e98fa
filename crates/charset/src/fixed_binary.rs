//! MariaDB's fixed-size binary data types that SQL reads and writes as text: UUID (16 bytes),
//! INET4 (4) and INET6 (16). Selkie keeps their values as the canonical text MariaDB prints;
//! what MariaDB does with the binary form — compare, sort, group, index — goes through this
//! module's binary form, so that '10.0.0.10' sorts after '10.0.0.2' and '0::1' equals '::1'.
//!
//! Each type is a pseudo collation (`Collation::fixed_binary`, outside `COLLATIONS`): its sort
//! key is the value's binary form in the order MariaDB's records (and so its indexes and ORDER
//! BY) keep it. Parsing and printing follow MariaDB 10.11 (plugin/type_uuid, type_inet),
//! measured against it: hand-written because the standard library's IPv4 parser refuses
//! '010.0.0.1' (MariaDB reads 10.0.0.1) and its IPv6 printer keeps single zero groups
//! ('1:0:2::' where MariaDB prints '1::2:0:0:...'-style shortest forms of its own).

/// Which fixed binary type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FixedBinary {
    Uuid,
    Inet4,
    Inet6,
}

impl FixedBinary {
    /// The type's SQL name as MariaDB's messages spell it ("Incorrect uuid value").
    pub fn name(self) -> &'static str {
        match self {
            FixedBinary::Uuid => "uuid",
            FixedBinary::Inet4 => "inet4",
            FixedBinary::Inet6 => "inet6",
        }
    }

    /// Longest canonical text in characters (the column's display length).
    pub fn max_chars(self) -> u32 {
        match self {
            FixedBinary::Uuid => 36,
            FixedBinary::Inet4 => 15,
            FixedBinary::Inet6 => 39,
        }
    }

    /// The binary form of `text`, None if it is not a value of this type.
    pub fn parse(self, text: &[u8]) -> Option<Vec<u8>> {
        match self {
            FixedBinary::Uuid => parse_uuid(text).map(|b| b.to_vec()),
            FixedBinary::Inet4 => parse_inet4(text).map(|b| b.to_vec()),
            FixedBinary::Inet6 => parse_inet6(text).map(|b| b.to_vec()),
        }
    }

    /// The canonical text of `text` (what MariaDB stores and prints), None if it is not a
    /// value of this type.
    pub fn canonical(self, text: &[u8]) -> Option<String> {
        Some(match self {
            FixedBinary::Uuid => format_uuid(&parse_uuid(text)?),
            FixedBinary::Inet4 => format_inet4(&parse_inet4(text)?),
            FixedBinary::Inet6 => format_inet6(&parse_inet6(text)?),
        })
    }

    /// Appends the sort key of `text`: a value's binary form in MariaDB's record order behind a
    /// 0 byte; text that is no value (a literal compared with a column) sorts after every value,
    /// as its bytes behind a 1 byte, and equals no value.
    pub fn sort_key(self, text: &[u8], out: &mut Vec<u8>) {
        match self.record_form(text) {
            Some((binary, len)) => {
                out.push(0);
                out.extend_from_slice(&binary[..len]);
            }
            None => {
                out.push(1);
                out.extend_from_slice(text);
            }
        }
    }

    /// Compares two texts as their sort keys do, without building them (MIN/MAX and
    /// comparisons call this per row).
    pub fn compare(self, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
        match (self.record_form(a), self.record_form(b)) {
            (Some((x, n)), Some((y, _))) => x[..n].cmp(&y[..n]),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.cmp(b),
        }
    }

    /// The binary form in MariaDB's record order, and its length.
    fn record_form(self, text: &[u8]) -> Option<([u8; 16], usize)> {
        let mut out = [0u8; 16];
        let len = match self {
            FixedBinary::Uuid => {
                out = parse_uuid(text)?;
                uuid_record_order(&mut out);
                16
            }
            FixedBinary::Inet4 => {
                out[..4].copy_from_slice(&parse_inet4(text)?);
                4
            }
            FixedBinary::Inet6 => {
                out = parse_inet6(text)?;
                16
            }
        };
        Some((out, len))
    }
}

/// MariaDB's UUID syntax: 32 hex digits; hyphens anywhere between two digits, any number of
/// them, never first or last. A version of 8 or more with the NCS variant (0) is refused.
fn parse_uuid(text: &[u8]) -> Option<[u8; 16]> {
    if text.first() == Some(&b'-') || text.last() == Some(&b'-') {
        return None;
    }
    let mut out = [0u8; 16];
    let mut digits = 0;
    for &c in text {
        if c == b'-' {
            continue;
        }
        let d = (c as char).to_digit(16)? as u8;
        if digits == 32 {
            return None;
        }
        out[digits / 2] |= if digits % 2 == 0 { d << 4 } else { d };
        digits += 1;
    }
    if digits != 32 {
        return None;
    }
    // MariaDB: `m_buffer[6] & -m_buffer[8] & 0x80` on signed chars.
    let (b6, b8) = (out[6] as i8 as i32, out[8] as i8 as i32);
    if b6 & -b8 & 0x80 != 0 {
        return None;
    }
    Some(out)
}

fn format_uuid(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// MariaDB stores a UUID of versions 1 to 5 with a variant bit set with its segments reversed
/// (node, clock sequence, time high, time mid, time low), so that time-based UUIDs sort by time;
/// other UUIDs as they are. Records, indexes and ORDER BY follow this form.
fn uuid_record_order(b: &mut [u8; 16]) {
    let swap = (b[6] as i8) > 0 && b[6] < 0x60 && b[8] & 0x80 != 0;
    if swap {
        let m = *b;
        b[..6].copy_from_slice(&m[10..16]);
        b[6..8].copy_from_slice(&m[8..10]);
        b[8..10].copy_from_slice(&m[6..8]);
        b[10..12].copy_from_slice(&m[4..6]);
        b[12..16].copy_from_slice(&m[0..4]);
    }
}

/// Four dot-separated decimal parts of 1 to 3 digits, each at most 255 ('010.0.0.1' is
/// 10.0.0.1), nothing else (no spaces).
fn parse_inet4(text: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = 0;
    for part in text.split(|&c| c == b'.') {
        if parts == 4 || part.is_empty() || part.len() > 3 || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = part.iter().fold(0u32, |n, &d| n * 10 + (d - b'0') as u32);
        out[parts] = u8::try_from(n).ok()?;
        parts += 1;
    }
    (parts == 4).then_some(out)
}

fn format_inet4(b: &[u8]) -> String {
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// IPv6 text: groups of 1 to 4 hex digits, one `::`, an IPv4 address in the last 32 bits.
fn parse_inet6(text: &[u8]) -> Option<[u8; 16]> {
    let s = std::str::from_utf8(text).ok()?;
    let (head, tail) = match s.find("::") {
        Some(i) => (&s[..i], Some(&s[i + 2..])),
        None => (s, None),
    };
    let words = |part: &str, ipv4_last: bool| -> Option<Vec<u16>> {
        let mut out = Vec::new();
        if part.is_empty() {
            return Some(out);
        }
        let groups: Vec<&str> = part.split(':').collect();
        for (i, g) in groups.iter().enumerate() {
            if ipv4_last && i + 1 == groups.len() && g.contains('.') {
                let v4 = parse_inet4(g.as_bytes())?;
                out.push(u16::from_be_bytes([v4[0], v4[1]]));
                out.push(u16::from_be_bytes([v4[2], v4[3]]));
            } else {
                if g.is_empty() || g.len() > 4 || !g.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                out.push(u16::from_str_radix(g, 16).ok()?);
            }
        }
        Some(out)
    };
    let mut all = [0u16; 8];
    match tail {
        None => {
            let w = words(head, true)?;
            if w.len() != 8 {
                return None;
            }
            all.copy_from_slice(&w);
        }
        Some(tail) => {
            if tail.contains("::") {
                return None;
            }
            let (h, t) = (words(head, false)?, words(tail, true)?);
            // `::` stands for at least one zero group.
            if h.len() + t.len() > 7 {
                return None;
            }
            all[..h.len()].copy_from_slice(&h);
            all[8 - t.len()..].copy_from_slice(&t);
        }
    }
    let mut out = [0u8; 16];
    for (i, w) in all.iter().enumerate() {
        out[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    Some(out)
}

/// MariaDB's printing (MySQL's INET6_NTOA): the longest run of zero groups, even a single one,
/// the first of equal runs, becomes `::`; an address whose first six groups are zero (and
/// whose seventh is not) or that is `::ffff:` followed by 32 bits prints them as IPv4.
fn format_inet6(b: &[u8]) -> String {
    let w: Vec<u16> = b.chunks(2).map(|p| u16::from_be_bytes([p[0], p[1]])).collect();
    let (mut gap_pos, mut gap_len) = (usize::MAX, 0usize);
    let mut i = 0;
    while i < 8 {
        if w[i] == 0 {
            let start = i;
            while i < 8 && w[i] == 0 {
                i += 1;
            }
            if i - start > gap_len {
                (gap_pos, gap_len) = (start, i - start);
            }
        } else {
            i += 1;
        }
    }
    if gap_pos == 0 && (gap_len == 6 || (gap_len == 5 && w[5] == 0xffff)) {
        let prefix = if gap_len == 6 { "::" } else { "::ffff:" };
        return format!("{prefix}{}", format_inet4(&b[12..]));
    }
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if i == gap_pos {
            out.push_str(if i == 0 { "::" } else { ":" });
            i += gap_len;
            continue;
        }
        out.push_str(&format!("{:x}", w[i]));
        if i < 7 {
            out.push(':');
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(kind: FixedBinary, s: &str) -> Option<String> {
        kind.canonical(s.as_bytes())
    }

    /// Each case measured on MariaDB 10.11 with CAST('...' AS <type>).
    #[test]
    fn parse_and_print_as_mariadb() {
        use FixedBinary::*;
        for (text, want) in [
            ("010.0.0.1", Some("10.0.0.1")),
            ("1.2.3", None),
            (" 1.2.3.4", None),
            ("1.2.3.4 ", None),
            ("256.1.1.1", None),
            ("00001.2.3.4", None),
        ] {
            assert_eq!(canon(Inet4, text).as_deref(), want, "{text}");
        }
        for (text, want) in [
            ("::FFFF:1.2.3.4", Some("::ffff:1.2.3.4")),
            ("1:2:3:4:5:6:7:8", Some("1:2:3:4:5:6:7:8")),
            ("1::2::3", None),
            ("00001::", None),
            ("::1.2.3.4", Some("::1.2.3.4")),
            ("1:0:0:0:0:0:0:1", Some("1::1")),
            ("0001:0:0::1", Some("1::1")),
            ("::1 ", None),
            ("1:0:2:3:4:5:6:7", Some("1::2:3:4:5:6:7")),
            ("1:0:0:2:0:0:3:4", Some("1::2:0:0:3:4")),
            ("::ffff:0:1.2.3.4", Some("::ffff:0:102:304")),
            ("0:0:0:0:0:ffff:102:304", Some("::ffff:1.2.3.4")),
            ("::0.0.1.0", Some("::100")),
            ("::0.1.0.0", Some("::0.1.0.0")),
            ("::ffff:0.0.0.0", Some("::ffff:0.0.0.0")),
            ("1:2:3:4:5:6:1.2.3.4", Some("1:2:3:4:5:6:102:304")),
            ("::", Some("::")),
            ("::ffff", Some("::ffff")),
            ("::1", Some("::1")),
            ("0::2", Some("::2")),
            ("2001:db8::1", Some("2001:db8::1")),
            ("fe80::", Some("fe80::")),
        ] {
            assert_eq!(canon(Inet6, text).as_deref(), want, "{text}");
        }
        for (text, want) in [
            ("6ccd780c-baba-1026-9564-5b8c656024db", Some("6ccd780c-baba-1026-9564-5b8c656024db")),
            ("6CCD780CBABA1026-95645B8C656024DA", Some("6ccd780c-baba-1026-9564-5b8c656024da")),
            ("6-ccd780cbaba102695645b8c656024db", Some("6ccd780c-baba-1026-9564-5b8c656024db")),
            ("6c--cd780cbaba102695645b8c656024db", Some("6ccd780c-baba-1026-9564-5b8c656024db")),
            ("-6ccd780cbaba102695645b8c656024db", None),
            ("6ccd780cbaba102695645b8c656024db-", None),
            ("{6ccd780cbaba102695645b8c656024db}", None),
            ("11111111-2222-8333-4444-555555555555", None),
            ("zz", None),
        ] {
            assert_eq!(canon(Uuid, text).as_deref(), want, "{text}");
        }
    }

    /// The order MariaDB 10.11 gave ORDER BY over a UUID column holding these.
    #[test]
    fn uuids_sort_in_record_order() {
        let sorted = [
            "00000000-0000-0000-0000-000000000001",
            "ffffffff-0000-4000-8000-000000000000",
            "11111111-2222-3333-4444-555555555555",
            "11111111-2222-7333-c444-555555555555",
            "6ccd780c-baba-1026-9564-5b8c656024da",
            "6ccd780c-baba-1026-9564-5b8c656024db",
        ];
        let key = |s: &str| {
            let mut k = Vec::new();
            FixedBinary::Uuid.sort_key(s.as_bytes(), &mut k);
            k
        };
        for pair in sorted.windows(2) {
            assert!(key(pair[0]) < key(pair[1]), "{pair:?}");
        }
        assert_eq!(key("6CCD780CBABA1026-95645B8C656024DB"), key(sorted[5]));
        for pair in sorted.windows(2) {
            let (a, b) = (pair[0].as_bytes(), pair[1].as_bytes());
            assert_eq!(FixedBinary::Uuid.compare(a, b), key(pair[0]).cmp(&key(pair[1])));
        }
        assert_eq!(FixedBinary::Uuid.compare(b"zz", sorted[0].as_bytes()), std::cmp::Ordering::Greater);
    }
}
