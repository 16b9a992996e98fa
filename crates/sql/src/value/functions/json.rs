//! JSON functions. MariaDB keeps JSON as text (a JSON column is LONGTEXT with a JSON_VALID
//! check), so these read and write text: they parse their document arguments with
//! `value::json` (which keeps numbers, escapes and member order as written) and print their
//! results in MariaDB's layouts. An argument that is not JSON, or a path that is not one,
//! leaves MariaDB's warning (4037/4038 text, 4041/4042 path, 4044 wildcards) and gives NULL.
//!
//! Values given to JSON_ARRAY, JSON_OBJECT, JSON_SET... are strings unless the argument is
//! itself JSON (a JSON column or a JSON function's result): then it is embedded as JSON. Which
//! arguments are JSON is known only when binding, so the binder calls the `*_JSON_ARGS`
//! variant (`with_json_args`), whose first argument flags them ('1' per JSON argument).

use super::args::text;
use super::signature::{rt_int, ScalarFunction, VARIADIC};
use crate::charset::Collation;
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::json::{self, Json, ParseError, Path, PathError, SetMode, Step};
use crate::value::kinds::SqlType;
use crate::value::store_types::json_valid as is_valid_json;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("JSON_VALID", 1, 1, true, rt_int, json_valid),
    func!("JSON_EXTRACT", 2, VARIADIC, true, rt_doc, json_extract),
    func!("JSON_UNQUOTE", 1, 1, true, rt_bin_text, json_unquote),
    func!("JSON_CONTAINS", 2, 3, true, rt_int, json_contains),
    func!("JSON_CONTAINS_PATH", 3, VARIADIC, true, rt_int, json_contains_path),
    func!("JSON_TYPE", 1, 1, true, rt_type_name, json_type),
    func!("JSON_QUOTE", 1, 1, true, rt_bin_text, json_quote),
    func!("JSON_OBJECT", 0, VARIADIC, true, rt_doc, json_object),
    func!("JSON_ARRAY", 0, VARIADIC, true, rt_doc, json_array),
    func!("JSON_LENGTH", 1, 2, true, rt_int, json_length),
    func!("JSON_KEYS", 1, 2, true, rt_doc, json_keys),
    func!("JSON_DEPTH", 1, 1, true, rt_int, json_depth),
    func!("JSON_VALUE", 2, 2, true, rt_doc, json_value),
    func!("JSON_QUERY", 2, 2, true, rt_doc, json_query),
    func!("JSON_EXISTS", 2, 2, true, rt_int, json_exists),
    func!("JSON_SET", 3, VARIADIC, true, rt_doc, json_set),
    func!("JSON_INSERT", 3, VARIADIC, true, rt_doc, json_insert),
    func!("JSON_REPLACE", 3, VARIADIC, true, rt_doc, json_replace),
    func!("JSON_REMOVE", 2, VARIADIC, true, rt_doc, json_remove),
    func!("JSON_ARRAY_APPEND", 3, VARIADIC, true, rt_doc, json_array_append),
    func!("JSON_ARRAY_INSERT", 3, VARIADIC, true, rt_doc, json_array_insert),
    func!("JSON_MERGE_PATCH", 2, VARIADIC, true, rt_doc, json_merge_patch),
    func!("JSON_MERGE_PRESERVE", 2, VARIADIC, true, rt_doc, json_merge_preserve),
    func!("JSON_MERGE", 2, VARIADIC, true, rt_doc, json_merge),
    func!("JSON_SEARCH", 3, VARIADIC, true, rt_doc, json_search),
    func!("JSON_COMPACT", 1, 1, true, rt_doc, json_compact),
    func!("JSON_DETAILED", 1, 2, true, rt_doc, json_detailed),
    func!("JSON_PRETTY", 1, 2, true, rt_doc, json_pretty),
    func!("JSON_LOOSE", 1, 1, true, rt_doc, json_loose),
    func!("JSON_NORMALIZE", 1, 1, true, rt_doc, json_normalize),
    func!("JSON_EQUALS", 2, 2, true, rt_int, json_equals),
    func!("JSON_OVERLAPS", 2, 2, true, rt_int, json_overlaps),
];

/// The variants that know which arguments are JSON (see the module comment).
static WITH_JSON_ARGS: &[ScalarFunction] = &[
    func!("JSON_OBJECT", 0, VARIADIC, true, rt_doc, json_object_j),
    func!("JSON_ARRAY", 0, VARIADIC, true, rt_doc, json_array_j),
    func!("JSON_SET", 3, VARIADIC, true, rt_doc, json_set_j),
    func!("JSON_INSERT", 3, VARIADIC, true, rt_doc, json_insert_j),
    func!("JSON_REPLACE", 3, VARIADIC, true, rt_doc, json_replace_j),
    func!("JSON_ARRAY_APPEND", 3, VARIADIC, true, rt_doc, json_array_append_j),
    func!("JSON_ARRAY_INSERT", 3, VARIADIC, true, rt_doc, json_array_insert_j),
];

/// The variant of `name` whose first argument flags its JSON arguments, for functions that
/// embed values.
pub fn with_json_args(name: &str) -> Option<&'static ScalarFunction> {
    WITH_JSON_ARGS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// Whether the function's result is JSON (MariaDB's is_json_type): embedded as JSON by the
/// functions above, and unquoted when compared with a string.
pub fn returns_json(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "JSON_EXTRACT",
        "JSON_OBJECT",
        "JSON_ARRAY",
        "JSON_SET",
        "JSON_INSERT",
        "JSON_REPLACE",
        "JSON_REMOVE",
        "JSON_ARRAY_APPEND",
        "JSON_ARRAY_INSERT",
        "JSON_MERGE_PATCH",
        "JSON_MERGE_PRESERVE",
        "JSON_MERGE",
        "JSON_QUERY",
        "JSON_SEARCH",
        "JSON_COMPACT",
        "JSON_DETAILED",
        "JSON_PRETTY",
        "JSON_LOOSE",
        "JSON_NORMALIZE",
    ];
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// A JSON function result met by a string in a comparison (`JSON_EXTRACT(j, '$.a') = 'x'`):
/// MariaDB compares a JSON string by its unquoted text, anything else by its JSON text.
pub static JSON_COMPARE_TEXT: ScalarFunction = func!("JSON_COMPARE_TEXT", 1, 1, true, rt_doc, json_compare_text);

/// JSON_ARRAYAGG / JSON_OBJECTAGG run as GROUP_CONCAT (as MariaDB's derive from it) over
/// each row's JSON text, which these make: a value as a JSON element (NULL as `null`; the
/// first argument says whether the value is JSON, '1', to embed as it is) ...
pub static JSON_AGG_ELEMENT: ScalarFunction = func!("JSON_ARRAYAGG", 2, 2, true, rt_doc, json_agg_element);
/// ... and an object key, NULL for a NULL key (the row is skipped, as MariaDB skips it).
pub static JSON_AGG_KEY: ScalarFunction = func!("JSON_OBJECTAGG", 1, 1, true, rt_doc, json_agg_key);

fn json_agg_element(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let embed = text(&args[0]).first().copied().unwrap_or(ARG_TEXT);
    match &args[1] {
        // A JSON column's text goes in as it is written, as in MariaDB.
        Value::Bytes(b) if embed == ARG_JSON => Ok(Value::Bytes(b.clone())),
        v => out(json::print_normal(&to_json(v, embed))),
    }
}

fn json_agg_key(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let mut s = String::from("\"");
    json::escape_into(&String::from_utf8_lossy(&text(&args[0])), &mut s);
    s.push('"');
    out(s)
}

// ---- result types ----

/// A JSON document (LONGTEXT), in the first argument's character set.
fn rt_doc(args: &[SqlType]) -> SqlType {
    match args.first() {
        Some(SqlType::Bytes { .. }) => SqlType::Bytes { max_len: u32::MAX, lob: true },
        Some(SqlType::Text { collation, .. }) => {
            SqlType::Text { max_chars: u32::MAX / 4, lob: true, collation: *collation }
        }
        _ => SqlType::text(u32::MAX / 4, true),
    }
}
/// JSON_UNQUOTE and JSON_QUOTE answer in utf8mb4_bin.
fn rt_bin_text(_: &[SqlType]) -> SqlType {
    SqlType::Text { max_chars: u32::MAX / 4, lob: true, collation: Collation::utf8mb4_bin() }
}
fn rt_type_name(_: &[SqlType]) -> SqlType {
    SqlType::text(12, false)
}

// ---- argument readers ----

fn fname(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Argument `i` (0-based) as a document: None (after MariaDB's warning) when it is not JSON.
fn doc_arg(args: &[Value], i: usize, func: &str, ctx: &dyn FnContext) -> Option<Json> {
    let t = text(&args[i]);
    match json::parse(&t) {
        Ok(v) => Some(v),
        Err(e) => {
            warn_parse(e, i + 1, func, ctx);
            None
        }
    }
}

fn warn_parse(e: ParseError, arg: usize, func: &str, ctx: &dyn FnContext) {
    let f = fname(func);
    match e {
        ParseError::UnexpectedEnd => {
            ctx.warn(4037, format!("Unexpected end of JSON text in argument {arg} to function '{f}'"))
        }
        ParseError::Syntax { position } => ctx.warn(
            4038,
            format!("Syntax error in JSON text in argument {arg} to function '{f}' at position {position}"),
        ),
        ParseError::TooDeep { position } => ctx.warn(
            4040,
            format!(
                "Limit of 32 on JSON nested structures depth is reached in argument {arg} to function '{f}' at position {position}"
            ),
        ),
    }
}

/// Argument `i` as a path; `single` refuses wildcards (4044).
fn path_arg(args: &[Value], i: usize, func: &str, single: bool, ctx: &dyn FnContext) -> Option<Path> {
    let f = fname(func);
    let arg = i + 1;
    match json::parse_path(&text(&args[i])) {
        Ok(p) if single && p.has_wildcard() => {
            ctx.warn(4044, format!("Wildcards or range in JSON path not allowed in argument {arg} to function '{f}'"));
            None
        }
        Ok(p) => Some(p),
        Err(PathError::UnexpectedEnd) => {
            ctx.warn(4041, format!("Unexpected end of JSON path in argument {arg} to function '{f}'"));
            None
        }
        Err(PathError::Syntax { position }) => {
            ctx.warn(
                4042,
                format!("Syntax error in JSON path in argument {arg} to function '{f}' at position {position}"),
            );
            None
        }
        Err(PathError::TooDeep { position }) => {
            ctx.warn(
                4043,
                format!(
                    "Limit of 32 on JSON path depth is reached in argument {arg} to function '{f}' at position {position}"
                ),
            );
            None
        }
    }
}

/// A SQL value as a JSON value: numbers as numbers, strings as strings unless `is_json` (then
/// the text is embedded as the JSON it is).
fn to_json(v: &Value, embed: u8) -> Json {
    let is_json = embed == ARG_JSON;
    match v {
        Value::Null => Json::Null,
        Value::Int(i) if embed == ARG_BOOLEAN => Json::Bool(*i != 0),
        Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => {
            Json::Number(String::from_utf8_lossy(&text(v)).into_owned())
        }
        Value::Bytes(b) if is_json => json::parse(b).unwrap_or_else(|_| Json::string(&String::from_utf8_lossy(b))),
        other => Json::string(&String::from_utf8_lossy(&text(other))),
    }
}

fn out(s: String) -> Result<Value, SqlError> {
    Ok(Value::Bytes(s.into_bytes()))
}

/// How the binder tells a JSON function to embed each argument (one byte per argument in its
/// variant's first argument): as text, as JSON (a JSON column or function result), or as
/// true / false (MariaDB's boolean items: TRUE, comparisons, ...).
pub const ARG_TEXT: u8 = b'0';
pub const ARG_JSON: u8 = b'1';
pub const ARG_BOOLEAN: u8 = b'b';

fn split_flags(args: &[Value]) -> (Vec<u8>, &[Value]) {
    (text(&args[0]), &args[1..])
}

// ---- the functions ----

/// JSON_VALID(x): 1 when x is a JSON text (a scalar counts), 0 when not, NULL for NULL. An
/// invalid text leaves MariaDB's note saying why: 4037 when the text ends too early, 4038 with
/// a position otherwise (serde_json's 1-based column of the offending character; MariaDB's
/// scanner reports where it stopped, which is the same character or the one after it).
fn json_valid(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let v = match &args[0] {
        Value::Null => return Ok(Value::Null),
        v => text(v),
    };
    if is_valid_json(&v) {
        return Ok(Value::Int(1));
    }
    match serde_json::from_slice::<serde_json::Value>(&v) {
        Err(e) if e.classify() == serde_json::error::Category::Eof => {
            ctx.note(4037, "Unexpected end of JSON text in argument 1 to function 'json_valid'".to_string())
        }
        Err(e) => ctx.note(
            4038,
            format!("Syntax error in JSON text in argument 1 to function 'json_valid' at position {}", e.column()),
        ),
        Ok(_) => {}
    }
    Ok(Value::Int(0))
}

/// JSON_EXTRACT(doc, path...): the one value a single wildcard-free path names; an array of
/// all named values when there are several paths or wildcards; NULL when nothing matches.
fn json_extract(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_EXTRACT", ctx) else { return Ok(Value::Null) };
    let mut found = Vec::new();
    let mut wrap = args.len() > 2;
    for i in 1..args.len() {
        let Some(p) = path_arg(args, i, "JSON_EXTRACT", false, ctx) else { return Ok(Value::Null) };
        wrap |= p.has_wildcard();
        found.extend(p.select(&doc).into_iter().cloned());
    }
    match found.len() {
        0 => Ok(Value::Null),
        1 if !wrap => out(json::print_normal(&found[0])),
        _ => out(json::print_normal(&Json::Array(found))),
    }
}

/// JSON_UNQUOTE(s): a JSON string's text; anything else as it is (a malformed string too,
/// after the warning).
fn json_unquote(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let t = text(&args[0]);
    if t.first() != Some(&b'"') {
        return Ok(Value::Bytes(t));
    }
    match json::parse(&t) {
        Ok(Json::Str(s)) => out(json::unescape(&s)),
        Ok(_) => Ok(Value::Bytes(t)),
        Err(e) => {
            warn_parse(e, 1, "JSON_UNQUOTE", ctx);
            Ok(Value::Bytes(t))
        }
    }
}

fn json_compare_text(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    match &args[0] {
        Value::Bytes(b) if b.first() == Some(&b'"') => match json::parse(b) {
            Ok(Json::Str(s)) => out(json::unescape(&s)),
            _ => Ok(args[0].clone()),
        },
        other => Ok(other.clone()),
    }
}

/// JSON_CONTAINS(doc, candidate[, path]).
fn json_contains(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_CONTAINS", ctx) else { return Ok(Value::Null) };
    let Some(candidate) = doc_arg(args, 1, "JSON_CONTAINS", ctx) else { return Ok(Value::Null) };
    let target = match args.len() {
        3 => {
            let Some(p) = path_arg(args, 2, "JSON_CONTAINS", true, ctx) else { return Ok(Value::Null) };
            match p.select(&doc).first() {
                Some(t) => (*t).clone(),
                None => return Ok(Value::Null),
            }
        }
        _ => doc,
    };
    Ok(Value::Int(target.contains(&candidate) as i64))
}

/// JSON_CONTAINS_PATH(doc, 'one'|'all', path...).
fn json_contains_path(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_CONTAINS_PATH", ctx) else { return Ok(Value::Null) };
    let mode = text(&args[1]).to_ascii_lowercase();
    let all = match mode.as_slice() {
        b"one" => false,
        b"all" => true,
        _ => {
            ctx.warn(4046, "Argument 2 to function 'json_contains_path' must be \"one\" or \"all\".".to_string());
            return Ok(Value::Null);
        }
    };
    let mut paths = Vec::new();
    for i in 2..args.len() {
        let Some(p) = path_arg(args, i, "JSON_CONTAINS_PATH", false, ctx) else { return Ok(Value::Null) };
        paths.push(p);
    }
    let mut found = paths.iter().map(|p| !p.select(&doc).is_empty());
    let hit = if all { found.all(|f| f) } else { found.any(|f| f) };
    Ok(Value::Int(hit as i64))
}

fn json_type(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_TYPE", ctx) else { return Ok(Value::Null) };
    out(doc.type_name().to_string())
}

/// JSON_QUOTE(s): s as a JSON string; NULL for anything that is not a string.
fn json_quote(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let Value::Bytes(b) = &args[0] else { return Ok(Value::Null) };
    let mut s = String::from("\"");
    json::escape_into(&String::from_utf8_lossy(b), &mut s);
    s.push('"');
    out(s)
}

fn json_object(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    object_of(args, &[], ctx)
}
fn json_object_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    object_of(rest, &flags, ctx)
}
fn object_of(args: &[Value], flags: &[u8], _: &dyn FnContext) -> Result<Value, SqlError> {
    if !args.len().is_multiple_of(2) {
        return Err(SqlError::new(
            1582,
            "42000",
            "Incorrect parameter count in the call to native function 'json_object'".to_string(),
        ));
    }
    let members = args
        .chunks(2)
        .enumerate()
        .map(|(i, kv)| {
            let key = String::from_utf8_lossy(&text(&kv[0])).into_owned();
            let mut raw = String::new();
            json::escape_into(&key, &mut raw);
            (raw, to_json(&kv[1], flags.get(2 * i + 1).copied().unwrap_or(ARG_TEXT)))
        })
        .collect();
    out(json::print_normal(&Json::Object(members)))
}

fn json_array(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    array_of(args, &[], ctx)
}
fn json_array_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    array_of(rest, &flags, ctx)
}
fn array_of(args: &[Value], flags: &[u8], _: &dyn FnContext) -> Result<Value, SqlError> {
    let items = args.iter().enumerate().map(|(i, v)| to_json(v, flags.get(i).copied().unwrap_or(ARG_TEXT))).collect();
    out(json::print_normal(&Json::Array(items)))
}

/// The value `path` (argument 2, when given) names in the document, for the one-path functions.
fn target(args: &[Value], func: &str, ctx: &dyn FnContext) -> Option<Json> {
    let doc = doc_arg(args, 0, func, ctx)?;
    if args.len() < 2 {
        return Some(doc);
    }
    let p = path_arg(args, 1, func, true, ctx)?;
    p.select(&doc).first().map(|v| (*v).clone())
}

fn json_length(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match target(args, "JSON_LENGTH", ctx) {
        Some(Json::Array(items)) => Value::Int(items.len() as i64),
        Some(Json::Object(members)) => Value::Int(members.len() as i64),
        Some(_) => Value::Int(1),
        None => Value::Null,
    })
}

fn json_keys(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    match target(args, "JSON_KEYS", ctx) {
        Some(Json::Object(members)) => {
            // A key written twice is listed once.
            let mut keys: Vec<Json> = Vec::new();
            for (k, _) in members {
                if !keys.iter().any(|seen| matches!(seen, Json::Str(s) if json::unescape(s) == json::unescape(&k))) {
                    keys.push(Json::Str(k));
                }
            }
            out(json::print_normal(&Json::Array(keys)))
        }
        _ => Ok(Value::Null),
    }
}

fn json_depth(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    Ok(doc_arg(args, 0, "JSON_DEPTH", ctx).map_or(Value::Null, |d| Value::Int(d.depth() as i64)))
}

/// JSON_VALUE(doc, path): a scalar's text (strings unquoted, true/false as 1/0); NULL for
/// JSON null, containers and no match.
fn json_value(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_VALUE", ctx) else { return Ok(Value::Null) };
    let Some(p) = path_arg(args, 1, "JSON_VALUE", false, ctx) else { return Ok(Value::Null) };
    match p.select(&doc).first() {
        Some(Json::Str(s)) => out(json::unescape(s)),
        Some(Json::Number(n)) => out(n.clone()),
        Some(Json::Bool(b)) => out(if *b { "1" } else { "0" }.to_string()),
        _ => Ok(Value::Null),
    }
}

/// JSON_QUERY(doc, path): an object or array; NULL for scalars and no match.
fn json_query(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_QUERY", ctx) else { return Ok(Value::Null) };
    let Some(p) = path_arg(args, 1, "JSON_QUERY", false, ctx) else { return Ok(Value::Null) };
    match p.select(&doc).first() {
        // MariaDB returns the value's text as written; the printer has only layouts, and
        // compact is what most stored documents look like.
        Some(v) if !v.is_scalar() => out(json::print_compact(v)),
        _ => Ok(Value::Null),
    }
}

fn json_exists(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_EXISTS", ctx) else { return Ok(Value::Null) };
    let Some(p) = path_arg(args, 1, "JSON_EXISTS", false, ctx) else { return Ok(Value::Null) };
    Ok(Value::Int(!p.select(&doc).is_empty() as i64))
}

/// JSON_SET/INSERT/REPLACE/ARRAY_APPEND/ARRAY_INSERT: a document, then path/value pairs.
fn edit_pairs(
    args: &[Value],
    flags: &[u8],
    func: &str,
    ctx: &dyn FnContext,
    apply: &dyn Fn(&mut Json, &[Step], Json) -> bool,
) -> Result<Value, SqlError> {
    if args.len().is_multiple_of(2) {
        return Err(SqlError::new(
            1582,
            "42000",
            format!("Incorrect parameter count in the call to native function '{}'", fname(func)),
        ));
    }
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let Some(mut doc) = doc_arg(args, 0, func, ctx) else { return Ok(Value::Null) };
    for i in (1..args.len()).step_by(2) {
        if args[i].is_null() {
            return Ok(Value::Null);
        }
        let Some(p) = path_arg(args, i, func, true, ctx) else { return Ok(Value::Null) };
        let v = to_json(&args[i + 1], flags.get(i + 1).copied().unwrap_or(ARG_TEXT));
        if !apply(&mut doc, &p.steps, v) {
            return Ok(Value::Null);
        }
    }
    out(json::print_normal(&doc))
}

fn set_with(mode: SetMode) -> impl Fn(&mut Json, &[Step], Json) -> bool {
    move |doc, steps, v| {
        json::set(doc, steps, v, mode);
        true
    }
}

fn json_set(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    edit_pairs(args, &[], "JSON_SET", ctx, &set_with(SetMode::Set))
}
fn json_set_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    edit_pairs(rest, &flags, "JSON_SET", ctx, &set_with(SetMode::Set))
}
fn json_insert(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    edit_pairs(args, &[], "JSON_INSERT", ctx, &set_with(SetMode::Insert))
}
fn json_insert_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    edit_pairs(rest, &flags, "JSON_INSERT", ctx, &set_with(SetMode::Insert))
}
fn json_replace(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    edit_pairs(args, &[], "JSON_REPLACE", ctx, &set_with(SetMode::Replace))
}
fn json_replace_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    edit_pairs(rest, &flags, "JSON_REPLACE", ctx, &set_with(SetMode::Replace))
}
fn append(doc: &mut Json, steps: &[Step], v: Json) -> bool {
    json::array_append(doc, steps, v);
    true
}
fn json_array_append(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    edit_pairs(args, &[], "JSON_ARRAY_APPEND", ctx, &append)
}
fn json_array_append_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    edit_pairs(rest, &flags, "JSON_ARRAY_APPEND", ctx, &append)
}
fn json_array_insert(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    edit_pairs(args, &[], "JSON_ARRAY_INSERT", ctx, &json::array_insert)
}
fn json_array_insert_j(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (flags, rest) = split_flags(args);
    edit_pairs(rest, &flags, "JSON_ARRAY_INSERT", ctx, &json::array_insert)
}

fn json_remove(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(mut doc) = doc_arg(args, 0, "JSON_REMOVE", ctx) else { return Ok(Value::Null) };
    for i in 1..args.len() {
        let Some(p) = path_arg(args, i, "JSON_REMOVE", true, ctx) else { return Ok(Value::Null) };
        if p.steps.is_empty() {
            ctx.warn(
                4051,
                format!("Path expression '$' is not allowed in argument {} to function 'json_remove'.", i + 1),
            );
            return Ok(Value::Null);
        }
        json::remove(&mut doc, &p.steps);
    }
    out(json::print_normal(&doc))
}

fn merge_all(
    args: &[Value],
    func: &str,
    ctx: &dyn FnContext,
    merge: fn(Json, Json) -> Json,
) -> Result<Value, SqlError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut acc: Option<Json> = None;
    for i in 0..args.len() {
        let Some(d) = doc_arg(args, i, func, ctx) else { return Ok(Value::Null) };
        acc = Some(match acc {
            None => d,
            Some(a) => merge(a, d),
        });
    }
    out(json::print_normal(&acc.unwrap_or(Json::Null)))
}
fn json_merge_patch(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    merge_all(args, "JSON_MERGE_PATCH", ctx, json::merge_patch)
}
fn json_merge_preserve(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    merge_all(args, "JSON_MERGE_PRESERVE", ctx, json::merge_preserve)
}
fn json_merge(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    merge_all(args, "JSON_MERGE", ctx, json::merge_preserve)
}

/// JSON_SEARCH(doc, 'one'|'all', pattern[, escape[, path...]]): the paths of the strings
/// that match the LIKE pattern.
fn json_search(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() || args[1].is_null() || args[2].is_null() {
        return Ok(Value::Null);
    }
    let Some(doc) = doc_arg(args, 0, "JSON_SEARCH", ctx) else { return Ok(Value::Null) };
    let all = match text(&args[1]).to_ascii_lowercase().as_slice() {
        b"one" => false,
        b"all" => true,
        _ => {
            ctx.warn(4046, "Argument 2 to function 'json_search' must be \"one\" or \"all\".".to_string());
            return Ok(Value::Null);
        }
    };
    let escape = match args.get(3) {
        Some(Value::Null) | None => b'\\',
        Some(v) => text(v).first().copied().unwrap_or(b'\\'),
    };
    let pattern = text(&args[2]);
    let collation = crate::value::kinds::default_text_collation();
    let mut paths = Vec::new();
    for i in 4..args.len() {
        let Some(p) = path_arg(args, i, "JSON_SEARCH", false, ctx) else { return Ok(Value::Null) };
        paths.push(p);
    }
    if paths.is_empty() {
        paths.push(Path { steps: vec![Step::AnyDepth, Step::AnyIndex] });
        paths.push(Path { steps: Vec::new() });
    }
    let mut found: Vec<String> = Vec::new();
    for p in &paths {
        // Every string at or under the path's values.
        for (v, at) in deep_strings(&doc, &p.steps) {
            if let Json::Str(s) = v {
                if collation.like(json::unescape(s).as_bytes(), &pattern, u32::from(escape)) {
                    let f = json::format_steps(&at);
                    if !found.contains(&f) {
                        found.push(f);
                    }
                }
            }
        }
    }
    let quoted = |p: &String| Json::string(p);
    match found.len() {
        0 => Ok(Value::Null),
        1 => out(json::print_normal(&quoted(&found[0]))),
        _ if !all => out(json::print_normal(&quoted(&found[0]))),
        _ => out(json::print_normal(&Json::Array(found.iter().map(quoted).collect()))),
    }
}

/// The scalars at and under the values `steps` names, with their concrete paths, in document order.
fn deep_strings<'a>(doc: &'a Json, steps: &[Step]) -> Vec<(&'a Json, Vec<Step>)> {
    let base = Path { steps: steps.to_vec() }.select_with_paths(doc);
    let mut out = Vec::new();
    for (v, at) in base {
        walk(v, at, &mut out);
    }
    out
}

fn walk<'a>(v: &'a Json, at: Vec<Step>, out: &mut Vec<(&'a Json, Vec<Step>)>) {
    match v {
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let mut p = at.clone();
                p.push(Step::Index(json::Index::At(i as i64)));
                walk(item, p, out);
            }
        }
        Json::Object(members) => {
            for (k, m) in members {
                let mut p = at.clone();
                p.push(Step::Key(json::unescape(k)));
                walk(m, p, out);
            }
        }
        scalar => out.push((scalar, at)),
    }
}

fn reformat(
    args: &[Value],
    func: &str,
    ctx: &dyn FnContext,
    print: &dyn Fn(&Json) -> String,
) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    match doc_arg(args, 0, func, ctx) {
        Some(d) => out(print(&d)),
        None => Ok(Value::Null),
    }
}
fn json_compact(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    reformat(args, "JSON_COMPACT", ctx, &json::print_compact)
}
fn json_loose(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    reformat(args, "JSON_LOOSE", ctx, &json::print_normal)
}
fn json_normalize(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    reformat(args, "JSON_NORMALIZE", ctx, &json::print_normalized)
}
fn detailed(args: &[Value], func: &str, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let tab = match args.get(1) {
        Some(v) if !v.is_null() => crate::value::cast::to_i64(v).unwrap_or(4).clamp(0, 32) as usize,
        _ => 4,
    };
    reformat(args, func, ctx, &|d| json::print_detailed(d, tab))
}
fn json_detailed(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    detailed(args, "JSON_DETAILED", ctx)
}
fn json_pretty(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    detailed(args, "JSON_PRETTY", ctx)
}

fn two_docs(args: &[Value], func: &str, ctx: &dyn FnContext) -> Option<(Json, Json)> {
    if args.iter().any(Value::is_null) {
        return None;
    }
    Some((doc_arg(args, 0, func, ctx)?, doc_arg(args, 1, func, ctx)?))
}

/// JSON_EQUALS(a, b): whether the two documents normalise alike.
fn json_equals(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(match two_docs(args, "JSON_EQUALS", ctx) {
        Some((a, b)) => Value::Int((json::print_normalized(&a) == json::print_normalized(&b)) as i64),
        None => Value::Null,
    })
}

/// JSON_OVERLAPS(a, b): arrays sharing an element, objects sharing a member, a scalar in an
/// array, or equal scalars.
fn json_overlaps(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some((a, b)) = two_docs(args, "JSON_OVERLAPS", ctx) else { return Ok(Value::Null) };
    let hit = match (&a, &b) {
        (Json::Array(xs), Json::Array(ys)) => xs.iter().any(|x| ys.iter().any(|y| x.equals(y))),
        (Json::Array(xs), y) | (y, Json::Array(xs)) => xs.iter().any(|x| x.equals(y)),
        (Json::Object(xm), Json::Object(_)) => {
            xm.iter().any(|(k, v)| b.member(&json::unescape(k)).is_some_and(|w| v.equals(w)))
        }
        (x, y) => x.equals(y),
    };
    Ok(Value::Int(hit as i64))
}
