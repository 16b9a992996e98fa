//! Sequences (CREATE SEQUENCE, NEXTVAL / NEXT VALUE FOR, LASTVAL / PREVIOUS VALUE FOR, SETVAL),
//! as MariaDB 10.3+ has them.
//!
//! A sequence is a table (it is listed, dropped and shown like one) whose options are a table
//! option (`SequenceDef`) and whose one row is made up when read: the engine keeps the moving
//! part, `next_not_cached`, outside MVCC and makes it durable before any value below it is
//! handed out (`Engine::set_sequence_state`). Values come from a cache here, CACHE values at a
//! time, so the durable write happens once per CACHE values: a restart skips what was left of
//! the cache, as in MariaDB. Values are never taken back by a rollback.
//!
//! Why not update the row in a transaction, as MariaDB does: NEXTVAL runs inside expression
//! evaluation, which cannot wait for a transaction's lock or commit; the engine's sequence
//! state needs neither.

use std::collections::HashMap;

use parking_lot::Mutex;
use selkie_storage::{
    ColumnDef, ColumnDefault, ColumnType, Engine, IntWidth, NewTable, SequenceDef, SequenceState, TableDef, TableId,
    TableOptions,
};

use crate::error::SqlError;
use crate::parse::SequenceOptions;
use crate::types::Value;
use crate::value::functions::signature::rt_bigint;
use crate::value::{FnContext, ScalarFunction, SequenceOp};

/// MariaDB's bounds of a sequence's values (one short of i64's, so that +1 never overflows).
const MAX_VALUE: i64 = i64::MAX - 1;
const MIN_VALUE: i64 = i64::MIN + 1;
/// CACHE when none is given.
const DEFAULT_CACHE: u64 = 1000;

pub fn run_out(db: &str, name: &str) -> SqlError {
    SqlError::new(4084, "HY000", format!("Sequence '{db}.{name}' has run out"))
}

pub fn bad_options(db: &str, name: &str) -> SqlError {
    SqlError::new(4085, "HY000", format!("Sequence '{db}.{name}' has out of range value for options"))
}

pub fn not_a_sequence(db: &str, name: &str) -> SqlError {
    SqlError::new(4089, "42S02", format!("'{db}.{name}' is not a SEQUENCE"))
}

/// DROP SEQUENCE of a table that is not one.
pub fn drop_not_a_sequence(db: &str, name: &str) -> SqlError {
    SqlError::new(4090, "42S02", format!("'{db}.{name}' is not a SEQUENCE"))
}

pub fn unknown_sequence(what: &str) -> SqlError {
    SqlError::new(4091, "42S02", format!("Unknown SEQUENCE: '{what}'"))
}

/// The step between values: INCREMENT, or with INCREMENT 0 MariaDB's auto_increment_increment
/// (its default, 1: Selkie does not follow that variable here).
fn step(def: &SequenceDef) -> i64 {
    if def.increment == 0 {
        1
    } else {
        def.increment
    }
}

/// MariaDB's checks of a sequence's options (`sequence_definition::check_and_adjust`), with
/// `reserved` the first value not handed out.
fn valid(def: &SequenceDef, reserved: i64) -> bool {
    let step = step(def);
    let largest_step = step.unsigned_abs() as i128;
    def.max >= def.start
        && def.max > def.min
        && def.start >= def.min
        && def.max != i64::MAX
        && def.min != i64::MIN
        && (def.cache as i128) < (i64::MAX as i128 - largest_step) / largest_step
        && if step > 0 { reserved >= def.min } else { reserved <= def.max }
}

/// The options of CREATE SEQUENCE with MariaDB's defaults filled in, or 4085.
pub fn sequence_def(o: &SequenceOptions, db: &str, name: &str) -> Result<SequenceDef, SqlError> {
    let increment = o.increment.unwrap_or(1);
    let ascending = increment >= 0;
    // NO MINVALUE / NO MAXVALUE are MariaDB's fixed defaults (1 and the largest value),
    // whichever way the sequence goes; only options not given follow the direction.
    let min = o.min.map_or(if ascending { 1 } else { MIN_VALUE }, |m| m.unwrap_or(1));
    let max = o.max.map_or(if ascending { MAX_VALUE } else { -1 }, |m| m.unwrap_or(MAX_VALUE));
    let start = o.start.unwrap_or(if ascending { min } else { max });
    let cache = o.cache.unwrap_or(DEFAULT_CACHE);
    let def = SequenceDef { start, min, max, increment, cache, cycle: o.cycle.unwrap_or(false) };
    if !valid(&def, start) {
        return Err(bad_options(db, name));
    }
    Ok(def)
}

/// ALTER SEQUENCE: the options not given are the sequence's own, NO MINVALUE / NO MAXVALUE are
/// MariaDB's fixed defaults. Returns the new definition and where the sequence goes on from:
/// RESTART's value (START without one), otherwise the first value not reserved (the cache is
/// dropped, as in MariaDB); 4085 when they do not fit together.
pub fn altered_def(
    old: &SequenceDef,
    reserved: i64,
    o: &SequenceOptions,
    db: &str,
    name: &str,
) -> Result<(SequenceDef, i64), SqlError> {
    let def = SequenceDef {
        start: o.start.unwrap_or(old.start),
        min: o.min.map_or(old.min, |m| m.unwrap_or(1)),
        max: o.max.map_or(old.max, |m| m.unwrap_or(MAX_VALUE)),
        increment: o.increment.unwrap_or(old.increment),
        cache: o.cache.unwrap_or(old.cache),
        cycle: o.cycle.unwrap_or(old.cycle),
    };
    let reserved = match o.restart {
        Some(value) => value.unwrap_or(def.start),
        None => reserved,
    };
    if !valid(&def, reserved) {
        return Err(bad_options(db, name));
    }
    Ok((def, reserved))
}

/// The table behind a sequence: MariaDB's eight columns (SHOW CREATE TABLE shows them).
pub fn sequence_table(db: String, name: String, def: SequenceDef) -> NewTable {
    let column = |name: &str, width: IntWidth, unsigned: bool, display: u32, comment: &str| ColumnDef {
        name: name.to_string(),
        ty: ColumnType::Int { width, unsigned, display_width: Some(display) },
        nullable: false,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: comment.to_string(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    };
    let big = |name: &str, comment: &str| column(name, IntWidth::Big, false, 21, comment);
    NewTable {
        db,
        name,
        columns: vec![
            big("next_not_cached_value", ""),
            big("minimum_value", ""),
            big("maximum_value", ""),
            big("start_value", "start value when sequences is created or value if RESTART is used"),
            big("increment", "increment value"),
            column("cache_size", IntWidth::Big, true, 21, ""),
            column(
                "cycle_option",
                IntWidth::Tiny,
                true,
                1,
                "0 if no cycles are allowed, 1 if the sequence should begin a new cycle when maximum_value is passed",
            ),
            big("cycle_count", "How many cycles have been done"),
        ],
        primary_key: Vec::new(),
        indexes: Vec::new(),
        options: TableOptions { engine: "InnoDB".into(), sequence: Some(def), ..TableOptions::default() },
        auto_increment_start: None,
    }
}

// ---- NEXTVAL, LASTVAL, SETVAL ----
//
// The binder resolves the sequence's name and calls these with the database and table name as
// their first two (literal) arguments; they are not in the function registry, whose functions
// take values rather than names.

fn name_args(args: &[Value]) -> (String, String) {
    let text = |v: Option<&Value>| match v {
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    };
    (text(args.first()), text(args.get(1)))
}

fn eval_next(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (db, name) = name_args(args);
    ctx.sequence(SequenceOp::Next, &db, &name, &[])
}

fn eval_last(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (db, name) = name_args(args);
    ctx.sequence(SequenceOp::Last, &db, &name, &[])
}

fn eval_set(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (db, name) = name_args(args);
    ctx.sequence(SequenceOp::Set, &db, &name, &args[2..])
}

pub static NEXTVAL: ScalarFunction = ScalarFunction {
    name: "nextval",
    min_args: 2,
    max_args: 2,
    deterministic: false,
    return_type: rt_bigint,
    eval: eval_next,
};

pub static LASTVAL: ScalarFunction = ScalarFunction {
    name: "lastval",
    min_args: 2,
    max_args: 2,
    deterministic: false,
    return_type: rt_bigint,
    eval: eval_last,
};

pub static SETVAL: ScalarFunction = ScalarFunction {
    name: "setval",
    min_args: 3,
    max_args: 5,
    deterministic: false,
    return_type: rt_bigint,
    eval: eval_set,
};

/// Values reserved and not yet handed out, per sequence.
#[derive(Clone, Copy, Debug)]
struct Cached {
    /// The next value to hand out.
    next: i64,
    /// The first value not reserved (durable as the engine's `next_not_cached`).
    bound: i64,
    cycle_count: i64,
}

/// The server's sequences: caches of reserved values, and each session's LASTVAL.
#[derive(Default)]
pub struct Sequences {
    cached: Mutex<HashMap<TableId, Cached>>,
    last: Mutex<HashMap<(u64, TableId), i64>>,
}

fn def_of(table: &TableDef) -> Result<&SequenceDef, SqlError> {
    table.options.sequence.as_ref().ok_or_else(|| not_a_sequence(&table.db, &table.name))
}

fn load(engine: &Engine, table: &TableDef) -> Result<Cached, SqlError> {
    let s = engine.sequence_state(table)?;
    Ok(Cached { next: s.next_not_cached, bound: s.next_not_cached, cycle_count: s.cycle_count })
}

impl Sequences {
    /// NEXTVAL: the next value, reserving (durably) CACHE more when none is left.
    pub fn next_value(&self, engine: &Engine, table: &TableDef, connection: u64) -> Result<i64, SqlError> {
        let def = def_of(table)?;
        let mut cached = self.cached.lock();
        let c = match cached.get_mut(&table.id) {
            Some(c) => c,
            None => cached.entry(table.id).or_insert(load(engine, table)?),
        };
        let step = step(def);
        let ascending = step > 0;
        if (ascending && c.next > def.max) || (!ascending && c.next < def.min) {
            if !def.cycle {
                return Err(run_out(&table.db, &table.name));
            }
            c.next = if ascending { def.min } else { def.max };
            c.bound = c.next;
            c.cycle_count += 1;
        }
        let reserved = if ascending { c.next < c.bound } else { c.next > c.bound };
        if !reserved {
            // As MariaDB: the block ends past the last value at most (MAXVALUE + 1, or
            // MINVALUE - 1 going down), which is what the row's next_not_cached_value shows.
            let block = step as i128 * def.cache.max(1) as i128;
            let end = if ascending { def.max as i128 + 1 } else { def.min as i128 - 1 };
            let bound = c.next as i128 + block;
            let bound = if ascending { bound.min(end) } else { bound.max(end) } as i64;
            engine.set_sequence_state(table, SequenceState { next_not_cached: bound, cycle_count: c.cycle_count })?;
            c.bound = bound;
        }
        let value = c.next;
        c.next = (value as i128 + step as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        drop(cached);
        self.last.lock().insert((connection, table.id), value);
        Ok(value)
    }

    /// LASTVAL: the value NEXTVAL last gave this session, if any.
    pub fn last_value(&self, table: &TableDef, connection: u64) -> Option<i64> {
        self.last.lock().get(&(connection, table.id)).copied()
    }

    /// SETVAL(s, n, used, round): moves the sequence to `n` (the next value is after it when
    /// `used`) unless that is behind where it stands; returns `n`, or None when ignored. As in
    /// MariaDB, a value within the reserved block only moves the cache: the stored
    /// next_not_cached_value changes when the value is past it (or in another round).
    pub fn set_value(
        &self,
        engine: &Engine,
        table: &TableDef,
        n: i64,
        used: bool,
        round: Option<i64>,
    ) -> Result<Option<i64>, SqlError> {
        let def = def_of(table)?;
        let mut cached = self.cached.lock();
        let c = match cached.get_mut(&table.id) {
            Some(c) => c,
            None => cached.entry(table.id).or_insert(load(engine, table)?),
        };
        let round = round.unwrap_or(c.cycle_count);
        let step = step(def);
        let ascending = step > 0;
        let next = if used { (n as i128 + step as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64 } else { n };
        let behind = if ascending { next < c.next } else { next > c.next };
        if round < c.cycle_count || (round == c.cycle_count && behind) {
            return Ok(None);
        }
        let past_reserved = if ascending { next > c.bound } else { next < c.bound };
        if past_reserved || round != c.cycle_count {
            engine.set_sequence_state(table, SequenceState { next_not_cached: next, cycle_count: round })?;
            *c = Cached { next, bound: next, cycle_count: round };
        } else {
            c.next = next;
        }
        Ok(Some(n))
    }

    /// ALTER SEQUENCE done (the table's definition is `table` now): the sequence goes on from
    /// `reserved` in round 0, without a cache (MariaDB's `SEQUENCE::copy`). With RESTART the
    /// value is RESTART's; otherwise the reserved bound is read again here, under the cache's
    /// lock, so that values a NEXTVAL reserved while the ALTER ran are not handed out twice.
    pub fn restart(&self, engine: &Engine, table: &TableDef, reserved: i64, restarted: bool) -> Result<(), SqlError> {
        let mut cached = self.cached.lock();
        let next = match cached.get(&table.id) {
            Some(c) if !restarted => c.bound,
            _ => reserved,
        };
        engine.set_sequence_state(table, SequenceState { next_not_cached: next, cycle_count: 0 })?;
        cached.insert(table.id, Cached { next, bound: next, cycle_count: 0 });
        Ok(())
    }

    /// The row `SELECT * FROM s` shows.
    pub fn row(&self, engine: &Engine, table: &TableDef) -> Result<Vec<Value>, SqlError> {
        let def = def_of(table)?;
        let state = engine.sequence_state(table)?;
        Ok(vec![
            Value::Int(state.next_not_cached),
            Value::Int(def.min),
            Value::Int(def.max),
            Value::Int(def.start),
            Value::Int(def.increment),
            Value::UInt(def.cache),
            Value::UInt(def.cycle as u64),
            Value::Int(state.cycle_count),
        ])
    }

    /// Forgets a session's LASTVALs (it ended).
    pub fn forget_session(&self, connection: u64) {
        self.last.lock().retain(|(c, _), _| *c != connection);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_invalid_options() {
        let d = sequence_def(&SequenceOptions::default(), "d", "s").unwrap();
        assert_eq!((d.start, d.min, d.max, d.increment, d.cache, d.cycle), (1, 1, MAX_VALUE, 1, 1000, false));
        let desc = sequence_def(&SequenceOptions { increment: Some(-1), ..Default::default() }, "d", "s").unwrap();
        assert_eq!((desc.start, desc.min, desc.max), (-1, MIN_VALUE, -1));
        let bad = SequenceOptions { min: Some(Some(10)), max: Some(Some(5)), ..Default::default() };
        assert_eq!(sequence_def(&bad, "d", "s").unwrap_err().code, 4085);
        let start_out = SequenceOptions { start: Some(0), ..Default::default() };
        assert_eq!(
            sequence_def(&start_out, "d", "x2").unwrap_err().message,
            "Sequence 'd.x2' has out of range value for options"
        );
    }
}
