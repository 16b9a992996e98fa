//! The authentication-method switch, from both ends of a connection.
//!
//! Selkie speaks only mysql_native_password. A client that names another plugin in its
//! handshake response (or COM_CHANGE_USER) has answered for that plugin, so the server asks it
//! to switch: an AuthSwitchRequest naming mysql_native_password over a scramble, to which the
//! client replies with a bare token packet (`request_native_password`). On the client side, a
//! server may switch us any number of times before its verdict; `await_login_verdict` answers
//! each switch and returns that verdict.
//!
//! selkied and selkie-proxy (towards its clients) use the server half; the protocol's own client
//! and selkie-proxy (towards its backends) use the client half. Both halves leave the error
//! handling to their callers, because what a refused or broken login leads to differs (an ERR
//! sent to a client, a backend marked incompatible, an error returned to a test).

use tokio::io::{AsyncRead, AsyncWrite};

use crate::constants::MYSQL_NATIVE_PASSWORD;
use crate::error::{ErrPacket, Result};
use crate::handshake::{AuthSwitchRequest, AUTH_MORE_DATA_HEADER, AUTH_SWITCH_HEADER};
use crate::packet::{PacketReader, PacketWriter};
use crate::response::{OkPacket, ERR_HEADER, OK_HEADER};

/// Whether a client's auth response (for `plugin`, as its handshake response or COM_CHANGE_USER
/// names it) is a mysql_native_password token. An empty name means the client did not name one
/// (no CLIENT_PLUGIN_AUTH) and answered the greeting's plugin, which is always this one.
pub fn answers_native_password(plugin: &str) -> bool {
    plugin.is_empty() || plugin == MYSQL_NATIVE_PASSWORD
}

/// Server side: sends an AuthSwitchRequest to mysql_native_password over `scramble` with
/// sequence id `seq` and returns the client's answer (its token). The verdict that follows must
/// continue at `reader.sequence()`.
///
/// On an error the reader's sequence is where the failed read left it, so that a caller can
/// still report the error at the right sequence id.
pub async fn request_native_password<R, W>(
    reader: &mut PacketReader<R>,
    writer: &mut PacketWriter<W>,
    seq: u8,
    scramble: &[u8],
) -> Result<Vec<u8>>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    writer.set_sequence(seq);
    AuthSwitchRequest { plugin: MYSQL_NATIVE_PASSWORD.to_string(), data: scramble.to_vec() }
        .encode(&mut writer.begin_packet());
    writer.flush().await?;
    reader.set_sequence(writer.sequence());
    Ok(reader.read_packet().await?.to_vec())
}

/// How a server ended a login, as seen by the client after any auth switches were answered.
#[derive(Debug)]
pub enum LoginVerdict {
    Accepted(OkPacket),
    Refused(ErrPacket),
    /// The server asked to switch to a plugin other than mysql_native_password (named here).
    OtherPlugin(String),
    /// The server wants extra rounds of its plugin's exchange (AuthMoreData).
    MoreData,
    /// A packet that is none of the above.
    Unexpected,
}

/// Client side: reads the server's answers to a handshake response (or COM_CHANGE_USER) just
/// sent, answering each switch to mysql_native_password with `answer(scramble)`, until the
/// server accepts or refuses the login or asks for something this side cannot do.
pub async fn await_login_verdict<R, W>(
    reader: &mut PacketReader<R>,
    writer: &mut PacketWriter<W>,
    mut answer: impl FnMut(&[u8]) -> Vec<u8>,
) -> Result<LoginVerdict>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    loop {
        let payload = reader.read_packet().await?;
        match payload.first() {
            Some(&OK_HEADER) => return Ok(LoginVerdict::Accepted(OkPacket::parse(payload)?)),
            Some(&ERR_HEADER) => return Ok(LoginVerdict::Refused(ErrPacket::parse(payload)?)),
            Some(&AUTH_SWITCH_HEADER) => {
                let switch = AuthSwitchRequest::parse(payload)?;
                if switch.plugin != MYSQL_NATIVE_PASSWORD {
                    return Ok(LoginVerdict::OtherPlugin(switch.plugin));
                }
                let token = answer(&switch.data);
                writer.set_sequence(reader.sequence());
                writer.write_packet(&token);
                writer.flush().await?;
                reader.set_sequence(writer.sequence());
            }
            Some(&AUTH_MORE_DATA_HEADER) => return Ok(LoginVerdict::MoreData),
            _ => return Ok(LoginVerdict::Unexpected),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{native_password_hash, native_password_token, new_scramble, verify_native_password};
    use crate::response::encode_ok;

    #[test]
    fn native_password_answers() {
        assert!(answers_native_password(""));
        assert!(answers_native_password(MYSQL_NATIVE_PASSWORD));
        assert!(!answers_native_password("caching_sha2_password"));
    }

    /// The two halves against each other over a socket pair: two switches, then an OK.
    #[test]
    fn switches_are_answered_until_the_verdict() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let (client, server) = tokio::io::duplex(4096);
            let (cr, cw) = tokio::io::split(client);
            let (sr, sw) = tokio::io::split(server);
            let server = async move {
                let mut reader = PacketReader::new(sr, 1 << 20);
                let mut writer = PacketWriter::new(sw);
                let stored = native_password_hash(b"pw");
                for seq in [2u8, 4] {
                    let scramble = new_scramble();
                    let token = request_native_password(&mut reader, &mut writer, seq, &scramble).await.unwrap();
                    assert_eq!(reader.sequence(), seq + 2);
                    assert!(verify_native_password(Some(&stored), &scramble, &token));
                }
                writer.set_sequence(reader.sequence());
                encode_ok(&mut writer.begin_packet(), OK_HEADER, 0, 0, 2, 0, b"");
                writer.flush().await.unwrap();
            };
            let client = async move {
                let mut reader = PacketReader::new(cr, 1 << 20);
                let mut writer = PacketWriter::new(cw);
                reader.set_sequence(2);
                let verdict = await_login_verdict(&mut reader, &mut writer, |s| native_password_token(b"pw", s));
                match verdict.await.unwrap() {
                    LoginVerdict::Accepted(ok) => assert_eq!(ok.status, 2),
                    other => panic!("expected OK, got {other:?}"),
                }
            };
            tokio::join!(server, client);
        });
    }
}
