//! `backend::Backend` against a scripted fake server over loopback TCP: the login (including an
//! auth switch and a refusal) and the forwarding of every response shape, checked packet by
//! packet on the client side: payloads unchanged, sequence ids renumbered from the client's
//! command, statement ids rewritten, and the end of each response found exactly (the next
//! response must follow cleanly).

use std::time::Duration;

use selkie_protocol::auth::{native_password_hash, new_scramble, verify_native_password};
use selkie_protocol::auth_switch::request_native_password;
use selkie_protocol::command::PrepareOk;
use selkie_protocol::constants::capabilities::*;
use selkie_protocol::constants::status::*;
use selkie_protocol::constants::{charset, FieldType, MYSQL_NATIVE_PASSWORD};
use selkie_protocol::handshake::{ClientHello, Greeting, HandshakeResponse};
use selkie_protocol::packet::{PacketReader, PacketWriter, MAX_ALLOWED_PACKET_LIMIT};
use selkie_protocol::response::{encode_eof, encode_ok, ErrPacket, EOF_HEADER, OK_HEADER};
use selkie_protocol::resultset::{encode_column_count, encode_column_definition};
use selkie_proxy::auth::{verify_and_recover, BackendSecret, Credential};
use selkie_proxy::backend::{
    captured_packets, Backend, BackendError, BackendLogin, Capture, ForwardError, Out, ResponseKind,
};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

const PASSWORD: &str = "pw";

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// What the fake server does at login.
#[derive(Clone, Copy, PartialEq)]
enum LoginScript {
    Accept,
    SwitchThenAccept,
    Refuse,
}

/// The fake server's side of one connection after login: reads a command, writes the scripted
/// packets (payloads, sequence ids from 1).
struct FakeServer {
    reader: PacketReader<OwnedReadHalf>,
    writer: PacketWriter<OwnedWriteHalf>,
}

impl FakeServer {
    async fn expect_command(&mut self) -> Vec<u8> {
        self.reader.reset_sequence();
        self.reader.read_packet().await.unwrap().to_vec()
    }

    async fn respond(&mut self, packets: &[Vec<u8>]) {
        self.writer.set_sequence(1);
        for p in packets {
            self.writer.write_packet(p);
        }
        self.writer.flush().await.unwrap();
    }
}

/// Starts a fake server offering `caps`; returns its address and a future yielding the
/// server side after the login.
async fn fake_server(caps: u32, script: LoginScript) -> (String, tokio::task::JoinHandle<Option<FakeServer>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let handle = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (r, w) = stream.into_split();
        let mut reader = PacketReader::new(r, MAX_ALLOWED_PACKET_LIMIT);
        let mut writer = PacketWriter::new(w);
        let scramble = new_scramble();
        let greeting = Greeting {
            server_version: "5.5.5-10.11.0-fake".into(),
            connection_id: 7,
            scramble,
            capabilities: caps,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            status: SERVER_STATUS_AUTOCOMMIT,
            auth_plugin: MYSQL_NATIVE_PASSWORD.into(),
        };
        greeting.encode(&mut writer.begin_packet());
        writer.flush().await.unwrap();
        reader.set_sequence(writer.sequence());
        // A client that gives up after the greeting (incompatible capabilities) sends nothing.
        let Ok(payload) = reader.read_packet().await.map(|p| p.to_vec()) else { return None };
        let ClientHello::Response(resp) = HandshakeResponse::parse(&payload, caps).unwrap() else {
            panic!("SSL request")
        };
        assert_eq!(resp.user, "app");
        assert_eq!(resp.database.as_deref(), Some("db1"));
        let stored = native_password_hash(PASSWORD.as_bytes());
        let token = match script {
            LoginScript::Refuse => {
                writer.set_sequence(reader.sequence());
                ErrPacket::new(1045, "28000", "Access denied for user 'app'").encode(&mut writer.begin_packet());
                writer.flush().await.unwrap();
                return None;
            }
            LoginScript::Accept => {
                assert!(verify_native_password(Some(&stored), &scramble, &resp.auth_response));
                None
            }
            LoginScript::SwitchThenAccept => {
                let second = new_scramble();
                let seq = reader.sequence();
                Some((request_native_password(&mut reader, &mut writer, seq, &second).await.unwrap(), second))
            }
        };
        if let Some((token, second)) = token {
            assert!(verify_native_password(Some(&stored), &second, &token), "answer to the switched scramble");
        }
        writer.set_sequence(reader.sequence());
        encode_ok(&mut writer.begin_packet(), OK_HEADER, 0, 0, SERVER_STATUS_AUTOCOMMIT, 0, b"");
        writer.flush().await.unwrap();
        Some(FakeServer { reader, writer })
    });
    (addr, handle)
}

/// The secret a session would hold after its client logged in with PASSWORD.
fn secret() -> BackendSecret {
    let scramble = new_scramble();
    let token = selkie_protocol::auth::native_password_token(PASSWORD.as_bytes(), &scramble);
    verify_and_recover(&Credential::from_password(PASSWORD), &scramble, &token).unwrap()
}

async fn connect(addr: &str, caps: u32) -> Result<Backend, BackendError> {
    let attributes = vec![];
    let login = BackendLogin {
        user: "app",
        secret: secret(),
        database: Some("db1"),
        charset: charset::UTF8MB4_GENERAL_CI as u8,
        capabilities: caps,
        attributes: &attributes,
    };
    Backend::connect(addr, &login, Duration::from_secs(5)).await
}

/// A client connection: the proxy's writer to the client, the client's reader, and the two
/// unused halves (kept so neither side sees the connection close).
struct ClientPair {
    to_client: PacketWriter<OwnedWriteHalf>,
    client: PacketReader<OwnedReadHalf>,
    _unused: (OwnedReadHalf, OwnedWriteHalf),
}

async fn client_pair() -> ClientPair {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = TcpStream::connect(addr).await.unwrap();
    let (proxy_side, _) = listener.accept().await.unwrap();
    let (pr, pw) = proxy_side.into_split();
    let (cr, cw) = client.into_split();
    ClientPair {
        to_client: PacketWriter::new(pw),
        client: PacketReader::new(cr, MAX_ALLOWED_PACKET_LIMIT),
        _unused: (pr, cw),
    }
}

fn column(name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    encode_column_definition(
        &mut out,
        b"db1",
        b"t",
        b"t",
        name.as_bytes(),
        name.as_bytes(),
        45,
        11,
        FieldType::Long,
        0,
        0,
    );
    out
}

fn count(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    encode_column_count(&mut out, n);
    out
}

fn eof(status: u16) -> Vec<u8> {
    let mut out = Vec::new();
    encode_eof(&mut out, 0, status);
    out
}

fn ok(header: u8, status: u16) -> Vec<u8> {
    let mut out = Vec::new();
    encode_ok(&mut out, header, 1, 0, status, 0, b"");
    out
}

fn err() -> Vec<u8> {
    let mut out = Vec::new();
    ErrPacket::new(1146, "42S02", "Table 'db1.nope' doesn't exist").encode(&mut out);
    out
}

fn text_row(values: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        selkie_protocol::wire::put_lenenc_bytes(&mut out, v.as_bytes());
    }
    out
}

/// Sends `cmd` through the backend with the client's answer starting at `client_seq`, serving
/// `packets` from the fake server; returns the forward result and what the client received.
async fn exchange(
    backend: &mut Backend,
    server: &mut FakeServer,
    kind: ResponseKind,
    packets: Vec<Vec<u8>>,
    client_seq: u8,
    prepare_id: Option<u32>,
) -> (Result<selkie_proxy::backend::ResponseSummary, ForwardError>, Vec<(Vec<u8>, u8)>) {
    let mut pair = client_pair().await;
    let (cw, cr) = (&mut pair.to_client, &mut pair.client);
    backend.send(b"\x03SELECT 1").await.unwrap();
    assert_eq!(server.expect_command().await, b"\x03SELECT 1");
    let n = packets.len();
    server.respond(&packets).await;
    cw.set_sequence(client_seq);
    let mut out = Out { prepare_id, ..Out::client(cw) };
    let result = backend.forward_response(kind, &mut out).await;
    let mut got = Vec::new();
    cr.set_sequence(client_seq);
    if result.is_ok() {
        for _ in 0..n {
            let seq = cr.sequence();
            got.push((cr.read_packet().await.unwrap().to_vec(), seq));
        }
    }
    (result, got)
}

fn payloads(got: &[(Vec<u8>, u8)]) -> Vec<Vec<u8>> {
    got.iter().map(|(p, _)| p.clone()).collect()
}

#[test]
fn result_sets_in_both_eof_styles_are_forwarded_whole() {
    rt().block_on(async {
        for deprecate_eof in [false, true] {
            let caps = if deprecate_eof { SERVER_DEFAULT } else { SERVER_DEFAULT & !CLIENT_DEPRECATE_EOF };
            let (addr, server) = fake_server(caps, LoginScript::Accept).await;
            let mut backend = connect(&addr, caps).await.unwrap();
            let mut server = server.await.unwrap().unwrap();
            assert_eq!(backend.connection_id, 7);

            let end =
                if deprecate_eof { ok(EOF_HEADER, SERVER_STATUS_AUTOCOMMIT) } else { eof(SERVER_STATUS_AUTOCOMMIT) };
            let mut packets = vec![count(2), column("a"), column("b")];
            if !deprecate_eof {
                packets.push(eof(SERVER_STATUS_AUTOCOMMIT));
            }
            packets.extend([text_row(&["1", "x"]), text_row(&["2", "y"]), end]);
            // The client's command was sent as 3 chunks, say: its answer starts at 3.
            let (r, got) = exchange(&mut backend, &mut server, ResponseKind::Results, packets.clone(), 3, None).await;
            let summary = r.unwrap();
            assert_eq!(payloads(&got), packets);
            assert_eq!(
                got.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
                (3..3 + packets.len() as u8).collect::<Vec<_>>()
            );
            assert!(summary.had_rows && !summary.multi && !summary.is_err());
            assert_eq!(summary.status, SERVER_STATUS_AUTOCOMMIT);

            // Multi-results: an OK with MORE_RESULTS, then a result set, then an OK.
            let more = SERVER_STATUS_AUTOCOMMIT | SERVER_MORE_RESULTS_EXISTS;
            let mut packets = vec![ok(OK_HEADER, more), count(1), column("c")];
            if !deprecate_eof {
                packets.push(eof(more));
            }
            packets.push(text_row(&["z"]));
            packets.push(if deprecate_eof { ok(EOF_HEADER, more) } else { eof(more) });
            packets.push(ok(OK_HEADER, SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS));
            let (r, got) = exchange(&mut backend, &mut server, ResponseKind::Results, packets.clone(), 1, None).await;
            let summary = r.unwrap();
            assert_eq!(payloads(&got), packets);
            assert!(summary.multi);
            assert!(backend.in_transaction(), "status of the last OK is kept");

            // An error in the middle of the rows ends the response.
            let mut packets = vec![count(1), column("c")];
            if !deprecate_eof {
                packets.push(eof(SERVER_STATUS_AUTOCOMMIT));
            }
            packets.extend([text_row(&["1"]), err()]);
            let (r, got) = exchange(&mut backend, &mut server, ResponseKind::Results, packets.clone(), 1, None).await;
            assert_eq!(r.unwrap().error.unwrap().code, 1146);
            assert_eq!(payloads(&got), packets);

            // And the connection is still in step: a plain OK follows.
            let (r, _) = exchange(
                &mut backend,
                &mut server,
                ResponseKind::Single,
                vec![ok(OK_HEADER, SERVER_STATUS_AUTOCOMMIT)],
                1,
                None,
            )
            .await;
            assert!(!r.unwrap().is_err());
        }
    });
}

#[test]
fn prepare_responses_get_the_proxy_statement_id() {
    rt().block_on(async {
        for deprecate_eof in [false, true] {
            let caps = if deprecate_eof { SERVER_DEFAULT } else { SERVER_DEFAULT & !CLIENT_DEPRECATE_EOF };
            let (addr, server) = fake_server(caps, LoginScript::Accept).await;
            let mut backend = connect(&addr, caps).await.unwrap();
            let mut server = server.await.unwrap().unwrap();
            let mut head = Vec::new();
            PrepareOk { statement_id: 77, columns: 2, params: 1, warnings: 0 }.encode(&mut head);
            let mut packets = vec![head, column("p")];
            if !deprecate_eof {
                packets.push(eof(SERVER_STATUS_AUTOCOMMIT));
            }
            packets.extend([column("a"), column("b")]);
            if !deprecate_eof {
                packets.push(eof(SERVER_STATUS_AUTOCOMMIT));
            }
            let (r, got) =
                exchange(&mut backend, &mut server, ResponseKind::Prepare, packets.clone(), 1, Some(5)).await;
            let summary = r.unwrap();
            assert_eq!(summary.prepare.unwrap().statement_id, 77, "the backend's id is reported to the session");
            let told = PrepareOk::parse(&got[0].0).unwrap();
            assert_eq!(told, PrepareOk { statement_id: 5, columns: 2, params: 1, warnings: 0 });
            assert_eq!(payloads(&got)[1..], packets[1..]);
            // A cursor execute ends right after the metadata.
            if !deprecate_eof {
                let packets = vec![count(1), column("a"), eof(SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_CURSOR_EXISTS)];
                let (r, got) =
                    exchange(&mut backend, &mut server, ResponseKind::CursorResults, packets.clone(), 1, None).await;
                assert!(r.unwrap().status & SERVER_STATUS_CURSOR_EXISTS != 0);
                assert_eq!(payloads(&got), packets);
                // COM_STMT_FETCH: rows then EOF.
                let packets = vec![vec![0, 0, 1, 0, 0, 0], eof(SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_LAST_ROW_SENT)];
                let (r, got) = exchange(&mut backend, &mut server, ResponseKind::Rows, packets.clone(), 1, None).await;
                assert!(r.unwrap().status & SERVER_STATUS_LAST_ROW_SENT != 0);
                assert_eq!(payloads(&got), packets);
            }
            // A refused prepare.
            let (r, got) = exchange(&mut backend, &mut server, ResponseKind::Prepare, vec![err()], 1, Some(6)).await;
            assert!(r.unwrap().prepare.is_none());
            assert_eq!(payloads(&got), vec![err()]);
        }
    });
}

#[test]
fn field_list_and_capture_within_and_beyond_the_limit() {
    rt().block_on(async {
        let caps = SERVER_DEFAULT & !CLIENT_DEPRECATE_EOF;
        let (addr, server) = fake_server(caps, LoginScript::Accept).await;
        let mut backend = connect(&addr, caps).await.unwrap();
        let mut server = server.await.unwrap().unwrap();
        let packets = vec![column("a"), column("b"), eof(SERVER_STATUS_AUTOCOMMIT)];
        let (r, got) = exchange(&mut backend, &mut server, ResponseKind::FieldList, packets.clone(), 1, None).await;
        assert!(!r.unwrap().is_err());
        assert_eq!(payloads(&got), packets);

        for (limit, kept) in [(10_000, true), (40, false)] {
            let packets = vec![count(1), column("a"), eof(2), text_row(&["v"]), eof(2)];
            backend.send(b"\x03SELECT a").await.unwrap();
            server.expect_command().await;
            server.respond(&packets).await;
            let mut capture = Capture::new(limit);
            let summary = backend
                .forward_response(ResponseKind::Results, &mut Out { capture: Some(&mut capture), ..Out::discard() })
                .await
                .unwrap();
            assert!(summary.had_rows);
            assert_eq!(!capture.overflowed, kept);
            if kept {
                assert_eq!(captured_packets(&capture.buf).map(|p| p.to_vec()).collect::<Vec<_>>(), packets);
            } else {
                assert!(capture.buf.is_empty());
            }
        }
    });
}

#[test]
fn backend_failure_reports_whether_the_client_saw_anything() {
    rt().block_on(async {
        let caps = SERVER_DEFAULT & !CLIENT_DEPRECATE_EOF;
        for partial in [false, true] {
            let (addr, server) = fake_server(caps, LoginScript::Accept).await;
            let mut backend = connect(&addr, caps).await.unwrap();
            let mut server = server.await.unwrap().unwrap();
            let mut pair = client_pair().await;
            backend.send(b"\x03SELECT 1").await.unwrap();
            server.expect_command().await;
            if partial {
                server.respond(&[count(1), column("a")]).await;
            }
            drop(server); // the backend dies
            pair.to_client.set_sequence(1);
            match backend.forward_response(ResponseKind::Results, &mut Out::client(&mut pair.to_client)).await {
                Err(ForwardError::Backend { forwarded, .. }) => assert_eq!(forwarded, partial),
                other => panic!("expected a backend failure, got {other:?}"),
            }
        }
    });
}

#[test]
fn login_with_auth_switch_and_refusal() {
    rt().block_on(async {
        let (addr, server) = fake_server(SERVER_DEFAULT, LoginScript::SwitchThenAccept).await;
        let backend = connect(&addr, SERVER_DEFAULT).await.unwrap();
        assert!(server.await.unwrap().is_some());
        assert_eq!(backend.server_version, "5.5.5-10.11.0-fake");

        let (addr, server) = fake_server(SERVER_DEFAULT, LoginScript::Refuse).await;
        match connect(&addr, SERVER_DEFAULT).await {
            Err(BackendError::Refused(e)) => assert_eq!(e.code, 1045),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert!(server.await.unwrap().is_none());

        // A client that negotiated CLIENT_DEPRECATE_EOF cannot be served by a backend without it.
        let (addr, _server) = fake_server(SERVER_DEFAULT & !CLIENT_DEPRECATE_EOF, LoginScript::Accept).await;
        assert!(matches!(connect(&addr, SERVER_DEFAULT).await, Err(BackendError::Incompatible(_))));
    });
}
