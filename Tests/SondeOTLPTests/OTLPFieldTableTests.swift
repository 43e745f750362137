import SondeCore
@testable import SondeOTLP
import Testing

/// A transaction's span attributes beyond the conventions' are derived from its fields
/// (`OTLPFieldTable`, `OTLPFieldAttributes`).
@Suite struct OTLPFieldTableTests {
    static let transaction = TransactionMetrics(
        request: RequestRecord(method: "GET", url: "https://h/x", headers: []), response: ResponseRecord(statusCode: 200, headers: []),
        networkProtocolName: "h2", queue: 0.5, libcurlQueue: 0.02, isReusedConnection: true, connectionID: 3,
        http3Fallback: HTTP3Fallback(reason: "QUIC lost"), remoteAddress: "127.0.0.1", remotePort: 8443, localPort: 50_000,
        negotiatedTLSProtocolVersion: "TLSv1.3", negotiatedTLSCipherSuite: "TLS_AES_128_GCM_SHA256", tlsSessionReused: false,
        countOfResponseBodyBytesReceived: 10, phases: Phases(send: 1, wait: 2, receive: 3, total: 6))

    static func attributes<Model: FieldModel>(_ model: Model) -> [String: OTLPAttribute.Value] {
        let list = OTLPFieldAttributes.of(model, names: OTLPFieldTable.transaction.attributeNames(of: Model.self))
        return Dictionary(list.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func theRuleNamesAFieldInSnakeCase() {
        #expect(OTLPFieldTable.snakeCase("libcurlQueue") == "libcurl_queue")
        #expect(OTLPFieldTable.snakeCase("http3Fallback") == "http3_fallback")
        #expect(OTLPFieldTable.snakeCase("serverTLSName") == "server_tls_name")
        #expect(OTLPFieldTable.snakeCase("queue") == "queue")
    }

    /// The declared names (the conventions' network.* and tls.*, sonde.connection.*), the rule's for
    /// the rest, nothing for an absent value or a field carried otherwise.
    @Test func aTransactionsFieldsAreItsAttributes() {
        let attributes = Self.attributes(Self.transaction)
        #expect(Set(attributes.keys) == ["sonde.protocol", "sonde.queue", "sonde.libcurl_queue", "sonde.connection.reused",
                                         "sonde.connection.proxy", "sonde.connection.id", "sonde.http3_fallback", "network.peer.address",
                                         "network.peer.port", "network.local.port", "tls.cipher", "tls.resumed"], "\(attributes.keys.sorted())")
        #expect(attributes["sonde.connection.reused"] == .bool(true) && attributes["sonde.connection.id"] == .int(3))
        #expect(attributes["sonde.libcurl_queue"] == .double(0.02) && attributes["sonde.http3_fallback"] == .string("QUIC lost"))
        #expect(attributes["network.peer.port"] == .int(8443) && attributes["tls.resumed"] == .bool(false))
    }
}
