//! mysql_native_password: the challenge (scramble) and the SHA-1 based proof.
//!
//! The client proves knowledge of the password without sending it:
//! `token = SHA1(password) XOR SHA1(scramble || SHA1(SHA1(password)))`.
//! The server stores only `SHA1(SHA1(password))` (what `PASSWORD()` shows after the `*`), recovers
//! the candidate `SHA1(password)` from the token and checks that hashing it gives the stored value.

use rand::Rng;
use sha1::{Digest, Sha1};

use crate::constants::SCRAMBLE_LEN;

/// A fresh random challenge. Bytes are printable ASCII (0x21..=0x7E), as MySQL generates them:
/// the second half travels NUL-terminated in the greeting, so it must contain no NUL.
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut rng = rand::thread_rng();
    let mut s = [0u8; SCRAMBLE_LEN];
    for b in &mut s {
        *b = rng.gen_range(0x21..=0x7E);
    }
    s
}

fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// `SHA1(password)`. Whoever holds it can answer any scramble (`native_password_answer`)
/// without the password itself: a proxy recovers it from a client's token
/// (`recover_native_password_stage1`) to log in to its backends as that client.
pub fn native_password_stage1(password: &[u8]) -> [u8; 20] {
    sha1(&[password])
}

/// `SHA1(SHA1(password))`: what the server stores for a user.
pub fn native_password_hash(password: &[u8]) -> [u8; 20] {
    sha1(&[&native_password_stage1(password)])
}

/// The answer to `scramble` from `SHA1(password)`: `stage1 XOR SHA1(scramble || SHA1(stage1))`.
pub fn native_password_answer(stage1: &[u8; 20], scramble: &[u8]) -> Vec<u8> {
    let stage2 = sha1(&[stage1]);
    let mix = sha1(&[scramble, &stage2]);
    stage1.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect()
}

/// The client's answer to `scramble` (empty for an empty password, as clients send it).
pub fn native_password_token(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    native_password_answer(&native_password_stage1(password), scramble)
}

/// Undoes the XOR of a client's token with `SHA1(scramble || stored)` and returns the
/// `SHA1(password)` it carried, if hashing that gives `stored` (i.e. the token is right).
pub fn recover_native_password_stage1(stored: &[u8; 20], scramble: &[u8], token: &[u8]) -> Option<[u8; 20]> {
    if token.len() != 20 {
        return None;
    }
    let mix = sha1(&[scramble, stored]);
    let mut stage1 = [0u8; 20];
    for i in 0..20 {
        stage1[i] = token[i] ^ mix[i];
    }
    // Not constant-time; the hash of a random challenge leaks nothing usable by timing
    // beyond what the 20-byte comparison of two SHA-1 outputs could.
    (sha1(&[&stage1]) == *stored).then_some(stage1)
}

/// Checks a client token against the stored hash (`None` = the account has no password).
pub fn verify_native_password(stored: Option<&[u8; 20]>, scramble: &[u8], token: &[u8]) -> bool {
    match stored {
        None => token.is_empty(),
        Some(stage2) => recover_native_password_stage1(stage2, scramble, token).is_some(),
    }
}

/// The `*HEX` form of a stored hash, as MariaDB's PASSWORD() prints it.
pub fn native_password_hex(hash: &[u8; 20]) -> String {
    let mut s = String::with_capacity(41);
    s.push('*');
    for b in hash {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

/// Parses a stored password as mysql.user's `Password` column and `PASSWORD()` write it: the
/// 41-character `*HEX` form, or empty for an account without password (`Some(None)`).
/// `None`: the text is neither.
pub fn parse_native_password_hex(text: &str) -> Option<Option<[u8; 20]>> {
    if text.is_empty() {
        return Some(None);
    }
    let hex = text.strip_prefix('*')?;
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_mariadb_password_function() {
        // SELECT PASSWORD('secret') on MariaDB 10.11.
        assert_eq!(native_password_hex(&native_password_hash(b"secret")), "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
    }

    #[test]
    fn token_verifies_only_with_the_right_password_and_scramble() {
        let scramble = new_scramble();
        assert!(scramble.iter().all(|&b| (0x21..=0x7E).contains(&b)));
        let stored = native_password_hash(b"pw");
        let token = native_password_token(b"pw", &scramble);
        assert_eq!(token.len(), 20);
        assert!(verify_native_password(Some(&stored), &scramble, &token));
        assert!(!verify_native_password(Some(&stored), &scramble, &native_password_token(b"pX", &scramble)));
        let other = new_scramble();
        assert!(other == scramble || !verify_native_password(Some(&stored), &other, &token));
        assert!(!verify_native_password(Some(&stored), &scramble, &[]));
        assert!(!verify_native_password(Some(&stored), &scramble, &token[..19]));
        assert!(verify_native_password(None, &scramble, &[]));
        assert!(!verify_native_password(None, &scramble, &token));
    }

    #[test]
    fn recovered_stage1_answers_any_other_scramble() {
        let stored = native_password_hash(b"s3cret");
        let first = new_scramble();
        let stage1 = recover_native_password_stage1(&stored, &first, &native_password_token(b"s3cret", &first))
            .expect("right password accepted");
        assert_eq!(stage1, native_password_stage1(b"s3cret"));
        let second = new_scramble();
        assert_eq!(native_password_answer(&stage1, &second), native_password_token(b"s3cret", &second));
        assert!(recover_native_password_stage1(&stored, &first, &native_password_token(b"pX", &first)).is_none());
    }

    #[test]
    fn password_hash_text_round_trips_with_mariadb_form() {
        // SELECT PASSWORD('secret') on MariaDB 10.11.
        let h = parse_native_password_hex("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7").unwrap().unwrap();
        assert_eq!(h, native_password_hash(b"secret"));
        assert_eq!(native_password_hex(&h), "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
        assert_eq!(parse_native_password_hex(""), Some(None));
        assert_eq!(parse_native_password_hex("14E65567ABDB5135D0CFD9A70B3032C179A49EE7"), None);
        assert_eq!(parse_native_password_hex("*14E6"), None);
        assert_eq!(parse_native_password_hex("*ZZE65567ABDB5135D0CFD9A70B3032C179A49EE7"), None);
        // Multi-byte characters must not panic the slicing.
        assert_eq!(parse_native_password_hex("*é4E65567ABDB5135D0CFD9A70B3032C179A49EE"), None);
    }
}
