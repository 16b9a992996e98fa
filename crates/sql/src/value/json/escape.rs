//! JSON string escapes: writing text as a JSON string's contents and reading it back.

/// Appends `s` escaped for a JSON string (JSON_QUOTE's escapes: `"`, `\`, and control
/// characters, the common ones by letter, the rest as \u00XX).
pub fn escape_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
}

/// The text a JSON string's contents (escapes as written) stand for.
pub fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex = |chars: &mut std::str::Chars| -> Option<u32> {
                    let h: String = chars.by_ref().take(4).collect();
                    u32::from_str_radix(&h, 16).ok()
                };
                let Some(hi) = hex(&mut chars) else { continue };
                if (0xD800..0xDC00).contains(&hi) {
                    // A surrogate pair spells one character beyond the BMP.
                    let rest = chars.as_str();
                    if let Some(lo) = rest.strip_prefix("\\u").and_then(|r| u32::from_str_radix(r.get(..4)?, 16).ok()) {
                        if (0xDC00..0xE000).contains(&lo) {
                            chars.nth(5);
                            let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            out.extend(char::from_u32(cp));
                            continue;
                        }
                    }
                }
                out.push(char::from_u32(hi).unwrap_or('?'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
