//! Time zones of `@@time_zone` and CONVERT_TZ: SYSTEM (the process's local time, through
//! libc), a fixed offset ('+05:30'), or a named zone ('Europe/Paris', 'UTC').
//!
//! MariaDB reads named zones from the mysql.time_zone* tables, which mariadb-tzinfo-to-sql fills
//! from /usr/share/zoneinfo; Selkie reads the same files directly (the jiff crate), as if those
//! tables had been loaded. Conversions follow MariaDB's rules for the two ambiguous cases of a
//! named zone: a wall-clock time in a spring-forward gap maps to the instant the gap ends
//! (MariaDB's "beginning of the gap" in UTC), and one in an autumn overlap to its first
//! (earlier) instant.
//!
//! This module knows zones, not calendars: `value::datetime` converts between wall-clock
//! times and instants with them (`civil_of_epoch`, `epoch_of_civil`).
//!
//! A zone is `Copy`: named zones are loaded once per process and kept for its lifetime (there
//! are at most a few hundred names, and only names that exist are kept), so the session's
//! decoded variables can hold one without reference counting.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// The range of a '+hh:mm' zone, in seconds east of UTC: MariaDB's "prescribed by the
/// standard", -12:59 to +13:00 (so '+14:00', a real offset, is refused with 1298 there too).
const MIN_OFFSET_SECS: i64 = -13 * 3600 + 1;
const MAX_OFFSET_SECS: i64 = 13 * 3600;

#[derive(Clone, Copy, Debug)]
pub enum TimeZone {
    /// The process's local time zone (`@@system_time_zone`).
    System,
    /// Seconds east of UTC.
    Offset(i32),
    Named(&'static NamedZone),
}

#[derive(Debug)]
pub struct NamedZone {
    /// The name as it was spelled when the process first loaded the zone, which `@@time_zone`
    /// shows: MariaDB caches a zone under the spelling of its first use ('europe/paris' stays
    /// 'europe/paris' until the server restarts, even when later set as 'Europe/Paris').
    name: String,
    zone: jiff::tz::TimeZone,
}

/// Named zones found so far, by lower-cased name (names are case-insensitive, as in MariaDB's
/// mysql.time_zone_name).
static NAMED: LazyLock<Mutex<HashMap<String, &'static NamedZone>>> = LazyLock::new(Default::default);

impl TimeZone {
    /// Reads a time zone as SET time_zone and CONVERT_TZ accept it; None for an unknown or
    /// malformed one (MariaDB's 1298, or NULL from CONVERT_TZ).
    pub fn parse(text: &str) -> Option<TimeZone> {
        if text.eq_ignore_ascii_case("SYSTEM") {
            return Some(TimeZone::System);
        }
        if text.starts_with(['+', '-']) {
            return parse_offset(text).map(TimeZone::Offset);
        }
        named(text).map(TimeZone::Named)
    }

    /// The zone as `@@time_zone` shows it.
    pub fn name(&self) -> String {
        match self {
            TimeZone::System => "SYSTEM".into(),
            TimeZone::Offset(secs) => {
                let sign = if *secs < 0 { '-' } else { '+' };
                let m = secs.unsigned_abs() / 60;
                format!("{sign}{:02}:{:02}", m / 60, m % 60)
            }
            TimeZone::Named(z) => z.name.clone(),
        }
    }
}

impl NamedZone {
    /// Seconds east of UTC at a Unix time.
    pub fn offset_at(&self, secs: i64) -> Option<i32> {
        let ts = jiff::Timestamp::from_second(secs).ok()?;
        Some(self.zone.to_offset(ts).seconds())
    }

    /// The Unix time of a wall-clock time given as seconds since the epoch read as UTC, by
    /// MariaDB's rules for gaps and overlaps (see the module comment).
    pub fn utc_of_local(&self, local: i64) -> Option<i64> {
        let dt = jiff::Timestamp::from_second(local).ok()?.to_zoned(jiff::tz::TimeZone::UTC).datetime();
        match self.zone.to_ambiguous_timestamp(dt).offset() {
            jiff::tz::AmbiguousOffset::Unambiguous { offset } => Some(local - i64::from(offset.seconds())),
            jiff::tz::AmbiguousOffset::Fold { before, .. } => Some(local - i64::from(before.seconds())),
            jiff::tz::AmbiguousOffset::Gap { after, .. } => {
                // An instant just before the gap's transition; the transition follows it.
                let before_gap = jiff::Timestamp::from_second(local - i64::from(after.seconds())).ok()?;
                let transition = self.zone.following(before_gap).next()?;
                Some(transition.timestamp().as_second())
            }
        }
    }
}

/// '+hh:mm' as seconds east of UTC, read as MariaDB's `str_to_offset` reads it: a sign, any
/// number of hour digits (none is 0), a colon, one or more minute digits below 60, four
/// characters at least ('+5:3' is +05:03, '+:30' is +00:30).
fn parse_offset(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() < 4 {
        return None;
    }
    let negative = match b[0] {
        b'+' => false,
        b'-' => true,
        _ => return None,
    };
    let digits = |from: usize| {
        let n = b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let value =
            b[from..from + n].iter().fold(0u64, |v, c| v.saturating_mul(10).saturating_add(u64::from(c - b'0')));
        (value, from + n)
    };
    let (hours, at) = digits(1);
    if at + 1 >= b.len() || b[at] != b':' {
        return None;
    }
    let (minutes, end) = digits(at + 1);
    if end != b.len() || minutes > 59 {
        return None;
    }
    let secs = i64::try_from(hours.saturating_mul(60).saturating_add(minutes).saturating_mul(60)).ok()?;
    let secs = if negative { -secs } else { secs };
    (MIN_OFFSET_SECS..=MAX_OFFSET_SECS).contains(&secs).then_some(secs as i32)
}

fn named(name: &str) -> Option<&'static NamedZone> {
    let key = name.to_ascii_lowercase();
    let mut known = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(z) = known.get(&key) {
        return Some(z);
    }
    // Only names of the zone database: no path tricks, no POSIX TZ strings.
    if name.is_empty() || name.starts_with('/') || name.split('/').any(|p| p == "..") {
        return None;
    }
    let zone = jiff::tz::TimeZone::get(name).ok()?;
    if zone.is_unknown() {
        return None;
    }
    let z: &'static NamedZone = Box::leak(Box::new(NamedZone { name: name.to_string(), zone }));
    known.insert(key, z);
    Some(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::datetime::{civil_of_epoch, epoch_of_civil, Civil};

    fn civil(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Civil {
        Civil { year: y, month: mo, day: d, hour: h, minute: mi, second: s, micros: 0 }
    }

    #[test]
    fn names_offsets_and_system() {
        assert_eq!(TimeZone::parse("system").map(|z| z.name()).as_deref(), Some("SYSTEM"));
        assert_eq!(TimeZone::parse("+5:30").map(|z| z.name()).as_deref(), Some("+05:30"));
        assert_eq!(TimeZone::parse("-00:30").map(|z| z.name()).as_deref(), Some("-00:30"));
        // The first spelling of a zone is the one shown, whatever the later ones.
        assert_eq!(TimeZone::parse("asia/TOKYO").map(|z| z.name()).as_deref(), Some("asia/TOKYO"));
        assert_eq!(TimeZone::parse("Asia/Tokyo").map(|z| z.name()).as_deref(), Some("asia/TOKYO"));
        assert_eq!(TimeZone::parse("UTC").map(|z| z.name()).as_deref(), Some("UTC"));
        // MariaDB's offsets: -12:59..+13:00, hours of any digits, minutes of one or more.
        assert_eq!(TimeZone::parse("+5:3").map(|z| z.name()).as_deref(), Some("+05:03"));
        assert_eq!(TimeZone::parse("-12:59").map(|z| z.name()).as_deref(), Some("-12:59"));
        assert_eq!(TimeZone::parse("+13:00").map(|z| z.name()).as_deref(), Some("+13:00"));
        assert_eq!(TimeZone::parse("+:30").map(|z| z.name()).as_deref(), Some("+00:30"));
        assert_eq!(TimeZone::parse("+013:0").map(|z| z.name()).as_deref(), Some("+13:00"));
        for bad in [
            "Foo/Bar",
            "",
            "+15:00",
            "+14:00",
            "+13:01",
            "-13:00",
            "+01:60",
            "+",
            "+1:",
            "+1:2x",
            "+5",
            "../etc/passwd",
            "/etc/passwd",
            "Etc/Unknown",
        ] {
            assert!(TimeZone::parse(bad).is_none(), "{bad}");
        }
    }

    /// Values checked against MariaDB 10.11 with zone tables loaded by mariadb-tzinfo-to-sql.
    #[test]
    fn paris_gap_and_overlap_as_mariadb() {
        let paris = TimeZone::parse("Europe/Paris").unwrap();
        // 2024-03-31 02:30 does not exist: the end of the gap, 01:00 UTC.
        assert_eq!(epoch_of_civil(paris, &civil(2024, 3, 31, 2, 30, 0)), Some(1_711_846_800));
        // 2024-10-27 02:30 happens twice: the first one (CEST).
        assert_eq!(epoch_of_civil(paris, &civil(2024, 10, 27, 2, 30, 0)), Some(1_729_989_000));
        assert_eq!(civil_of_epoch(paris, 1_729_989_000, 0), Some(civil(2024, 10, 27, 2, 30, 0)));
        assert_eq!(civil_of_epoch(paris, 1_729_992_600, 0), Some(civil(2024, 10, 27, 2, 30, 0)));
        assert_eq!(civil_of_epoch(paris, 1_711_846_800, 0), Some(civil(2024, 3, 31, 3, 0, 0)));
        let kolkata = TimeZone::parse("+05:30").unwrap();
        assert_eq!(epoch_of_civil(kolkata, &civil(1970, 1, 1, 5, 30, 0)), Some(0));
    }
}
