//! Command phase: the packets a client sends (decoded by servers, encoded by clients) and the
//! prepared-statement specific responses.

use crate::constants::{capabilities::*, command::*, FieldType, PARAM_UNSIGNED_FLAG};
use crate::error::{ProtocolError, Result};
use crate::value::{put_binary_value, read_binary_value, BinaryValue};
use crate::wire::{put_lenenc_bytes, put_null_terminated, put_u16, put_u32, put_u8, utf8, Decoder};

/// Statement id meaning "the statement prepared last on this connection" (MariaDB extension that
/// lets a client pipeline COM_STMT_PREPARE and COM_STMT_EXECUTE).
pub const LAST_PREPARED_STATEMENT: u32 = u32::MAX;
/// Largest number of parameters of one statement (the count is a u16 on the wire).
pub const MAX_PARAMS: usize = u16::MAX as usize;

/// A decoded client command. Borrowed fields point into the packet payload.
#[derive(Debug, PartialEq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a [u8]),
    Query(&'a [u8]),
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    ProcessKill(u32),
    Debug,
    Ping,
    ChangeUser(ChangeUser),
    StmtPrepare(&'a [u8]),
    /// Parameters are decoded separately (`decode_execute_params`) because that needs the
    /// statement's parameter count and previously bound types.
    StmtExecute(StmtExecute<'a>),
    StmtSendLongData {
        statement_id: u32,
        param: u16,
        data: &'a [u8],
    },
    StmtClose(u32),
    StmtReset(u32),
    SetOption(u16),
    StmtFetch {
        statement_id: u32,
        rows: u32,
    },
    ResetConnection,
    /// A command byte this codec does not decode (answered with 1047 by servers).
    Unknown(u8),
}

/// COM_CHANGE_USER: re-authenticate the connection as another user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeUser {
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub charset: Option<u16>,
    pub auth_plugin: String,
    pub attributes: Vec<(String, String)>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct StmtExecute<'a> {
    pub statement_id: u32,
    /// Cursor flags; selkied opens no cursors and ignores them (results are sent in full, which
    /// clients recognize because SERVER_STATUS_CURSOR_EXISTS is not set).
    pub flags: u8,
    pub iterations: u32,
    /// NULL bitmap, new-params-bound flag, types and values.
    pub params: &'a [u8],
}

impl<'a> Command<'a> {
    /// Decodes a command packet. `capabilities` are the negotiated ones (they shape
    /// COM_CHANGE_USER).
    pub fn parse(payload: &'a [u8], capabilities: u32) -> Result<Command<'a>> {
        let mut d = Decoder::new(payload);
        let cmd = d.u8("command byte")?;
        Ok(match cmd {
            COM_QUIT => Command::Quit,
            COM_INIT_DB => Command::InitDb(d.rest()),
            COM_QUERY => Command::Query(d.rest()),
            COM_FIELD_LIST => {
                let table = d.null_terminated_or_rest();
                Command::FieldList { table, wildcard: d.rest() }
            }
            COM_STATISTICS => Command::Statistics,
            COM_PROCESS_KILL => Command::ProcessKill(d.u32("thread id")?),
            COM_DEBUG => Command::Debug,
            COM_PING => Command::Ping,
            COM_CHANGE_USER => Command::ChangeUser(parse_change_user(&mut d, capabilities)?),
            COM_STMT_PREPARE => Command::StmtPrepare(d.rest()),
            COM_STMT_EXECUTE => Command::StmtExecute(StmtExecute {
                statement_id: d.u32("statement id")?,
                flags: d.u8("cursor flags")?,
                iterations: d.u32("iteration count")?,
                params: d.rest(),
            }),
            COM_STMT_SEND_LONG_DATA => Command::StmtSendLongData {
                statement_id: d.u32("statement id")?,
                param: d.u16("parameter id")?,
                data: d.rest(),
            },
            COM_STMT_CLOSE => Command::StmtClose(d.u32("statement id")?),
            COM_STMT_RESET => Command::StmtReset(d.u32("statement id")?),
            COM_SET_OPTION => Command::SetOption(d.u16("option")?),
            COM_STMT_FETCH => Command::StmtFetch { statement_id: d.u32("statement id")?, rows: d.u32("row count")? },
            COM_RESET_CONNECTION => Command::ResetConnection,
            other => Command::Unknown(other),
        })
    }

    /// Appends the payload of this command (client side).
    pub fn encode(&self, out: &mut Vec<u8>, capabilities: u32) {
        match self {
            Command::Quit => put_u8(out, COM_QUIT),
            Command::InitDb(db) => {
                put_u8(out, COM_INIT_DB);
                out.extend_from_slice(db);
            }
            Command::Query(sql) => {
                put_u8(out, COM_QUERY);
                out.extend_from_slice(sql);
            }
            Command::FieldList { table, wildcard } => {
                put_u8(out, COM_FIELD_LIST);
                put_null_terminated(out, table);
                out.extend_from_slice(wildcard);
            }
            Command::Statistics => put_u8(out, COM_STATISTICS),
            Command::ProcessKill(id) => {
                put_u8(out, COM_PROCESS_KILL);
                put_u32(out, *id);
            }
            Command::Debug => put_u8(out, COM_DEBUG),
            Command::Ping => put_u8(out, COM_PING),
            Command::ChangeUser(c) => encode_change_user(out, c, capabilities),
            Command::StmtPrepare(sql) => {
                put_u8(out, COM_STMT_PREPARE);
                out.extend_from_slice(sql);
            }
            Command::StmtExecute(e) => {
                put_u8(out, COM_STMT_EXECUTE);
                put_u32(out, e.statement_id);
                put_u8(out, e.flags);
                put_u32(out, e.iterations);
                out.extend_from_slice(e.params);
            }
            Command::StmtSendLongData { statement_id, param, data } => {
                put_u8(out, COM_STMT_SEND_LONG_DATA);
                put_u32(out, *statement_id);
                put_u16(out, *param);
                out.extend_from_slice(data);
            }
            Command::StmtClose(id) => {
                put_u8(out, COM_STMT_CLOSE);
                put_u32(out, *id);
            }
            Command::StmtReset(id) => {
                put_u8(out, COM_STMT_RESET);
                put_u32(out, *id);
            }
            Command::SetOption(o) => {
                put_u8(out, COM_SET_OPTION);
                put_u16(out, *o);
            }
            Command::StmtFetch { statement_id, rows } => {
                put_u8(out, COM_STMT_FETCH);
                put_u32(out, *statement_id);
                put_u32(out, *rows);
            }
            Command::ResetConnection => put_u8(out, COM_RESET_CONNECTION),
            Command::Unknown(b) => put_u8(out, *b),
        }
    }
}

fn parse_change_user(d: &mut Decoder<'_>, caps: u32) -> Result<ChangeUser> {
    let user = utf8(d.null_terminated("user name")?, "user name")?.to_string();
    let auth_response = if caps & CLIENT_SECURE_CONNECTION != 0 {
        let len = d.u8("auth response length")? as usize;
        d.bytes(len, "auth response")?
    } else {
        d.null_terminated("auth response")?
    }
    .to_vec();
    let db = utf8(d.null_terminated_or_rest(), "database name")?;
    let database = if db.is_empty() { None } else { Some(db.to_string()) };
    let mut c = ChangeUser { user, auth_response, database, ..ChangeUser::default() };
    if d.remaining() >= 2 {
        c.charset = Some(d.u16("charset")?);
    }
    if caps & CLIENT_PLUGIN_AUTH != 0 && !d.is_empty() {
        c.auth_plugin = utf8(d.null_terminated_or_rest(), "auth plugin name")?.to_string();
    }
    if caps & CLIENT_CONNECT_ATTRS != 0 && !d.is_empty() {
        let mut a = Decoder::new(d.lenenc_bytes("connect attributes")?);
        while !a.is_empty() {
            if c.attributes.len() == crate::handshake::MAX_CONNECT_ATTRS {
                return Err(ProtocolError::Malformed("too many connect attributes".into()));
            }
            let k = String::from_utf8_lossy(a.lenenc_bytes("attribute name")?).into_owned();
            let v = String::from_utf8_lossy(a.lenenc_bytes("attribute value")?).into_owned();
            c.attributes.push((k, v));
        }
    }
    Ok(c)
}

fn encode_change_user(out: &mut Vec<u8>, c: &ChangeUser, caps: u32) {
    put_u8(out, COM_CHANGE_USER);
    put_null_terminated(out, c.user.as_bytes());
    if caps & CLIENT_SECURE_CONNECTION != 0 {
        debug_assert!(c.auth_response.len() <= 255);
        put_u8(out, c.auth_response.len() as u8);
        out.extend_from_slice(&c.auth_response);
    } else {
        put_null_terminated(out, &c.auth_response);
    }
    put_null_terminated(out, c.database.as_deref().unwrap_or("").as_bytes());
    put_u16(out, c.charset.unwrap_or(crate::constants::charset::UTF8MB4_GENERAL_CI));
    if caps & CLIENT_PLUGIN_AUTH != 0 {
        put_null_terminated(out, c.auth_plugin.as_bytes());
    }
    if caps & CLIENT_CONNECT_ATTRS != 0 {
        let mut attrs = Vec::new();
        for (k, v) in &c.attributes {
            put_lenenc_bytes(&mut attrs, k.as_bytes());
            put_lenenc_bytes(&mut attrs, v.as_bytes());
        }
        put_lenenc_bytes(out, &attrs);
    }
}

/// The type a client bound to a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamType {
    pub column_type: FieldType,
    pub unsigned: bool,
}

/// Decodes the parameter block of COM_STMT_EXECUTE.
///
/// `bound` holds the types bound by an earlier execute of the statement and is replaced when
/// this packet binds new ones. Parameters for which `has_long_data` is true carry no value in the
/// packet (it came with COM_STMT_SEND_LONG_DATA); they come back as `None`.
pub fn decode_execute_params(
    params: &[u8],
    param_count: usize,
    bound: &mut Vec<ParamType>,
    has_long_data: impl Fn(usize) -> bool,
    values: &mut Vec<Option<BinaryValue>>,
) -> Result<()> {
    values.clear();
    if param_count == 0 {
        return Ok(());
    }
    if param_count > MAX_PARAMS {
        return Err(ProtocolError::Malformed(format!("{param_count} parameters")));
    }
    let mut d = Decoder::new(params);
    let null_bitmap = d.bytes(param_count.div_ceil(8), "parameter NULL bitmap")?;
    let new_params_bound = d.u8("new-params-bound flag")?;
    if new_params_bound == 1 {
        bound.clear();
        for _ in 0..param_count {
            let ty = d.u8("parameter type")?;
            let flags = d.u8("parameter flags")?;
            let column_type = FieldType::from_u8(ty)
                .ok_or_else(|| ProtocolError::Malformed(format!("unknown parameter type {ty}")))?;
            bound.push(ParamType { column_type, unsigned: flags & PARAM_UNSIGNED_FLAG != 0 });
        }
    } else if new_params_bound != 0 {
        return Err(ProtocolError::Malformed(format!("new-params-bound flag {new_params_bound}")));
    } else if bound.len() != param_count {
        return Err(ProtocolError::Malformed("parameter types were never bound".into()));
    }
    for (i, t) in bound.iter().enumerate() {
        if has_long_data(i) {
            values.push(None);
        } else if null_bitmap[i / 8] & (1 << (i % 8)) != 0 {
            values.push(Some(BinaryValue::Null));
        } else {
            values.push(Some(read_binary_value(&mut d, t.column_type, t.unsigned)?));
        }
    }
    Ok(())
}

/// Appends a complete COM_STMT_EXECUTE (client side), binding `params` with their types.
/// Parameters listed in `long_data` were sent with COM_STMT_SEND_LONG_DATA and carry no value.
pub fn encode_stmt_execute(
    out: &mut Vec<u8>,
    statement_id: u32,
    params: &[(ParamType, BinaryValue)],
    long_data: &[usize],
) -> Result<()> {
    put_u8(out, COM_STMT_EXECUTE);
    put_u32(out, statement_id);
    put_u8(out, 0);
    put_u32(out, 1);
    if params.is_empty() {
        return Ok(());
    }
    let bitmap_at = out.len();
    out.resize(bitmap_at + params.len().div_ceil(8), 0);
    put_u8(out, 1);
    for (t, _) in params {
        put_u8(out, t.column_type as u8);
        put_u8(out, if t.unsigned { PARAM_UNSIGNED_FLAG } else { 0 });
    }
    for (i, (t, v)) in params.iter().enumerate() {
        if long_data.contains(&i) {
            continue;
        }
        if *v == BinaryValue::Null {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
        } else {
            put_binary_value(out, t.column_type, v)?;
        }
    }
    Ok(())
}

/// COM_STMT_PREPARE_OK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrepareOk {
    pub statement_id: u32,
    pub columns: u16,
    pub params: u16,
    pub warnings: u16,
}

impl PrepareOk {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_u8(out, 0x00);
        put_u32(out, self.statement_id);
        put_u16(out, self.columns);
        put_u16(out, self.params);
        put_u8(out, 0);
        put_u16(out, self.warnings);
    }

    pub fn parse(payload: &[u8]) -> Result<PrepareOk> {
        let mut d = Decoder::new(payload);
        if d.u8("prepare OK header")? != 0 {
            return Err(ProtocolError::Malformed("COM_STMT_PREPARE response does not start with 0x00".into()));
        }
        let statement_id = d.u32("statement id")?;
        let columns = d.u16("column count")?;
        let params = d.u16("parameter count")?;
        d.skip(1, "filler")?;
        // The warning count is absent in some old servers' responses.
        let warnings = if d.remaining() >= 2 { d.u16("warning count")? } else { 0 };
        Ok(PrepareOk { statement_id, columns, params, warnings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{WireDateTime, WireTime};
    use proptest::prelude::*;

    fn round_trip(c: Command<'_>) {
        let mut out = Vec::new();
        c.encode(&mut out, SERVER_DEFAULT);
        assert_eq!(Command::parse(&out, SERVER_DEFAULT).unwrap(), c);
    }

    #[test]
    fn every_command_round_trips() {
        round_trip(Command::Quit);
        round_trip(Command::InitDb(b"sbtest"));
        round_trip(Command::Query(b"SELECT 1; SELECT 2"));
        round_trip(Command::FieldList { table: b"t1", wildcard: b"c%" });
        round_trip(Command::Statistics);
        round_trip(Command::ProcessKill(77));
        round_trip(Command::Debug);
        round_trip(Command::Ping);
        round_trip(Command::ChangeUser(ChangeUser {
            user: "bob".into(),
            auth_response: vec![1; 20],
            database: Some("db1".into()),
            charset: Some(45),
            auth_plugin: "mysql_native_password".into(),
            attributes: vec![("a".into(), "b".into())],
        }));
        round_trip(Command::StmtPrepare(b"SELECT ?"));
        round_trip(Command::StmtExecute(StmtExecute {
            statement_id: 3,
            flags: 0,
            iterations: 1,
            params: b"\x00\x01\x08\x00",
        }));
        round_trip(Command::StmtSendLongData { statement_id: 3, param: 1, data: b"chunk" });
        round_trip(Command::StmtClose(3));
        round_trip(Command::StmtReset(3));
        round_trip(Command::SetOption(1));
        round_trip(Command::StmtFetch { statement_id: 3, rows: 10 });
        round_trip(Command::ResetConnection);
        round_trip(Command::Unknown(0x30));
        assert!(Command::parse(&[], SERVER_DEFAULT).is_err());
        assert!(Command::parse(&[COM_STMT_CLOSE, 1, 2], SERVER_DEFAULT).is_err());
    }

    fn every_param() -> Vec<(ParamType, BinaryValue)> {
        let t = |column_type, unsigned| ParamType { column_type, unsigned };
        vec![
            (t(FieldType::Tiny, false), BinaryValue::Int(-1)),
            (t(FieldType::Tiny, true), BinaryValue::UInt(200)),
            (t(FieldType::Short, false), BinaryValue::Int(-300)),
            (t(FieldType::Long, true), BinaryValue::UInt(4_000_000_000)),
            (t(FieldType::LongLong, false), BinaryValue::Int(i64::MIN)),
            (t(FieldType::LongLong, true), BinaryValue::UInt(u64::MAX)),
            (t(FieldType::Float, false), BinaryValue::Float(1.5)),
            (t(FieldType::Double, false), BinaryValue::Double(-2.25)),
            (t(FieldType::NewDecimal, false), BinaryValue::Bytes(b"12.345".to_vec())),
            (t(FieldType::VarString, false), BinaryValue::Bytes("héllo".as_bytes().to_vec())),
            (t(FieldType::Blob, false), BinaryValue::Bytes(vec![0, 255, 7])),
            (t(FieldType::Null, false), BinaryValue::Null),
            (t(FieldType::VarString, false), BinaryValue::Null),
            (
                t(FieldType::Date, false),
                BinaryValue::DateTime(WireDateTime { year: 2024, month: 12, day: 31, ..Default::default() }),
            ),
            (
                t(FieldType::DateTime, false),
                BinaryValue::DateTime(WireDateTime {
                    year: 2024,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    micros: 678,
                }),
            ),
            (
                t(FieldType::Timestamp, false),
                BinaryValue::DateTime(WireDateTime {
                    year: 1999,
                    month: 9,
                    day: 9,
                    hour: 9,
                    minute: 9,
                    second: 9,
                    micros: 0,
                }),
            ),
            (
                t(FieldType::Time, false),
                BinaryValue::Time(WireTime { negative: true, days: 2, hour: 3, minute: 4, second: 5, micros: 6 }),
            ),
        ]
    }

    #[test]
    fn execute_params_round_trip_with_every_type() {
        let params = every_param();
        let mut out = Vec::new();
        encode_stmt_execute(&mut out, 9, &params, &[]).unwrap();
        let Command::StmtExecute(e) = Command::parse(&out, SERVER_DEFAULT).unwrap() else { panic!("not an execute") };
        assert_eq!((e.statement_id, e.iterations), (9, 1));
        let mut bound = Vec::new();
        let mut values = Vec::new();
        decode_execute_params(e.params, params.len(), &mut bound, |_| false, &mut values).unwrap();
        assert_eq!(bound, params.iter().map(|p| p.0).collect::<Vec<_>>());
        assert_eq!(values, params.iter().map(|p| Some(p.1.clone())).collect::<Vec<_>>());
    }

    #[test]
    fn execute_reuses_bound_types_and_skips_long_data() {
        let t = ParamType { column_type: FieldType::Long, unsigned: false };
        let mut bound = vec![t, t];
        // Bitmap 0, not rebound, one LONG for parameter 1 (parameter 0 came as long data).
        let params = [0u8, 0, 7, 0, 0, 0];
        let mut values = Vec::new();
        decode_execute_params(&params, 2, &mut bound, |i| i == 0, &mut values).unwrap();
        assert_eq!(values, vec![None, Some(BinaryValue::Int(7))]);
        // Types never bound: clean error.
        assert!(decode_execute_params(&params, 2, &mut Vec::new(), |_| false, &mut values).is_err());
    }

    #[test]
    fn prepare_ok_round_trip() {
        let p = PrepareOk { statement_id: 1, columns: 2, params: 3, warnings: 4 };
        let mut out = Vec::new();
        p.encode(&mut out);
        assert_eq!(out.len(), 12);
        assert_eq!(PrepareOk::parse(&out).unwrap(), p);
    }

    proptest! {
        #[test]
        fn command_decoders_survive_random_bytes(
            cmd in prop::sample::select(vec![COM_QUIT, COM_INIT_DB, COM_QUERY, COM_FIELD_LIST, COM_PROCESS_KILL, COM_CHANGE_USER,
                COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE, COM_STMT_RESET, COM_SET_OPTION,
                COM_STMT_FETCH, COM_RESET_CONNECTION, 0x30]),
            body in proptest::collection::vec(any::<u8>(), 0..80usize),
            n in 0usize..6,
        ) {
            // Every command byte followed by random (often truncated) fields.
            let mut bytes = vec![cmd];
            bytes.extend_from_slice(&body);
            let _ = Command::parse(&bytes, SERVER_DEFAULT);
            let _ = Command::parse(&bytes, SERVER_DEFAULT & !CLIENT_SECURE_CONNECTION);
            if let Ok(Command::StmtExecute(e)) = Command::parse(&bytes, SERVER_DEFAULT) {
                let mut bound = Vec::new();
                let mut values = Vec::new();
                let _ = decode_execute_params(e.params, n, &mut bound, |_| false, &mut values);
            }
            let mut bound = Vec::new();
            let mut values = Vec::new();
            let _ = decode_execute_params(&body, n, &mut bound, |i| i == 1, &mut values);
            let _ = PrepareOk::parse(&body);
        }

        #[test]
        fn truncated_execute_params_are_errors(cut in 0usize..200) {
            let params = every_param();
            let mut out = Vec::new();
            encode_stmt_execute(&mut out, 1, &params, &[]).unwrap();
            let body = &out[10..];
            let cut = cut.min(body.len() - 1);
            let mut bound = Vec::new();
            let mut values = Vec::new();
            prop_assert!(decode_execute_params(&body[..cut], params.len(), &mut bound, |_| false, &mut values).is_err());
        }
    }
}
