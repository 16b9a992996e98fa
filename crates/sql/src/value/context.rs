//! What functions and conversions may ask of the session they run in.
//!
//! A leaf (nothing else in `value` is used here), so every operation that warns or reads the
//! clock can take a `&dyn FnContext` without depending on the modules that call it.

use selkie_storage::DateTime;

use crate::error::SqlError;
use crate::types::Value;

/// MariaDB's default max_allowed_packet (16 MiB), for contexts without a session.
pub const DEFAULT_MAX_ALLOWED_PACKET: usize = 16 << 20;

/// Session facts that functions and conversions need.
pub trait FnContext {
    /// The statement's start time (NOW() is stable within a statement), session time zone.
    fn now(&self) -> DateTime;
    fn current_database(&self) -> Option<String>;
    /// 'user@host'.
    fn user(&self) -> String;
    fn connection_id(&self) -> u64;
    fn last_insert_id(&self) -> u64;
    fn found_rows(&self) -> u64;
    fn row_count(&self) -> i64;
    /// Next pseudo-random number in [0, 1) (RAND()).
    fn random(&self) -> f64;
    fn version(&self) -> String;
    /// Strict mode (STRICT_TRANS_TABLES/STRICT_ALL_TABLES in effect for this statement).
    fn strict(&self) -> bool;
    /// ERROR_FOR_DIVISION_BY_ZERO in sql_mode.
    fn error_for_division_by_zero(&self) -> bool;
    /// The session's time zone (`@@time_zone`), in which `now()` is given.
    fn time_zone(&self) -> super::TimeZone {
        super::TimeZone::System
    }
    /// The session's max_allowed_packet (fixed when it connected, as MariaDB's): string
    /// functions give NULL and warning 1301 rather than a longer result.
    fn max_allowed_packet(&self) -> usize {
        DEFAULT_MAX_ALLOWED_PACKET
    }
    /// sql_mode's NO_ZERO_DATE: storing '0000-00-00' is refused (strict) or warned about.
    fn no_zero_date(&self) -> bool {
        false
    }
    /// sql_mode's NO_ZERO_IN_DATE: storing a date with a zero month or day is refused (strict)
    /// or stores the zero date with a warning.
    fn no_zero_in_date(&self) -> bool {
        false
    }
    /// div_precision_increment: the digits `/` adds to the dividend's scale.
    fn div_precision_increment(&self) -> u32 {
        super::num::DIV_PRECISION_INCREMENT
    }
    /// SLEEP: waits `d`, or fails with the interrupt's error as soon as the statement is
    /// interrupted.
    fn sleep(&self, d: std::time::Duration) -> Result<(), SqlError> {
        std::thread::sleep(d);
        Ok(())
    }
    /// The server's user-level locks as this connection sees them; None without a server.
    fn user_locks(&self) -> Option<crate::user_locks::SessionLocks<'_>> {
        None
    }
    /// Adds a warning (level Warning) for SHOW WARNINGS.
    fn warn(&self, code: u16, message: String);
    /// Adds a note (level Note) for SHOW WARNINGS.
    fn note(&self, code: u16, message: String) {
        self.warn(code, message)
    }
    /// NEXTVAL / LASTVAL / SETVAL of the sequence `db`.`name` (the binder checked it is one);
    /// `args` are SETVAL's value, is_used and round.
    fn sequence(&self, _op: SequenceOp, _db: &str, _name: &str, _args: &[Value]) -> Result<Value, SqlError> {
        Err(SqlError::new(1235, "42000", "This version of MariaDB doesn't yet support 'sequences here'"))
    }
}

/// What a sequence function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceOp {
    Next,
    Last,
    Set,
}
