//! SHOW CREATE TABLE and SHOW CREATE DATABASE text, in MariaDB 10.11's exact format.
//!
//! Every table is stored by Selkie's engine and compared with a binary collation, so the
//! options line always says `ENGINE=InnoDB` (the name Selkie's engine answers to, see SHOW
//! ENGINES) and the `_bin` collation of the table's character set.

use selkie_storage::{ColumnDef, ColumnType, ForeignKeyAction, ForeignKeyDef, TableDef};

use super::columns::IsTable;
use super::literal::{self, quote_ident, quote_string, DefaultKind};
use super::schema::{engine_name, foreign_keys_in_order, index_display_order, ENGINE_NAME};
use crate::variables::{effective_charset, table_collation};

/// One column line without indentation: `` `k` int(11) NOT NULL DEFAULT 0 ``.
fn column_line(col: &ColumnDef, table_collation: &str) -> String {
    let mut s = format!("{} {}", quote_ident(&col.name), col.type_sql());
    let is_json = matches!(col.ty, ColumnType::Json);
    if is_json {
        // MariaDB's JSON is utf8mb4_bin LONGTEXT with a CHECK.
        s.push_str(" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    } else if let Some(c) = crate::charset::Collation::named(&col.collation).filter(|c| c.name() != table_collation) {
        // A column whose collation is its own (not the table's) names it, as MariaDB does.
        s.push_str(&format!(" CHARACTER SET {} COLLATE {}", c.charset_name(), c.name()));
    }
    let is_timestamp = matches!(col.ty, ColumnType::Timestamp { .. });
    if let Some(g) = &col.generated {
        // No NULL, NOT NULL or DEFAULT: MariaDB's grammar has none for a generated column.
        let kind = if g.stored { "STORED" } else { "VIRTUAL" };
        s.push_str(&format!(" GENERATED ALWAYS AS ({}) {kind}", g.expr));
    } else if !col.nullable {
        s.push_str(" NOT NULL");
    } else if is_timestamp {
        // A nullable TIMESTAMP says so explicitly (TIMESTAMP used to be NOT NULL by default).
        s.push_str(" NULL");
    }
    match literal::default_kind(col) {
        DefaultKind::Absent => {}
        DefaultKind::Null => s.push_str(" DEFAULT NULL"),
        DefaultKind::Value(v) => {
            s.push_str(" DEFAULT ");
            s.push_str(&literal::sql_literal(v, &col.ty));
        }
        DefaultKind::CurrentTimestamp => {
            s.push_str(" DEFAULT ");
            s.push_str(&literal::current_timestamp(&col.ty));
        }
        DefaultKind::Expression(text) => {
            s.push_str(" DEFAULT ");
            s.push_str(text);
        }
    }
    if col.on_update_current_timestamp {
        s.push_str(" ON UPDATE ");
        s.push_str(&literal::current_timestamp(&col.ty));
    }
    if col.auto_increment {
        s.push_str(" AUTO_INCREMENT");
    }
    if !col.comment.is_empty() {
        s.push_str(" COMMENT ");
        s.push_str(&quote_string(col.comment.as_bytes()));
    }
    if is_json {
        s.push_str(&format!(" CHECK (json_valid({}))", quote_ident(&col.name)));
    }
    s
}

/// SHOW CREATE SEQUENCE's text, in MariaDB's exact spelling.
pub(crate) fn create_sequence_text(name: &str, def: &selkie_storage::SequenceDef) -> String {
    let cache = if def.cache == 0 { "nocache".to_string() } else { format!("cache {}", def.cache) };
    format!(
        "CREATE SEQUENCE {} start with {} minvalue {} maxvalue {} increment by {} {cache} {} ENGINE={ENGINE_NAME}",
        quote_ident(name),
        def.start,
        def.min,
        def.max,
        def.increment,
        if def.cycle { "cycle" } else { "nocycle" }
    )
}

fn action_text(a: Option<ForeignKeyAction>) -> Option<&'static str> {
    match a? {
        // InnoDB does not record RESTRICT: it is the behaviour without a clause.
        ForeignKeyAction::Restrict => None,
        ForeignKeyAction::NoAction => Some("NO ACTION"),
        ForeignKeyAction::Cascade => Some("CASCADE"),
        ForeignKeyAction::SetNull => Some("SET NULL"),
    }
}

fn quoted_list(names: &[String]) -> String {
    names.iter().map(|n| quote_ident(n)).collect::<Vec<_>>().join(", ")
}

/// `CONSTRAINT `fk` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE`, as InnoDB
/// prints it for a table in `child_db` (the parent's database only when it differs).
pub(crate) fn foreign_key_clause(fk: &ForeignKeyDef, child_db: &str) -> String {
    let parent = if fk.ref_db == child_db {
        quote_ident(&fk.ref_table)
    } else {
        format!("{}.{}", quote_ident(&fk.ref_db), quote_ident(&fk.ref_table))
    };
    let mut s = format!(
        "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {parent} ({})",
        quote_ident(&fk.name),
        quoted_list(&fk.columns),
        quoted_list(&fk.ref_columns)
    );
    if let Some(a) = action_text(fk.on_delete) {
        s.push_str(" ON DELETE ");
        s.push_str(a);
    }
    if let Some(a) = action_text(fk.on_update) {
        s.push_str(" ON UPDATE ");
        s.push_str(a);
    }
    s
}

/// What errors 1451 / 1452 put in parentheses: `` `db`.`child`, CONSTRAINT ... ``.
pub(crate) fn foreign_key_detail(child: &TableDef, fk: &ForeignKeyDef) -> String {
    format!("{}.{}, {}", quote_ident(&child.db), quote_ident(&child.name), foreign_key_clause(fk, &child.db))
}

/// The CREATE TABLE statement of `t`. `next_auto_increment` is the engine's next
/// AUTO_INCREMENT value (None when the table has no such column); like MariaDB it is shown
/// only once it is past 1.
pub(crate) fn create_table_text(t: &TableDef, next_auto_increment: Option<u64>) -> String {
    let table_collation = table_collation(t);
    let mut lines: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let mut line = column_line(c, table_collation);
            // A column-level CHECK stays on its column's line.
            for check in t.constraints.checks.iter().filter(|k| k.column.as_deref() == Some(c.name.as_str())) {
                line.push_str(&format!(" CHECK ({})", check.expr));
            }
            line
        })
        .collect();
    for ix in index_display_order(t) {
        let parts: Vec<String> = ix
            .columns
            .iter()
            .map(|part| {
                let col = t.columns.get(part.column);
                let name = col.map(|c| c.name.as_str()).unwrap_or("?");
                let column = match (part.prefix_len, col) {
                    // Declared in characters; the engine keeps bytes.
                    (Some(n), Some(c)) => format!("{}({})", quote_ident(name), crate::value::prefix_chars(&c.ty, n)),
                    _ => quote_ident(name),
                };
                if part.descending {
                    format!("{column} DESC")
                } else {
                    column
                }
            })
            .collect();
        let parts = parts.join(",");
        lines.push(if ix.primary {
            format!("PRIMARY KEY ({parts})")
        } else if ix.unique {
            format!("UNIQUE KEY {} ({parts})", quote_ident(&ix.name))
        } else {
            format!("KEY {} ({parts})", quote_ident(&ix.name))
        });
    }
    for fk in foreign_keys_in_order(t) {
        lines.push(foreign_key_clause(fk, &t.db));
    }
    for check in t.constraints.checks.iter().filter(|k| k.column.is_none()) {
        lines.push(format!("CONSTRAINT {} CHECK ({})", quote_ident(&check.name), check.expr));
    }
    let charset = effective_charset(&t.options.charset);
    let mut out =
        format!("CREATE TABLE {} (\n  {}\n) ENGINE={}", quote_ident(&t.name), lines.join(",\n  "), engine_name(t));
    if t.options.sequence.is_some() {
        // MariaDB shows a sequence's table with no charset.
        out.push_str(" SEQUENCE=1");
        return out;
    }
    if let Some(next) = next_auto_increment.filter(|&n| n > 1) {
        out.push_str(&format!(" AUTO_INCREMENT={next}"));
    }
    out.push_str(&format!(" DEFAULT CHARSET={charset} COLLATE={table_collation}"));
    if !t.options.row_format.is_empty() {
        out.push_str(&format!(" ROW_FORMAT={}", t.options.row_format));
    }
    if !t.options.comment.is_empty() {
        out.push_str(" COMMENT=");
        out.push_str(&quote_string(t.options.comment.as_bytes()));
    }
    out
}

/// MariaDB shows information_schema tables as temporary MEMORY tables.
pub(crate) fn create_is_table_text(t: &IsTable) -> String {
    let lines: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let null = if c.nullable { "DEFAULT NULL" } else { "NOT NULL" };
            format!("{} {} {null}", quote_ident(c.name), c.column_type)
        })
        .collect();
    format!(
        "CREATE TEMPORARY TABLE {} (\n  {}\n) ENGINE=MEMORY DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_bin",
        quote_ident(t.name),
        lines.join(",\n  ")
    )
}

pub(crate) fn create_database_text(name: &str, charset: &str, collation: &str, if_not_exists: bool) -> String {
    let guard = if if_not_exists { "/*!32312 IF NOT EXISTS*/ " } else { "" };
    format!(
        "CREATE DATABASE {guard}{} /*!40100 DEFAULT CHARACTER SET {charset} COLLATE {collation} */",
        quote_ident(name)
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use selkie_storage::{
        ColumnDefault, Date, DateTime, Datum, Decimal, IndexColumn, IndexDef, IntWidth, LobSize, TableOptions,
    };

    fn col(name: &str, ty: ColumnType, nullable: bool, default: ColumnDefault) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            ty,
            nullable,
            default,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            zerofill: false,
            generated: None,
            collation: String::new(),
        }
    }

    fn int(width: IntWidth, unsigned: bool) -> ColumnType {
        ColumnType::Int { width, unsigned, display_width: None }
    }

    fn index(id: u32, name: &str, cols: &[(usize, Option<u32>)], unique: bool, primary: bool) -> IndexDef {
        IndexDef {
            id,
            name: name.into(),
            columns: cols
                .iter()
                .map(|&(column, prefix_len)| IndexColumn { column, prefix_len, descending: false })
                .collect(),
            unique,
            primary,
            root: 0,
        }
    }

    fn options(comment: &str) -> TableOptions {
        TableOptions {
            engine: "InnoDB".into(),
            charset: "utf8mb4".into(),
            collation: "utf8mb4_bin".into(),
            comment: comment.into(),
            row_format: String::new(),
            sequence: None,
            key_format: selkie_storage::KEY_FORMAT_BYTES,
        }
    }

    /// sysbench's table:
    ///   CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL,
    ///     c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))
    ///   CREATE INDEX k_1 ON sbtest1(k)
    pub(crate) fn sbtest() -> TableDef {
        let mut id = col("id", int(IntWidth::Int, false), false, ColumnDefault::None);
        id.auto_increment = true;
        TableDef {
            row_versions: Default::default(),
            id: 1,
            db: "sbtest".into(),
            name: "sbtest1".into(),
            columns: vec![
                id,
                col("k", int(IntWidth::Int, false), false, ColumnDefault::Value(Datum::Int(0))),
                col("c", ColumnType::Char { len: 120 }, false, ColumnDefault::Value(Datum::Bytes(vec![]))),
                col("pad", ColumnType::Char { len: 60 }, false, ColumnDefault::Value(Datum::Bytes(vec![]))),
            ],
            primary: index(1, "PRIMARY", &[(0, None)], true, true),
            secondary: vec![index(2, "k_1", &[(1, None)], false, false)],
            options: options(""),
            constraints: Default::default(),
        }
    }

    /// Expected text: MariaDB 10.11.19's SHOW CREATE TABLE for the same DDL after inserting
    /// two rows (AUTO_INCREMENT=3), run on a private server.
    #[test]
    fn sysbench_table_matches_mariadb() {
        let want = "CREATE TABLE `sbtest1` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `k` int(11) NOT NULL DEFAULT 0,\n  `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) NOT NULL DEFAULT '',\n  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`)\n) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
        assert_eq!(create_table_text(&sbtest(), Some(3)), want);
        // A fresh table (next value 1) shows no AUTO_INCREMENT option, as in MariaDB.
        assert!(!create_table_text(&sbtest(), Some(1)).contains("AUTO_INCREMENT="));
    }

    /// Every supported type. Expected text: MariaDB 10.11.19's SHOW CREATE TABLE for
    ///   CREATE TABLE alltypes(a TINYINT, b TINYINT UNSIGNED NOT NULL DEFAULT 3, c SMALLINT,
    ///   d SMALLINT UNSIGNED, e MEDIUMINT, f MEDIUMINT UNSIGNED, g INT NOT NULL, h INT UNSIGNED,
    ///   i BIGINT NOT NULL AUTO_INCREMENT, j BIGINT UNSIGNED, k DECIMAL(10,2) DEFAULT 1.50,
    ///   l FLOAT, m DOUBLE DEFAULT 2.5, n CHAR(10) NOT NULL, o VARCHAR(255) DEFAULT 'x''y',
    ///   p TINYTEXT, q TEXT, r MEDIUMTEXT, s LONGTEXT, t BINARY(16), u VARBINARY(200),
    ///   v TINYBLOB, w BLOB, x MEDIUMBLOB, y LONGBLOB, z DATE DEFAULT '2024-01-02', aa DATETIME,
    ///   ab DATETIME(6), ac TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE
    ///   CURRENT_TIMESTAMP, ad TIMESTAMP(3) NULL DEFAULT NULL, ae BOOL DEFAULT 1,
    ///   af INT(5) COMMENT 'five wide', PRIMARY KEY (i), UNIQUE KEY uq_g (g),
    ///   KEY idx_no (n, o(10)), UNIQUE KEY uq_multi (c, d)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
    ///   COLLATE=utf8mb4_bin COMMENT='all types'
    /// run on a private server (note MariaDB's key order: unique keys before plain ones).
    #[test]
    fn every_type_matches_mariadb() {
        use ColumnDefault::{CurrentTimestamp, None as NoDefault, Value as Def};
        let mut cols = vec![
            col("a", int(IntWidth::Tiny, false), true, NoDefault),
            col("b", int(IntWidth::Tiny, true), false, Def(Datum::UInt(3))),
            col("c", int(IntWidth::Small, false), true, NoDefault),
            col("d", int(IntWidth::Small, true), true, NoDefault),
            col("e", int(IntWidth::Medium, false), true, NoDefault),
            col("f", int(IntWidth::Medium, true), true, NoDefault),
            col("g", int(IntWidth::Int, false), false, NoDefault),
            col("h", int(IntWidth::Int, true), true, NoDefault),
            col("i", int(IntWidth::Big, false), false, NoDefault),
            col("j", int(IntWidth::Big, true), true, NoDefault),
            col(
                "k",
                ColumnType::Decimal { precision: 10, scale: 2, unsigned: false },
                true,
                Def(Datum::Decimal(Decimal::new(150, 2))),
            ),
            col("l", ColumnType::FLOAT, true, NoDefault),
            col("m", ColumnType::DOUBLE, true, Def(Datum::Double(2.5))),
            col("n", ColumnType::Char { len: 10 }, false, NoDefault),
            col("o", ColumnType::VarChar { len: 255 }, true, Def(Datum::Bytes(b"x'y".to_vec()))),
            col("p", ColumnType::Text { size: LobSize::Tiny }, true, NoDefault),
            col("q", ColumnType::Text { size: LobSize::Normal }, true, NoDefault),
            col("r", ColumnType::Text { size: LobSize::Medium }, true, NoDefault),
            col("s", ColumnType::Text { size: LobSize::Long }, true, NoDefault),
            col("t", ColumnType::Binary { len: 16 }, true, NoDefault),
            col("u", ColumnType::VarBinary { len: 200 }, true, NoDefault),
            col("v", ColumnType::Blob { size: LobSize::Tiny }, true, NoDefault),
            col("w", ColumnType::Blob { size: LobSize::Normal }, true, NoDefault),
            col("x", ColumnType::Blob { size: LobSize::Medium }, true, NoDefault),
            col("y", ColumnType::Blob { size: LobSize::Long }, true, NoDefault),
            col("z", ColumnType::Date, true, Def(Datum::Date(Date::new(2024, 1, 2)))),
            col("aa", ColumnType::DateTime { fsp: 0 }, true, NoDefault),
            col("ab", ColumnType::DateTime { fsp: 6 }, true, NoDefault),
            col("ac", ColumnType::Timestamp { fsp: 0 }, false, CurrentTimestamp),
            col("ad", ColumnType::Timestamp { fsp: 3 }, true, Def(Datum::Null)),
            col(
                "ae",
                ColumnType::Int { width: IntWidth::Tiny, unsigned: false, display_width: Some(1) },
                true,
                Def(Datum::Int(1)),
            ),
            col(
                "af",
                ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: Some(5) },
                true,
                NoDefault,
            ),
        ];
        cols[8].auto_increment = true;
        cols[28].on_update_current_timestamp = true;
        cols[31].comment = "five wide".into();
        let t = TableDef {
            row_versions: Default::default(),
            id: 2,
            db: "sqa_ref".into(),
            name: "alltypes".into(),
            columns: cols,
            primary: index(1, "PRIMARY", &[(8, None)], true, true),
            secondary: vec![
                index(2, "uq_g", &[(6, None)], true, false),
                index(3, "idx_no", &[(13, None), (14, Some(40))], false, false),
                index(4, "uq_multi", &[(2, None), (3, None)], true, false),
            ],
            options: options("all types"),
            constraints: Default::default(),
        };
        let want = "CREATE TABLE `alltypes` (
  `a` tinyint(4) DEFAULT NULL,
  `b` tinyint(3) unsigned NOT NULL DEFAULT 3,
  `c` smallint(6) DEFAULT NULL,
  `d` smallint(5) unsigned DEFAULT NULL,
  `e` mediumint(9) DEFAULT NULL,
  `f` mediumint(8) unsigned DEFAULT NULL,
  `g` int(11) NOT NULL,
  `h` int(10) unsigned DEFAULT NULL,
  `i` bigint(20) NOT NULL AUTO_INCREMENT,
  `j` bigint(20) unsigned DEFAULT NULL,
  `k` decimal(10,2) DEFAULT 1.50,
  `l` float DEFAULT NULL,
  `m` double DEFAULT 2.5,
  `n` char(10) NOT NULL,
  `o` varchar(255) DEFAULT 'x''y',
  `p` tinytext DEFAULT NULL,
  `q` text DEFAULT NULL,
  `r` mediumtext DEFAULT NULL,
  `s` longtext DEFAULT NULL,
  `t` binary(16) DEFAULT NULL,
  `u` varbinary(200) DEFAULT NULL,
  `v` tinyblob DEFAULT NULL,
  `w` blob DEFAULT NULL,
  `x` mediumblob DEFAULT NULL,
  `y` longblob DEFAULT NULL,
  `z` date DEFAULT '2024-01-02',
  `aa` datetime DEFAULT NULL,
  `ab` datetime(6) DEFAULT NULL,
  `ac` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(),
  `ad` timestamp(3) NULL DEFAULT NULL,
  `ae` tinyint(1) DEFAULT 1,
  `af` int(5) DEFAULT NULL COMMENT 'five wide',
  PRIMARY KEY (`i`),
  UNIQUE KEY `uq_g` (`g`),
  UNIQUE KEY `uq_multi` (`c`,`d`),
  KEY `idx_no` (`n`,`o`(10))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='all types'";
        assert_eq!(create_table_text(&t, Some(1)), want);
    }

    /// MariaDB 10.11.19 output for
    ///   CREATE TABLE d1 (a varchar(10) default 'l1\nl2\t\\0', b double default 1e21,
    ///   c double default 0.00001, d float default 0.1, e double default -1.5e-7,
    ///   f datetime(3) default '2024-01-02 03:04:05.678', g timestamp(2) not null default
    ///   current_timestamp(2) on update current_timestamp(2), h int not null auto_increment
    ///   comment 'it''s', primary key (h)) comment='it''s a \\ table'
    /// (with utf8mb4 instead of the server's latin1 default).
    #[test]
    fn escapes_numbers_and_fractional_timestamps_match_mariadb() {
        use ColumnDefault::{CurrentTimestamp, None as NoDefault, Value as Def};
        let mut cols = vec![
            col("a", ColumnType::VarChar { len: 10 }, true, Def(Datum::Bytes(b"l1\nl2\t\\0".to_vec()))),
            col("b", ColumnType::DOUBLE, true, Def(Datum::Double(1e21))),
            col("c", ColumnType::DOUBLE, true, Def(Datum::Double(0.00001))),
            col("d", ColumnType::FLOAT, true, Def(Datum::Double(0.1f32 as f64))),
            col("e", ColumnType::DOUBLE, true, Def(Datum::Double(-1.5e-7))),
            col(
                "f",
                ColumnType::DateTime { fsp: 3 },
                true,
                Def(Datum::DateTime(DateTime::new(Date::new(2024, 1, 2), 3, 4, 5, 678_000))),
            ),
            col("g", ColumnType::Timestamp { fsp: 2 }, false, CurrentTimestamp),
            col("h", int(IntWidth::Int, false), false, NoDefault),
        ];
        cols[6].on_update_current_timestamp = true;
        cols[7].auto_increment = true;
        cols[7].comment = "it's".into();
        let t = TableDef {
            row_versions: Default::default(),
            id: 3,
            db: "sqa_ref".into(),
            name: "d1".into(),
            columns: cols,
            primary: index(1, "PRIMARY", &[(7, None)], true, true),
            secondary: vec![],
            options: options("it's a \\ table"),
            constraints: Default::default(),
        };
        let want = "CREATE TABLE `d1` (
  `a` varchar(10) DEFAULT 'l1\\nl2\t\\\\0',
  `b` double DEFAULT 1e21,
  `c` double DEFAULT 0.00001,
  `d` float DEFAULT 0.1,
  `e` double DEFAULT -0.00000015,
  `f` datetime(3) DEFAULT '2024-01-02 03:04:05.678',
  `g` timestamp(2) NOT NULL DEFAULT current_timestamp(2) ON UPDATE current_timestamp(2),
  `h` int(11) NOT NULL AUTO_INCREMENT COMMENT 'it''s',
  PRIMARY KEY (`h`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='it''s a \\\\ table'";
        assert_eq!(create_table_text(&t, Some(1)), want);
    }

    /// A table without a primary key (Selkie's hidden row id) prints no PRIMARY KEY line;
    /// MariaDB 10.11.19: CREATE TABLE nopk (a INT, b VARCHAR(10)).
    #[test]
    fn table_without_primary_key() {
        let t = TableDef {
            row_versions: Default::default(),
            id: 4,
            db: "sqa_ref".into(),
            name: "nopk".into(),
            columns: vec![
                col("a", int(IntWidth::Int, false), true, ColumnDefault::None),
                col("b", ColumnType::VarChar { len: 10 }, true, ColumnDefault::None),
            ],
            primary: index(1, "PRIMARY", &[], true, true),
            secondary: vec![],
            options: TableOptions::default(),
            constraints: Default::default(),
        };
        let want = "CREATE TABLE `nopk` (\n  `a` int(11) DEFAULT NULL,\n  `b` varchar(10) DEFAULT NULL\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
        assert_eq!(create_table_text(&t, None), want);
    }

    #[test]
    fn create_database_text_matches_mariadb() {
        assert_eq!(
            create_database_text("sqa_ref", "utf8mb4", "utf8mb4_bin", false),
            "CREATE DATABASE `sqa_ref` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */"
        );
        assert_eq!(
            create_database_text("d", "utf8mb4", "utf8mb4_bin", true),
            "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */"
        );
    }
}
