#!/usr/bin/env python3
"""Regenerates mariadb_cases.rs: runs every case below on a real MariaDB 10.11 and records the
text-protocol result and the Warning-level codes it raised.

    python3 gen_mariadb_cases.py [port]   # default 3399 (a private mariadbd, see the SQL-values brief)

Each case is (kind, name, args): kind "fn" calls NAME(args...), "op" is `a NAME b`, "neg" is `-a`,
"cast" is CAST(a AS NAME), "like" is `a LIKE b` under utf8mb4_bin, "date_add" is
DATE_ADD(a, INTERVAL b NAME). Arguments are SQL literals that the Rust side parses into Values
(see tests/mod.rs `literal`). Cases that depend on the time zone are marked "tz" in the output.
"""
import sys
import pymysql
import pymysql.converters as cv

CASES = []


def fn(name, *args):
    CASES.append(("fn", name, list(args)))


def op(name, a, b):
    CASES.append(("op", name, [a, b]))


def neg(a):
    CASES.append(("neg", "-", [a]))


def cast(a, target):
    CASES.append(("cast", target, [a]))


def like(a, p):
    CASES.append(("like", "LIKE", [a, p]))


def date_add(base, amount, unit):
    CASES.append(("date_add", unit, [base, amount]))


# ---- comparison ----
for a, b in [("1", "1.0"), ("1", "'1.0'"), ("1", "'1.0000000000000000000001'"), ("1.0", "'1.0000000000000000000001'"),
             ("'abc'", "0"), ("'1abc'", "1"), ("' 1'", "1"), ("'1e2'", "100"), ("2", "'10'"), ("'2'", "'10'"),
             ("18446744073709551615", "'18446744073709551614'"), ("9223372036854775807", "9223372036854775806e0"),
             ("-1", "18446744073709551615"), ("DATE'2024-01-01'", "20240101"), ("DATE'2024-01-01'", "'2024-01-01 00:00:00'"),
             ("DATE'2024-01-01'", "'2024-1-1'"), ("DATE'2024-01-01'", "'abc'"), ("TIMESTAMP'2024-01-01 00:00:00'", "DATE'2024-01-01'"),
             ("0.1", "0.1e0"), ("1.5", "'1.5abc'"), ("'a'", "'b'"), ("'ab'", "'a'"), ("NULL", "1"), ("1e0", "'1'"),
             ("DATE'2024-01-02'", "20240101000000"), ("TIMESTAMP'2024-01-02 03:04:05'", "'2024-01-02 03:04:05'")]:
    op("=", a, b)
    op("<", a, b)

# ---- arithmetic ----
for a, b in [("7", "2"), ("-7", "2"), ("7", "-2"), ("7.5", "2"), ("-7.5", "2"), ("7.9e0", "2"), ("1", "3"), ("2", "3"),
             ("1.0", "3"), ("1.00", "3.0"), ("1.5", "1.25"), ("10", "4"), ("-10", "4"), ("1", "7"), ("1.000000", "7"),
             ("1e0", "3"), ("10", "3.5"), ("5", "0"), ("5.0", "0"), ("5e0", "0"), ("'1.5'", "1"), ("'abc'", "1"),
             ("'12abc'", "2"), ("0.1", "0.2"), ("0.1e0", "0.2e0"), ("DATE'2024-01-02'", "1"),
             ("TIMESTAMP'2024-01-02 03:04:05'", "0"), ("TIMESTAMP'2024-01-02 03:04:05.5'", "0"), ("NULL", "1"),
             ("18446744073709551615", "0"), ("123456789012.345678", "-98765.4321"), ("1.23e0", "0.5"),
             ("1234567890123456789012345678901.12345678", "3.123456")]:
    for o in ["+", "-", "*", "/", "DIV", "%"]:
        op(o, a, b)
op("+", "9223372036854775807", "1")
op("-", "-9223372036854775807", "2")
op("*", "3037000500", "3037000500")
op("-", "CAST(1 AS UNSIGNED)", "2")
op("+", "-1", "CAST(5 AS UNSIGNED)")
op("-", "CAST(5 AS UNSIGNED)", "3")
op("*", "CAST(1 AS UNSIGNED)", "-1")
op("%", "CAST(7 AS UNSIGNED)", "-3")
op("%", "-7", "CAST(3 AS UNSIGNED)")
op("DIV", "CAST(18446744073709551615 AS UNSIGNED)", "2")
op("DIV", "1e30", "1")
op("DIV", "2", "0.5")
op("DIV", "1", "1e-10")
op("*", "1e308", "10")
op("+", "18446744073709551615", "1")
neg("9223372036854775807")
neg("CAST(9223372036854775808 AS UNSIGNED)")
neg("1.5")
neg("'2abc'")
neg("0e0")

# ---- casts ----
for a in ["'12abc'", "'1.9'", "1.5", "-1.5", "1.5e0", "2.5e0", "-2.5e0", "'abc'", "''", "' 12'", "'1e3'",
          "'99999999999999999999'", "'-99999999999999999999'", "1e30", "-1e30", "18446744073709551615",
          "99999999999999999999.5", "DATE'2024-01-02'", "TIMESTAMP'2024-01-02 03:04:05.5'", "-1", "'-1'", "NULL"]:
    cast(a, "SIGNED")
    cast(a, "UNSIGNED")
for a in ["'1.2345'", "'12345.6'", "-12345.6", "'abc'", "1.005e0", "2.5", "'1e2'", "-0.005", "123"]:
    cast(a, "DECIMAL(5,2)")
    cast(a, "DECIMAL(5,0)")
for a in ["123", "'abcdef'", "1.50", "1e0", "0.1e0", "DATE'2024-01-02'", "TIMESTAMP'2024-01-02 03:04:05.25'", "'é€x'"]:
    cast(a, "CHAR")
    cast(a, "CHAR(3)")
for a in ["'ab'", "'abc'", "12"]:
    cast(a, "BINARY(2)")
    cast(a, "BINARY(4)")
for a in ["'2024-01-02'", "'2024-01-02 03:04:05.678'", "'abc'", "20240102", "20240102030405", "'2024-02-30'",
          "'2024-1-2 3:4:5'", "'24-01-02'", "'2024-01-02x'", "DATE'2024-01-02'", "20240102030405.5", "0"]:
    cast(a, "DATE")
    cast(a, "DATETIME")
    cast(a, "DATETIME(2)")
for a in ["1.5", "'1.5x'", "'abc'", "1e300", "DATE'2024-01-02'", "123456789012345678"]:
    cast(a, "DOUBLE")
cast("0.1", "FLOAT")
cast("'3.14159265'", "FLOAT")

# ---- LIKE ----
for a, p in [("'abc'", "'a%'"), ("'abc'", "'%c'"), ("'abc'", "'a_c'"), ("'é'", "'_'"), ("'éa'", "'__'"),
             ("'a%c'", "'a\\\\%c'"), ("'abc'", "'a\\\\%c'"), ("'ABC'", "'abc'"), ("''", "'%'"), ("'a'", "''"),
             ("'mississippi'", "'%iss%ppi'"), ("123", "'1%'"), ("1.50", "'%.50'"), ("NULL", "'%'")]:
    like(a, p)

# ---- DATE_ADD ----
for base, amount, unit in [("'2024-01-31'", "1", "MONTH"), ("'2024-01-31'", "1.5", "DAY"), ("'2024-01-31'", "'1.5'", "DAY"),
                           ("'2024-01-31 10:00:00'", "1.5", "SECOND"), ("'9999-12-31'", "1", "DAY"),
                           ("'0000-00-00'", "1", "DAY"), ("'2024-02-29'", "1", "YEAR"), ("'2024-01-01'", "-1", "MICROSECOND"),
                           ("DATE'2024-03-31'", "-1", "QUARTER"), ("DATE'2024-03-31'", "2", "HOUR"),
                           ("TIMESTAMP'2024-03-31 23:59:59'", "1", "SECOND"), ("'abc'", "1", "DAY"), ("20240101", "1", "WEEK"),
                           ("'2024-01-01'", "NULL", "DAY"), ("DATE'2024-01-15'", "-14", "MONTH")]:
    date_add(base, amount, unit)

# ---- string functions ----
S = "'Hello, Wörld'"
fn("CONCAT", "'a'", "1", "1.50", "2e0")
fn("CONCAT", "'a'", "NULL")
fn("CONCAT", "DATE'2024-01-02'", "'|'", "TIMESTAMP'2024-01-02 03:04:05'")
fn("CONCAT_WS", "','", "'a'", "NULL", "'b'")
fn("CONCAT_WS", "NULL", "'a'")
for f in ["LENGTH", "OCTET_LENGTH", "BIT_LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH", "UPPER", "UCASE", "LOWER", "LCASE",
          "REVERSE", "TRIM", "LTRIM", "RTRIM", "ASCII", "ORD", "HEX", "QUOTE", "TO_BASE64", "MD5", "SHA1", "SHA",
          "CRC32"]:
    fn(f, S)
    fn(f, "NULL")
fn("UPPER", "'straße ǆ'")
fn("TRIM", "'  x  '")
fn("LTRIM", "'  x  '")
fn("RTRIM", "'  x  '")
fn("TRIM_BOTH", "'xxaxx'", "'x'")
fn("TRIM_LEADING", "'xyxyaxy'", "'xy'")
fn("TRIM_TRAILING", "'axyxy'", "'xy'")
for args in [(S, "2"), (S, "-3"), (S, "0"), (S, "2", "3"), (S, "-5", "2"), (S, "2", "-1"), (S, "20"), (S, "9", "100"),
             ("'abc'", "'1x'")]:
    fn("SUBSTRING", *args)
fn("SUBSTR", S, "3", "2")
fn("MID", S, "3", "2")
for n in ["3", "0", "-1", "100"]:
    fn("LEFT", S, n)
    fn("RIGHT", S, n)
for args in [("'www.mysql.com'", "'.'", "2"), ("'www.mysql.com'", "'.'", "-2"), ("'www.mysql.com'", "'.'", "0"),
             ("'www.mysql.com'", "'.'", "5"), ("'www.mysql.com'", "''", "1")]:
    fn("SUBSTRING_INDEX", *args)
fn("REPLACE", "'www.mysql.com'", "'w'", "'Ww'")
fn("REPLACE", "'abc'", "''", "'x'")
fn("REPEAT", "'ab'", "3")
fn("REPEAT", "'ab'", "-1")
fn("REPEAT", "'ab'", "20000000")
for f in ["LPAD", "RPAD"]:
    fn(f, "'hi'", "5", "'xy'")
    fn(f, "'hello'", "3", "'x'")
    fn(f, "'hi'", "5", "''")
    fn(f, "'hi'", "-1", "'x'")
    fn(f, "'é'", "3", "'ü'")
fn("INSTR", "'foobarbar'", "'bar'")
fn("INSTR", "'xbar'", "'foobar'")
fn("INSTR", "'Wörld'", "'ld'")
fn("LOCATE", "'bar'", "'foobarbar'")
fn("LOCATE", "'bar'", "'foobarbar'", "5")
fn("LOCATE", "'bar'", "'foobarbar'", "0")
fn("LOCATE", "''", "'abc'", "2")
fn("LOCATE", "'ld'", "'Wörld'")
fn("ASCII", "''")
fn("ORD", "'é'")
for a in ["255", "-1", "1.5", "1.5e0", "'abc'", "18446744073709551615", "DATE'2024-01-02'", "0"]:
    fn("HEX", a)
for a in ["'4D7953514C'", "'41a'", "'zz'", "''"]:
    fn("UNHEX", a)
fn("SPACE", "3")
fn("SPACE", "-1")
fn("STRCMP", "'a'", "'b'")
fn("STRCMP", "'b'", "'a'")
fn("STRCMP", "'a'", "'a'")
fn("STRCMP", "'a'", "NULL")
fn("FIELD", "'b'", "'a'", "'b'", "'c'")
fn("FIELD", "'z'", "'a'", "'b'")
fn("FIELD", "NULL", "'a'")
fn("FIELD", "2", "1", "2.0", "3")
fn("ELT", "2", "'a'", "'b'", "'c'")
fn("ELT", "4", "'a'", "'b'")
fn("ELT", "0", "'a'")
fn("FIND_IN_SET", "'b'", "'a,b,c'")
fn("FIND_IN_SET", "'d'", "'a,b,c'")
fn("FIND_IN_SET", "'a,b'", "'a,b,c'")
fn("FIND_IN_SET", "''", "''")
fn("QUOTE", "'Don''t \\\\ x'")
for args in [("1234.5", "2"), ("1234567.891", "0"), ("-1234567.891", "1"), ("0.5", "0"), ("1234.5e0", "2"), ("'12345.678'", "2"),
             ("1", "-1"), ("123456789", "3"), ("NULL", "2"), ("999.999", "2")]:
    fn("FORMAT", *args)
fn("FROM_BASE64", "'SGVsbG8='")
fn("FROM_BASE64", "'!!'")
fn("TO_BASE64", "REPEAT('abc', 30)")
for bits in ["0", "224", "256", "384", "512", "1"]:
    fn("SHA2", "'abc'", bits)

# ---- numeric functions ----
for a in ["-5", "5", "-1.50", "-2.5e0", "'-3x'", "NULL", "18446744073709551615"]:
    fn("ABS", a)
    fn("SIGN", a)
for a in ["1.5", "-1.5", "1.5e0", "-1.5e0", "7", "'2.5'", "12345678901234567890.5", "-0.5"]:
    fn("CEIL", a)
    fn("CEILING", a)
    fn("FLOOR", a)
for args in [("1.5",), ("-1.5",), ("2.5e0",), ("-2.5e0",), ("1.55", "1"), ("1.555", "2"), ("-1.555", "2"), ("1234", "-2"),
             ("1250", "-2"), ("123.456e0", "1"), ("123.456e0", "-1"), ("1.5e0", "0"), ("1.55", "5"), ("7", "2"),
             ("'1.45'", "1"), ("NULL", "1"), ("1.5", "NULL"), ("9223372036854775807", "-1"), ("0.5",), ("-0.5",)]:
    fn("ROUND", *args)
for args in [("1.999", "1"), ("-1.999", "1"), ("1999", "-2"), ("1.999e0", "2"), ("-1.999e0", "1"), ("123.456e0", "-1"), ("7", "0")]:
    fn("TRUNCATE", *args)
fn("MOD", "10", "3")
fn("MOD", "-10", "3")
fn("MOD", "10.5", "3")
fn("MOD", "10", "0")
for args in [("2", "3"), ("2", "-1"), ("2", "0.5"), ("-8", "0.5"), ("0", "0"), ("10", "400")]:
    fn("POW", *args)
    fn("POWER", *args)
for a in ["4", "2", "-1", "0", "1e0", "'9'"]:
    fn("SQRT", a)
    fn("EXP", a)
    fn("LN", a)
    fn("LOG", a)
    fn("LOG2", a)
    fn("LOG10", a)
    fn("DEGREES", a)
    fn("RADIANS", a)
    fn("SIN", a)
    fn("COS", a)
    fn("TAN", a)
    fn("ASIN", a)
    fn("ACOS", a)
    fn("ATAN", a)
fn("EXP", "1000")
fn("LOG", "2", "8")
fn("LOG", "1", "8")
fn("LOG", "10", "-1")
fn("ATAN", "1", "2")
fn("ATAN2", "-1", "0")
fn("COT", "1")
fn("COT", "0")
fn("PI")
for seed in ["1", "0", "-1", "3000000000", "'5'", "NULL"]:
    fn("RAND", seed)
for args in [("1", "2"), ("1", "2.5"), ("1", "'a'"), ("'b'", "'a'", "'c'"), ("1", "NULL"), ("2e0", "1"),
             ("DATE'2024-01-02'", "DATE'2023-01-01'"), ("-1", "18446744073709551615")]:
    fn("GREATEST", *args)
    fn("LEAST", *args)
for args in [("'a'", "16", "10"), ("'6E'", "18", "8"), ("-17", "10", "-18"), ("-1", "10", "16"), ("10", "10", "2"),
             ("'ZZ'", "36", "10"), ("10", "1", "10"), ("'12x'", "10", "10"), ("10.9", "10", "2"), ("NULL", "10", "2"),
             ("'-ff'", "-16", "10"), ("'18446744073709551616'", "10", "16")]:
    fn("CONV", *args)
for a in ["12", "-1", "0", "'abc'", "255.9"]:
    fn("BIN", a)
    fn("OCT", a)

# ---- control ----
fn("IF", "1", "'a'", "'b'")
fn("IF", "0", "'a'", "'b'")
fn("IF", "NULL", "1", "2")
fn("IF", "'0.0'", "1", "2")
fn("IF", "'abc'", "1", "2")
fn("IF", "0.1", "1", "2.5")
fn("IFNULL", "NULL", "2")
fn("IFNULL", "1", "2")
fn("NULLIF", "1", "1")
fn("NULLIF", "1", "2")
fn("NULLIF", "'a'", "'a'")
fn("COALESCE", "NULL", "NULL", "3", "4")
fn("COALESCE", "NULL")
fn("ISNULL", "NULL")
fn("ISNULL", "0")

# ---- date functions ----
D = "'2024-02-29 13:45:30.123456'"
for f in ["DATE", "YEAR", "MONTH", "DAY", "DAYOFMONTH", "QUARTER", "DAYOFWEEK", "WEEKDAY", "DAYOFYEAR", "WEEK",
          "WEEKOFYEAR", "YEARWEEK", "DAYNAME", "MONTHNAME", "LAST_DAY", "TO_DAYS", "TO_SECONDS"]:
    for a in [D, "'2024-01-01'", "'2021-01-03'", "'2024-12-31'", "20240102", "'0000-00-00'", "'2024-00-00'", "'abc'",
              "NULL", "DATE'2023-07-04'", "'2024-01-02x'"]:
        fn(f, a)
# Time fields: MariaDB reads a date-only string as a TIME ('2024-01-01' -> 20:24:01), which is not
# modelled; time strings and full date-times are.
for f in ["HOUR", "MINUTE", "SECOND", "MICROSECOND"]:
    for a in [D, "'10:05:03'", "'10:05'", "'100:00:00.25'", "'abc'", "NULL", "TIMESTAMP'2023-07-04 01:02:03'", "20240102"]:
        fn(f, a)
for mode in range(8):
    for d in ["'2024-01-01'", "'2021-01-03'", "'2024-12-30'", "'2022-01-01'", "'2020-12-31'"]:
        fn("WEEK", d, str(mode))
        fn("YEARWEEK", d, str(mode))
for a, b in [("'2024-03-01'", "'2024-02-28'"), ("'2024-01-01 23:59:59'", "'2024-01-02 00:00:00'"), ("'0000-00-00'", "'2024-01-01'"),
             ("20240101", "'2023-01-01'"), ("NULL", "'2024-01-01'")]:
    fn("DATEDIFF", a, b)
for unit in ["MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]:
    for a, b in [("'2024-01-31'", "'2024-02-29'"), ("'2024-01-31 12:00:00'", "'2024-02-29 11:59:59'"),
                 ("'2024-03-31'", "'2023-02-28'"), ("'2020-02-29'", "'2024-02-28 23:59:59.999999'"), ("'2024-01-01'", "'2024-01-01'")]:
        fn("TIMESTAMPDIFF", "'" + unit + "'", a, b)
fn("TIMESTAMPADD", "'MONTH'", "1", "'2024-01-31'")
fn("TIMESTAMPADD", "'MINUTE'", "90", "'2024-01-31'")
fn("ADDDATE", "'2024-01-31'", "1")
fn("SUBDATE", "DATE'2024-03-01'", "1")
for fmt in ["'%Y-%m-%d %H:%i:%s'", "'%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T'",
            "'%U %u %V %v %W %w %X %x %Y %y %% %Q'", "'%D'", "'%W %M'"]:
    for d in [D, "'2024-01-01 00:00:00'", "'2021-01-03 12:00:00'", "'2023-11-22 23:01:02'", "'2024-00-00'", "NULL"]:
        fn("DATE_FORMAT", d, fmt)
for d in ["'2024-12-01'", "'2024-12-02'", "'2024-12-03'", "'2024-12-04'", "'2024-12-11'", "'2024-12-12'", "'2024-12-13'",
          "'2024-12-21'", "'2024-12-22'", "'2024-12-23'"]:
    fn("DATE_FORMAT", d, "'%D'")
for s, f in [("'2024-01-02'", "'%Y-%m-%d'"), ("'02/01/24'", "'%d/%m/%y'"), ("'2024'", "'%Y'"),
             ("'Jan 5 2024 3:04:05 PM'", "'%b %e %Y %l:%i:%s %p'"), ("'2024-01-02 03:04:05.12'", "'%Y-%m-%d %H:%i:%s.%f'"),
             ("'abc'", "'%Y'"), ("'2024-13-01'", "'%Y-%m-%d'"), ("'2024-01-02 junk'", "'%Y-%m-%d'"),
             ("'5th March 2024'", "'%D %M %Y'"), ("'2024 60'", "'%Y %j'"), ("'12:30:45 AM'", "'%r'"), ("'23:59:58'", "'%T'"),
             ("'Friday 2024-03-15'", "'%W %Y-%m-%d'"), ("NULL", "'%Y'")]:
    fn("STR_TO_DATE", s, f)
for args in [("2024", "60"), ("2024", "0"), ("24", "1"), ("2023", "366"), ("9999", "365"), ("9999", "366")]:
    fn("MAKEDATE", *args)
for n in ["739251", "700000", "365", "0", "3652424", "3652425"]:
    fn("FROM_DAYS", n)
for a in ["'2024-01-01 00:00:00'", "'2024-01-01 00:00:00.5'", "'1960-01-01'", "20240101", "'abc'"]:
    CASES.append(("fn_tz", "UNIX_TIMESTAMP", [a]))
for a in ["0", "1.5", "-1", "2147483647", "2147483648", "1704067200.123456"]:
    CASES.append(("fn_tz", "FROM_UNIXTIME", [a]))
CASES.append(("fn_tz", "FROM_UNIXTIME", ["1704067200", "'%Y %D %M'"]))

# ---- misc ----
# ---- issue 15: TIME functions, periods, string and bit functions, zlib, REGEXP family ----
for a in ["'22:23:00'", "'-01:00:00.5'", "'2024-01-01 01:00:00'", "3600", "1.5", "'abc'", "NULL"]:
    fn("TIME_TO_SEC", a)
for a in ["2378", "2378.123", "-3600", "4000000", "-4000000", "1.5e0", "'abc'", "NULL"]:
    fn("SEC_TO_TIME", a)
for a, b in [("'2000:01:01 00:00:00'", "'2000:01:01 00:00:00.000001'"), ("'10:00:00'", "'12:30:00'"),
             ("'2024-01-01 00:00:00'", "'2023-12-01 00:00:00'"), ("'2024-03-01 00:00:00'", "'2023-01-01 00:00:00'"),
             ("'2024-01-01 10:00:00'", "'10:00:00'"), ("NULL", "'1:00'")]:
    fn("TIMEDIFF", a, b)
for a, b in [("'2007-12-31 23:59:59.999999'", "'1 1:1:1.000002'"), ("'10:00:00'", "'1:30:00'"),
             ("'800:00:00'", "'100:00:00'"), ("'2024-01-01 10:00:00'", "'1 0:00:00'"), ("'10:00:00'", "NULL")]:
    fn("ADDTIME", a, b)
    fn("SUBTIME", a, b)
for args in [("12", "15", "30"), ("-1", "30", "30"), ("1", "60", "0"), ("1", "2", "3.5"), ("900", "0", "0"), ("1", "2", "NULL")]:
    fn("MAKETIME", *args)
for args in [("200801", "2"), ("0", "5"), ("202401", "-25"), ("9912", "1"), ("7001", "1"), ("6912", "1"), ("202413", "1")]:
    fn("PERIOD_ADD", *args)
for args in [("200802", "200703"), ("2401", "202401"), ("200001", "199912"), ("NULL", "1")]:
    fn("PERIOD_DIFF", *args)
for a in ["'2024-01-01 10:11:12.5'", "101112", "'10:00'", "'abc'"]:
    fn("TIME", a)
fn("TIMESTAMP", "'2024-01-01'")
fn("TIMESTAMP", "'2024-01-01'", "'10:00:00.5'")
fn("TIMESTAMP", "'2024-01-01 23:00:00'", "'2:00:00'")
for t, f in [("'10:05:03'", "'%H %k %h %I %l %i %s %S %p %r %T %f'"), ("'100:05:03.5'", "'%H %k %h %I %l %p %r %T %f'"),
             ("'10:05:03'", "'%Y'"), ("'-01:02:03'", "'%H:%i'"), ("'2024-01-02 13:04:05'", "'%h %p'"), ("'00:05:03'", "'%h %l %r'")]:
    fn("TIME_FORMAT", t, f)
for a in ["7", "-1", "'3'", "NULL", "1.5", "0"]:
    fn("BIT_COUNT", a)
for a in ["'\u00e9'", "''", "123"]:
    fn("LENGTHB", a)
# COMPRESS's bytes are not UTF-8: functions::compress checks them against MariaDB's.
for a in ["'abc'", "''", "NULL"]:
    fn("UNCOMPRESSED_LENGTH", a)
for a in ["'xyz'", "''"]:
    fn("UNCOMPRESS", a)
for args in [("'Quadratic'", "3", "4", "'What'"), ("'Quadratic'", "-1", "4", "'W'"), ("'Quadratic'", "3", "100", "'W'"),
             ("'abc'", "4", "1", "'x'")]:
    fn("INSERT", *args)
fn("MAKE_SET", "5", "'a'", "'b'", "'c'")
fn("MAKE_SET", "5", "'hello'", "'nice'", "NULL", "'world'")
fn("EXPORT_SET", "5", "'Y'", "'N'", "','", "4")
fn("EXPORT_SET", "6", "'1'", "'0'")
fn("CHAR", "77", "97", "114", "'105'", "97", "68", "66")
fn("CHAR", "NULL", "65")
fn("CHR", "65")
for a in ["'10.0.5.9'", "'1.2'", "'x'", "'1.2.3.256'"]:
    fn("INET_ATON", a)
for a in ["167773449", "-1", "NULL"]:
    fn("INET_NTOA", a)
for a in ["'10.0.0.1'", "'10.0.0.256'", "'1.2.3'", "NULL"]:
    fn("IS_IPV4", a)
fn("NVL2", "NULL", "1", "2")
for a in ["'Hello'", "'Quadratically'", "'Tymczak'", "'  123abc'", "''", "'Ashcraft'", "'Pfister'", "'M\u00fcller'", "'1'",
          "'ab-cd'", "NULL"]:
    fn("SOUNDEX", a)
fn("NVL2", "0", "'a'", "'b'")
for args in [("'ab12cd'", "'[0-9]'", "'#'"), ("'ABC'", "'b'", "'x'"),
             ("'aaa'", "''", "'x'"), ("'abc'", "'^'", "'x'"), ("123", "'2'", "9"), ("NULL", "'a'", "'b'")]:
    fn("REGEXP_REPLACE", *args)
for args in [("'abc\u00e91'", "'[0-9]'"), ("'abc'", "'z'"), ("''", "''"), ("'ABC'", "'c'")]:
    fn("REGEXP_INSTR", *args)
for args in [("'ab12cd34'", "'[0-9]+'"), ("'abc'", "'z'"), ("'ABC'", "'b'")]:
    fn("REGEXP_SUBSTR", *args)
fn("CHARSET", "'a'")
fn("CHARSET", "1")
fn("COLLATION", "1")
# Its invalid-text codes (4037, 4038) are Notes, which the cases do not record.
for a in ["'[1]'", "' 1 '", "''", "'[1,]'", "NULL"]:
    fn("JSON_VALID", a)


TRIM_FORMS = {"TRIM_BOTH": "BOTH", "TRIM_LEADING": "LEADING", "TRIM_TRAILING": "TRAILING"}


# ---- JSON functions (value::json) ----
JSON_CASES = [
    ("JSON_EXTRACT", "'{\"a\": 1, \"b\": [1,2]}'", "'$.b'"), ("JSON_EXTRACT", "'[1,2,3]'", "'$[*]'"),
    ("JSON_EXTRACT", "'[1,2,3]'", "'$[0]'", "'$[1]'"), ("JSON_EXTRACT", "'{\"a\":1.0e0}'", "'$'"),
    ("JSON_EXTRACT", "'[1,2'", "'$'"), ("JSON_EXTRACT", "'[1]'", "'$x'"), ("JSON_EXTRACT", "'[1]'", "NULL"),
    ("JSON_UNQUOTE", "'\"abc\"'"), ("JSON_UNQUOTE", "'[1]'"), ("JSON_UNQUOTE", "'\"abc'"), ("JSON_UNQUOTE", "NULL"),
    ("JSON_CONTAINS", "'[1,2,[3]]'", "'[1,3]'"), ("JSON_CONTAINS", "'{\"a\":[1,2]}'", "'1'", "'$.a'"),
    ("JSON_CONTAINS", "'[1]'", "'1'", "'$[*]'"), ("JSON_CONTAINS", "'[1]'", "'x'"),
    ("JSON_CONTAINS_PATH", "'{\"a\":1}'", "'one'", "'$.a'", "'$.b'"), ("JSON_CONTAINS_PATH", "'{\"a\":1}'", "'all'", "'$.a'", "'$.b'"),
    ("JSON_CONTAINS_PATH", "'{\"a\":1}'", "'any'", "'$.a'"),
    ("JSON_TYPE", "'1.5'"), ("JSON_TYPE", "'1e3'"), ("JSON_TYPE", "'{}'"), ("JSON_TYPE", "'x'"),
    ("JSON_QUOTE", "'a\"b'"), ("JSON_QUOTE", "1"),
    ("JSON_OBJECT", "'a'", "1", "'b'", "'x'"), ("JSON_OBJECT",), ("JSON_ARRAY", "1", "'a'", "NULL", "2.50"),
    ("JSON_LENGTH", "'[1,[2,3]]'", "'$[1]'"), ("JSON_LENGTH", "'1'"), ("JSON_KEYS", "'{\"a\":1,\"a\":2,\"b\":3}'"),
    ("JSON_DEPTH", "'{\"a\":[1]}'"), ("JSON_VALUE", "'{\"a\":\"x\"}'", "'$.a'"), ("JSON_VALUE", "'{\"a\":true}'", "'$.a'"),
    ("JSON_QUERY", "'{\"a\":[1,2]}'", "'$.a'"), ("JSON_EXISTS", "'{\"a\":1}'", "'$.b'"),
    ("JSON_SET", "'{\"a\":1}'", "'$.b'", "2"), ("JSON_INSERT", "'{\"a\":1}'", "'$.a'", "2"), ("JSON_REPLACE", "'{\"a\":1}'", "'$.a'", "2"),
    ("JSON_SET", "'[1]'", "'$[*]'", "1"), ("JSON_REMOVE", "'[1,2,3]'", "'$[last]'"), ("JSON_REMOVE", "'[1]'", "'$'"),
    ("JSON_ARRAY_APPEND", "'{\"a\":1}'", "'$.a'", "2"), ("JSON_ARRAY_INSERT", "'[1,2]'", "'$[1]'", "'x'"),
    ("JSON_MERGE_PATCH", "'{\"a\":1,\"b\":2}'", "'{\"b\":null}'"), ("JSON_MERGE_PRESERVE", "'{\"a\":1}'", "'{\"a\":2}'"),
    ("JSON_MERGE", "'1'", "'[2]'"), ("JSON_SEARCH", "'[\"abc\",{\"k\":\"abc\"}]'", "'all'", "'abc'"),
    ("JSON_COMPACT", "'{ \"a\" : [1,  2] }'"), ("JSON_DETAILED", "'[1,2]'", "2"), ("JSON_PRETTY", "'{\"a\":[1]}'"),
    ("JSON_LOOSE", "'[1,2]'"), ("JSON_NORMALIZE", "'{\"b\":1.50,\"a\":[1e2]}'"), ("JSON_EQUALS", "'{\"a\":1,\"b\":2}'", "'{\"b\":2,\"a\":1.0}'"),
    ("JSON_OVERLAPS", "'[1,2]'", "'[2,3]'"),
]
for c in JSON_CASES:
    fn(c[0], *c[1:])


def sql_of(kind, name, args):
    if kind in ("fn", "fn_tz"):
        # Names the binder maps from special syntax are spelled in MariaDB's syntax here.
        if name in TRIM_FORMS:
            return f"TRIM({TRIM_FORMS[name]} {args[1]} FROM {args[0]})"
        if name in ("TIMESTAMPDIFF", "TIMESTAMPADD"):
            return f"{name}({args[0].strip(chr(39))}, {', '.join(args[1:])})"
        return f"{name}({', '.join(args)})"
    if kind == "op":
        return f"{args[0]} {name} {args[1]}"
    if kind == "neg":
        return f"-({args[0]})"
    if kind == "cast":
        return f"CAST({args[0]} AS {name})"
    if kind == "like":
        return f"{args[0]} COLLATE utf8mb4_bin LIKE {args[1]}"
    if kind == "date_add":
        return f"DATE_ADD({args[0]}, INTERVAL {args[1]} {name})"
    raise ValueError(kind)


def rust_str(b):
    out = []
    for ch in b.decode("utf-8", errors="surrogateescape"):
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= o < 127 or (o > 127 and not (0xDC80 <= o <= 0xDCFF)):
            out.append(ch)
        elif 0xDC80 <= o <= 0xDCFF:
            raise ValueError("non-UTF-8 result")
        else:
            out.append("\\u{%x}" % o)
    return '"' + "".join(out) + '"'


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 3399
    conv = {k: v for k, v in cv.conversions.items() if not isinstance(k, int)}
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", charset="utf8mb4", conv=conv, use_unicode=False)
    cur = conn.cursor()
    cur.execute("SET sql_mode = ''")
    # SHOW WARNINGS is only reset by statements that use a table, so every case reads one.
    cur.execute("CREATE DATABASE IF NOT EXISTS selkie_cases")
    cur.execute("CREATE TABLE IF NOT EXISTS selkie_cases.one (x INT)")
    cur.execute("DELETE FROM selkie_cases.one")
    cur.execute("INSERT INTO selkie_cases.one VALUES (1)")
    cur.execute("SELECT @@version")
    version = cur.fetchone()[0].decode()
    lines = []
    for kind, name, args in CASES:
        sql = sql_of(kind, name, args)
        err = None
        try:
            cur.execute("SELECT " + sql + " FROM selkie_cases.one")
            value = cur.fetchone()[0]
        except pymysql.MySQLError as e:
            value, err = None, e.args[0]
        cur.execute("SHOW WARNINGS")
        codes = sorted({int(r[1]) for r in cur.fetchall() if r[0] == b"Warning"})
        if err is not None:
            expected = f"Err({err})"
        elif value is None:
            expected = "Null"
        else:
            expected = f"Text({rust_str(value)})"
        rargs = ", ".join(rust_str(a.encode()) for a in args)
        lines.append(f"    Case {{ kind: \"{kind}\", name: {rust_str(name.encode())}, args: &[{rargs}], "
                     f"expected: {expected}, warnings: &{codes} }},")
    with open(__file__.replace("gen_mariadb_cases.py", "mariadb_cases.rs"), "w") as f:
        f.write(f"// Generated by gen_mariadb_cases.py against MariaDB {version}: every expected result and\n")
        f.write("// warning code below was produced by a real MariaDB server. Do not edit by hand.\n\n")
        f.write("use super::{Case, Expected::*};\n\n")
        f.write("pub const CASES: &[Case] = &[\n")
        f.write("\n".join(lines))
        f.write("\n];\n")
    print(f"{len(lines)} cases from MariaDB {version}")


if __name__ == "__main__":
    main()
