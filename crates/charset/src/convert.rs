//! Conversion between the character sets Selkie accepts and the utf8mb4 text the executor
//! holds.
//!
//! MariaDB's latin1 is Windows-1252 with the five bytes cp1252 leaves undefined (0x81, 0x8D,
//! 0x8F, 0x90, 0x9D) passed through as the C1 controls of the same number; encoding_rs's
//! windows-1252 (the WHATWG table) does exactly that, so the byte table is built from it.
//! Characters a set cannot hold become '?', as MariaDB converts them (and warns 1366 where a
//! column is stored: the caller's business).

use std::sync::LazyLock;

/// The characters of latin1's 256 bytes.
static LATIN1_CHARS: LazyLock<[char; 256]> = LazyLock::new(|| {
    let mut table = ['\0'; 256];
    for (b, slot) in table.iter_mut().enumerate() {
        let byte = [b as u8];
        let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
        *slot = text.chars().next().unwrap_or('\u{FFFD}');
    }
    table
});

/// The character set text is held in or converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8mb4,
    /// UTF-8 without 4-byte sequences (characters beyond the BMP).
    Utf8mb3,
    Latin1,
    Ascii,
    Binary,
}

impl Encoding {
    pub fn of_charset(name: &str) -> Encoding {
        match name {
            "utf8mb3" => Encoding::Utf8mb3,
            "latin1" => Encoding::Latin1,
            "ascii" => Encoding::Ascii,
            "binary" => Encoding::Binary,
            _ => Encoding::Utf8mb4,
        }
    }
}

/// The latin1 character of byte `b`.
pub fn latin1_char(b: u8) -> char {
    LATIN1_CHARS[b as usize]
}

/// The latin1 byte of `c`, if latin1 has it.
pub fn latin1_byte(c: char) -> Option<u8> {
    let cp = c as u32;
    // Bytes outside 0x80..=0x9F are their own code points (ISO 8859-1).
    if cp < 0x80 || (0xA0..=0xFF).contains(&cp) {
        return Some(cp as u8);
    }
    (0x80u8..=0x9F).find(|b| LATIN1_CHARS[*b as usize] == c)
}

/// The outcome of a conversion: the bytes, and whether some character could not be converted
/// (and became '?').
#[derive(Debug, PartialEq, Eq)]
pub struct Converted {
    pub bytes: Vec<u8>,
    pub lossy: bool,
}

/// Bytes in `from` as utf8mb4 text (introducers `_latin1'..'`, latin1 columns read back).
/// Bytes `from` cannot read become '?'.
pub fn to_utf8(bytes: &[u8], from: Encoding) -> Converted {
    match from {
        Encoding::Binary => Converted { bytes: bytes.to_vec(), lossy: false },
        Encoding::Utf8mb4 | Encoding::Utf8mb3 => match std::str::from_utf8(bytes) {
            Ok(_) => Converted { bytes: bytes.to_vec(), lossy: false },
            Err(_) => {
                let text = String::from_utf8_lossy(bytes).replace('\u{FFFD}', "?");
                Converted { bytes: text.into_bytes(), lossy: true }
            }
        },
        Encoding::Latin1 => {
            if bytes.is_ascii() {
                return Converted { bytes: bytes.to_vec(), lossy: false };
            }
            let text: String = bytes.iter().map(|b| latin1_char(*b)).collect();
            Converted { bytes: text.into_bytes(), lossy: false }
        }
        Encoding::Ascii => {
            let lossy = !bytes.is_ascii();
            Converted { bytes: bytes.iter().map(|b| if b.is_ascii() { *b } else { b'?' }).collect(), lossy }
        }
    }
}

/// utf8mb4 text as bytes of `to` (stores into latin1 columns, CONVERT(x USING latin1) as
/// bytes). Characters `to` lacks become '?'.
pub fn from_utf8(text: &[u8], to: Encoding) -> Converted {
    if text.is_ascii() || matches!(to, Encoding::Binary | Encoding::Utf8mb4) {
        return Converted { bytes: text.to_vec(), lossy: false };
    }
    let s = String::from_utf8_lossy(text);
    let mut lossy = false;
    let mut out = Vec::with_capacity(text.len());
    for c in s.chars() {
        match to {
            Encoding::Latin1 => out.push(latin1_byte(c).unwrap_or_else(|| {
                lossy = true;
                b'?'
            })),
            Encoding::Ascii => out.push(if c.is_ascii() {
                c as u8
            } else {
                lossy = true;
                b'?'
            }),
            Encoding::Utf8mb3 if (c as u32) > 0xFFFF => {
                lossy = true;
                out.push(b'?');
            }
            _ => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Converted { bytes: out, lossy }
}

/// Text that `to` can hold, as utf8mb4 again: what a value of `to`'s character set reads back
/// as (the round trip of `from_utf8` and `to_utf8`).
pub fn restrict_to(text: &[u8], to: Encoding) -> Converted {
    let narrowed = from_utf8(text, to);
    if !narrowed.lossy && matches!(to, Encoding::Utf8mb3 | Encoding::Utf8mb4 | Encoding::Binary) {
        return narrowed;
    }
    Converted { lossy: narrowed.lossy, ..to_utf8(&narrowed.bytes, to) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_cp1252_with_the_undefined_bytes_passed_through() {
        assert_eq!(latin1_char(0x80), '€');
        assert_eq!(latin1_char(0x81), '\u{81}');
        assert_eq!(latin1_char(0x9D), '\u{9D}');
        assert_eq!(latin1_char(0xE9), 'é');
        assert_eq!(latin1_byte('€'), Some(0x80));
        assert_eq!(latin1_byte('\u{8D}'), Some(0x8D));
        assert_eq!(latin1_byte('ÿ'), Some(0xFF));
        assert_eq!(latin1_byte('Ā'), None);
        for b in 0..=255u8 {
            assert_eq!(latin1_byte(latin1_char(b)), Some(b), "{b:#x}");
        }
    }

    #[test]
    fn conversions_replace_what_the_target_lacks() {
        assert_eq!(to_utf8(b"\xe9t\xe9", Encoding::Latin1).bytes, "été".as_bytes());
        assert_eq!(to_utf8("é".as_bytes(), Encoding::Latin1).bytes, "Ã©".as_bytes());
        assert_eq!(
            from_utf8("été €".as_bytes(), Encoding::Latin1),
            Converted { bytes: b"\xe9t\xe9 \x80".to_vec(), lossy: false }
        );
        assert_eq!(from_utf8("aĀb".as_bytes(), Encoding::Latin1), Converted { bytes: b"a?b".to_vec(), lossy: true });
        assert_eq!(from_utf8("é".as_bytes(), Encoding::Ascii), Converted { bytes: b"?".to_vec(), lossy: true });
        assert_eq!(to_utf8("é".as_bytes(), Encoding::Ascii), Converted { bytes: b"??".to_vec(), lossy: true });
        assert_eq!(from_utf8("a😀".as_bytes(), Encoding::Utf8mb3), Converted { bytes: b"a?".to_vec(), lossy: true });
        assert_eq!(restrict_to("aĀé".as_bytes(), Encoding::Latin1).bytes, "a?é".as_bytes());
    }
}
