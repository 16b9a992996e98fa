//! Values in the binary protocol (prepared statement parameters and binary result rows).
//!
//! The encoding of a value is chosen by its column/parameter type: fixed-width little-endian
//! integers and floats, length-encoded strings for DECIMAL/strings/blobs, and compact temporal
//! forms whose length byte says which fields follow (0, 4, 7 or 11 bytes for dates and
//! datetimes; 0, 8 or 12 for TIME).

use crate::constants::FieldType;
use crate::error::{ProtocolError, Result};
use crate::wire::{put_lenenc_bytes, put_u16, put_u32, put_u64, put_u8, Decoder};

/// A DATE, DATETIME or TIMESTAMP value as the wire carries it (fields are not validated here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireDateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// A TIME value: a signed duration of `days` * 24h + hh:mm:ss.micros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireTime {
    pub negative: bool,
    pub days: u32,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// One value of the binary protocol, typed by how it is encoded.
#[derive(Clone, Debug, PartialEq)]
pub enum BinaryValue {
    Null,
    /// TINY/SHORT/LONG/INT24/LONGLONG/YEAR of a signed column or parameter.
    Int(i64),
    /// The same types with the unsigned flag.
    UInt(u64),
    Float(f32),
    Double(f64),
    /// DECIMAL (as its text), strings, blobs, BIT, ENUM, SET, JSON, GEOMETRY.
    Bytes(Vec<u8>),
    DateTime(WireDateTime),
    Time(WireTime),
}

/// How a type's values are laid out in the binary protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryLayout {
    Int1,
    Int2,
    Int4,
    Int8,
    Float4,
    Float8,
    LenencBytes,
    DateTime,
    Time,
    /// MYSQL_TYPE_NULL: no bytes (the value is NULL).
    Nothing,
}

pub fn binary_layout(ty: FieldType) -> BinaryLayout {
    use FieldType::*;
    match ty {
        Tiny => BinaryLayout::Int1,
        Short | Year => BinaryLayout::Int2,
        Long | Int24 => BinaryLayout::Int4,
        LongLong => BinaryLayout::Int8,
        Float => BinaryLayout::Float4,
        Double => BinaryLayout::Float8,
        Date | DateTime | Timestamp | NewDate => BinaryLayout::DateTime,
        Time => BinaryLayout::Time,
        Null => BinaryLayout::Nothing,
        Decimal | NewDecimal | VarChar | Bit | Json | Enum | Set | TinyBlob | MediumBlob | LongBlob | Blob
        | VarString | String | Geometry => BinaryLayout::LenencBytes,
    }
}

/// Appends the compact binary form of a date/datetime: the shortest of 0 (all zero), 4 (date
/// only), 7 (with time) or 11 bytes (with microseconds).
pub fn put_binary_datetime(out: &mut Vec<u8>, v: &WireDateTime) {
    let has_time = v.hour != 0 || v.minute != 0 || v.second != 0;
    let len: u8 = if v.micros != 0 {
        11
    } else if has_time {
        7
    } else if v.year != 0 || v.month != 0 || v.day != 0 {
        4
    } else {
        0
    };
    put_u8(out, len);
    if len >= 4 {
        put_u16(out, v.year);
        put_u8(out, v.month);
        put_u8(out, v.day);
    }
    if len >= 7 {
        put_u8(out, v.hour);
        put_u8(out, v.minute);
        put_u8(out, v.second);
    }
    if len == 11 {
        put_u32(out, v.micros);
    }
}

/// Appends the compact binary form of a TIME: 0 (zero), 8, or 12 bytes (with microseconds).
pub fn put_binary_time(out: &mut Vec<u8>, v: &WireTime) {
    let zero = v.days == 0 && v.hour == 0 && v.minute == 0 && v.second == 0 && v.micros == 0;
    let len: u8 = if zero {
        0
    } else if v.micros != 0 {
        12
    } else {
        8
    };
    put_u8(out, len);
    if len >= 8 {
        put_u8(out, v.negative as u8);
        put_u32(out, v.days);
        put_u8(out, v.hour);
        put_u8(out, v.minute);
        put_u8(out, v.second);
    }
    if len == 12 {
        put_u32(out, v.micros);
    }
}

pub fn read_binary_datetime(d: &mut Decoder<'_>) -> Result<WireDateTime> {
    let len = d.u8("datetime length")?;
    let mut v = WireDateTime::default();
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Err(ProtocolError::Malformed(format!("datetime value of length {len}")));
    }
    if len >= 4 {
        v.year = d.u16("year")?;
        v.month = d.u8("month")?;
        v.day = d.u8("day")?;
    }
    if len >= 7 {
        v.hour = d.u8("hour")?;
        v.minute = d.u8("minute")?;
        v.second = d.u8("second")?;
    }
    if len == 11 {
        v.micros = d.u32("microseconds")?;
    }
    Ok(v)
}

pub fn read_binary_time(d: &mut Decoder<'_>) -> Result<WireTime> {
    let len = d.u8("time length")?;
    let mut v = WireTime::default();
    if !matches!(len, 0 | 8 | 12) {
        return Err(ProtocolError::Malformed(format!("time value of length {len}")));
    }
    if len >= 8 {
        v.negative = d.u8("time sign")? != 0;
        v.days = d.u32("days")?;
        v.hour = d.u8("hour")?;
        v.minute = d.u8("minute")?;
        v.second = d.u8("second")?;
    }
    if len == 12 {
        v.micros = d.u32("microseconds")?;
    }
    Ok(v)
}

/// Reads one non-NULL value of type `ty`. `unsigned` selects `UInt` for the integer types.
pub fn read_binary_value(d: &mut Decoder<'_>, ty: FieldType, unsigned: bool) -> Result<BinaryValue> {
    Ok(match binary_layout(ty) {
        BinaryLayout::Int1 => {
            let b = d.u8("TINY value")?;
            if unsigned {
                BinaryValue::UInt(b as u64)
            } else {
                BinaryValue::Int(b as i8 as i64)
            }
        }
        BinaryLayout::Int2 => {
            let v = d.u16("SHORT value")?;
            if unsigned {
                BinaryValue::UInt(v as u64)
            } else {
                BinaryValue::Int(v as i16 as i64)
            }
        }
        BinaryLayout::Int4 => {
            let v = d.u32("LONG value")?;
            if unsigned {
                BinaryValue::UInt(v as u64)
            } else {
                BinaryValue::Int(v as i32 as i64)
            }
        }
        BinaryLayout::Int8 => {
            let v = d.u64("LONGLONG value")?;
            if unsigned {
                BinaryValue::UInt(v)
            } else {
                BinaryValue::Int(v as i64)
            }
        }
        BinaryLayout::Float4 => BinaryValue::Float(d.f32("FLOAT value")?),
        BinaryLayout::Float8 => BinaryValue::Double(d.f64("DOUBLE value")?),
        BinaryLayout::LenencBytes => BinaryValue::Bytes(d.lenenc_bytes("string value")?.to_vec()),
        BinaryLayout::DateTime => BinaryValue::DateTime(read_binary_datetime(d)?),
        BinaryLayout::Time => BinaryValue::Time(read_binary_time(d)?),
        BinaryLayout::Nothing => BinaryValue::Null,
    })
}

/// Appends `v` encoded for type `ty`. Integer values are written with the width of `ty` (two's
/// complement truncation, as the receiver reinterprets by the column's unsigned flag).
/// Mismatched value/type pairs are a caller bug and are rejected.
pub fn put_binary_value(out: &mut Vec<u8>, ty: FieldType, v: &BinaryValue) -> Result<()> {
    let bits = |v: &BinaryValue| match *v {
        BinaryValue::Int(i) => Some(i as u64),
        BinaryValue::UInt(u) => Some(u),
        _ => None,
    };
    let mismatch = || ProtocolError::Malformed(format!("value {v:?} cannot be sent as {ty:?}"));
    match binary_layout(ty) {
        BinaryLayout::Int1 => put_u8(out, bits(v).ok_or_else(mismatch)? as u8),
        BinaryLayout::Int2 => put_u16(out, bits(v).ok_or_else(mismatch)? as u16),
        BinaryLayout::Int4 => put_u32(out, bits(v).ok_or_else(mismatch)? as u32),
        BinaryLayout::Int8 => put_u64(out, bits(v).ok_or_else(mismatch)?),
        BinaryLayout::Float4 => match v {
            BinaryValue::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
            _ => return Err(mismatch()),
        },
        BinaryLayout::Float8 => match v {
            BinaryValue::Double(f) => out.extend_from_slice(&f.to_le_bytes()),
            _ => return Err(mismatch()),
        },
        BinaryLayout::LenencBytes => match v {
            BinaryValue::Bytes(b) => put_lenenc_bytes(out, b),
            _ => return Err(mismatch()),
        },
        BinaryLayout::DateTime => match v {
            BinaryValue::DateTime(t) => put_binary_datetime(out, t),
            _ => return Err(mismatch()),
        },
        BinaryLayout::Time => match v {
            BinaryValue::Time(t) => put_binary_time(out, t),
            _ => return Err(mismatch()),
        },
        BinaryLayout::Nothing => {
            if *v != BinaryValue::Null {
                return Err(mismatch());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn datetime_uses_the_shortest_form() {
        let cases = [
            (WireDateTime::default(), 1usize),
            (WireDateTime { year: 2024, month: 2, day: 29, ..Default::default() }, 5),
            (WireDateTime { year: 2024, month: 2, day: 29, hour: 1, ..Default::default() }, 8),
            (WireDateTime { year: 2024, month: 2, day: 29, micros: 5, ..Default::default() }, 12),
        ];
        for (v, len) in cases {
            let mut out = Vec::new();
            put_binary_datetime(&mut out, &v);
            assert_eq!(out.len(), len, "{v:?}");
            assert_eq!(read_binary_datetime(&mut Decoder::new(&out)).unwrap(), v);
        }
        // 2024-02-29 13:14:15 as the protocol documentation lays it out.
        let mut out = Vec::new();
        put_binary_datetime(
            &mut out,
            &WireDateTime { year: 2024, month: 2, day: 29, hour: 13, minute: 14, second: 15, micros: 0 },
        );
        assert_eq!(out, [7, 0xE8, 0x07, 2, 29, 13, 14, 15]);
    }

    #[test]
    fn time_forms() {
        for (v, len) in [
            (WireTime::default(), 1usize),
            (WireTime { negative: true, days: 1, hour: 2, minute: 3, second: 4, micros: 0 }, 9),
            (WireTime { negative: false, days: 0, hour: 0, minute: 0, second: 0, micros: 1 }, 13),
        ] {
            let mut out = Vec::new();
            put_binary_time(&mut out, &v);
            assert_eq!(out.len(), len);
            assert_eq!(read_binary_time(&mut Decoder::new(&out)).unwrap(), v);
        }
    }

    #[test]
    fn bad_temporal_lengths_are_errors() {
        assert!(read_binary_datetime(&mut Decoder::new(&[5, 0, 0, 0, 0, 0])).is_err());
        assert!(read_binary_time(&mut Decoder::new(&[7, 0, 0, 0, 0, 0, 0, 0])).is_err());
        assert!(read_binary_datetime(&mut Decoder::new(&[11, 1, 2])).is_err());
    }

    #[test]
    fn integers_round_trip_per_width_and_sign() {
        let cases: [(FieldType, bool, BinaryValue); 8] = [
            (FieldType::Tiny, false, BinaryValue::Int(-128)),
            (FieldType::Tiny, true, BinaryValue::UInt(255)),
            (FieldType::Short, false, BinaryValue::Int(-32768)),
            (FieldType::Year, true, BinaryValue::UInt(2024)),
            (FieldType::Long, false, BinaryValue::Int(i32::MIN as i64)),
            (FieldType::Int24, true, BinaryValue::UInt(u32::MAX as u64)),
            (FieldType::LongLong, false, BinaryValue::Int(i64::MIN)),
            (FieldType::LongLong, true, BinaryValue::UInt(u64::MAX)),
        ];
        for (ty, unsigned, v) in cases {
            let mut out = Vec::new();
            put_binary_value(&mut out, ty, &v).unwrap();
            let mut d = Decoder::new(&out);
            assert_eq!(read_binary_value(&mut d, ty, unsigned).unwrap(), v, "{ty:?}");
            assert!(d.is_empty());
        }
        assert!(put_binary_value(&mut Vec::new(), FieldType::Long, &BinaryValue::Double(1.0)).is_err());
    }

    fn any_type() -> impl Strategy<Value = FieldType> {
        (0u8..=255).prop_filter_map("known type", FieldType::from_u8)
    }

    proptest! {
        #[test]
        fn value_decoder_survives_random_bytes(ty in any_type(), unsigned in any::<bool>(), bytes in proptest::collection::vec(any::<u8>(), 0..20usize)) {
            let mut d = Decoder::new(&bytes);
            let _ = read_binary_value(&mut d, ty, unsigned);
        }

        #[test]
        fn strings_and_floats_round_trip(s in proptest::collection::vec(any::<u8>(), 0..300usize), f in any::<f64>()) {
            let mut out = Vec::new();
            put_binary_value(&mut out, FieldType::VarString, &BinaryValue::Bytes(s.clone())).unwrap();
            put_binary_value(&mut out, FieldType::Double, &BinaryValue::Double(f)).unwrap();
            let mut d = Decoder::new(&out);
            prop_assert_eq!(read_binary_value(&mut d, FieldType::VarString, false).unwrap(), BinaryValue::Bytes(s));
            match read_binary_value(&mut d, FieldType::Double, false).unwrap() {
                BinaryValue::Double(g) => prop_assert_eq!(g.to_bits(), f.to_bits()),
                other => prop_assert!(false, "got {:?}", other),
            }
        }
    }
}
