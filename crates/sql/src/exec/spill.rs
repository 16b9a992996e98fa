//! Temporary files for operators past their memory budget (architecture §2.1, "Bounded memory").
//!
//! Floor: above `api`/`error`, below `sort` and the operators of `exec`.
//!
//! A spill file is created in @@tmpdir already unlinked (`O_TMPFILE`, or create and unlink at
//! once where the filesystem lacks it), so a crash leaves nothing behind and the space goes back
//! to the filesystem as soon as the statement drops the file. Rows are written as length-prefixed
//! frames of a private, compact encoding: the file dies with the statement, so the format never
//! has to be read by another version. All I/O is positioned (`pread`/`pwrite`) through a buffer
//! per writer and per reader, so the many readers of one file (the runs of a merge) share no
//! cursor and never seek.
//!
//! Errors are MariaDB's mysys file errors (1 create, 2 read, 3 write) naming the file the way
//! MariaDB names an unlinked temporary file (`/tmp/#sql/fd=50`); the statement fails, the
//! session and the server go on.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

use selkie_storage::{Date, DateTime, Decimal};

use crate::error;
use crate::error::SqlError;
use crate::types::Value;

use super::step::Row;

/// Bytes a writer gathers before one `pwrite`, and the largest read a reader makes at once:
/// large enough that a spill costs sequential I/O, small enough that a merge of many runs keeps
/// its buffers far below any memory budget.
pub const IO_BUFFER_BYTES: usize = 64 << 10;

/// Memory a buffered row costs beyond its values' heap bytes: its `Vec` header in the
/// container that holds it.
const ROW_OVERHEAD: usize = std::mem::size_of::<Row>();

/// Estimated memory of a buffered row: what operators count against their budgets. Only the
/// heap parts that grow with user data are counted (values inline, strings' bytes); allocator
/// slack is not, so budgets are honoured to within a small factor, as in MariaDB.
pub fn row_bytes(row: &[Value]) -> usize {
    let mut n = ROW_OVERHEAD + std::mem::size_of_val(row);
    for v in row {
        if let Value::Bytes(b) = v {
            n += b.len();
        }
    }
    n
}

/// An unlinked temporary file in @@tmpdir, written by appending and read at any offset.
pub struct TempFile {
    file: File,
    /// The name errors give it, as MariaDB names its unlinked temporary files.
    name: String,
    len: u64,
}

impl TempFile {
    /// An unlinked file in `dir` (the statement's context picks it: `ExecCtx::tmpdir`).
    pub fn create(dir: &str) -> Result<TempFile, SqlError> {
        let file = tempfile::tempfile_in(dir).map_err(|e| error::cant_create_temp_file(&format!("{dir}/#sql"), &e))?;
        let name = format!("{dir}/#sql/fd={}", file.as_raw_fd());
        Ok(TempFile { file, name, len: 0 })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), SqlError> {
        self.file.write_all_at(bytes, self.len).map_err(|e| error::temp_file_write(&self.name, &e))?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize, SqlError> {
        loop {
            match self.file.read_at(buf, offset) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(error::temp_file_read(&self.name, &e)),
            }
        }
    }

    /// Drops the contents (the space goes back to the filesystem); the file is reused.
    pub fn clear(&mut self) -> Result<(), SqlError> {
        self.file.set_len(0).map_err(|e| error::temp_file_write(&self.name, &e))?;
        self.len = 0;
        Ok(())
    }
}

/// A contiguous run of row frames in a `TempFile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    pub rows: u64,
}

/// Appends rows to a file as one segment. Only one writer may append to a file at a time.
pub struct SegmentWriter {
    buf: Vec<u8>,
    start: u64,
    rows: u64,
}

impl SegmentWriter {
    pub fn new(file: &TempFile) -> SegmentWriter {
        SegmentWriter { buf: Vec::new(), start: file.len(), rows: 0 }
    }

    pub fn push(&mut self, file: &mut TempFile, row: &[Value]) -> Result<(), SqlError> {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        encode_row(row, &mut self.buf);
        // A row is at most max_allowed_packet (1 GiB) of values: the frame length fits.
        let len = u32::try_from(self.buf.len() - at - 4).map_err(|_| error::internal("spilled row over 4 GiB"))?;
        self.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
        self.rows += 1;
        if self.buf.len() >= IO_BUFFER_BYTES {
            file.append(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Where the next row will start in `file`.
    pub fn next_offset(&self, file: &TempFile) -> u64 {
        file.len() + self.buf.len() as u64
    }

    pub fn finish(self, file: &mut TempFile) -> Result<Segment, SqlError> {
        if !self.buf.is_empty() {
            file.append(&self.buf)?;
        }
        Ok(Segment { start: self.start, end: file.len(), rows: self.rows })
    }
}

/// Reads the rows of a segment in order, `chunk` bytes at a time (more for a row that does not
/// fit). The buffer is allocated on the first read and freed at the end, so a merge that opens
/// many readers pays only for the ones still in use.
pub struct SegmentReader {
    pos: u64,
    end: u64,
    chunk: usize,
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
}

impl SegmentReader {
    pub fn new(seg: Segment, chunk: usize) -> SegmentReader {
        SegmentReader { pos: seg.start, end: seg.end, chunk: chunk.max(64), buf: Vec::new(), lo: 0, hi: 0 }
    }

    pub fn next(&mut self, file: &TempFile) -> Result<Option<Row>, SqlError> {
        if self.lo == self.hi && self.pos >= self.end {
            self.buf = Vec::new();
            return Ok(None);
        }
        self.fill(file, 4)?;
        let mut len = [0u8; 4];
        len.copy_from_slice(&self.buf[self.lo..self.lo + 4]);
        let len = u32::from_le_bytes(len) as usize;
        self.fill(file, 4 + len)?;
        let mut frame = &self.buf[self.lo + 4..self.lo + 4 + len];
        let row = decode_row(&mut frame)?;
        self.lo += 4 + len;
        Ok(Some(row))
    }

    /// Makes at least `need` unread bytes available in `buf[lo..hi]`.
    fn fill(&mut self, file: &TempFile, need: usize) -> Result<(), SqlError> {
        if self.hi - self.lo >= need {
            return Ok(());
        }
        self.buf.copy_within(self.lo..self.hi, 0);
        self.hi -= self.lo;
        self.lo = 0;
        let size = need.max(self.chunk);
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        while self.hi < need {
            let room = self.buf.len() - self.hi;
            let left = usize::try_from(self.end - self.pos).unwrap_or(usize::MAX);
            let want = room.min(left);
            if want == 0 {
                return Err(error::internal("temporary file ends inside a row"));
            }
            let n = file.read_at(&mut self.buf[self.hi..self.hi + want], self.pos)?;
            if n == 0 {
                return Err(error::internal("temporary file shorter than written"));
            }
            self.hi += n;
            self.pos += n as u64;
        }
        Ok(())
    }
}

// ---- row encoding ----
//
// A row is a varint value count, then per value a tag byte and its payload: integers as
// (zigzag) varints, so small numbers, dates and ids take a byte or three instead of 16.

const TAG_NULL: u8 = 0;
const TAG_INT: u8 = 1;
const TAG_UINT: u8 = 2;
const TAG_DOUBLE: u8 = 3;
const TAG_DECIMAL: u8 = 4;
const TAG_BYTES: u8 = 5;
const TAG_DATE: u8 = 6;
const TAG_DATETIME: u8 = 7;

fn put_varint(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

fn unzigzag(v: u128) -> i128 {
    ((v >> 1) as i128) ^ -((v & 1) as i128)
}

pub fn encode_row(row: &[Value], out: &mut Vec<u8>) {
    put_varint(out, row.len() as u128);
    for v in row {
        match v {
            Value::Null => out.push(TAG_NULL),
            Value::Int(i) => {
                out.push(TAG_INT);
                put_varint(out, zigzag(*i as i128));
            }
            Value::UInt(u) => {
                out.push(TAG_UINT);
                put_varint(out, *u as u128);
            }
            Value::Double(d) => {
                out.push(TAG_DOUBLE);
                out.extend_from_slice(&d.to_bits().to_le_bytes());
            }
            Value::Decimal(d) => {
                out.push(TAG_DECIMAL);
                out.push(d.scale);
                selkie_storage::rowcodec::put_decimal_mantissa(out, d.mantissa);
            }
            Value::Bytes(b) => {
                out.push(TAG_BYTES);
                put_varint(out, b.len() as u128);
                out.extend_from_slice(b);
            }
            Value::Date(d) => {
                out.push(TAG_DATE);
                put_varint(out, zigzag(d.0 as i128));
            }
            Value::DateTime(t) => {
                out.push(TAG_DATETIME);
                put_varint(out, zigzag(t.0 as i128));
            }
        }
    }
}

fn corrupt() -> SqlError {
    error::internal("unreadable row in a temporary file")
}

fn get_u8(buf: &mut &[u8]) -> Result<u8, SqlError> {
    let (&b, rest) = buf.split_first().ok_or_else(corrupt)?;
    *buf = rest;
    Ok(b)
}

fn get_varint(buf: &mut &[u8]) -> Result<u128, SqlError> {
    let mut v = 0u128;
    let mut shift = 0;
    loop {
        let b = get_u8(buf)?;
        if shift >= 128 {
            return Err(corrupt());
        }
        v |= u128::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
    }
}

fn get_bytes<'a>(buf: &mut &'a [u8], n: usize) -> Result<&'a [u8], SqlError> {
    if buf.len() < n {
        return Err(corrupt());
    }
    let (b, rest) = buf.split_at(n);
    *buf = rest;
    Ok(b)
}

pub fn decode_row(buf: &mut &[u8]) -> Result<Row, SqlError> {
    let n = usize::try_from(get_varint(buf)?).map_err(|_| corrupt())?;
    let mut row = Vec::with_capacity(n.min(buf.len()));
    for _ in 0..n {
        let signed = |buf: &mut &[u8]| get_varint(buf).map(unzigzag);
        row.push(match get_u8(buf)? {
            TAG_NULL => Value::Null,
            TAG_INT => Value::Int(signed(buf)? as i64),
            TAG_UINT => Value::UInt(get_varint(buf)? as u64),
            TAG_DOUBLE => {
                let mut b = [0u8; 8];
                b.copy_from_slice(get_bytes(buf, 8)?);
                Value::Double(f64::from_bits(u64::from_le_bytes(b)))
            }
            TAG_DECIMAL => {
                let scale = get_u8(buf)?;
                let mut r = selkie_storage::rowcodec::Reader::new(buf);
                let mantissa = r.decimal_mantissa().map_err(|_| corrupt())?;
                *buf = &buf[buf.len() - r.remaining()..];
                Value::Decimal(Decimal { mantissa, scale })
            }
            TAG_BYTES => {
                let len = usize::try_from(get_varint(buf)?).map_err(|_| corrupt())?;
                Value::Bytes(get_bytes(buf, len)?.to_vec())
            }
            TAG_DATE => Value::Date(Date(signed(buf)? as i32)),
            TAG_DATETIME => Value::DateTime(DateTime(signed(buf)? as i64)),
            _ => return Err(corrupt()),
        });
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_kind_survives_the_encoding() {
        let row: Row = vec![
            Value::Null,
            Value::Int(0),
            Value::Int(-1),
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::UInt(u64::MAX),
            Value::Double(-0.0),
            Value::Double(1.5e300),
            Value::Decimal(Decimal::new(-12345678901234567890123456789012345678, 38)),
            Value::Decimal(Decimal::new(i128::MAX, 0)),
            Value::Bytes(Vec::new()),
            Value::Bytes("héllo".as_bytes().to_vec()),
            Value::Date(Date::new(2024, 2, 29)),
            Value::DateTime(DateTime(-5)),
            Value::DateTime(DateTime(i64::MAX)),
        ];
        let mut buf = Vec::new();
        encode_row(&row, &mut buf);
        let mut slice = buf.as_slice();
        let back = decode_row(&mut slice).unwrap();
        assert!(slice.is_empty());
        assert_eq!(format!("{back:?}"), format!("{row:?}"));
        // Truncated frames are an error, never a panic.
        for cut in 0..buf.len() {
            assert!(decode_row(&mut &buf[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn small_integers_take_few_bytes() {
        let mut buf = Vec::new();
        encode_row(&[Value::Int(5), Value::UInt(100), Value::Date(Date::new(2024, 1, 1))], &mut buf);
        assert!(buf.len() <= 1 + 2 + 2 + 4, "{} bytes", buf.len());
    }
}
