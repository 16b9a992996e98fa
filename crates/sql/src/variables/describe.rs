//! What information_schema.SYSTEM_VARIABLES shows about each variable: values in every scope,
//! the compiled-in default, MariaDB's type name, range and members.

use super::def::{Access, Kind, Scope};
use super::registry;
use super::{convert, GlobalVariables, SessionVariables};
use crate::types::Value;

/// SHOW form of one variable's value (for information_schema.SYSTEM_VARIABLES).
pub(crate) fn display_value(name: &str, value: &Value) -> String {
    match registry::find(name) {
        Some(slot) => convert::display(registry::def(slot), value),
        None => convert::value_text(value),
    }
}

/// Everything information_schema.SYSTEM_VARIABLES shows about one variable.
pub(crate) struct VariableInfo {
    pub name: &'static str,
    pub session_value: Option<Value>,
    pub global_value: Option<Value>,
    pub default_value: Value,
    /// MariaDB's VARIABLE_SCOPE: GLOBAL, SESSION (= both) or SESSION ONLY.
    pub scope: &'static str,
    /// MariaDB's VARIABLE_TYPE: BOOLEAN, BIGINT UNSIGNED, ENUM, ...
    pub type_name: &'static str,
    pub min: Option<String>,
    pub max: Option<String>,
    pub block_size: Option<u64>,
    pub enum_values: Option<String>,
    pub read_only: bool,
    /// GLOBAL_VALUE_ORIGIN (None for session-only variables).
    pub origin: Option<&'static str>,
}

pub(crate) fn describe_all(globals: &GlobalVariables, session: &SessionVariables) -> Vec<VariableInfo> {
    let state = globals.state.read();
    registry::all()
        .iter()
        .enumerate()
        .map(|(slot, def)| {
            let target = registry::def(registry::storage_slot(slot));
            let (type_name, min, max, block_size, enum_values) = match target.kind {
                Kind::Bool => ("BOOLEAN", None, None, None, Some("OFF,ON".to_string())),
                Kind::UInt { min, max, block } => {
                    ("BIGINT UNSIGNED", Some(min.to_string()), Some(max.to_string()), Some(block), None)
                }
                Kind::Int { min, max } => ("BIGINT", Some(min.to_string()), Some(max.to_string()), Some(1), None),
                Kind::Double { min, max } => {
                    ("DOUBLE", Some(format!("{min:.6}")), Some(format!("{max:.6}")), None, None)
                }
                Kind::Enum(m) => ("ENUM", None, None, None, Some(m.join(","))),
                Kind::Set(m) => ("SET", None, None, None, Some(m.join(","))),
                Kind::SqlMode => ("SET", None, None, None, Some(convert::SQL_MODE_NAMES.join(","))),
                Kind::Charset { .. } | Kind::Collation | Kind::Locale => ("ENUM", None, None, None, None),
                Kind::Str { .. } | Kind::TimeZone | Kind::StorageEngine { .. } | Kind::AliasOf(_) => {
                    ("VARCHAR", None, None, None, None)
                }
            };
            let storage = registry::storage_slot(slot);
            VariableInfo {
                name: def.name,
                session_value: (def.scope != Scope::Global).then(|| session.session_value(slot)),
                global_value: (def.scope != Scope::SessionOnly).then(|| state.values()[storage].clone()),
                default_value: convert::initial_value(target),
                scope: match def.scope {
                    Scope::Global => "GLOBAL",
                    Scope::Both => "SESSION",
                    Scope::SessionOnly => "SESSION ONLY",
                },
                type_name,
                min,
                max,
                block_size,
                enum_values,
                read_only: def.access == Access::ReadOnly,
                origin: (def.scope != Scope::SessionOnly).then(|| state.origins[storage].name()),
            }
        })
        .collect()
}
