//! Who is at the other end of a connection to the gate (docs/design.md, Safety): a port on
//! loopback can be reached by every process of the machine, and the gate adds the run's
//! credentials to what passes it. The kernel knows which user owns each socket; on Linux it
//! says so in `/proc/net/tcp`, one line per socket with its addresses and its owner's uid.
//! A connection whose socket another user owns is closed before a byte of it is read.
//!
//! Processes of the run's own user are let through: they could read the run's memory, its
//! files and the browser's profile as well, so the gate has nothing to keep from them.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The socket table of IPv4 TCP: the gate listens on 127.0.0.1 only.
const TCP_TABLE: &str = "/proc/net/tcp";

/// Whether the connection from `peer` to `local` comes from a socket of this process's user.
/// Where the kernel cannot say (no `/proc`, no such line), it is refused: the gate fails
/// closed.
pub(crate) fn is_own_user(peer: SocketAddr, local: SocketAddr) -> bool {
    let table = match std::fs::read_to_string(TCP_TABLE) {
        Ok(table) => table,
        Err(error) => {
            tracing::debug!(%error, "cannot read {TCP_TABLE}: the gate's connection is refused");
            return false;
        }
    };
    let user = rustix::process::geteuid().as_raw();
    match owner_of(&table, peer, local) {
        Some(owner) if owner == user => true,
        Some(owner) => {
            tracing::warn!(
                %peer,
                owner,
                "another user's process connected to the browser's gate: refused"
            );
            false
        }
        None => {
            tracing::debug!(%peer, "the gate's connection is not in {TCP_TABLE}: refused");
            false
        }
    }
}

/// The uid of the socket whose local address is `peer` and remote address `local`, in a
/// table of `/proc/net/tcp`'s form.
fn owner_of(table: &str, peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    table.lines().skip(1).find_map(|line| {
        let mut fields = line.split_whitespace();
        let local_address = address(fields.nth(1)?)?;
        let remote_address = address(fields.next()?)?;
        if local_address != peer || remote_address != local {
            return None;
        }
        // st, tx_queue:rx_queue, tr:tm->when, retrnsmt, then uid.
        fields.nth(4)?.parse().ok()
    })
}

/// `0100007F:1F90`: an IPv4 address as the kernel's 32-bit word in hex (in the machine's
/// byte order), and a port in hex.
fn address(text: &str) -> Option<SocketAddr> {
    let (host, port) = text.split_once(':')?;
    if host.len() != 8 {
        return None;
    }
    let word = u32::from_str_radix(host, 16).ok()?;
    let port = u16::from_str_radix(port, 16).ok()?;
    Some(SocketAddr::new(
        IpAddr::V4(Ipv4Addr::from(word.to_ne_bytes())),
        port,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_of_a_connection_is_read_from_the_kernels_table() {
        // 127.0.0.1 in the byte order of the machine the table is read on.
        let loopback = format!("{:08X}", u32::from_ne_bytes(Ipv4Addr::LOCALHOST.octets()));
        let table = format!(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
             0: {loopback}:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n\
             1: {loopback}:D431 {loopback}:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 2 1 0 20 4 30 10 -1\n"
        );
        let gate: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let client: SocketAddr = "127.0.0.1:54321".parse().unwrap();
        assert_eq!(owner_of(&table, client, gate), Some(65534));
        let other: SocketAddr = "127.0.0.1:54322".parse().unwrap();
        assert_eq!(owner_of(&table, other, gate), None);
    }

    #[test]
    fn a_connection_of_this_user_is_its_own() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert!(is_own_user(peer, server.local_addr().unwrap()));
    }
}
