//! Built-in scalar functions: the registry over the function families (`string`, `numeric`,
//! `control`, `string_more`, `compress`, `inet`, `datetime`, `time`, `json`, `misc`, `regexp`). What the families share lives below them, in `signature` (the
//! entry type, return-type helpers) and `args` (argument readers), so this file only gathers.
//!
//! Every function receives its evaluated arguments and returns a value; NULL handling is the
//! function's own (most return NULL when any argument is NULL, CONCAT_WS/COALESCE/IFNULL do not).
//! Names that the binder maps from special syntax (documented for the binder):
//! - `TRIM(BOTH r FROM s)` → `TRIM_BOTH(s, r)`, `TRIM(LEADING r FROM s)` → `TRIM_LEADING(s, r)`,
//!   `TRIM(TRAILING r FROM s)` → `TRIM_TRAILING(s, r)`; plain `TRIM(s)` strips spaces.
//! - `TIMESTAMPDIFF(unit, a, b)` → `TIMESTAMPDIFF('unit', a, b)`; likewise `TIMESTAMPADD('unit',
//!   n, d)` and `EXTRACT(unit FROM d)` → `EXTRACT('unit', d)`: the unit is a string argument.
//! - `POSITION(sub IN s)` → `LOCATE(sub, s)`.

use std::sync::OnceLock;

use super::kinds::SqlType;
use crate::types::Value;

/// Builds a `ScalarFunction` entry.
macro_rules! func {
    ($name:expr, $min:expr, $max:expr, $det:expr, $rt:expr, $eval:expr) => {
        crate::value::functions::signature::ScalarFunction {
            name: $name,
            min_args: $min,
            max_args: $max,
            deterministic: $det,
            return_type: $rt,
            eval: $eval,
        }
    };
}

mod args;
pub mod compress;
pub mod control;
pub mod datetime;
pub mod inet;
pub mod json;
pub mod locks;
pub mod misc;
pub mod numeric;
pub mod regexp;
pub mod signature;
pub mod string;
pub mod string_more;
pub mod time;

pub use args::{any_null, f64_arg, fits_result, int_arg, text, too_large};
pub use signature::{
    rt_bigint, rt_date, rt_datetime, rt_double, rt_int, rt_text, rt_text_like_args, rt_ubigint, string_type,
    ScalarFunction, VARIADIC,
};

fn registry() -> &'static [&'static ScalarFunction] {
    static SORTED: OnceLock<Vec<&'static ScalarFunction>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut all: Vec<&'static ScalarFunction> = string::FUNCTIONS
            .iter()
            .chain(numeric::FUNCTIONS)
            .chain(control::FUNCTIONS)
            .chain(datetime::FUNCTIONS)
            .chain(json::FUNCTIONS)
            .chain(misc::FUNCTIONS)
            .chain(regexp::FUNCTIONS)
            .chain(time::FUNCTIONS)
            .chain(string_more::FUNCTIONS)
            .chain(compress::FUNCTIONS)
            .chain(locks::FUNCTIONS)
            .chain(inet::FUNCTIONS)
            .collect();
        all.sort_by(|a, b| a.name.cmp(b.name));
        for pair in all.windows(2) {
            assert!(pair[0].name != pair[1].name, "duplicate function {}", pair[0].name);
        }
        for f in &all {
            assert!(f.name.bytes().all(|b| !b.is_ascii_lowercase()), "function names are upper case: {}", f.name);
            assert!(f.min_args <= f.max_args, "{}: min_args > max_args", f.name);
        }
        all
    })
}

/// See `super::lookup_function`.
pub fn lookup_function(name: &str) -> Option<&'static ScalarFunction> {
    let reg = registry();
    let wanted = name.bytes().map(|b| b.to_ascii_uppercase());
    reg.binary_search_by(|f| f.name.bytes().cmp(wanted.clone())).ok().map(|i| reg[i])
}

/// Names of all built-in functions (for tests and SHOW FUNCTION-like listings).
pub fn function_names() -> impl Iterator<Item = &'static str> {
    registry().iter().map(|f| f.name)
}

/// The result type of `f` when some arguments are constants known at bind time. MariaDB fixes the
/// scale of ROUND/TRUNCATE and the fractional digits of NOW(fsp)-like functions from their
/// constant argument; `ScalarFunction::return_type` sees only types, so the binder should call
/// this instead when it has constants (`consts[i]` = Some(value) for constant arguments).
pub fn return_type_with_constants(f: &ScalarFunction, types: &[SqlType], consts: &[Option<&Value>]) -> SqlType {
    if let Some(ty) = time::typed_by_constants(f, types, consts) {
        return ty;
    }
    let const_int = |i: usize| consts.get(i).copied().flatten().and_then(super::cast::to_i64);
    match f.name {
        "ROUND" | "TRUNCATE" if types.len() == 2 => match const_int(1) {
            Some(d) => numeric::round_type(&types[0], d),
            None => (f.return_type)(types),
        },
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE" | "UTC_TIMESTAMP" => {
            match const_int(0) {
                Some(fsp) => SqlType::DateTime { fsp: fsp.clamp(0, 6) as u8 },
                None => (f.return_type)(types),
            }
        }
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => match const_int(0) {
            Some(fsp) => SqlType::Time { fsp: fsp.clamp(0, 6) as u8 },
            None => (f.return_type)(types),
        },
        "CONVERT_TZ" => match consts.first().copied().flatten() {
            // MariaDB counts a string constant's fractional digits.
            Some(Value::Bytes(b)) => {
                let frac = b
                    .iter()
                    .rposition(|c| *c == b'.')
                    .map_or(0, |dot| b[dot + 1..].iter().take_while(|c| c.is_ascii_digit()).count());
                SqlType::DateTime { fsp: frac.min(6) as u8 }
            }
            _ => (f.return_type)(types),
        },
        "STR_TO_DATE" => match consts.get(1).copied().flatten() {
            Some(Value::Bytes(fmt)) => datetime::str_to_date_type(fmt),
            _ => (f.return_type)(types),
        },
        _ => (f.return_type)(types),
    }
}
