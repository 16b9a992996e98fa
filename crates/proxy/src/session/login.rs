//! The connection phase as the proxy's clients see it: greeting, handshake response, an auth
//! switch to mysql_native_password when the client asked for another plugin, and the check
//! against the user list (see `crate::auth` for how the backend secret is recovered).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use selkie_protocol::auth::new_scramble;
use selkie_protocol::auth_switch::{answers_native_password, request_native_password};
use selkie_protocol::constants::capabilities::{CLIENT_LOCAL_FILES, SERVER_DEFAULT};
use selkie_protocol::constants::status::SERVER_STATUS_AUTOCOMMIT;
use selkie_protocol::constants::{charset, MYSQL_NATIVE_PASSWORD, SCRAMBLE_LEN};
use selkie_protocol::error::codes;
use selkie_protocol::handshake::{ClientHello, Greeting, HandshakeResponse};
use selkie_protocol::packet::{PacketReader, PacketWriter};
use selkie_protocol::response::ErrPacket;
use selkie_protocol::ProtocolError;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::oneshot;

use crate::auth::BackendSecret;
use crate::monitor::MonitorCommand;
use crate::worker::Worker;

/// What the proxy offers clients: what selkied offers (no SSL, compression or session
/// tracking), which MariaDB backends support in full, so every negotiated capability can be
/// passed on to the backend connections; less LOCAL INFILE, whose file exchange the proxy does
/// not relay.
pub const PROXY_CAPABILITIES: u32 = SERVER_DEFAULT & !CLIENT_LOCAL_FILES;
/// Greeting version while no backend version is known (clients parse the MariaDB number).
pub const DEFAULT_VERSION: &str = "5.5.5-10.11.0-selkie-proxy";
/// MariaDB's 1045 / 28000.
pub const ACCESS_DENIED: u16 = 1045;
/// How long a failed login waits for a user list refresh before giving up.
pub const USER_REFRESH_WAIT: Duration = Duration::from_secs(3);

/// A client that passed authentication.
#[derive(Clone, Debug)]
pub struct Login {
    pub user: Arc<str>,
    pub secret: BackendSecret,
    pub capabilities: u32,
    pub charset: u8,
    pub database: Option<String>,
    pub attributes: Vec<(String, String)>,
    /// The greeting's challenge (COM_CHANGE_USER answers it again).
    pub scramble: [u8; SCRAMBLE_LEN],
}

/// The version string to greet clients with: MariaDB clients expect the `5.5.5-` prefix before
/// a 10.x version, which the backends' own greetings already carry.
pub fn greeting_version(backend: Option<&str>) -> String {
    backend.map(str::to_string).unwrap_or_else(|| DEFAULT_VERSION.to_string())
}

pub fn access_denied(user: &str, peer: &SocketAddr, with_password: bool) -> ErrPacket {
    let host = if peer.ip().is_loopback() { "localhost".to_string() } else { peer.ip().to_string() };
    ErrPacket::new(
        ACCESS_DENIED,
        "28000",
        format!(
            "Access denied for user '{user}'@'{host}' (using password: {})",
            if with_password { "YES" } else { "NO" }
        ),
    )
}

/// Checks `token` against the user list; a failure asks the monitor for a fresh list (users
/// created on the primary since the last refresh) and checks once more.
pub async fn authenticate(worker: &Worker, user: &str, scramble: &[u8], token: &[u8]) -> Option<BackendSecret> {
    if let Some(secret) = worker.shared.users.load().authenticate(user, scramble, token) {
        return Some(secret);
    }
    let (tx, rx) = oneshot::channel();
    if worker.shared.monitor.send(MonitorCommand::RefreshUsers(tx)).is_ok() {
        let _ = tokio::time::timeout(USER_REFRESH_WAIT, rx).await;
    }
    worker.shared.users.load().authenticate(user, scramble, token)
}

/// Runs the connection phase up to (not including) the final OK, which the caller sends once
/// the session is ready. `Ok(None)`: the client was refused and told why.
pub async fn handshake(
    worker: &Worker,
    reader: &mut PacketReader<OwnedReadHalf>,
    writer: &mut PacketWriter<OwnedWriteHalf>,
    connection_id: u32,
    peer: &SocketAddr,
) -> Result<Option<Login>, ProtocolError> {
    let scramble = new_scramble();
    let version = worker.cluster().greeting_version();
    let greeting = Greeting {
        server_version: greeting_version(version.as_deref()),
        connection_id,
        scramble,
        capabilities: PROXY_CAPABILITIES,
        charset: charset::UTF8MB4_GENERAL_CI as u8,
        status: SERVER_STATUS_AUTOCOMMIT,
        auth_plugin: MYSQL_NATIVE_PASSWORD.to_string(),
    };
    greeting.encode(&mut writer.begin_packet());
    writer.flush().await?;
    reader.set_sequence(writer.sequence());

    let payload = reader.read_packet().await?;
    let response = match HandshakeResponse::parse(payload, PROXY_CAPABILITIES) {
        Ok(ClientHello::Response(r)) => r,
        Ok(ClientHello::SslRequest) => {
            let err = ErrPacket::new(1043, "08S01", "Bad handshake: SSL is not supported by selkie-proxy");
            send_err(reader, writer, &err).await?;
            return Ok(None);
        }
        Err(ProtocolError::Unsupported(what)) => {
            let err = ErrPacket::new(codes::NOT_SUPPORTED_AUTH_MODE, "08004", format!("Client not supported: {what}"));
            send_err(reader, writer, &err).await?;
            return Ok(None);
        }
        Err(e) => {
            if let Some(err) = e.to_err_packet() {
                let _ = send_err(reader, writer, &err).await;
            }
            return Err(e);
        }
    };
    let token = if answers_native_password(&response.auth_plugin) {
        response.auth_response.clone()
    } else {
        let seq = reader.sequence();
        request_native_password(reader, writer, seq, &scramble).await?
    };
    let Some(secret) = authenticate(worker, &response.user, &scramble, &token).await else {
        tracing::info!(%peer, user = %response.user, "login refused");
        send_err(reader, writer, &access_denied(&response.user, peer, !token.is_empty())).await?;
        return Ok(None);
    };
    Ok(Some(Login {
        user: response.user.as_str().into(),
        secret,
        capabilities: response.capabilities,
        charset: response.charset,
        database: response.database,
        attributes: response.attributes,
        scramble,
    }))
}

async fn send_err(
    reader: &PacketReader<OwnedReadHalf>,
    writer: &mut PacketWriter<OwnedWriteHalf>,
    err: &ErrPacket,
) -> Result<(), ProtocolError> {
    writer.set_sequence(reader.sequence());
    err.encode(&mut writer.begin_packet());
    writer.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_denied_matches_mariadb_text() {
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let e = access_denied("bob", &peer, true);
        assert_eq!((e.code, e.state.as_str()), (1045, "28000"));
        assert_eq!(e.message, "Access denied for user 'bob'@'localhost' (using password: YES)");
        let far: SocketAddr = "10.1.2.3:5000".parse().unwrap();
        assert!(access_denied("x", &far, false).message.ends_with("'x'@'10.1.2.3' (using password: NO)"));
    }

    #[test]
    fn greeting_version_prefers_the_backend() {
        assert_eq!(greeting_version(Some("5.5.5-10.11.19-MariaDB")), "5.5.5-10.11.19-MariaDB");
        assert_eq!(greeting_version(None), DEFAULT_VERSION);
    }
}
