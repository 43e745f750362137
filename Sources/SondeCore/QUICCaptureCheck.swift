/// An h3 transaction's QUIC connection checked against libcurl's view. libcurl 8 (8.6+) times a
/// QUIC connection thus: `connect` ends when the server's first packet arrives, `tls`
/// (appconnect) when the QUIC handshake is complete. On the wire, without decryption:
///
/// - connect: the client's first Initial → the server's first datagram (`initialRttMs`);
///   `connectAgrees` when it fits inside libcurl's connect phase (1 ms of slack, as for TCP).
/// - tls: the client's first Initial → its first 1-RTT packet, the first it can send once it
///   holds the server's whole handshake flight and has its Finished out (`handshakeMs`, in
///   `tlsHandshakeMs`); `tlsAgrees` when it fits inside libcurl's connect + TLS phases (1 ms of
///   slack) and libcurl reports TLSv1.3 (the only version QUIC runs, RFC 9001 §4.2) when it
///   reports a version. Connect and TLS together, because the two views split them at different
///   instants: the wire at the server's first datagram, libcurl when it has read and processed
///   it (measured: 1.4 ms on the wire, 6.1 ms in libcurl's connect phase, on a loaded machine), so
///   the wire's part after that instant is longer than libcurl's TLS phase although the whole
///   handshake fits inside libcurl's.
/// - reuse: a new connection's first client Initial falls in the transaction, a reused one's before.
///
/// Each check is nil when the capture or libcurl lacks a figure, and for a reused connection.
public enum QUICCaptureCheck {
    public static func evidence(_ flow: QUICFlowEvidence, _ transaction: TransactionMetrics) -> CaptureEvidence {
        let phases = transaction.phases
        let connectAndTLS = phases.connect.flatMap { connect in phases.tls.map { connect + $0 } }
        var tlsAgrees: Bool? = nil
        if let fits = CaptureMatcher.fits(flow.handshakeMs, in: connectAndTLS, transaction) {
            tlsAgrees = fits && (transaction.negotiatedTLSProtocolVersion.map { $0 == "TLSv1.3" } ?? true)
        }
        return CaptureEvidence(flow: flow.tuple, transport: "quic", synSeen: false, clientInitialSeen: flow.firstClientInitialAt != nil,
                               initialRttMs: flow.initialRttMs,
                               reuseAgrees: CaptureMatcher.reuseAgrees(openedAt: flow.firstClientInitialAt, transaction),
                               connectAgrees: CaptureMatcher.fits(flow.initialRttMs, in: transaction.phases.connect, transaction),
                               tlsHandshakeMs: flow.handshakeMs, tlsAgrees: tlsAgrees,
                               packets: CaptureMatcher.packets(flow.packets, from: flow.firstPacketAt, in: transaction))
    }
}
