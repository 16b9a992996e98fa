//! UPDATE / DELETE text sqlparser cannot read, made readable: the modifiers LOW_PRIORITY,
//! QUICK and IGNORE after the verb (blanked; IGNORE is reported), the comma-separated table
//! list of a multi-table UPDATE (`UPDATE a, b SET ...`, joined as CROSS JOIN: the same rows),
//! and the `t.*` spelling of multi-table DELETE targets (`DELETE a.*, b.* FROM ...`).
//!
//! LOW_PRIORITY and QUICK change nothing for InnoDB tables in MariaDB either (table-level lock
//! priority, MyISAM index merging), so dropping them loses nothing.

use super::lexer::{self, Tok};

/// The rewritten text, and whether it had IGNORE.
pub struct DmlText {
    pub text: String,
    pub ignore: bool,
}

/// Rewrites an UPDATE or DELETE as described above; None when it needs nothing (or is not one).
pub fn rewrite(text: &str) -> Option<DmlText> {
    let toks = lexer::tokenize(text)?;
    let update = toks.first()?.0.is_word("UPDATE");
    if !update && !toks.first()?.0.is_word("DELETE") {
        return None;
    }
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    let mut ignore = false;
    let mut i = 1;
    while let Some((tok, off)) = toks.get(i) {
        let modifier = tok.is_word("LOW_PRIORITY") || tok.is_word("IGNORE") || (!update && tok.is_word("QUICK"));
        if !modifier {
            break;
        }
        ignore |= tok.is_word("IGNORE");
        let len = tok.ident().map_or(0, str::len);
        out[*off..off + len].fill(b' ');
        changed = true;
        i += 1;
    }
    // Byte ranges to replace by " CROSS JOIN " (UPDATE's top-level commas before SET).
    let mut commas = Vec::new();
    let mut depth = 0i32;
    if update {
        for (tok, off) in &toks[i..] {
            match tok {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(',') if depth == 0 => commas.push(*off),
                t if depth == 0 && t.is_word("SET") => break,
                _ => {}
            }
        }
    } else {
        // The targets: before FROM (`DELETE a, b FROM ...`) or between FROM and USING.
        let from_first = toks.get(i).is_some_and(|(t, _)| t.is_word("FROM"));
        let start = if from_first { i + 1 } else { i };
        let end_word = if from_first { "USING" } else { "FROM" };
        let end = toks[start..].iter().position(|(t, _)| t.is_word(end_word)).map(|p| start + p);
        if let Some(end) = end {
            for w in toks[start..end].windows(2) {
                if w[0].0 == Tok::Sym('.') && w[1].0 == Tok::Sym('*') {
                    out[w[0].1] = b' ';
                    out[w[1].1] = b' ';
                    changed = true;
                }
            }
        }
    }
    // The binder finds `?` placeholders by their line and column in the client's text: one
    // after a widened comma on its line would be found at another place. Such a statement stays
    // unreadable (1064) rather than risk binding a parameter to the wrong `?`.
    if let Some(&first) = commas.first() {
        let line_end = text[first..].find('\n').map_or(text.len(), |n| first + n);
        if toks.iter().any(|(t, off)| *t == Tok::Sym('?') && *off > first && *off < line_end) {
            commas.clear();
        }
    }
    if !changed && commas.is_empty() {
        return None;
    }
    let mut text = String::from_utf8(out).ok()?;
    for off in commas.into_iter().rev() {
        text.replace_range(off..off + 1, " CROSS JOIN ");
    }
    Some(DmlText { text, ignore })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_are_blanked_and_ignore_reported() {
        let r = rewrite("DELETE LOW_PRIORITY QUICK IGNORE FROM b WHERE id=99").unwrap();
        assert_eq!(r.text, "DELETE                           FROM b WHERE id=99");
        assert!(r.ignore);
        let r = rewrite("update low_priority t set a=1").unwrap();
        assert_eq!(r.text, "update              t set a=1");
        assert!(!r.ignore);
        assert!(rewrite("UPDATE t SET a=1, b=2").is_none());
        assert!(rewrite("SELECT 1").is_none());
    }

    #[test]
    fn update_table_lists_become_cross_joins() {
        let r = rewrite("UPDATE a, b SET a.v=b.w, b.w=1 WHERE a.id=(SELECT 1, 2)").unwrap();
        assert_eq!(r.text, "UPDATE a CROSS JOIN  b SET a.v=b.w, b.w=1 WHERE a.id=(SELECT 1, 2)");
        assert!(rewrite("UPDATE a, b SET a.v=? WHERE a.id=b.aid").is_none());
        let r = rewrite("UPDATE a, b\nSET a.v=? WHERE a.id=b.aid").unwrap();
        assert_eq!(r.text, "UPDATE a CROSS JOIN  b\nSET a.v=? WHERE a.id=b.aid");
    }

    #[test]
    fn delete_targets_lose_their_star() {
        let r = rewrite("DELETE a.*, b.* FROM a JOIN b").unwrap();
        assert_eq!(r.text, "DELETE a  , b   FROM a JOIN b");
        let r = rewrite("DELETE FROM a.*, b USING a JOIN b").unwrap();
        assert_eq!(r.text, "DELETE FROM a  , b USING a JOIN b");
        assert!(rewrite("DELETE FROM t WHERE a.b*2 > 1").is_none());
    }
}
