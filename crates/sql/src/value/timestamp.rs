//! TIMESTAMP values as stored and as shown: a TIMESTAMP column holds an instant, stored as its
//! UTC wall-clock time (`DateTime` read as UTC), and a session sees it in its `@@time_zone`, as
//! MariaDB stores seconds since the epoch and converts on every read and write.
//!
//! Why a UTC `DateTime` rather than seconds: index keys, the row codec and every existing row
//! keep the DATETIME encoding, so UTC order is key order and no stored format changes.
//!
//! Rows stored before this conversion existed hold the wall-clock time of the writing session.
//! Selkie's servers run with time_zone = SYSTEM on UTC machines, where that time is the UTC
//! time, so those rows read unchanged; rows written by a session with another zone read
//! shifted by that zone's offset (there is no marker to tell them apart).
//!
//! The zero TIMESTAMP (0000-00-00 00:00:00) is no instant and stays zero both ways.

use selkie_storage::DateTime;

use super::datetime::{
    calc_daynr, civil_of_epoch, epoch_of_civil, utc_from_epoch, Civil, EPOCH_DAY_NUMBER, SECONDS_PER_DAY,
};
use super::tz::TimeZone;

/// The UTC form of a session wall-clock time that is an instant (its range was checked by the
/// caller); None if the zone cannot convert it.
pub fn utc_of_session(local: DateTime, tz: TimeZone) -> Option<DateTime> {
    if local.0 == 0 || is_utc(tz) {
        return Some(local);
    }
    let c = Civil::from_datetime(local);
    let secs = epoch_of_civil(tz, &c)?;
    Some(utc_from_epoch(secs, c.micros)?.datetime())
}

/// The session's wall-clock time of a stored (UTC) TIMESTAMP.
pub fn session_of_utc(utc: DateTime, tz: TimeZone) -> DateTime {
    if utc.0 == 0 || is_utc(tz) {
        return utc;
    }
    let c = Civil::from_datetime(utc);
    let secs = (calc_daynr(c.year, c.month, c.day) - EPOCH_DAY_NUMBER) * SECONDS_PER_DAY + c.seconds_of_day();
    civil_of_epoch(tz, secs, c.micros).map_or(utc, |l| l.datetime())
}

/// Whether `secs` is a wall-clock time `c` shows in `tz`: false for a time in a spring-forward
/// gap, which MariaDB stores as the gap's end with 1299 (an error in strict mode).
pub fn shows_as(tz: TimeZone, secs: i64, c: &Civil) -> bool {
    civil_of_epoch(tz, secs, c.micros).is_some_and(|back| back == *c)
}

/// A zone with no offset at any time: no conversion is needed.
fn is_utc(tz: TimeZone) -> bool {
    matches!(tz, TimeZone::Offset(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_storage::Date;

    fn dt(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime {
        DateTime::new(Date::new(y, mo, d), h, mi, s, 0)
    }

    #[test]
    fn offsets_round_trip() {
        let plus2 = TimeZone::parse("+02:00").unwrap();
        let utc = utc_of_session(dt(2024, 1, 1, 14, 0, 0), plus2).unwrap();
        assert_eq!(utc, dt(2024, 1, 1, 12, 0, 0));
        assert_eq!(session_of_utc(utc, plus2), dt(2024, 1, 1, 14, 0, 0));
        assert_eq!(session_of_utc(DateTime(0), plus2), DateTime(0));
    }

    #[test]
    fn berlin_gap_and_overlap() {
        let Some(berlin) = TimeZone::parse("Europe/Berlin") else {
            return; // no zoneinfo on this machine
        };
        // 02:30 on the spring-forward day does not exist: the gap's end, 01:00 UTC.
        let gap = dt(2024, 3, 31, 2, 30, 0);
        assert_eq!(utc_of_session(gap, berlin), Some(dt(2024, 3, 31, 1, 0, 0)));
        let c = Civil::from_datetime(gap);
        assert!(!shows_as(berlin, epoch_of_civil(berlin, &c).unwrap(), &c));
        // 02:30 on the autumn day happens twice: the first, 00:30 UTC (MariaDB's choice).
        assert_eq!(utc_of_session(dt(2024, 10, 27, 2, 30, 0), berlin), Some(dt(2024, 10, 27, 0, 30, 0)));
    }
}
