//! Statement text that is not valid UTF-8.
//!
//! The SQL layer takes statements as `&str`, but MariaDB clients send bytes: a dump made by
//! mariadb-dump writes BINARY / VARBINARY / BLOB values as string literals holding the raw
//! bytes (`'\0\xff...'`). Such a text is made valid by rewriting each string literal that is
//! not UTF-8 as the equivalent hex literal (`X'00FF...'`), which denotes the same bytes. Invalid
//! bytes anywhere else (identifiers, comments, keywords) leave the text unusable (MariaDB's
//! 1300 is reported by the caller).
//!
//! Literals follow MariaDB's default rules: `'` or `"` quoted, a doubled quote stands for one,
//! and backslash escapes (`\0 \' \" \b \n \r \t \Z \\`; `\%` and `\_` keep their backslash
//! for LIKE; any other `\x` is `x`). NO_BACKSLASH_ESCAPES and ANSI_QUOTES are session modes
//! the connection does not see; mariadb-dump sets neither.

/// `sql` with every non-UTF-8 string literal written in hex, or None if invalid bytes occur
/// outside string literals (or a literal is unterminated).
pub fn invalid_literals_as_hex(sql: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            q @ (b'\'' | b'"') => {
                let (value, end) = string_literal(sql, i, q)?;
                let raw = &sql[i..end];
                match std::str::from_utf8(raw) {
                    Ok(text) => out.push_str(text),
                    Err(_) => {
                        // `_binary'..'` (an introducer glued to its literal) must stay an
                        // introducer: `_binaryX'..'` would read as a column `_binaryX` and the
                        // hex digits as text.
                        if out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                            out.push(' ');
                        }
                        out.push_str("X'");
                        for b in value {
                            out.push_str(&format!("{b:02X}"));
                        }
                        out.push('\'');
                    }
                }
                i = end;
            }
            _ => {
                // Anything else up to the next string literal (quoted identifiers and comments
                // skipped whole, so that a quote inside them starts nothing): it must be valid
                // UTF-8 as it is.
                let next = next_literal(sql, i);
                out.push_str(std::str::from_utf8(&sql[i..next]).ok()?);
                i = next;
            }
        }
    }
    Some(out)
}

/// Offset of the next `'` or `"` at or after `i` that opens a string literal (not inside a
/// backquoted identifier or a comment), or the end of `sql`.
fn next_literal(sql: &[u8], mut i: usize) -> usize {
    let find = |from: usize, pat: &[u8]| {
        sql[from..].windows(pat.len()).position(|w| w == pat).map_or(sql.len(), |p| from + p + pat.len())
    };
    while i < sql.len() {
        match sql[i] {
            b'\'' | b'"' => return i,
            b'`' => {
                // `` `a``b` ``: a doubled backquote stays inside the identifier.
                let mut j = i + 1;
                loop {
                    match sql[j..].iter().position(|b| *b == b'`') {
                        None => return sql.len(),
                        Some(p) if sql.get(j + p + 1) == Some(&b'`') => j += p + 2,
                        Some(p) => {
                            i = j + p + 1;
                            break;
                        }
                    }
                }
            }
            b'#' => i = find(i, b"\n"),
            b'-' if sql.get(i + 1) == Some(&b'-') && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = find(i, b"\n")
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => i = find(i + 2, b"*/"),
            _ => i += 1,
        }
    }
    sql.len()
}

/// The bytes a string literal starting at `start` (its opening quote `q`) denotes, and the
/// offset after its closing quote.
fn string_literal(sql: &[u8], start: usize, q: u8) -> Option<(Vec<u8>, usize)> {
    let mut value = Vec::new();
    let mut i = start + 1;
    loop {
        let b = *sql.get(i)?;
        if b == q {
            if sql.get(i + 1) == Some(&q) {
                value.push(q);
                i += 2;
                continue;
            }
            return Some((value, i + 1));
        }
        if b == b'\\' {
            let e = *sql.get(i + 1)?;
            match e {
                b'0' => value.push(0),
                b'b' => value.push(8),
                b'n' => value.push(b'\n'),
                b'r' => value.push(b'\r'),
                b't' => value.push(b'\t'),
                b'Z' => value.push(26),
                b'%' | b'_' => value.extend_from_slice(&[b'\\', e]),
                other => value.push(other),
            }
            i += 2;
            continue;
        }
        value.push(b);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_literals_become_hex() {
        let sql = b"INSERT INTO `b` VALUES (1,'\\0\xff\x10\xab','\xff\\0\xfe','h\xc3\xa9llo','it''s \\'q\\'')";
        assert_eq!(
            invalid_literals_as_hex(sql).unwrap(),
            "INSERT INTO `b` VALUES (1,X'00FF10AB',X'FF00FE','héllo','it''s \\'q\\'')"
        );
        // Escapes inside a rewritten literal are decoded, doubled quotes too.
        assert_eq!(invalid_literals_as_hex(b"SELECT '\xff''\\n\\t\\\\\\%x'").unwrap(), "SELECT X'FF270A095C5C2578'");
        assert_eq!(invalid_literals_as_hex(b"SELECT \"\xfe\"").unwrap(), "SELECT X'FE'");
    }

    #[test]
    fn introducers_stay_introducers() {
        assert_eq!(invalid_literals_as_hex(b"SELECT _binary'\\x80\xff'").unwrap(), "SELECT _binary X'783830FF'");
        assert_eq!(
            invalid_literals_as_hex(b"SELECT _binary'\x80\xff', _latin1 '\xe9'").unwrap(),
            "SELECT _binary X'80FF', _latin1 X'E9'"
        );
    }

    #[test]
    fn invalid_bytes_elsewhere_are_not_repaired() {
        assert_eq!(invalid_literals_as_hex(b"SELECT \xff"), None);
        assert_eq!(invalid_literals_as_hex(b"SELECT 1 -- \xff"), None);
        assert_eq!(invalid_literals_as_hex(b"SELECT '\xff"), None, "unterminated literal");
        assert_eq!(invalid_literals_as_hex(b"SELECT 'a\\"), None);
    }

    #[test]
    fn quotes_inside_identifiers_and_comments_start_no_literal() {
        let sql = b"SELECT `it's` /* don't */ , '\\0\xff' -- it's\n, 'x' # \"q\n";
        assert_eq!(invalid_literals_as_hex(sql).unwrap(), "SELECT `it's` /* don't */ , X'00FF' -- it's\n, 'x' # \"q\n");
    }

    #[test]
    fn valid_text_is_unchanged() {
        let sql = "SELECT 'héllo', \"x\", `c` FROM t WHERE a = 'b''c' -- done";
        assert_eq!(invalid_literals_as_hex(sql.as_bytes()).unwrap(), sql);
    }
}
