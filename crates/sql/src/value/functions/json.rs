//! JSON functions. MariaDB keeps JSON as text (a JSON column is LONGTEXT with a JSON_VALID
//! check), so these read and write text; validity is `store_types::json_valid`, the same test
//! a JSON column's CHECK applies. Only JSON_VALID exists so far: it is what JSON columns print
//! in SHOW CREATE TABLE and so what every dump of a JSON column replays.

use super::args::text;
use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::store_types::json_valid as is_valid_json;

pub static FUNCTIONS: &[ScalarFunction] = &[func!("JSON_VALID", 1, 1, true, rt_int, json_valid)];

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
