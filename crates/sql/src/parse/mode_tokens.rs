//! sqlparser's tokens for text read under an sql_mode that changes the lexer
//! (NO_BACKSLASH_ESCAPES, ANSI_QUOTES). sqlparser's MySQL dialect always reads `\` as an escape
//! and `"..."` as a string, and its dialect checks (`dialect_of!`) name the MySQL dialect's
//! type, so a dialect of our own would change more than the lexer. Instead, the backslashes
//! that are ordinary characters under the mode are masked with a byte the text does not hold
//! (same length, so error positions stay right), the masked text is tokenized as usual, and the
//! tokens get their backslashes back; under ANSI_QUOTES a double-quoted string token becomes a
//! quoted identifier.

use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError, Word};

use super::lexer::{skip_quoted, Syntax};

/// Bytes a mask can be: control characters no client sends inside a statement's strings in
/// practice; the first one the text does not contain is used.
const MASKS: [u8; 6] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06];

/// Tokens of `text` read under `syntax`.
pub(super) fn tokenize(
    dialect: &dyn Dialect,
    text: &str,
    syntax: Syntax,
) -> Result<Vec<TokenWithSpan>, TokenizerError> {
    let src = text.as_bytes();
    let mask = MASKS.iter().copied().find(|m| !src.contains(m));
    let mut masked = src.to_vec();
    let mut any_masked = false;
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            q @ (b'\'' | b'"' | b'`') => {
                let end = skip_quoted(src, i, syntax).min(src.len());
                if !syntax.backslash_escapes(q) && q != b'`' {
                    for b in &mut masked[i..end] {
                        if *b == b'\\' {
                            // Without a free mask byte the text is read as the dialect reads it.
                            if let Some(m) = mask {
                                *b = m;
                                any_masked = true;
                            }
                        }
                    }
                }
                i = end;
            }
            b'#' => i = skip_until(src, i, b"\n"),
            b'-' if src.get(i + 1) == Some(&b'-') && src.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = skip_until(src, i, b"\n")
            }
            b'/' if src.get(i + 1) == Some(&b'*') => i = skip_until(src, i + 2, b"*/"),
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    let masked = String::from_utf8(masked).unwrap_or_else(|_| text.to_string());
    let mut tokens = Tokenizer::new(dialect, &masked).with_unescape(true).tokenize_with_location()?;
    for t in &mut tokens {
        if any_masked {
            unmask(&mut t.token, mask.unwrap_or(b'\\'));
        }
        if syntax.ansi_quotes {
            if let Token::DoubleQuotedString(s) = &mut t.token {
                let value = std::mem::take(s);
                t.token = Token::Word(Word { value, quote_style: Some('"'), keyword: Keyword::NoKeyword });
            }
        }
    }
    Ok(tokens)
}

fn skip_until(src: &[u8], from: usize, end: &[u8]) -> usize {
    match src[from..].windows(end.len()).position(|w| w == end) {
        Some(p) => from + p + end.len(),
        None => src.len(),
    }
}

fn unmask(token: &mut Token, mask: u8) {
    let m = mask as char;
    match token {
        Token::SingleQuotedString(s)
        | Token::DoubleQuotedString(s)
        | Token::NationalStringLiteral(s)
        | Token::SingleQuotedByteStringLiteral(s)
        | Token::DoubleQuotedByteStringLiteral(s)
        | Token::HexStringLiteral(s)
            if s.contains(m) =>
        {
            *s = s.replace(m, "\\");
        }
        _ => {}
    }
}
