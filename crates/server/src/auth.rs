//! Accounts and authentication (mysql_native_password).
//!
//! Accounts come from the configuration: `root@localhost` (empty password unless `root_password`
//! is set) plus the `[[users]]` entries. As in MariaDB, the most specific host pattern that
//! matches the client decides which account is checked; a wrong password there is a failure even
//! if a less specific account would have accepted it.

use std::net::IpAddr;

use selkie_protocol::auth::{native_password_hash, verify_native_password};

use crate::config::ServerConfig;
// Connections name the host they show through here, next to the access-denied text that uses it.
pub use crate::host::display_host;
use crate::host::HostPattern;

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
