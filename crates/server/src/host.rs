//! Client hosts: the host part of an account (`HostPattern`) and the host a client is shown as.
//!
//! A leaf below both `config`, which validates the `host` of `[[users]]` entries when the file is
//! read, and `auth`, which matches connecting clients against them.

use std::net::IpAddr;

/// Where an account may connect from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPattern {
    /// `localhost`: loopback addresses (TCP to 127.0.0.0/8 or ::1).
    Localhost,
    /// `%`: anywhere.
    Any,
    /// An address, or an address pattern with `%` (any run) and `_` (one character), matched
    /// against the client's address as text (`192.168.1.%`).
    Address(String),
}

impl HostPattern {
    pub fn parse(s: &str) -> Result<HostPattern, String> {
        if s == "%" {
            return Ok(HostPattern::Any);
        }
        if s.eq_ignore_ascii_case("localhost") {
            return Ok(HostPattern::Localhost);
        }
        let valid = !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit() || matches!(c, '.' | ':' | '%' | '_'));
        if !valid {
            // Name patterns would need reverse DNS on every connect; selkied does not resolve.
            return Err(format!("host '{s}' is not supported: use %, localhost, an address or an address pattern"));
        }
        Ok(HostPattern::Address(s.to_ascii_lowercase()))
    }

    pub fn matches(&self, ip: IpAddr) -> bool {
        let ip = canonical_ip(ip);
        match self {
            HostPattern::Any => true,
            HostPattern::Localhost => ip.is_loopback(),
            HostPattern::Address(p) => like_match(p.as_bytes(), ip.to_string().as_bytes()),
        }
    }

    /// Lower sorts first: exact hosts before patterns before `%`.
    pub(crate) fn rank(&self) -> u8 {
        match self {
            HostPattern::Localhost => 0,
            HostPattern::Address(p) if !p.contains(['%', '_']) => 0,
            HostPattern::Address(_) => 1,
            HostPattern::Any => 2,
        }
    }
}

/// IPv4 clients of a dual-stack socket appear as `::ffff:a.b.c.d`; treat them as IPv4.
pub fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    }
}

/// The host part MariaDB shows for a client (`USER()`, error messages): `localhost` for loopback
/// (what reverse resolution of 127.0.0.1 gives), otherwise the address.
pub fn display_host(ip: IpAddr) -> String {
    let ip = canonical_ip(ip);
    if ip.is_loopback() {
        "localhost".to_string()
    } else {
        ip.to_string()
    }
}

/// SQL LIKE over bytes with `%` and `_` (no escape character: host patterns do not need one).
fn like_match(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matcher with single backtrack point for the last `%` (linear for these inputs).
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'_' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'%' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'%')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn host_patterns() {
        assert!(HostPattern::parse("localhost").unwrap().matches(ip("127.0.0.1")));
        assert!(HostPattern::parse("localhost").unwrap().matches(ip("::1")));
        assert!(HostPattern::parse("localhost").unwrap().matches(ip("::ffff:127.0.0.1")));
        assert!(!HostPattern::parse("localhost").unwrap().matches(ip("10.0.0.1")));
        assert!(HostPattern::parse("%").unwrap().matches(ip("10.0.0.1")));
        assert!(HostPattern::parse("127.0.0.1").unwrap().matches(ip("127.0.0.1")));
        assert!(!HostPattern::parse("127.0.0.1").unwrap().matches(ip("127.0.0.2")));
        assert!(HostPattern::parse("10.1.%").unwrap().matches(ip("10.1.200.3")));
        assert!(!HostPattern::parse("10.1.%").unwrap().matches(ip("10.11.0.3")));
        assert!(HostPattern::parse("10.0.0._").unwrap().matches(ip("10.0.0.7")));
        assert!(!HostPattern::parse("10.0.0._").unwrap().matches(ip("10.0.0.17")));
        assert!(HostPattern::parse("db.example.com").is_err());
        assert!(HostPattern::parse("").is_err());
    }
}
