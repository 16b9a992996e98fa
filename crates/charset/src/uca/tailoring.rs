//! Applies a language's tailoring rules (`tailorings.txt`) to a UCA table, as MariaDB does at
//! the primary level: after `& X`, each `<` adds one to the last weight of X's weights, and
//! every item of the chain weighs X's weights plus the number of `<` so far (`<<`, `<<<` and `=`
//! add nothing at this level). A later reset to a tailored character starts from its tailored
//! weights. An item of several characters becomes a contraction.

use std::collections::HashMap;

use super::table::Table;

/// Contractions by first character: (the characters after it, the weights), longest first.
pub(crate) type Contractions = HashMap<u32, Vec<(Vec<u32>, Vec<u16>)>>;

static RULES: &str = include_str!("tailorings.txt");

/// The rules of `language` (a name in tailorings.txt).
pub(crate) fn rules(language: &str) -> Option<&'static str> {
    RULES.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let (name, rules) = l.split_once(':')?;
        (name.trim() == language).then_some(rules)
    })
}

#[derive(Debug, PartialEq)]
enum Token {
    Reset,
    /// `<` (1), `<<` (2), `<<<` (3) or `=` (0).
    Diff(usize),
    Text(Vec<u32>),
}

fn tokenize(rules: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = rules.chars().peekable();
    let mut text: Vec<u32> = Vec::new();
    let flush = |text: &mut Vec<u32>, out: &mut Vec<Token>| {
        if !text.is_empty() {
            out.push(Token::Text(std::mem::take(text)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '&' => {
                flush(&mut text, &mut out);
                out.push(Token::Reset);
            }
            '<' => {
                flush(&mut text, &mut out);
                let mut n = 1;
                while chars.peek() == Some(&'<') {
                    chars.next();
                    n += 1;
                }
                out.push(Token::Diff(n));
            }
            '=' => {
                flush(&mut text, &mut out);
                out.push(Token::Diff(0));
            }
            c if c.is_whitespace() => flush(&mut text, &mut out),
            '\\' if chars.peek() == Some(&'u') => {
                chars.next();
                let hex: String = chars.by_ref().take(4).collect();
                text.push(u32::from_str_radix(&hex, 16).expect("\\uXXXX in tailorings.txt"));
            }
            c => text.push(c as u32),
        }
    }
    flush(&mut text, &mut out);
    out
}

/// The tailored characters and contractions of `language` over `table`.
pub(crate) fn apply(table: &Table, language: &str) -> (HashMap<u32, Vec<u16>>, Contractions) {
    let rules = rules(language).unwrap_or_else(|| panic!("no tailoring for {language} in tailorings.txt"));
    let mut chars: HashMap<u32, Vec<u16>> = HashMap::new();
    let mut sequences: HashMap<Vec<u32>, Vec<u16>> = HashMap::new();
    let weigh = |text: &[u32], chars: &HashMap<u32, Vec<u16>>, sequences: &HashMap<Vec<u32>, Vec<u16>>| {
        if let Some(w) = sequences.get(text) {
            return w.clone();
        }
        let mut w = Vec::new();
        for cp in text {
            match chars.get(cp) {
                Some(t) => w.extend_from_slice(t),
                None => table.push_weights(*cp, &mut w),
            }
        }
        w
    };
    let mut tokens = tokenize(rules).into_iter();
    let mut reset: Vec<u16> = Vec::new();
    let mut primaries = 0u16;
    while let Some(t) = tokens.next() {
        match t {
            Token::Reset => {
                let Some(Token::Text(text)) = tokens.next() else { panic!("{language}: & without text") };
                reset = weigh(&text, &chars, &sequences);
                primaries = 0;
            }
            Token::Diff(level) => {
                let Some(Token::Text(text)) = tokens.next() else { panic!("{language}: rule without text") };
                if level == 1 {
                    primaries += 1;
                }
                // After an ignorable reset (Persian's `& \uFE7F`), MariaDB counts from weight 0.
                let mut w = if reset.is_empty() { vec![0] } else { reset.clone() };
                if let Some(last) = w.last_mut() {
                    *last += primaries;
                }
                w.retain(|w| *w != 0);
                if text.len() == 1 {
                    chars.insert(text[0], w);
                } else {
                    sequences.insert(text, w);
                }
            }
            Token::Text(_) => panic!("{language}: text without a rule"),
        }
    }
    let mut contractions: Contractions = HashMap::new();
    for (text, w) in sequences {
        contractions.entry(text[0]).or_default().push((text[1..].to_vec(), w));
    }
    for list in contractions.values_mut() {
        list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    }
    (chars, contractions)
}
