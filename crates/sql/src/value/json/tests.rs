use super::*;

fn p(s: &str) -> Json {
    parse(s.as_bytes()).unwrap()
}

#[test]
fn prints_as_mariadb_does() {
    let v = p(r#"{"a":1.0e0,  "b" : [1,2,{"c":"\u00e9"}], "a": 2, "e": {}, "f": []}"#);
    assert_eq!(print_normal(&v), r#"{"a": 1.0e0, "b": [1, 2, {"c": "\u00e9"}], "a": 2, "e": {}, "f": []}"#);
    assert_eq!(print_compact(&v), r#"{"a":1.0e0,"b":[1,2,{"c":"\u00e9"}],"a":2,"e":{},"f":[]}"#);
    assert_eq!(print_detailed(&p(r#"{"a":[1]}"#), 4), "{\n    \"a\": \n    [1]\n}");
    assert_eq!(print_normalized(&p(r#"{"b":1.50,"a":[1e2, "x"]}"#)), r#"{"a":[1.0E2,"x"],"b":1.5E0}"#);
}

#[test]
fn parse_errors_carry_mariadb_positions() {
    assert_eq!(parse(b"[1,x]"), Err(ParseError::Syntax { position: 4 }));
    assert_eq!(parse(b"[1, 2"), Err(ParseError::UnexpectedEnd));
    assert_eq!(parse(b"  "), Err(ParseError::UnexpectedEnd));
    assert_eq!(parse(br#"{"a" 1}"#), Err(ParseError::Syntax { position: 5 }));
    assert_eq!(parse(b"[1] x"), Err(ParseError::Syntax { position: 5 }));
    assert_eq!(parse(b"[01]"), Err(ParseError::Syntax { position: 3 }));
    assert_eq!(parse(b"[1,]"), Err(ParseError::Syntax { position: 4 }));
}

#[test]
fn paths_select_like_mariadb() {
    let doc = p(r#"{"a": {"x": 1}, "b": {"x": 2}, "c d": [1, 2, 3, 4, 5]}"#);
    let sel = |path: &str| -> Vec<String> {
        parse_path(path.as_bytes()).unwrap().select(&doc).into_iter().map(print_normal).collect()
    };
    assert_eq!(sel("$.*.x"), ["1", "2"]);
    assert_eq!(sel("$**.x"), ["1", "2"]);
    assert_eq!(sel(r#"$."c d"[last]"#), ["5"]);
    assert_eq!(sel(r#"$."c d"[-2]"#), ["4"]);
    assert_eq!(sel(r#"$."c d"[last-3 to last-1]"#), ["2", "3", "4"]);
    assert_eq!(sel("$.a[0].x"), ["1"]);
    let nested = p("[1,[2,[3]]]");
    let firsts: Vec<String> = parse_path(b"$**[0]").unwrap().select(&nested).into_iter().map(print_normal).collect();
    assert_eq!(firsts, ["1", "2", "3"]);
    assert_eq!(parse_path(b"$."), Err(PathError::UnexpectedEnd));
    assert_eq!(parse_path(b"$[a]"), Err(PathError::Syntax { position: 3 }));
    assert_eq!(parse_path(b"$x"), Err(PathError::Syntax { position: 2 }));
    // 31 steps are a path, a 32nd is 4043 at the character after its `.` or `[`.
    assert!(parse_path(format!("${}", ".a".repeat(31)).as_bytes()).is_ok());
    assert_eq!(parse_path(format!("${}", ".a".repeat(32)).as_bytes()), Err(PathError::TooDeep { position: 65 }));
    assert!(parse_path(format!("${}", "**.a".repeat(16)).as_bytes()).is_ok());
}

#[test]
fn contains_follows_mysqls_definition() {
    assert!(p("[1,2,[3]]").contains(&p("[1,3]")));
    assert!(p("1").contains(&p("1.0")));
    assert!(p(r#"{"a":1,"b":2}"#).contains(&p(r#"{"a":1}"#)));
    assert!(!p(r#"{"a":1}"#).contains(&p("1")));
}
