//! `CAST(x AS CHAR[(n)] CHARACTER SET cs)`, `... CHARSET cs`, and the same type in
//! `CONVERT(x, type)`: sqlparser reads no character set in a CAST's type (and in CONVERT's only
//! `CHARACTER SET`, not `CHARSET`). The type is rewritten, same length so that error offsets
//! and the spans of what follows stay right, as a custom type `CHARSET_cs[(n)]` that the
//! binder reads back (`charset_of_custom_type`). Result column names quote the text as sent.
//!
//! Only a `CHAR` right after `AS` or `,` is a cast's type: in a column definition a name comes
//! first (`c CHAR(3) CHARACTER SET latin1` is left alone).

use super::lexer::{self, Tok};

/// The prefix of the custom type that carries a cast's character set.
const MARKER: &str = "CHARSET_";

/// The text with each cast type that names a character set rewritten; None when it has none.
pub fn rewrite(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    let mut out: Option<String> = None;
    for i in 1..toks.len() {
        let (tok, start) = &toks[i];
        if !tok.is_word("CHAR") || !(toks[i - 1].0.is_word("AS") || toks[i - 1].0 == Tok::Sym(',')) {
            continue;
        }
        let mut j = i + 1;
        let mut length = None;
        if let (Some((Tok::Sym('('), _)), Some((Tok::Num(n), _)), Some((Tok::Sym(')'), _))) =
            (toks.get(j), toks.get(j + 1), toks.get(j + 2))
        {
            length = Some(n.as_str());
            j += 3;
        }
        let short = toks.get(j).and_then(|(t, at)| {
            SHORT_FORMS.iter().find(|(word, _)| t.is_word(word)).map(|(word, code)| (*code, at + word.len()))
        });
        let (charset, end) = if let Some((code, end)) = short {
            (code, end)
        } else {
            if toks.get(j).is_some_and(|(t, _)| t.is_word("CHARACTER"))
                && toks.get(j + 1).is_some_and(|(t, _)| t.is_word("SET"))
            {
                j += 2;
            } else if toks.get(j).is_some_and(|(t, _)| t.is_word("CHARSET")) {
                j += 1;
            } else {
                continue;
            }
            let Some((Tok::Word(charset), name_at)) = toks.get(j) else {
                continue;
            };
            (charset.as_str(), name_at + charset.len())
        };
        let mut replacement = format!("{MARKER}{charset}");
        if let Some(n) = length {
            replacement.push_str(&format!("({n})"));
        }
        let span = end - start;
        if replacement.len() > span {
            continue;
        }
        replacement.push_str(&" ".repeat(span - replacement.len()));
        out.get_or_insert_with(|| text.to_string()).replace_range(*start..end, &replacement);
    }
    out
}

/// MariaDB's short forms of a cast's character set, `CHAR ASCII` (latin1) and `CHAR BYTE`
/// (binary), with the one-letter code that stands for the set in the rewritten type (the set's
/// name would not fit in the words it replaces).
const SHORT_FORMS: &[(&str, &str)] = &[("ASCII", "A"), ("BYTE", "B")];

/// The character set a rewritten cast type names (`CHARSET_latin1` → latin1).
pub fn charset_of_custom_type(name: &str) -> Option<&str> {
    let named = name.get(..MARKER.len()).filter(|p| p.eq_ignore_ascii_case(MARKER)).map(|_| &name[MARKER.len()..]);
    match named {
        Some("A") => Some("latin1"),
        Some("B") => Some("binary"),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_types_with_a_character_set_become_a_custom_type_of_the_same_length() {
        let text = "SELECT CAST(x AS CHAR CHARACTER SET latin1), CONVERT(y, CHAR(2) CHARSET utf8)";
        let r = rewrite(text).unwrap();
        assert_eq!(r.len(), text.len());
        assert_eq!(r, "SELECT CAST(x AS CHARSET_latin1           ), CONVERT(y, CHARSET_utf8(2)     )");
        assert_eq!(charset_of_custom_type("CHARSET_latin1"), Some("latin1"));
        assert_eq!(charset_of_custom_type("CHAR"), None);
        // A column definition names its column before the type.
        assert_eq!(rewrite("CREATE TABLE t (c CHAR(3) CHARACTER SET latin1, char CHAR CHARSET ascii)"), None);
        assert_eq!(rewrite("SELECT CAST(x AS CHAR)"), None);
        let short = "SELECT CAST(x AS CHAR ASCII), CAST(y AS CHAR(2) BYTE)";
        assert_eq!(rewrite(short).unwrap(), "SELECT CAST(x AS CHARSET_A ), CAST(y AS CHARSET_B(2))");
        assert_eq!(charset_of_custom_type("CHARSET_A"), Some("latin1"));
    }
}
