//! `WireSink`: the `ResultSink` that encodes statement results straight into the connection's
//! output buffer, as text rows (COM_QUERY) or binary rows (COM_STMT_EXECUTE).
//!
//! The last result of a command is not written when the SQL layer reports it: its status flags
//! must say whether a transaction is open *after* the statement, which only the session knows
//! once execution has returned. `finish` writes it then. Earlier results of a multi-statement
//! command carry the flags as of the command's start plus SERVER_MORE_RESULTS_EXISTS.
//!
//! The sink cannot await (the SQL layer calls it synchronously), so a large result is pushed to
//! the socket with non-blocking writes whenever more than `FLUSH_THRESHOLD` bytes are buffered;
//! whatever the client does not take yet stays buffered until the command's final flush.

use std::io;

use selkie_protocol::constants::status::{
    SERVER_MORE_RESULTS_EXISTS, SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS, SERVER_STATUS_IN_TRANS_READONLY,
    SERVER_STATUS_NO_BACKSLASH_ESCAPES,
};
use selkie_protocol::packet::PacketWriter;
use selkie_protocol::response::{encode_eof, encode_err, encode_ok, EOF_HEADER, OK_HEADER};
use selkie_protocol::resultset::{encode_column_count, ColumnDefinition};
use selkie_sql::{OkInfo, ResultSink, SessionStatus, SqlError, Value};
use tokio::io::AsyncWrite;

use crate::convert::{put_binary_row, put_text_row, ColumnEncoding};

/// Buffered output beyond which rows are pushed to the socket without waiting.
pub const FLUSH_THRESHOLD: usize = 1 << 20;
/// Buffered output beyond which a statement waits for the client to read (`wait_for_client`).
pub const MAX_BUFFERED_RESULT: usize = 16 << 20;

/// OK/EOF status flags for a session state.
pub fn status_flags(s: SessionStatus) -> u16 {
    let mut flags = 0;
    if s.in_transaction {
        flags |= SERVER_STATUS_IN_TRANS;
    }
    if s.autocommit {
        flags |= SERVER_STATUS_AUTOCOMMIT;
    }
    if s.read_only_transaction {
        flags |= SERVER_STATUS_IN_TRANS_READONLY;
    }
    if s.no_backslash_escapes {
        flags |= SERVER_STATUS_NO_BACKSLASH_ESCAPES;
    }
    flags
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    Text,
    Binary,
}

/// Per-connection buffers the sink reuses from command to command.
#[derive(Default)]
pub struct SinkState {
    columns: Vec<ColumnEncoding>,
    final_info: String,
}

/// The command's last result, written by `finish`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deferred {
    Nothing,
    Ok { affected_rows: u64, last_insert_id: u64, warnings: u16 },
    EndRows { warnings: u16 },
}

pub struct WireSink<'a, W> {
    writer: &'a mut PacketWriter<W>,
    state: &'a mut SinkState,
    format: RowFormat,
    deprecate_eof: bool,
    /// Flags for results written before the command ends.
    status: u16,
    deferred: Deferred,
    /// A result set's column definitions were sent and its end was not.
    in_rows: bool,
    results: u32,
    next_flush_at: usize,
    write_error: Option<io::Error>,
}

/// What a finished command produced.
#[derive(Debug)]
pub struct Finished {
    /// Statements that produced a result (or an error): the command's share of `Questions`.
    pub statements: u64,
    /// A non-blocking write failed: the connection is gone.
    pub write_error: Option<io::Error>,
}

impl<'a, W: AsyncWrite + Unpin> WireSink<'a, W> {
    pub fn new(
        writer: &'a mut PacketWriter<W>,
        state: &'a mut SinkState,
        format: RowFormat,
        deprecate_eof: bool,
        status: u16,
    ) -> Self {
        WireSink {
            writer,
            state,
            format,
            deprecate_eof,
            status,
            deferred: Deferred::Nothing,
            in_rows: false,
            results: 0,
            next_flush_at: FLUSH_THRESHOLD,
            write_error: None,
        }
    }

    fn write_rows_end(&mut self, warnings: u16, status: u16) {
        let mut p = self.writer.begin_packet();
        if self.deprecate_eof {
            encode_ok(&mut p, EOF_HEADER, 0, 0, status, warnings, b"");
        } else {
            encode_eof(&mut p, warnings, status);
        }
    }

    fn maybe_flush(&mut self) {
        if self.writer.pending() < self.next_flush_at || self.write_error.is_some() {
            return;
        }
        if let Err(e) = self.writer.try_flush() {
            self.write_error = Some(e);
            self.writer.discard_pending();
            return;
        }
        if self.writer.pending() >= MAX_BUFFERED_RESULT && self.wait_for_client().is_err() {
            return;
        }
        // If the client is not keeping up, wait for another threshold's worth before trying
        // again, so a stalled client costs one syscall per megabyte rather than per row.
        self.next_flush_at = self.writer.pending() + FLUSH_THRESHOLD;
    }

    /// A client that reads slower than the query produces rows (or not at all) must not make the
    /// server hold the whole result: past `MAX_BUFFERED_RESULT` the statement waits until the
    /// client has taken what is buffered, as MariaDB's thread blocks in its network write. The
    /// sink cannot await, so on the server's multi-thread runtime it blocks this task in place
    /// (the worker's other connections move to another thread); elsewhere (tests on a
    /// current-thread runtime) it keeps buffering.
    fn wait_for_client(&mut self) -> Result<(), ()> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let Ok(handle) = Handle::try_current() else { return Ok(()) };
        if handle.runtime_flavor() != RuntimeFlavor::MultiThread {
            return Ok(());
        }
        let writer = &mut *self.writer;
        if let Err(e) = tokio::task::block_in_place(|| handle.block_on(writer.flush())) {
            self.write_error = Some(e);
            self.writer.discard_pending();
            return Err(());
        }
        Ok(())
    }

    /// Completes the command: writes the deferred final result with `final_status` (the
    /// session's flags after execution), or the error that ended execution.
    pub fn finish(mut self, final_status: u16, result: Result<(), SqlError>) -> Finished {
        match result {
            Err(e) => {
                // An ERR may follow rows (it ends the result set) or earlier results of a
                // multi-statement command (it ends the sequence).
                let mut p = self.writer.begin_packet();
                encode_err(&mut p, e.code, e.state, &e.message);
                self.results += 1;
            }
            Ok(()) => match self.deferred {
                Deferred::Ok { affected_rows, last_insert_id, warnings } => {
                    let mut p = self.writer.begin_packet();
                    encode_ok(
                        &mut p,
                        OK_HEADER,
                        affected_rows,
                        last_insert_id,
                        final_status,
                        warnings,
                        self.state.final_info.as_bytes(),
                    );
                }
                Deferred::EndRows { warnings } => self.write_rows_end(warnings, final_status),
                Deferred::Nothing => {
                    // The SQL layer returned without completing the protocol exchange (rows
                    // without an end, a promised further result, or no result at all): close
                    // it properly so the client is not left waiting.
                    tracing::warn!(
                        in_rows = self.in_rows,
                        results = self.results,
                        "statement finished without a final result"
                    );
                    if self.in_rows {
                        self.write_rows_end(0, final_status);
                    } else {
                        let mut p = self.writer.begin_packet();
                        encode_ok(&mut p, OK_HEADER, 0, 0, final_status, 0, b"");
                    }
                    self.results += 1;
                }
            },
        }
        if self.state.final_info.capacity() > 4096 {
            self.state.final_info = String::new();
        }
        Finished { statements: self.results.max(1) as u64, write_error: self.write_error }
    }
}

impl<W: AsyncWrite + Unpin + Send> ResultSink for WireSink<'_, W> {
    fn columns(&mut self, columns: &[ColumnDefinition]) {
        debug_assert!(!self.in_rows, "columns() while a result set is open");
        debug_assert!(self.deferred == Deferred::Nothing, "result after the final one");
        self.state.columns.clear();
        self.state.columns.extend(columns.iter().map(ColumnEncoding::new));
        encode_column_count(&mut self.writer.begin_packet(), columns.len());
        for c in columns {
            c.encode(&mut self.writer.begin_packet());
        }
        if !self.deprecate_eof {
            encode_eof(&mut self.writer.begin_packet(), 0, self.status);
        }
        self.in_rows = true;
    }

    fn row(&mut self, values: &[Value]) {
        debug_assert!(self.in_rows, "row() outside a result set");
        if self.write_error.is_some() {
            return; // the client is gone; the command's end reports it
        }
        {
            let mut p = self.writer.begin_packet();
            match self.format {
                RowFormat::Text => put_text_row(&mut p, values, &self.state.columns),
                RowFormat::Binary => put_binary_row(&mut p, values, &self.state.columns),
            }
        }
        self.maybe_flush();
    }

    fn end_rows(&mut self, warnings: u16, more: bool) {
        debug_assert!(self.in_rows, "end_rows() without columns()");
        self.in_rows = false;
        self.results += 1;
        if more {
            self.write_rows_end(warnings, self.status | SERVER_MORE_RESULTS_EXISTS);
        } else {
            self.deferred = Deferred::EndRows { warnings };
        }
    }

    fn ok(&mut self, info: &OkInfo, more: bool) {
        debug_assert!(!self.in_rows, "ok() while a result set is open");
        self.results += 1;
        if more {
            let mut p = self.writer.begin_packet();
            encode_ok(
                &mut p,
                OK_HEADER,
                info.affected_rows,
                info.last_insert_id,
                self.status | SERVER_MORE_RESULTS_EXISTS,
                info.warnings,
                info.info.as_bytes(),
            );
        } else {
            self.state.final_info.clear();
            self.state.final_info.push_str(&info.info);
            self.deferred = Deferred::Ok {
                affected_rows: info.affected_rows,
                last_insert_id: info.last_insert_id,
                warnings: info.warnings,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_protocol::client::Response;
    use selkie_protocol::constants::FieldType;
    use selkie_protocol::packet::{PacketReader, MAX_ALLOWED_PACKET_LIMIT};
    use selkie_protocol::response::{is_eof_packet, parse_result_end, ErrPacket, OkPacket, ERR_HEADER};
    use selkie_protocol::resultset::{parse_binary_row, parse_text_row, ColumnDefinition};
    use selkie_protocol::value::BinaryValue;
    use selkie_protocol::wire::Decoder;

    fn column(name: &str, field_type: FieldType) -> ColumnDefinition {
        ColumnDefinition {
            schema: "db".into(),
            table: "t".into(),
            org_table: "t".into(),
            name: name.into(),
            org_name: name.into(),
            charset: 45,
            length: 40,
            field_type,
            flags: 0,
            decimals: 0,
        }
    }

    /// Runs `produce` against a sink over an in-memory writer; returns the bytes written.
    fn run(
        format: RowFormat,
        deprecate_eof: bool,
        produce: impl FnOnce(&mut dyn ResultSink),
        result: Result<(), SqlError>,
    ) -> (Vec<u8>, Finished) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let mut writer = PacketWriter::new(Vec::new());
            writer.set_sequence(1);
            let mut state = SinkState::default();
            let mut sink = WireSink::new(&mut writer, &mut state, format, deprecate_eof, SERVER_STATUS_AUTOCOMMIT);
            produce(&mut sink);
            let finished = sink.finish(SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS, result);
            writer.flush().await.unwrap();
            (writer.into_inner(), finished)
        })
    }

    /// Decodes the responses in `bytes` the way a client does (text or binary rows).
    fn decode(bytes: &[u8], binary: bool, deprecate_eof: bool) -> (Vec<Response<Vec<u8>>>, Option<ErrPacket>) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let mut r = PacketReader::new(bytes, MAX_ALLOWED_PACKET_LIMIT);
            r.set_sequence(1);
            let mut out = Vec::new();
            loop {
                let p = r.read_packet().await.unwrap().to_vec();
                match p[0] {
                    0x00 => {
                        let ok = OkPacket::parse(&p).unwrap();
                        let more = ok.status & SERVER_MORE_RESULTS_EXISTS != 0;
                        out.push(Response::Ok(ok));
                        if !more {
                            return (out, None);
                        }
                    }
                    ERR_HEADER => return (out, Some(ErrPacket::parse(&p).unwrap())),
                    _ => {
                        let n = Decoder::new(&p).lenenc_int("count").unwrap() as usize;
                        let mut columns = Vec::new();
                        for _ in 0..n {
                            columns.push(ColumnDefinition::parse(r.read_packet().await.unwrap()).unwrap());
                        }
                        if !deprecate_eof {
                            assert!(is_eof_packet(r.read_packet().await.unwrap()));
                        }
                        let mut rows = Vec::new();
                        let end = loop {
                            let p = r.read_packet().await.unwrap().to_vec();
                            if p[0] == ERR_HEADER {
                                return (out, Some(ErrPacket::parse(&p).unwrap()));
                            }
                            if is_eof_packet(&p) {
                                break parse_result_end(&p, deprecate_eof).unwrap();
                            }
                            rows.push(p);
                        };
                        if binary {
                            let types: Vec<_> = columns.iter().map(|c| (c.field_type, c.is_unsigned())).collect();
                            for row in &rows {
                                parse_binary_row(row, &types).unwrap();
                            }
                        } else {
                            for row in &rows {
                                parse_text_row(row, n).unwrap();
                            }
                        }
                        let more = end.status & SERVER_MORE_RESULTS_EXISTS != 0;
                        out.push(Response::Rows(selkie_protocol::client::ResultSet {
                            columns,
                            rows,
                            status: end.status,
                            warnings: end.warnings,
                        }));
                        if !more {
                            return (out, None);
                        }
                    }
                }
            }
        })
    }

    #[test]
    fn multi_results_flag_more_and_defer_the_final_status() {
        for deprecate_eof in [true, false] {
            let (bytes, finished) = run(
                RowFormat::Text,
                deprecate_eof,
                |sink| {
                    sink.ok(
                        &OkInfo { affected_rows: 2, last_insert_id: 7, warnings: 1, info: "Records: 2".into() },
                        true,
                    );
                    sink.columns(&[column("a", FieldType::VarString), column("b", FieldType::VarString)]);
                    sink.row(&[Value::Bytes(b"x".to_vec()), Value::Null]);
                    sink.row(&[Value::Bytes(vec![]), Value::Bytes(b"y".to_vec())]);
                    sink.end_rows(3, true);
                    sink.ok(&OkInfo { affected_rows: 1, ..OkInfo::default() }, false);
                },
                Ok(()),
            );
            assert_eq!(finished.statements, 3);
            let (results, err) = decode(&bytes, false, deprecate_eof);
            assert!(err.is_none());
            assert_eq!(results.len(), 3);
            let Response::Ok(first) = &results[0] else { panic!() };
            assert_eq!((first.affected_rows, first.last_insert_id, first.warnings), (2, 7, 1));
            assert_eq!(first.info, b"Records: 2");
            assert_eq!(first.status, SERVER_STATUS_AUTOCOMMIT | SERVER_MORE_RESULTS_EXISTS);
            let Response::Rows(rs) = &results[1] else { panic!() };
            assert_eq!(rs.rows.len(), 2);
            assert_eq!((rs.status, rs.warnings), (SERVER_STATUS_AUTOCOMMIT | SERVER_MORE_RESULTS_EXISTS, 3));
            let Response::Ok(last) = &results[2] else { panic!() };
            // The final result carries the status given to finish(), not the starting one.
            assert_eq!(last.status, SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS);
        }
    }

    #[test]
    fn error_after_rows_ends_the_result_set() {
        let (bytes, finished) = run(
            RowFormat::Binary,
            true,
            |sink| {
                sink.columns(&[column("n", FieldType::LongLong)]);
                sink.row(&[Value::Int(1)]);
            },
            Err(SqlError::new(1317, "70100", "Query execution was interrupted")),
        );
        assert_eq!(finished.statements, 1);
        let (results, err) = decode(&bytes, true, true);
        assert!(results.is_empty());
        assert_eq!(err.unwrap().code, 1317);
    }

    #[test]
    fn missing_final_result_is_completed() {
        // Rows without end_rows, and a promised further result that never came.
        let (bytes, _) = run(
            RowFormat::Text,
            true,
            |sink| {
                sink.columns(&[column("a", FieldType::VarString)]);
                sink.row(&[Value::Bytes(b"1".to_vec())]);
            },
            Ok(()),
        );
        let (results, err) = decode(&bytes, false, true);
        assert!(err.is_none() && results.len() == 1);
        let (bytes, _) = run(RowFormat::Text, true, |sink| sink.ok(&OkInfo::default(), true), Ok(()));
        let (results, err) = decode(&bytes, false, true);
        assert!(err.is_none() && results.len() == 2);
        assert_eq!(results[1].status() & SERVER_MORE_RESULTS_EXISTS, 0);
    }

    #[test]
    fn binary_rows_in_the_sink() {
        let (bytes, _) = run(
            RowFormat::Binary,
            true,
            |sink| {
                sink.columns(&[column("n", FieldType::LongLong), column("s", FieldType::VarString)]);
                sink.row(&[Value::Int(-3), Value::Bytes(b"abc".to_vec())]);
                sink.row(&[Value::Null, Value::Null]);
                sink.end_rows(0, false);
            },
            Ok(()),
        );
        let (results, _) = decode(&bytes, true, true);
        let Response::Rows(rs) = &results[0] else { panic!() };
        let types = [
            (selkie_protocol::constants::FieldType::LongLong, false),
            (selkie_protocol::constants::FieldType::VarString, false),
        ];
        assert_eq!(
            parse_binary_row(&rs.rows[0], &types).unwrap(),
            vec![BinaryValue::Int(-3), BinaryValue::Bytes(b"abc".to_vec())]
        );
        assert_eq!(parse_binary_row(&rs.rows[1], &types).unwrap(), vec![BinaryValue::Null, BinaryValue::Null]);
    }

    #[test]
    fn status_flags_from_session_state() {
        assert_eq!(
            status_flags(SessionStatus { in_transaction: true, autocommit: true, ..SessionStatus::default() }),
            3
        );
        assert_eq!(
            status_flags(SessionStatus {
                in_transaction: true,
                read_only_transaction: true,
                ..SessionStatus::default()
            }),
            1 | 8192
        );
        assert_eq!(
            status_flags(SessionStatus { autocommit: true, no_backslash_escapes: true, ..SessionStatus::default() }),
            2 | 512
        );
    }
}
