//! Accounts and authentication (mysql_native_password).
//!
//! Accounts come from the configuration: `root@localhost` (empty password unless `root_password`
//! is set) plus the `[[users]]` entries. As in MariaDB, the most specific host pattern that
//! matches the client decides which account is checked; a wrong password there is a failure even
//! if a less specific account would have accepted it.

use std::net::IpAddr;

use selkie_protocol::auth::{native_password_hash, verify_native_password};

use crate::config::ServerConfig;

/// Longest user name accepted (MariaDB's limit).
pub const MAX_USER_NAME_LEN: usize = 80;

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
    fn rank(&self) -> u8 {
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

#[derive(Clone, Debug)]
struct Account {
    user: String,
    host: HostPattern,
    /// `SHA1(SHA1(password))`, or `None` for an empty password.
    password: Option<[u8; 20]>,
}

/// Why a login was refused; `message` is MariaDB's text for error 1045.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDenied {
    pub message: String,
}

pub const ACCESS_DENIED_CODE: u16 = 1045;
pub const ACCESS_DENIED_STATE: &str = "28000";

/// The accounts allowed to connect, most specific host first.
#[derive(Clone, Debug)]
pub struct Accounts {
    list: Vec<Account>,
}

fn hash(password: &str) -> Option<[u8; 20]> {
    (!password.is_empty()).then(|| native_password_hash(password.as_bytes()))
}

impl Accounts {
    pub fn from_config(config: &ServerConfig) -> Accounts {
        let mut list = Vec::new();
        let root_overridden = config.users.iter().any(|u| u.name == "root" && u.host.eq_ignore_ascii_case("localhost"));
        if !root_overridden {
            list.push(Account {
                user: "root".to_string(),
                host: HostPattern::Localhost,
                password: hash(config.root_password.as_deref().unwrap_or("")),
            });
        }
        for u in &config.users {
            // Validated when the configuration was resolved.
            let Ok(host) = HostPattern::parse(&u.host) else { continue };
            list.push(Account { user: u.name.clone(), host, password: hash(&u.password) });
        }
        list.sort_by_key(|a| a.host.rank());
        Accounts { list }
    }

    /// Checks `token` (the client's answer to `scramble`) for `user` connecting from `peer`.
    pub fn authenticate(&self, user: &str, peer: IpAddr, scramble: &[u8], token: &[u8]) -> Result<(), AccessDenied> {
        let account = self.list.iter().find(|a| a.user == user && a.host.matches(peer));
        let ok = account.is_some_and(|a| verify_native_password(a.password.as_ref(), scramble, token));
        if ok {
            Ok(())
        } else {
            Err(access_denied(user, &display_host(peer), !token.is_empty()))
        }
    }
}

pub fn access_denied(user: &str, host: &str, using_password: bool) -> AccessDenied {
    let yes_no = if using_password { "YES" } else { "NO" };
    AccessDenied { message: format!("Access denied for user '{user}'@'{host}' (using password: {yes_no})") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Args, UserConfig};
    use selkie_protocol::auth::{native_password_token, new_scramble};

    fn config(root_password: Option<&str>, users: Vec<UserConfig>) -> ServerConfig {
        let mut c = ServerConfig::resolve(Args::default()).unwrap();
        c.root_password = root_password.map(str::to_string);
        c.users = users;
        c
    }

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

    #[test]
    fn default_root_has_empty_password_from_loopback_only() {
        let a = Accounts::from_config(&config(None, vec![]));
        let s = new_scramble();
        assert!(a.authenticate("root", ip("127.0.0.1"), &s, &[]).is_ok());
        let e = a.authenticate("root", ip("10.0.0.2"), &s, &[]).unwrap_err();
        assert_eq!(e.message, "Access denied for user 'root'@'10.0.0.2' (using password: NO)");
        let e = a.authenticate("root", ip("127.0.0.1"), &s, &native_password_token(b"x", &s)).unwrap_err();
        assert_eq!(e.message, "Access denied for user 'root'@'localhost' (using password: YES)");
        assert!(a.authenticate("nobody", ip("127.0.0.1"), &s, &[]).is_err());
    }

    #[test]
    fn configured_passwords_and_most_specific_host_wins() {
        let users = vec![
            UserConfig { name: "app".into(), password: "any-pw".into(), host: "%".into() },
            UserConfig { name: "app".into(), password: "local-pw".into(), host: "127.0.0.1".into() },
        ];
        let a = Accounts::from_config(&config(Some("rootpw"), users));
        let s = new_scramble();
        let tok = |pw: &str| native_password_token(pw.as_bytes(), &s);
        assert!(a.authenticate("root", ip("127.0.0.1"), &s, &tok("rootpw")).is_ok());
        assert!(a.authenticate("root", ip("127.0.0.1"), &s, &[]).is_err());
        assert!(a.authenticate("app", ip("127.0.0.1"), &s, &tok("local-pw")).is_ok());
        assert!(a.authenticate("app", ip("127.0.0.1"), &s, &tok("any-pw")).is_err(), "the exact host entry decides");
        assert!(a.authenticate("app", ip("10.2.3.4"), &s, &tok("any-pw")).is_ok());
    }
}
