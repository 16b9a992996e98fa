//! Client authentication at the proxy and the credentials the proxy presents to backends.
//!
//! mysql_native_password never sends the password: the client answers a scramble `S` with
//! `token = SHA1(pw) XOR SHA1(S || SHA1(SHA1(pw)))`. A proxy that only knows the stored hash
//! `SHA1(SHA1(pw))` (mysql.user's `Password` column) cannot compute a token for a backend's
//! scramble from it. But it can do what MaxScale does: XOR the client's token with
//! `SHA1(S || stored)` to recover `SHA1(pw)`, check it (`SHA1` of it must equal `stored`), and
//! keep it for the session. `SHA1(pw)` is exactly what answering any other scramble takes:
//! `token' = SHA1(pw) XOR SHA1(S' || SHA1(SHA1(pw)))`. The clear password is never needed, and
//! what the proxy holds (`SHA1(pw)`) is only as sensitive as a captured native-password login.
//! The SHA-1 arithmetic itself is `selkie_protocol::auth`'s, the same that selkied verifies with.

use std::collections::HashMap;

use selkie_protocol::auth::{
    native_password_answer, native_password_hash, parse_native_password_hex, recover_native_password_stage1,
};

use crate::config::{UserEntry, UsersConfig};

/// `SHA1(password)`: what a session keeps to log in to its backends (`None`: empty password).
pub type Stage1 = [u8; 20];
/// `SHA1(SHA1(password))`, the stored form.
pub type Stage2 = [u8; 20];

/// A user's stored credential: `None` for an account without password.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Credential {
    pub stage2: Option<Stage2>,
}

impl Credential {
    pub fn from_password(password: &str) -> Credential {
        if password.is_empty() {
            Credential { stage2: None }
        } else {
            Credential { stage2: Some(native_password_hash(password.as_bytes())) }
        }
    }
}

/// What a successful login yields: the secret for answering backend scrambles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendSecret {
    pub stage1: Option<Stage1>,
}

/// Checks a client's `token` for `scramble` against `stored`; on success returns the secret
/// that lets the proxy log in to backends as this user.
pub fn verify_and_recover(stored: &Credential, scramble: &[u8], token: &[u8]) -> Option<BackendSecret> {
    match stored.stage2 {
        None => token.is_empty().then_some(BackendSecret { stage1: None }),
        Some(stage2) => recover_native_password_stage1(&stage2, scramble, token)
            .map(|stage1| BackendSecret { stage1: Some(stage1) }),
    }
}

/// The answer to a backend's `scramble` (empty for an account without password).
pub fn backend_token(secret: &BackendSecret, scramble: &[u8]) -> Vec<u8> {
    match &secret.stage1 {
        None => Vec::new(),
        Some(stage1) => native_password_answer(stage1, scramble),
    }
}

/// The users the proxy accepts. A name may have several stored credentials (one per host entry
/// of mysql.user); a login is accepted if any matches, and the backend then applies its own
/// host rules when the proxy logs in with the recovered secret.
#[derive(Clone, Debug, Default)]
pub struct UserTable {
    users: HashMap<String, Vec<Credential>>,
}

impl UserTable {
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    pub fn len(&self) -> usize {
        self.users.len()
    }

    pub fn add(&mut self, name: &str, credential: Credential) {
        let list = self.users.entry(name.to_string()).or_default();
        if !list.contains(&credential) {
            list.push(credential);
        }
    }

    /// Replaces every credential of `name` (configured users override fetched ones).
    pub fn set(&mut self, name: &str, credential: Credential) {
        self.users.insert(name.to_string(), vec![credential]);
    }

    pub fn contains(&self, name: &str) -> bool {
        self.users.contains_key(name)
    }

    /// `Some(secret)` when `user` exists and `token` answers `scramble` for one of its credentials.
    pub fn authenticate(&self, user: &str, scramble: &[u8], token: &[u8]) -> Option<BackendSecret> {
        self.users.get(user)?.iter().find_map(|c| verify_and_recover(c, scramble, token))
    }

    /// The configured `[[users.list]]` entries (validated by config).
    pub fn from_config(users: &UsersConfig) -> UserTable {
        let mut t = UserTable::default();
        t.merge_config(&users.list);
        t
    }

    pub fn merge_config(&mut self, list: &[UserEntry]) {
        for u in list {
            let credential = match (&u.password, &u.password_hash) {
                (Some(pw), _) => Credential::from_password(pw),
                (None, Some(h)) => match parse_native_password_hex(h) {
                    Some(stage2) => Credential { stage2 },
                    None => continue,
                },
                (None, None) => Credential { stage2: None },
            };
            self.set(&u.name, credential);
        }
    }

    /// Adds the rows of `SELECT User, Password, plugin FROM mysql.user` (native-password and
    /// password-less accounts; other plugins cannot be proxied this way and are skipped).
    /// Returns how many rows were skipped.
    pub fn merge_mysql_user_rows(&mut self, rows: &[(String, String, String)]) -> usize {
        let mut skipped = 0;
        for (user, password, plugin) in rows {
            let native = plugin.is_empty() || plugin.eq_ignore_ascii_case("mysql_native_password");
            match parse_native_password_hex(password) {
                Some(stage2) if native && !user.is_empty() => self.add(user, Credential { stage2 }),
                _ => skipped += 1,
            }
        }
        skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_protocol::auth::{native_password_hash, native_password_token, new_scramble, verify_native_password};

    #[test]
    fn recovered_secret_answers_any_other_scramble() {
        let stored = Credential::from_password("s3cret");
        assert_eq!(stored.stage2, Some(native_password_hash(b"s3cret")));
        let client_scramble = new_scramble();
        let token = native_password_token(b"s3cret", &client_scramble);
        let secret = verify_and_recover(&stored, &client_scramble, &token).expect("right password accepted");
        // The backend sees a different scramble; the proxy's answer must verify there.
        let backend_scramble = new_scramble();
        let answer = backend_token(&secret, &backend_scramble);
        assert!(verify_native_password(Some(&native_password_hash(b"s3cret")), &backend_scramble, &answer));
        assert_eq!(answer, native_password_token(b"s3cret", &backend_scramble));
    }

    #[test]
    fn wrong_password_and_malformed_tokens_are_refused() {
        let stored = Credential::from_password("pw");
        let s = new_scramble();
        assert!(verify_and_recover(&stored, &s, &native_password_token(b"pX", &s)).is_none());
        assert!(verify_and_recover(&stored, &s, &[]).is_none());
        assert!(verify_and_recover(&stored, &s, &[1; 19]).is_none());
        let empty = Credential::from_password("");
        assert_eq!(verify_and_recover(&empty, &s, &[]), Some(BackendSecret { stage1: None }));
        assert!(verify_and_recover(&empty, &s, &native_password_token(b"pw", &s)).is_none());
        assert!(backend_token(&BackendSecret { stage1: None }, &s).is_empty());
    }

    #[test]
    fn table_accepts_any_matching_host_entry_and_skips_other_plugins() {
        let mut t = UserTable::default();
        let rows = vec![
            (
                "app".to_string(),
                "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7".to_string(),
                "mysql_native_password".to_string(),
            ),
            ("app".to_string(), String::new(), String::new()),
            ("sock".to_string(), String::new(), "unix_socket".to_string()),
            ("bad".to_string(), "garbage".to_string(), String::new()),
        ];
        assert_eq!(t.merge_mysql_user_rows(&rows), 2);
        let s = new_scramble();
        assert!(t.authenticate("app", &s, &native_password_token(b"secret", &s)).is_some());
        assert!(t.authenticate("app", &s, &[]).is_some());
        assert!(t.authenticate("app", &s, &native_password_token(b"other", &s)).is_none());
        assert!(!t.contains("sock") && !t.contains("bad"));
        assert!(t.authenticate("nobody", &s, &[]).is_none());
        // Configured entries replace fetched ones.
        t.merge_config(&[UserEntry { name: "app".into(), password: Some("new".into()), password_hash: None }]);
        assert!(t.authenticate("app", &s, &[]).is_none());
        assert!(t.authenticate("app", &s, &native_password_token(b"new", &s)).is_some());
        assert_eq!(t.len(), 1);
    }
}
