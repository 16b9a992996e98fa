//! What a collation does to strings: each character's weight, comparison (with PAD SPACE or
//! NO PAD), sort keys and LIKE.
//!
//! Text arrives as utf8mb4 bytes (see the module above); a byte sequence that is not UTF-8
//! (binary data stored in a text column) weighs byte by byte above every character, so that
//! comparison stays a total order.
//!
//! Sort keys are built so that memcmp of two keys gives the collation's order and equal keys
//! mean equal strings. Under NO PAD a key is the weights one after another (fixed width, so a
//! prefix sorts first). Under PAD SPACE a string compares as if followed by endless spaces,
//! which a plain weight list cannot express ('a\t' < 'a' < 'a!' while 'a' is a prefix of
//! both): the key is the weights in chunks of `PAD_CHUNK`, the last padded with spaces, each
//! followed by a byte saying whether the rest of the string sorts below, equal to (the end) or
//! above endless spaces (MyRocks encodes PAD SPACE keys the same way).
//!
//! UTF-8 `_bin` collations weigh bytes: UTF-8's byte order is its code point order, so their
//! weights are the text's own bytes and a key costs a copy plus a byte per chunk.

use std::cmp::Ordering;

use super::convert::latin1_byte;
use super::tables::{GENERAL_CI_PAGES, LATIN1_GENERAL_CI, LATIN1_GENERAL_CS, LATIN1_SWEDISH_CI};
use super::uca::Uca;
use super::{Collation, Weighing};

const SPACE: u32 = 0x20;
/// utf8mb4_general_ci weighs every character beyond the BMP the same, as U+FFFD.
const GENERAL_CI_SUPPLEMENTARY: u32 = 0xFFFD;
/// A byte that is not UTF-8 reads as this plus the byte: above every code point.
const INVALID_BYTE_BASE: u32 = 0x110000;
/// general_ci's weight of a byte that is not UTF-8 (weights are 16 bits): above every
/// character's.
const INVALID_GENERAL_WEIGHT: u32 = 0xFFFF;

/// The next character of `s` at `i`: its code point (or `INVALID_BYTE_BASE + byte`) and length.
#[inline]
fn next_char(s: &[u8], i: usize) -> (u32, usize) {
    let b0 = s[i];
    if b0 < 0x80 {
        return (b0 as u32, 1);
    }
    let (len, init) = match b0 {
        0xC2..=0xDF => (2, (b0 & 0x1F) as u32),
        0xE0..=0xEF => (3, (b0 & 0x0F) as u32),
        0xF0..=0xF4 => (4, (b0 & 0x07) as u32),
        _ => return (INVALID_BYTE_BASE + b0 as u32, 1),
    };
    if i + len > s.len() {
        return (INVALID_BYTE_BASE + b0 as u32, 1);
    }
    let mut cp = init;
    for &b in &s[i + 1..i + len] {
        if b & 0xC0 != 0x80 {
            return (INVALID_BYTE_BASE + b0 as u32, 1);
        }
        cp = (cp << 6) | (b & 0x3F) as u32;
    }
    let min = [0, 0, 0x80, 0x800, 0x10000][len];
    if cp < min || cp > 0x10FFFF || (0xD800..=0xDFFF).contains(&cp) {
        return (INVALID_BYTE_BASE + b0 as u32, 1);
    }
    (cp, len)
}

impl Collation {
    /// The weight of character (or invalid byte) `cp` under this collation, for collations
    /// that weigh characters (not the UTF-8 `_bin` ones, which weigh bytes).
    #[inline]
    pub fn weight(self, cp: u32) -> u32 {
        match self.0.weighing {
            Weighing::Binary | Weighing::FixedBinary(_) => cp,
            Weighing::CodePoint => match self.0.charset {
                // latin1's byte order is not its characters' code point order (0x80 is €).
                "latin1" => char::from_u32(cp).and_then(latin1_byte).map_or(b'?' as u32, u32::from),
                _ => cp,
            },
            Weighing::Uca(..) => {
                // Collations of several weights per character go through `weights`; this is
                // the first weight, for callers that want one.
                let mut w = Vec::with_capacity(2);
                self.uca().expect("a UCA collation").push_char(cp, &mut w);
                w.first().map_or(0, |w| *w as u32)
            }
            Weighing::UnicodeGeneralMysql500 if cp == 0xDF => 0xDF,
            Weighing::UnicodeGeneral | Weighing::UnicodeGeneralMysql500 => {
                if cp >= INVALID_BYTE_BASE {
                    return INVALID_GENERAL_WEIGHT;
                }
                if cp > 0xFFFF {
                    return GENERAL_CI_SUPPLEMENTARY;
                }
                match GENERAL_CI_PAGES[(cp >> 8) as usize] {
                    Some(page) => page[(cp & 0xFF) as usize] as u32,
                    None => cp,
                }
            }
            Weighing::Latin1Swedish => {
                let byte = char::from_u32(cp).and_then(latin1_byte).unwrap_or(b'?');
                let byte = if self.0.charset == "ascii" && byte >= 0x80 { b'?' } else { byte };
                LATIN1_SWEDISH_CI[byte as usize] as u32
            }
            Weighing::Latin1General => {
                let byte = char::from_u32(cp).and_then(latin1_byte).unwrap_or(b'?');
                LATIN1_GENERAL_CI[byte as usize] as u32
            }
            Weighing::Latin1GeneralCs => {
                let byte = char::from_u32(cp).and_then(latin1_byte).unwrap_or(b'?');
                LATIN1_GENERAL_CS[byte as usize] as u32
            }
        }
    }

    /// The collation weighs bytes rather than characters (`binary`, UTF-8 `_bin`).
    #[inline]
    fn weighs_bytes(self) -> bool {
        match self.0.weighing {
            // A fixed binary value's text, where it is matched as text (LIKE).
            Weighing::Binary | Weighing::FixedBinary(_) => true,
            Weighing::CodePoint => self.0.charset != "latin1",
            _ => false,
        }
    }

    /// Bytes per weight in a sort key.
    fn weight_width(self) -> usize {
        match self.0.weighing {
            Weighing::UnicodeGeneral | Weighing::UnicodeGeneralMysql500 | Weighing::Uca(..) => 2,
            _ => 1,
        }
    }

    /// The weight a space pads with under PAD SPACE.
    #[inline]
    fn space_weight(self) -> u32 {
        match self.uca() {
            Some(u) => u.space as u32,
            None => SPACE,
        }
    }

    /// The weights of `s`: its bytes, or its characters' weights (for a UCA collation, zero or
    /// more per character, and one per contraction).
    fn weights(self, s: &[u8]) -> Vec<u32> {
        if self.weighs_bytes() {
            return s.iter().map(|b| *b as u32).collect();
        }
        if let Some(u) = self.uca() {
            return uca_weights(u, s).into_iter().map(u32::from).collect();
        }
        let mut out = Vec::with_capacity(s.len());
        let mut i = 0;
        while i < s.len() {
            let (cp, len) = next_char(s, i);
            i += len;
            out.push(self.weight(cp));
        }
        out
    }

    /// Compares two strings under this collation.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        if let Weighing::FixedBinary(kind) = self.0.weighing {
            return kind.compare(a, b);
        }
        if self.weighs_bytes() {
            let common = a.len().min(b.len());
            let ord = a[..common].cmp(&b[..common]);
            if ord != Ordering::Equal || !self.0.pad_space {
                return ord.then(a.len().cmp(&b.len()));
            }
            return pad_rest(&a[common..], &b[common..], SPACE, |x| *x as u32);
        }
        let wa = self.weights(a);
        let wb = self.weights(b);
        let common = wa.len().min(wb.len());
        let ord = wa[..common].cmp(&wb[..common]);
        if ord != Ordering::Equal || !self.0.pad_space {
            return ord.then(wa.len().cmp(&wb.len()));
        }
        pad_rest(&wa[common..], &wb[common..], self.space_weight(), |x| *x)
    }

    /// Appends the sort key of `s`: memcmp order of keys is this collation's order, and equal
    /// keys are equal strings.
    pub fn sort_key(self, s: &[u8], out: &mut Vec<u8>) {
        if let Weighing::FixedBinary(kind) = self.0.weighing {
            return kind.sort_key(s, out);
        }
        if self.weighs_bytes() && !self.0.pad_space {
            out.extend_from_slice(s);
            return;
        }
        let weights = self.weights(s);
        let width = self.weight_width();
        if !self.0.pad_space {
            for w in weights {
                push_weight(out, w, width);
            }
            return;
        }
        pad_space_key(&weights, width, self.space_weight(), out);
    }

    /// WEIGHT_STRING(s) as MariaDB returns it: every weight of every character, trailing spaces
    /// included, big-endian in the collation's weight width (`binary`: the bytes; the UTF-8
    /// `_bin` collations: code points, 3 bytes each, 2 under utf8mb3). None for a collation this does not cover.
    pub fn weight_string(self, s: &[u8]) -> Option<Vec<u8>> {
        if self.weighs_bytes() {
            if self.is_binary() {
                return Some(s.to_vec());
            }
            let width = self.bin_weight_width();
            let mut out = Vec::with_capacity(s.len() * width);
            let mut i = 0;
            while i < s.len() {
                let (cp, len) = next_char(s, i);
                i += len;
                out.extend_from_slice(&cp.to_be_bytes()[4 - width..]);
            }
            return Some(out);
        }
        let width = self.weight_width();
        let mut out = Vec::with_capacity(s.len() * width);
        for w in self.weights(s) {
            push_weight(&mut out, w, width);
        }
        Some(out)
    }

    /// Bytes per code point in WEIGHT_STRING() under a UTF-8 `_bin` collation (utf8mb3 holds
    /// the BMP only).
    fn bin_weight_width(self) -> usize {
        if self.0.charset == "utf8mb3" {
            2
        } else {
            3
        }
    }

    /// The declared length of WEIGHT_STRING() of a string of `chars` characters (MariaDB:
    /// characters times Sortlen times the weight width).
    pub fn weight_string_max_len(self, chars: u64) -> u64 {
        if self.weighs_bytes() {
            return if self.is_binary() { chars } else { chars * self.bin_weight_width() as u64 };
        }
        chars * self.0.sort_len * self.weight_width() as u64
    }

    /// The bytes that begin the sort key of every string starting with `prefix`, for
    /// collations that give each character one weight (not UCA's contractions): LIKE
    /// 'prefix%' reads the index keys that begin so. None where the keys share no such
    /// beginning: a prefix ending in a space, or longer than the first chunk of a PAD SPACE
    /// key (`pad_space_key`).
    pub fn sort_key_prefix(self, prefix: &[u8]) -> Option<Vec<u8>> {
        // UCA keys expand and contract ('ch' under czech is one weight): a prefix's key need
        // not begin the keys of the strings it begins.
        if self.uca().is_some() || matches!(self.0.weighing, Weighing::FixedBinary(_)) {
            return None;
        }
        if self.weighs_bytes() && !self.0.pad_space {
            return Some(prefix.to_vec());
        }
        let weights = self.weights(prefix);
        if self.0.pad_space && (weights.len() > PAD_CHUNK || weights.last() == Some(&SPACE)) {
            return None;
        }
        let width = self.weight_width();
        let mut out = Vec::with_capacity(weights.len() * width);
        for w in weights {
            push_weight(&mut out, w, width);
        }
        Some(out)
    }

    /// `s LIKE pattern` under this collation: characters match when their weights are equal;
    /// `_` is one character, `%` any run, `escape` quotes the next character. No padding:
    /// 'a ' LIKE 'a' is false, as in MariaDB.
    pub fn like(self, s: &[u8], pattern: &[u8], escape: u32) -> bool {
        if let Some(u) = self.uca() {
            return uca_like(u, s, pattern, escape);
        }
        let weigh = |cp: u32| if self.weighs_bytes() { cp } else { self.weight(cp) };
        let subject: Vec<u32> = if self.weighs_bytes() {
            // Byte weights would let `_` match one byte of a multi-byte character.
            let mut out = Vec::with_capacity(s.len());
            let mut i = 0;
            while i < s.len() {
                let (cp, len) = next_char(s, i);
                i += len;
                out.push(cp);
            }
            out
        } else {
            self.weights(s)
        };
        like_match(&subject, &like_pattern(pattern, escape, weigh))
    }
}

/// The weights of `s` under UCA collation `u`: each character's, or a contraction's where a
/// tailoring has one.
fn uca_weights(u: &Uca, s: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len() + s.len() / 2);
    if !u.has_contractions() {
        let mut i = 0;
        while i < s.len() {
            let (cp, len) = next_char(s, i);
            i += len;
            u.push_char(cp, &mut out);
        }
        return out;
    }
    let mut cps = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (cp, len) = next_char(s, i);
        i += len;
        cps.push(cp);
    }
    let mut i = 0;
    while i < cps.len() {
        match u.contraction(cps[i], &cps[i + 1..]) {
            Some((rest, w)) => {
                out.extend_from_slice(w);
                i += 1 + rest;
            }
            None => {
                u.push_char(cps[i], &mut out);
                i += 1;
            }
        }
    }
    out
}

/// One character's weights as one comparable value (LIKE compares whole characters).
fn uca_char_key(u: &Uca, cp: u32, buf: &mut Vec<u16>) -> u128 {
    buf.clear();
    u.push_char(cp, buf);
    // Weights are never 0, so packing up to 8 leaves no two sequences alike; the longest
    // expansion of the tables is 8 weights, longer ones (none today) fold in the rest.
    let mut key = 0u128;
    for (i, w) in buf.iter().enumerate() {
        if i < 8 {
            key = (key << 16) | *w as u128;
        } else {
            key = key.rotate_left(16) ^ *w as u128;
        }
    }
    key
}

/// LIKE under a UCA collation as MariaDB does it: character by character, a character of the
/// subject matching a pattern character when their weights are the same ('ß' LIKE 'ss' is
/// false though 'ß' = 'ss'; 'ch' LIKE 'c%' is true under Czech, contractions play no part);
/// `_` is one character, even an ignorable one.
fn uca_like(u: &Uca, s: &[u8], pattern: &[u8], escape: u32) -> bool {
    let mut buf = Vec::with_capacity(8);
    let mut subject = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (cp, len) = next_char(s, i);
        i += len;
        subject.push(uca_char_key(u, cp, &mut buf));
    }
    let pat = like_pattern(pattern, escape, |cp| uca_char_key(u, cp, &mut buf));
    like_match(&subject, &pat)
}

/// A LIKE pattern as items: `%`, `_`, and characters weighed by `weigh` (`escape` quotes the
/// next character).
fn like_pattern<W>(pattern: &[u8], escape: u32, mut weigh: impl FnMut(u32) -> W) -> Vec<LikeItem<W>> {
    let mut pat = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        let (cp, len) = next_char(pattern, i);
        i += len;
        if cp == escape && i < pattern.len() {
            let (next, l) = next_char(pattern, i);
            i += l;
            pat.push(LikeItem::Weight(weigh(next)));
            continue;
        }
        pat.push(match cp {
            0x25 => LikeItem::AnyRun,
            0x5F => LikeItem::AnyOne,
            _ => LikeItem::Weight(weigh(cp)),
        });
    }
    pat
}

#[derive(Clone, Copy, PartialEq)]
enum LikeItem<W> {
    Weight(W),
    AnyOne,
    AnyRun,
}

/// Wildcard matching with backtracking to the last `%` only (linear for most patterns).
fn like_match<W: Copy + PartialEq>(s: &[W], p: &[LikeItem<W>]) -> bool {
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(LikeItem::AnyRun) => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(LikeItem::AnyOne) => {
                si += 1;
                pi += 1;
            }
            Some(LikeItem::Weight(w)) if *w == s[si] => {
                si += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|i| *i == LikeItem::AnyRun)
}

fn push_weight(out: &mut Vec<u8>, w: u32, width: usize) {
    out.extend_from_slice(&w.to_be_bytes()[4 - width..]);
}

/// The order of two strings that agree up to where the shorter ends: the longer one's rest
/// against spaces (PAD SPACE).
fn pad_rest<T>(rest_a: &[T], rest_b: &[T], space: u32, weight: impl Fn(&T) -> u32) -> Ordering {
    let vs_spaces =
        |rest: &[T]| rest.iter().map(&weight).find(|w| *w != space).map_or(Ordering::Equal, |w| w.cmp(&space));
    if rest_a.is_empty() {
        vs_spaces(rest_b).reverse()
    } else {
        vs_spaces(rest_a)
    }
}

/// Weights per chunk of a PAD SPACE key.
const PAD_CHUNK: usize = 8;
/// What follows a chunk of a PAD SPACE key: the rest sorts below endless spaces, is only
/// spaces (the key ends), or sorts above them.
const REST_BELOW_SPACES: u8 = 0;
const REST_SPACES: u8 = 1;
const REST_ABOVE_SPACES: u8 = 2;

fn pad_space_key(weights: &[u32], width: usize, space: u32, out: &mut Vec<u8>) {
    let len = weights.iter().rposition(|w| *w != space).map_or(0, |p| p + 1);
    let weights = &weights[..len];
    let mut start = 0;
    loop {
        let end = (start + PAD_CHUNK).min(len);
        for &w in &weights[start..end] {
            push_weight(out, w, width);
        }
        for _ in end..start + PAD_CHUNK {
            push_weight(out, space, width);
        }
        // Trailing spaces are gone, so the rest is empty or has a character other than space.
        match weights[end..].iter().find(|w| **w != space) {
            None => {
                out.push(REST_SPACES);
                return;
            }
            Some(w) if *w < space => out.push(REST_BELOW_SPACES),
            Some(_) => out.push(REST_ABOVE_SPACES),
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> Collation {
        Collation::named(name).unwrap()
    }

    fn key(coll: Collation, s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        coll.sort_key(s.as_bytes(), &mut out);
        out
    }

    #[test]
    fn general_ci_folds_case_and_accents_as_mariadb() {
        let g = c("utf8mb4_general_ci");
        for (a, b) in [("a", "A"), ("a", "a "), ("ß", "s"), ("é", "E"), ("Ä", "a"), ("ё", "Е"), ("😀", "😁")] {
            assert_eq!(g.compare(a.as_bytes(), b.as_bytes()), Ordering::Equal, "{a} = {b}");
            assert_eq!(key(g, a), key(g, b), "{a} = {b}");
        }
        assert_eq!(g.compare(b"a", b"b"), Ordering::Less);
        assert_eq!(g.compare("й".as_bytes(), "и".as_bytes()), Ordering::Greater);
        assert_eq!(g.compare(b"a\t", b"a"), Ordering::Less, "PAD SPACE: a tab is below the padding");
        let nopad = c("utf8mb4_general_nopad_ci");
        assert_eq!(nopad.compare(b"a ", b"A"), Ordering::Greater);
    }

    #[test]
    fn bin_pads_and_nopad_bin_does_not() {
        let bin = c("utf8mb4_bin");
        assert_eq!(bin.compare(b"a ", b"a"), Ordering::Equal);
        assert_eq!(bin.compare(b"a", b"A"), Ordering::Greater);
        assert_eq!(c("utf8mb4_nopad_bin").compare(b"a ", b"a"), Ordering::Greater);
        assert_eq!(Collation::binary().compare(b"a ", b"a"), Ordering::Greater);
    }

    #[test]
    fn latin1_swedish_puts_swedish_letters_after_z() {
        let sw = c("latin1_swedish_ci");
        assert_eq!(sw.compare("Å".as_bytes(), b"z"), Ordering::Greater);
        assert_eq!(sw.compare("é".as_bytes(), b"E"), Ordering::Equal);
        assert_eq!(sw.compare("ü".as_bytes(), b"y"), Ordering::Equal);
        assert_eq!(c("latin1_bin").compare("€".as_bytes(), "À".as_bytes()), Ordering::Less);
    }

    #[test]
    fn sort_keys_order_as_compare() {
        let words = [
            "", " ", "a", "A", "a ", "a\t", "a\t ", "a  \t", "a !", "a!", "ab", "a b", "b", "é", "ß", "ss", "\t", "z",
            "Å", "😀", "ch", "cH", "h", "i", "aa", "\u{0}", "a\u{0}", "ﬁ", "fi", "a\u{a0}",
        ];
        for name in [
            "utf8mb4_general_ci",
            "utf8mb4_bin",
            "utf8mb4_nopad_bin",
            "utf8mb4_general_nopad_ci",
            "latin1_swedish_ci",
            "latin1_bin",
            "utf8mb4_unicode_ci",
            "utf8mb4_unicode_520_ci",
            "utf8mb4_unicode_nopad_ci",
            "utf8mb4_czech_ci",
            "utf8mb3_danish_ci",
        ] {
            let coll = c(name);
            for a in words {
                for b in words {
                    assert_eq!(
                        key(coll, a).cmp(&key(coll, b)),
                        coll.compare(a.as_bytes(), b.as_bytes()),
                        "{name}: {a:?} vs {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn like_weighs_characters() {
        let g = c("utf8mb4_general_ci");
        assert!(g.like("Straße".as_bytes(), b"STRASE", '\\' as u32));
        assert!(g.like(b"Hello", b"h%O", '\\' as u32));
        assert!(g.like(b"a_c", b"a\\_C", '\\' as u32));
        assert!(!g.like(b"abc", b"a\\_c", '\\' as u32));
        assert!(!g.like(b"a ", b"a", '\\' as u32));
        assert!(g.like("é".as_bytes(), b"_", '\\' as u32));
        assert!(!c("utf8mb4_bin").like(b"A", b"a", '\\' as u32));
    }

    #[test]
    fn sort_keys_begin_with_their_prefixs_key() {
        for name in ["utf8mb4_general_ci", "latin1_swedish_ci", "utf8mb4_bin", "utf8mb4_nopad_bin"] {
            let coll = c(name);
            for prefix in ["a", "Abc", "ab c", "äB", "abcdefgh"] {
                let start = coll.sort_key_prefix(prefix.as_bytes()).unwrap();
                for rest in ["", " ", "\t", "x", "  z", "\u{1}", "ÿÿ", "abcdefghijklmnop"] {
                    let mut key = Vec::new();
                    coll.sort_key(format!("{prefix}{rest}").as_bytes(), &mut key);
                    assert!(key.starts_with(&start), "{name} {prefix:?} {rest:?}");
                }
            }
        }
        // A PAD SPACE key's first chunk holds eight characters; a prefix ending in a space has
        // no common beginning (the space is dropped from 'ab ' but not from 'ab c').
        assert_eq!(c("utf8mb4_general_ci").sort_key_prefix(b"abcdefghi"), None);
        assert_eq!(c("utf8mb4_general_ci").sort_key_prefix(b"ab "), None);
    }

    #[test]
    fn uca_expands_contracts_and_pads_as_mariadb() {
        let u = c("utf8mb4_unicode_ci");
        let eq = |coll: Collation, a: &str, b: &str| coll.compare(a.as_bytes(), b.as_bytes()) == Ordering::Equal;
        // Checked on MariaDB 10.11.
        assert!(eq(u, "ß", "ss") && !eq(u, "ß", "s") && !eq(u, "æ", "ae") && eq(u, "a ", "A"));
        assert!(!eq(c("utf8mb4_unicode_nopad_ci"), "a ", "a"));
        assert!(eq(c("utf8mb4_german2_ci"), "ä", "ae") && !eq(u, "ä", "ae"));
        assert_eq!(c("utf8mb4_spanish_ci").compare("ñ".as_bytes(), b"nz"), Ordering::Greater);
        assert_eq!(u.compare("ñ".as_bytes(), b"nz"), Ordering::Less);
        assert_eq!(c("utf8mb4_czech_ci").compare(b"ch", b"hz"), Ordering::Greater);
        assert_eq!(c("utf8mb4_czech_ci").compare(b"cH", b"hz"), Ordering::Less);
        assert!(eq(c("utf8mb3_danish_ci"), "aa", "å"));
        assert_eq!(c("utf8mb3_esperanto_ci").compare("ĉ".as_bytes(), b"cz"), Ordering::Greater);
        let esc = '\\' as u32;
        assert!(!u.like("ß".as_bytes(), b"ss", esc) && u.like("ß".as_bytes(), b"_", esc));
        assert!(!u.like("Straße".as_bytes(), "STRASSE".as_bytes(), esc));
        assert!(!u.like("Straße".as_bytes(), "%SSE".as_bytes(), esc));
        assert!(u.like("Ärger".as_bytes(), b"a%", esc));
        assert!(!u.like(b"a\0", b"a", esc));
        let cz = c("utf8mb4_czech_ci");
        assert!(cz.like(b"ch", b"c%", esc) && !cz.like(b"ch", b"_", esc) && cz.like(b"ch", b"__", esc));
    }

    #[test]
    fn weight_string_is_every_weight() {
        let ws = |coll: &str, s: &str| c(coll).weight_string(s.as_bytes()).unwrap();
        assert_eq!(ws("utf8mb4_unicode_ci", "ab "), [0x0E, 0x33, 0x0E, 0x4A, 0x02, 0x09]);
        assert_eq!(ws("utf8mb4_general_ci", "a"), [0x00, 0x41]);
        assert_eq!(ws("utf8mb4_unicode_ci", "😀"), [0xFF, 0xFD]);
        assert_eq!(ws("utf8mb4_unicode_520_ci", "😀"), [0xFB, 0xC3, 0xF6, 0x00]);
        assert_eq!(ws("utf8mb4_bin", "aé "), [0, 0, 0x61, 0, 0, 0xE9, 0, 0, 0x20]);
        assert_eq!(ws("latin1_swedish_ci", "a"), [0x41]);
        assert_eq!(ws("utf8mb3_bin", "xé "), [0, 0x78, 0, 0xE9, 0, 0x20]);
        assert_eq!(c("utf8mb4_unicode_ci").weight_string_max_len(2), 32);
        assert_eq!(c("utf8mb4_bin").weight_string_max_len(2), 6);
        assert_eq!(c("utf8mb4_general_ci").weight_string_max_len(2), 4);
    }
}
