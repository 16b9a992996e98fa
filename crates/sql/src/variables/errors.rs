//! MariaDB's errors for system variables (codes, SQLSTATEs and wording copied from 10.11).

use crate::error::SqlError;

pub(crate) fn unknown(name: &str) -> SqlError {
    SqlError::new(1193, "HY000", format!("Unknown system variable '{name}'"))
}

pub(crate) fn session_only_with_global(name: &str) -> SqlError {
    SqlError::new(1228, "HY000", format!("Variable '{name}' is a SESSION variable and can't be used with SET GLOBAL"))
}

pub(crate) fn global_only_with_session(name: &str) -> SqlError {
    SqlError::new(1229, "HY000", format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"))
}

pub(crate) fn read_only(name: &str) -> SqlError {
    SqlError::new(1238, "HY000", format!("Variable '{name}' is a read only variable"))
}

/// `@@session.x` of a GLOBAL-only variable.
pub(crate) fn is_global(name: &str) -> SqlError {
    SqlError::new(1238, "HY000", format!("Variable '{name}' is a GLOBAL variable"))
}

/// `@@global.x` of a SESSION-only variable.
pub(crate) fn is_session(name: &str) -> SqlError {
    SqlError::new(1238, "HY000", format!("Variable '{name}' is a SESSION variable"))
}

pub(crate) fn session_read_only(name: &str) -> SqlError {
    SqlError::new(1621, "HY000", format!("SESSION variable '{name}' is read-only. Use SET GLOBAL to assign the value"))
}

pub(crate) fn wrong_value(name: &str, value: &str) -> SqlError {
    SqlError::new(1231, "42000", format!("Variable '{name}' can't be set to the value of '{value}'"))
}

pub(crate) fn wrong_type(name: &str) -> SqlError {
    SqlError::new(1232, "42000", format!("Incorrect argument type to variable '{name}'"))
}

pub(crate) fn unknown_charset(value: &str) -> SqlError {
    SqlError::new(1115, "42000", format!("Unknown character set: '{value}'"))
}

pub(crate) fn unknown_collation(value: &str) -> SqlError {
    SqlError::new(1273, "HY000", format!("Unknown collation: '{value}'"))
}

pub(crate) fn unknown_time_zone(value: &str) -> SqlError {
    SqlError::new(1298, "HY000", format!("Unknown or incorrect time zone: '{value}'"))
}

pub(crate) fn unknown_engine(value: &str) -> SqlError {
    SqlError::new(1286, "42000", format!("Unknown storage engine '{value}'"))
}

pub(crate) fn unknown_locale(value: &str) -> SqlError {
    SqlError::new(1105, "HY000", format!("Unknown locale: '{value}'"))
}
