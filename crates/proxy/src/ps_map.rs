//! Prepared statements of a readwritesplit session: the proxy's own statement ids and each
//! backend's id for the same statement.
//!
//! The client only ever sees ids the proxy allocated. A statement is prepared on the backend
//! the prepare is routed to, and lazily on any other backend the first time an execute is routed
//! there (the text is kept for that). Lazy preparation keeps read-only sessions from opening a
//! primary connection just to prepare, at the cost of one extra round trip per statement and
//! backend, paid once.
//!
//! COM_STMT_EXECUTE carries parameter types only when the client (re)binds them; later executes
//! rely on the types the server remembers. A backend that never saw the types would reject such
//! an execute, so the proxy keeps the last bound types and inserts them (`rewrite_execute`) the
//! first time an execute without types goes to a backend that has not had them.

use std::collections::HashMap;
use std::rc::Rc;

use selkie_protocol::command::LAST_PREPARED_STATEMENT;
use smallvec::SmallVec;

use crate::classifier::Classification;

/// Most statements one session may hold prepared (MariaDB's max_prepared_stmt_count default is
/// 16382 for the whole server; a proxy session should not hold more than that).
pub const MAX_PREPARED_PER_SESSION: usize = 16_382;
/// Bytes before the parameter block of COM_STMT_EXECUTE: command, id u32, flags u8, iterations u32.
pub const EXECUTE_HEADER_LEN: usize = 10;
/// The new-params-bound flag value that says types follow.
const NEW_PARAMS_BOUND: u8 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendStatement {
    /// Serial number of the backend connection within the session.
    pub backend: u64,
    pub id: u32,
    /// The backend has seen parameter types for this statement.
    pub types_bound: bool,
}

#[derive(Debug)]
pub struct PreparedStatement {
    pub sql: Rc<[u8]>,
    /// Shared text for cache keys (one allocation per statement, not per execute).
    pub sql_arc: std::sync::Arc<[u8]>,
    pub class: Rc<Classification>,
    pub params: u16,
    pub columns: u16,
    /// Types of the last binding (2 bytes per parameter: type, flags).
    pub bound_types: Option<Box<[u8]>>,
    pub backends: SmallVec<[BackendStatement; 2]>,
    /// Backend holding COM_STMT_SEND_LONG_DATA chunks for the next execute.
    pub long_data_on: Option<u64>,
    /// Backend of the last execute (COM_STMT_FETCH goes there).
    pub last_exec_on: Option<u64>,
}

impl PreparedStatement {
    pub fn on_backend(&self, backend: u64) -> Option<&BackendStatement> {
        self.backends.iter().find(|b| b.backend == backend)
    }

    pub fn on_backend_mut(&mut self, backend: u64) -> Option<&mut BackendStatement> {
        self.backends.iter_mut().find(|b| b.backend == backend)
    }
}

#[derive(Debug, Default)]
pub struct PsMap {
    stmts: HashMap<u32, PreparedStatement>,
    next_id: u32,
    last_prepared: Option<u32>,
}

impl PsMap {
    /// A fresh id: never 0 or LAST_PREPARED_STATEMENT, never one in use. `None` when the
    /// session holds the maximum number of statements.
    pub fn allocate_id(&mut self) -> Option<u32> {
        if self.stmts.len() >= MAX_PREPARED_PER_SESSION {
            return None;
        }
        loop {
            self.next_id = self.next_id.wrapping_add(1);
            let id = self.next_id;
            if id != 0 && id != LAST_PREPARED_STATEMENT && !self.stmts.contains_key(&id) {
                return Some(id);
            }
        }
    }

    pub fn insert(&mut self, id: u32, stmt: PreparedStatement) {
        debug_assert!(id != 0 && id != LAST_PREPARED_STATEMENT);
        self.stmts.insert(id, stmt);
        self.last_prepared = Some(id);
    }

    /// Resolves LAST_PREPARED_STATEMENT (MariaDB's "the statement prepared last") to an id.
    pub fn resolve(&self, id: u32) -> u32 {
        if id == LAST_PREPARED_STATEMENT {
            self.last_prepared.unwrap_or(id)
        } else {
            id
        }
    }

    pub fn get(&self, id: u32) -> Option<&PreparedStatement> {
        self.stmts.get(&self.resolve(id))
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut PreparedStatement> {
        let id = self.resolve(id);
        self.stmts.get_mut(&id)
    }

    pub fn remove(&mut self, id: u32) -> Option<PreparedStatement> {
        let id = self.resolve(id);
        if self.last_prepared == Some(id) {
            self.last_prepared = None;
        }
        self.stmts.remove(&id)
    }

    /// A backend left the session: its statement ids are gone with it.
    pub fn forget_backend(&mut self, backend: u64) {
        for s in self.stmts.values_mut() {
            s.backends.retain(|b| b.backend != backend);
            if s.long_data_on == Some(backend) {
                s.long_data_on = None;
            }
            if s.last_exec_on == Some(backend) {
                s.last_exec_on = None;
            }
        }
    }

    pub fn clear(&mut self) {
        self.stmts.clear();
        self.last_prepared = None;
    }

    pub fn len(&self) -> usize {
        self.stmts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }
}

/// Why an execute payload could not be understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MalformedExecute(pub &'static str);

/// The parts of a COM_STMT_EXECUTE parameter block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecuteParams<'a> {
    pub null_bitmap: &'a [u8],
    /// The types, when this execute (re)binds them.
    pub types: Option<&'a [u8]>,
    pub values: &'a [u8],
}

/// Splits the parameter block of an execute payload for a statement with `param_count`
/// parameters. A statement without parameters has no block.
pub fn parse_execute(payload: &[u8], param_count: u16) -> Result<ExecuteParams<'_>, MalformedExecute> {
    if payload.len() < EXECUTE_HEADER_LEN {
        return Err(MalformedExecute("truncated COM_STMT_EXECUTE header"));
    }
    let block = &payload[EXECUTE_HEADER_LEN..];
    if param_count == 0 {
        return Ok(ExecuteParams { null_bitmap: &[], types: None, values: &[] });
    }
    let n = param_count as usize;
    let bitmap_len = n.div_ceil(8);
    if block.len() < bitmap_len + 1 {
        return Err(MalformedExecute("truncated parameter block"));
    }
    let (null_bitmap, rest) = block.split_at(bitmap_len);
    let (flag, rest) = (rest[0], &rest[1..]);
    match flag {
        0 => Ok(ExecuteParams { null_bitmap, types: None, values: rest }),
        NEW_PARAMS_BOUND => {
            if rest.len() < 2 * n {
                return Err(MalformedExecute("truncated parameter types"));
            }
            let (types, values) = rest.split_at(2 * n);
            Ok(ExecuteParams { null_bitmap, types: Some(types), values })
        }
        _ => Err(MalformedExecute("invalid new-params-bound flag")),
    }
}

/// Writes into `out` the execute payload for a backend: the backend's statement id, and the
/// parameter types inserted when `insert_types` is given and the client sent none.
pub fn rewrite_execute(
    payload: &[u8],
    param_count: u16,
    backend_id: u32,
    insert_types: Option<&[u8]>,
    out: &mut Vec<u8>,
) -> Result<(), MalformedExecute> {
    let p = parse_execute(payload, param_count)?;
    out.clear();
    out.extend_from_slice(&payload[..EXECUTE_HEADER_LEN]);
    out[1..5].copy_from_slice(&backend_id.to_le_bytes());
    if param_count == 0 {
        return Ok(());
    }
    out.extend_from_slice(p.null_bitmap);
    match (p.types, insert_types) {
        (Some(types), _) => {
            out.push(NEW_PARAMS_BOUND);
            out.extend_from_slice(types);
        }
        (None, Some(types)) => {
            if types.len() != 2 * param_count as usize {
                return Err(MalformedExecute("remembered parameter types do not match the parameter count"));
            }
            out.push(NEW_PARAMS_BOUND);
            out.extend_from_slice(types);
        }
        (None, None) => out.push(0),
    }
    out.extend_from_slice(p.values);
    Ok(())
}

/// The parameters of an execute in a form that identifies the values whatever the client sent:
/// NULL bitmap, types (from the packet or remembered) and values. `None` if the types are not
/// known (the result must then not be cached: the value bytes alone are ambiguous).
pub fn normalized_params(payload: &[u8], param_count: u16, remembered: Option<&[u8]>) -> Option<Vec<u8>> {
    let p = parse_execute(payload, param_count).ok()?;
    if param_count == 0 {
        return Some(Vec::new());
    }
    let types = p.types.or(remembered)?;
    let mut out = Vec::with_capacity(p.null_bitmap.len() + types.len() + p.values.len());
    out.extend_from_slice(p.null_bitmap);
    out.extend_from_slice(types);
    out.extend_from_slice(p.values);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_protocol::command::{encode_stmt_execute, ParamType};
    use selkie_protocol::constants::FieldType;
    use selkie_protocol::value::BinaryValue;

    fn execute(id: u32, params: &[(ParamType, BinaryValue)]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_stmt_execute(&mut out, id, params, &[]).unwrap();
        out
    }

    fn long(v: i64) -> (ParamType, BinaryValue) {
        (ParamType { column_type: FieldType::LongLong, unsigned: false }, BinaryValue::Int(v))
    }

    #[test]
    fn ids_skip_zero_sentinel_and_used_ones() {
        let mut m = PsMap::default();
        let a = m.allocate_id().unwrap();
        assert_eq!(a, 1);
        m.next_id = u32::MAX - 2;
        let b = m.allocate_id().unwrap();
        assert_eq!(b, u32::MAX - 1);
        // Wraps past LAST_PREPARED_STATEMENT (u32::MAX) and 0.
        assert_eq!(m.allocate_id().unwrap(), 1);
    }

    #[test]
    fn last_prepared_resolves_and_backends_are_forgotten() {
        let mut m = PsMap::default();
        let id = m.allocate_id().unwrap();
        let class = Rc::new(test_class());
        m.insert(
            id,
            PreparedStatement {
                sql: b"SELECT ?".as_slice().into(),
                sql_arc: b"SELECT ?".as_slice().into(),
                class,
                params: 1,
                columns: 1,
                bound_types: None,
                backends: smallvec::smallvec![
                    BackendStatement { backend: 1, id: 77, types_bound: false },
                    BackendStatement { backend: 2, id: 5, types_bound: true }
                ],
                long_data_on: Some(2),
                last_exec_on: Some(1),
            },
        );
        assert_eq!(m.get(LAST_PREPARED_STATEMENT).unwrap().on_backend(1).unwrap().id, 77);
        m.forget_backend(2);
        let s = m.get(id).unwrap();
        assert!(s.on_backend(2).is_none() && s.long_data_on.is_none() && s.last_exec_on == Some(1));
        assert!(m.remove(LAST_PREPARED_STATEMENT).is_some());
        assert!(m.get(id).is_none() && m.is_empty());
    }

    fn test_class() -> Classification {
        Classification {
            route: crate::classifier::Route::Read,
            txn: crate::classifier::TxnEffect::None,
            pins_primary: false,
            locking_read: false,
            use_database: None,
            text_prepare: None,
            cacheable: crate::classifier::Cacheability::Cacheable,
            tables: Default::default(),
            writes: false,
            multi_statement: false,
        }
    }

    #[test]
    fn rewrite_replaces_id_and_inserts_remembered_types() {
        let with_types = execute(9, &[long(5), long(-1)]);
        let p = parse_execute(&with_types, 2).unwrap();
        let types = p.types.unwrap().to_vec();
        assert_eq!(types, vec![FieldType::LongLong as u8, 0, FieldType::LongLong as u8, 0]);

        let mut out = Vec::new();
        rewrite_execute(&with_types, 2, 1234, None, &mut out).unwrap();
        assert_eq!(&out[1..5], &1234u32.to_le_bytes());
        assert_eq!(&out[5..], &with_types[5..]);

        // The same execute without types (new-params-bound = 0), as clients send it later.
        let mut without = with_types[..EXECUTE_HEADER_LEN + 1].to_vec();
        without.push(0);
        without.extend_from_slice(p.values);
        let q = parse_execute(&without, 2).unwrap();
        assert_eq!((q.types, q.values), (None, p.values));
        rewrite_execute(&without, 2, 1234, Some(&types), &mut out).unwrap();
        let mut expected = with_types.clone();
        expected[1..5].copy_from_slice(&1234u32.to_le_bytes());
        assert_eq!(out, expected, "types inserted where the client sent none");
        rewrite_execute(&without, 2, 1234, None, &mut out).unwrap();
        assert_eq!(&out[5..], &without[5..]);
        assert!(rewrite_execute(&without, 2, 1, Some(&types[..2]), &mut out).is_err());

        // Normalized parameters are equal whichever form the client used.
        assert_eq!(normalized_params(&with_types, 2, None), normalized_params(&without, 2, Some(&types)));
        assert_eq!(normalized_params(&without, 2, None), None);
        assert_ne!(
            normalized_params(&with_types, 2, None),
            normalized_params(&execute(9, &[long(5), long(-2)]), 2, None)
        );
    }

    #[test]
    fn statements_without_parameters_and_malformed_blocks() {
        let e = execute(3, &[]);
        let mut out = Vec::new();
        rewrite_execute(&e, 0, 8, None, &mut out).unwrap();
        assert_eq!(out.len(), EXECUTE_HEADER_LEN);
        assert_eq!(normalized_params(&e, 0, None), Some(Vec::new()));
        assert!(parse_execute(&e[..5], 0).is_err());
        assert!(parse_execute(&e, 1).is_err());
        let mut bad = e.clone();
        bad.extend_from_slice(&[0, 7]);
        assert_eq!(parse_execute(&bad, 1), Err(MalformedExecute("invalid new-params-bound flag")));
        let mut short_types = e.clone();
        short_types.extend_from_slice(&[0, 1, 8]);
        assert!(parse_execute(&short_types, 1).is_err());
    }
}
