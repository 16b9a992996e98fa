//! Changing documents: JSON_SET/INSERT/REPLACE, JSON_REMOVE, JSON_ARRAY_APPEND/INSERT and the
//! two merges. Paths here have no wildcards (the functions refuse them first, 4044).

use super::doc::{key_is, Json};
use super::escape::unescape;
use super::path::{Index, Step};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SetMode {
    /// JSON_SET: replace or add.
    Set,
    /// JSON_INSERT: add only.
    Insert,
    /// JSON_REPLACE: replace only.
    Replace,
}

fn child_mut<'a>(v: &'a mut Json, step: &Step) -> Option<&'a mut Json> {
    match (step, v) {
        (Step::Key(k), Json::Object(members)) => members.iter_mut().find(|(raw, _)| key_is(raw, k)).map(|(_, m)| m),
        (Step::Index(ix), Json::Array(items)) => {
            let i = ix.resolve(items.len())?;
            items.get_mut(i)
        }
        // `[0]` of a non-array is the value itself.
        (Step::Index(ix), v) if ix.resolve(1) == Some(0) => Some(v),
        _ => None,
    }
}

fn locate_mut<'a>(v: &'a mut Json, steps: &[Step]) -> Option<&'a mut Json> {
    steps.iter().try_fold(v, |cur, s| child_mut(cur, s))
}

/// JSON_SET/INSERT/REPLACE of one path.
pub fn set(doc: &mut Json, steps: &[Step], value: Json, mode: SetMode) {
    let Some((last, parent_steps)) = steps.split_last() else {
        if mode != SetMode::Insert {
            *doc = value;
        }
        return;
    };
    let Some(parent) = locate_mut(doc, parent_steps) else { return };
    match (last, parent) {
        (Step::Key(k), Json::Object(members)) => match members.iter_mut().find(|(raw, _)| key_is(raw, k)) {
            Some((_, m)) if mode != SetMode::Insert => *m = value,
            Some(_) => {}
            None if mode != SetMode::Replace => members.push((Json::string(k).raw_string(), value)),
            None => {}
        },
        (Step::Index(ix), Json::Array(items)) => match ix.resolve(items.len()) {
            Some(i) if i < items.len() && mode != SetMode::Insert => items[i] = value,
            Some(i) if i < items.len() => {}
            _ if mode != SetMode::Replace => items.push(value),
            _ => {}
        },
        (Step::Index(ix), parent) => match ix.resolve(1) {
            Some(0) if mode != SetMode::Insert => *parent = value,
            Some(0) => {}
            _ if mode != SetMode::Replace => {
                let old = std::mem::replace(parent, Json::Null);
                *parent = Json::Array(vec![old, value]);
            }
            _ => {}
        },
        _ => {}
    }
}

/// JSON_REMOVE of one path (not `$`).
pub fn remove(doc: &mut Json, steps: &[Step]) {
    let Some((last, parent_steps)) = steps.split_last() else { return };
    let Some(parent) = locate_mut(doc, parent_steps) else { return };
    match (last, parent) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some(i) = members.iter().position(|(raw, _)| key_is(raw, k)) {
                members.remove(i);
            }
        }
        (Step::Index(ix), Json::Array(items)) => {
            if let Some(i) = ix.resolve(items.len()).filter(|i| *i < items.len()) {
                items.remove(i);
            }
        }
        _ => {}
    }
}

/// JSON_ARRAY_APPEND of one path: an array gets the value at its end, anything else becomes
/// an array of itself and the value.
pub fn array_append(doc: &mut Json, steps: &[Step], value: Json) {
    let Some(target) = locate_mut(doc, steps) else { return };
    match target {
        Json::Array(items) => items.push(value),
        other => {
            let old = std::mem::replace(other, Json::Null);
            *other = Json::Array(vec![old, value]);
        }
    }
}

/// JSON_ARRAY_INSERT of one path ending in `[n]`: false when the path does not end in an index.
pub fn array_insert(doc: &mut Json, steps: &[Step], value: Json) -> bool {
    let Some((Step::Index(ix), parent_steps)) = steps.split_last() else { return false };
    if let Some(Json::Array(items)) = locate_mut(doc, parent_steps) {
        let at = match ix {
            Index::At(n) if *n >= 0 => (*n as usize).min(items.len()),
            other => other.resolve(items.len()).unwrap_or(0).min(items.len()),
        };
        items.insert(at, value);
    }
    true
}

/// JSON_MERGE_PRESERVE: arrays concatenate, objects merge member by member, anything else
/// is wrapped in an array first.
pub fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut am), Json::Object(bm)) => {
            for (k, v) in bm {
                let key = unescape(&k);
                match am.iter_mut().find(|(raw, _)| key_is(raw, &key)) {
                    Some((_, existing)) => {
                        let old = std::mem::replace(existing, Json::Null);
                        *existing = merge_preserve(old, v);
                    }
                    None => am.push((k, v)),
                }
            }
            Json::Object(am)
        }
        (a, b) => {
            let mut items = match a {
                Json::Array(items) => items,
                other => vec![other],
            };
            match b {
                Json::Array(more) => items.extend(more),
                other => items.push(other),
            }
            Json::Array(items)
        }
    }
}

/// JSON_MERGE_PATCH (RFC 7396): an object patch merges into an object (a null member deletes
/// the key), any other patch replaces the target.
pub fn merge_patch(target: Json, patch: Json) -> Json {
    let Json::Object(pm) = patch else { return patch };
    let mut tm = match target {
        Json::Object(tm) => tm,
        _ => Vec::new(),
    };
    for (k, v) in pm {
        let key = unescape(&k);
        let pos = tm.iter().position(|(raw, _)| key_is(raw, &key));
        match (v, pos) {
            (Json::Null, Some(i)) => {
                tm.remove(i);
            }
            (Json::Null, None) => {}
            (v, Some(i)) => {
                let old = std::mem::replace(&mut tm[i].1, Json::Null);
                tm[i].1 = merge_patch(old, v);
            }
            (v, None) => tm.push((k, merge_patch(Json::Null, v))),
        }
    }
    Json::Object(tm)
}

impl Json {
    /// The raw text of a string value.
    fn raw_string(self) -> String {
        match self {
            Json::Str(s) => s,
            _ => String::new(),
        }
    }
}
