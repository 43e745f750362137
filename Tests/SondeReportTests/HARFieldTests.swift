import Foundation
import SondeCore
import Testing
@testable import SondeReport

/// sonde's own members of a HAR entry are derived from the transaction's fields
/// (`HARFieldTable`, `HARFieldWriter`).
@Suite struct HARFieldTests {
    static let transaction = TransactionMetrics(
        request: RequestRecord(method: "GET", url: "https://h/x", headers: []), response: ResponseRecord(statusCode: 200, headers: []),
        networkProtocolName: "h2", queue: 0.5, libcurlQueue: nil, isReusedConnection: true, connectionID: 3,
        altSvcFailure: AltSvcFailure(source: .response, alternative: "h:4434", error: TaskError(code: .connectionRefused, message: "refused"),
                                     startedAt: Timestamp(microsecondsSince1970: 1_700_000_000_000_000), durationMs: 1.5),
        remoteAddress: "127.0.0.1", remotePort: 8443, localAddress: "127.0.0.1", localPort: 50_000,
        negotiatedTLSProtocolVersion: "TLSv1.3", negotiatedTLSCipherSuite: "TLS_AES_128_GCM_SHA256", tlsSessionReused: false,
        phases: Phases(send: 1, wait: 2, receive: 3, total: 6))

    static func object<Model: FieldModel>(_ model: Model, table: HARFieldTable) throws -> [String: Any] {
        var output = JSONOutput()
        output.object { o in HARFieldWriter.write(model, members: table.members(of: Model.self), to: &o) }
        return try #require(try JSONSerialization.jsonObject(with: Data(output.bytes), options: [.fragmentsAllowed]) as? [String: Any])
    }

    /// Every field HAR's standard members do not carry, by its key with `_`, the declared names and
    /// absent values applied: and nothing else.
    @Test func aTransactionsOwnMembersAreItsFieldsLessHARsStandardOnes() throws {
        let members = try Self.object(Self.transaction, table: .transaction)
        #expect(Set(members.keys) == ["_networkProtocolName", "_libcurlQueue", "_isReusedConnection", "_isProxyConnection", "_http3Fallback",
                                      "_altSvc", "_altSvcFailure", "_remotePort", "_localAddress", "_localPort", "_tlsProtocolVersion",
                                      "_tlsCipherSuite", "_tlsSessionReused", "_contentEncoding"], "\(members.keys.sorted())")
        #expect(members["_libcurlQueue"] as? Double == -1)
        #expect(members["_isReusedConnection"] as? Bool == true && members["_tlsSessionReused"] as? Bool == false)
        #expect(members["_remotePort"] as? Int == 8443 && members["_tlsProtocolVersion"] as? String == "TLSv1.3")
        #expect(members["_http3Fallback"] is NSNull && members["_altSvc"] is NSNull && members["_contentEncoding"] is NSNull)
        #expect(members["_altSvcFailure"] as? String == Self.transaction.altSvcFailure?.summary)
    }

    /// The whole entry: the derived members beside HAR's standard ones and the task's.
    @Test func theEntryHoldsTheDerivedMembersOnce() throws {
        var output = JSONOutput()
        let task = ProbeTask(url: "https://h/x", iteration: 4, taskInterval: TaskInterval(start: .now(), durationMs: 6), redirectCount: 0,
                             error: nil, transactionMetrics: [Self.transaction])
        HARWriter.writeEntry(Self.transaction, task: task, to: &output)
        let text = String(decoding: output.bytes, as: UTF8.self)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
        #expect(entry["_iteration"] as? Int == 4 && entry["connection"] as? String == "3" && entry["serverIPAddress"] as? String == "127.0.0.1")
        #expect(entry["_localPort"] as? Int == 50_000)
        for key in ["\"_isReusedConnection\"", "\"_name\"", "\"_tlsCipherSuite\""] {
            #expect(text.components(separatedBy: key).count == 2, "\(key) once in \(text)")
        }
        #expect(entry["_queue"] == nil && entry["_remoteAddress"] == nil && entry["_phases"] == nil)
    }
}
