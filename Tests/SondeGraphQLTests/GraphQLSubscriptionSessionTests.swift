import Foundation
import Testing
import SondeCore
import SondeWebSocket
@testable import SondeGraphQL

/// The graphql-transport-ws client state machine (PROTOCOL.md) without a socket: what it sends on
/// open, after the ack and after complete or error; what it counts; how it answers pings and
/// reads pongs; the 4400/4504/1009 closes; the close codes' names; messages read back by
/// JSONSerialization.
@Suite struct GraphQLSubscriptionSessionTests {
    static let operation = try! GraphQLOperation(query: "subscription Tick($token: String) { tick(every: 100) { n } }",
                                                 variables: #"{"token": "s3cr3t"}"#, operationName: nil)

    static func session() -> GraphQLSubscriptionSession {
        GraphQLSubscriptionSession(operation: operation, redactor: Redactor(), ackTimeoutS: 2, resubscribeDelayS: 0.5)
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func json(_ action: SoakSubprotocolAction) throws -> [String: Any] {
        guard case .send(let text) = action else { throw CocoaError(.coderInvalidValue) }
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func initThenSubscribeAfterTheAckWithTheOperation() throws {
        let session = Self.session()
        let opened = session.opened(atNanos: 1_000)
        #expect(opened.count == 2)
        #expect(try Self.json(opened[0])["type"] as? String == "connection_init")
        #expect(opened[1] == .wake(afterNanos: 2_000_000_000))
        let acked = session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 3_001_000)
        let subscribe = try Self.json(try #require(acked.first))
        #expect(subscribe["type"] as? String == "subscribe" && subscribe["id"] as? String == "1")
        let payload = try #require(subscribe["payload"] as? [String: Any])
        #expect(payload["query"] as? String == Self.operation.query)
        #expect(payload["operationName"] as? String == "Tick")
        #expect((payload["variables"] as? [String: Any])?["token"] as? String == "s3cr3t")
        #expect(session.record.ackMs == 3 && session.record.subscribes == 1)
        // A second ack changes nothing.
        #expect(session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 4_000_000).isEmpty)
    }

    @Test func nextMessagesAreCountedWithTheGapsBetweenThem() {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        _ = session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 10)
        #expect(session.received(Self.bytes(#"{"type":"next","id":"1","payload":{"data":{"n":1}}}"#), text: true, atNanos: 100_000_000).isEmpty)
        #expect(session.received(Self.bytes(#"{"type":"next","id":"1","payload":{"data":{"n":2}}}"#), text: true, atNanos: 250_000_000)
            == [.eventGap(nanos: 150_000_000)])
        // Another id's message (a late one of an operation already over) is ignored.
        #expect(session.received(Self.bytes(#"{"type":"next","id":"9","payload":{"data":{}}}"#), text: true, atNanos: 260_000_000).isEmpty)
        #expect(session.record.nexts == 2 && session.record.nextErrors == 0)
    }

    @Test func completeAndErrorEndTheOperationAndItIsSubscribedAgainAfterTheDelay() throws {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        _ = session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 10)
        #expect(session.received(Self.bytes(#"{"type":"complete","id":"1"}"#), text: true, atNanos: 1_000_000_000)
            == [.wake(afterNanos: 500_000_000)])
        #expect(session.woke(atNanos: 1_200_000_000) == [.wake(afterNanos: 300_000_000)], "woken early: waits the rest")
        let again = session.woke(atNanos: 1_500_000_000)
        #expect(try Self.json(try #require(again.first))["id"] as? String == "2")
        _ = session.received(Self.bytes(#"{"type":"error","id":"2","payload":[{"message":"Cannot query field 'nope'"}]}"#), text: true, atNanos: 2_000_000_000)
        #expect(try Self.json(try #require(session.woke(atNanos: 2_600_000_000).first))["id"] as? String == "3")
        #expect(session.record.completes == 1 && session.record.errors == 1 && session.record.subscribes == 3)
        #expect(session.record.firstError == "Cannot query field 'nope'")
    }

    @Test func aNextWithErrorsIsCountedAndItsMessageRedacted() {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        _ = session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 10)
        let long = String(repeating: "x", count: 400)
        _ = session.received(Self.bytes(#"{"type":"next","id":"1","payload":{"errors":[{"message":"bad token s3cr3t\n"# + long + #""}]}}"#),
                             text: true, atNanos: 20)
        #expect(session.record.nexts == 1 && session.record.nextErrors == 1)
        let shown = session.record.firstError ?? ""
        #expect(shown.hasPrefix("bad token \(Redactor.mask) x"), "\(shown)")
        #expect(!shown.contains("s3cr3t") && shown.count <= GraphQLResponseJudge.maxMessageCharacters + 1)
    }

    @Test func pingsAreAnsweredAndPongsReported() throws {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        let answer = session.received(Self.bytes(#"{"type":"ping","payload":{"x":1}}"#), text: true, atNanos: 1)
        #expect(try Self.json(try #require(answer.first))["type"] as? String == "pong")
        #expect(session.received(Self.bytes(#"{"type":"pong"}"#), text: true, atNanos: 2) == [.pong])
        #expect(try JSONSerialization.jsonObject(with: Data(session.pingMessage.utf8)) as? [String: String] == ["type": "ping"])
    }

    @Test(arguments: [
        ("this is not json {", "not JSON"), ("[1,2]", "an array"), (#"{"id":"1"}"#, "without a type"),
        (#"{"type":"bogus"}"#, "unknown type 'bogus'"), (#"{"type":"next","payload":{}}"#, "without an id"),
        (#"{"type":"error","id":"1","payload":{"message":"x"}}"#, "not a list"),
    ])
    func aMessageTheProtocolDoesNotSpecifyClosesWith4400(message: String, reason: String) {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        _ = session.received(Self.bytes(#"{"type":"connection_ack"}"#), text: true, atNanos: 10)
        let actions = session.received(Self.bytes(message), text: true, atNanos: 20)
        guard case .close(let code, let why, let cause)? = actions.first else { Issue.record("\(actions)"); return }
        #expect(code == 4400 && cause == .protocolError)
        #expect(why.contains(reason), "\(why)")
    }

    @Test func nextBeforeTheAckIsAViolationAndNoAckInTimeCloses4504() {
        let early = Self.session()
        _ = early.opened(atNanos: 0)
        #expect(early.received(Self.bytes(#"{"type":"next","id":"1","payload":{}}"#), text: true, atNanos: 5)
            == [.close(code: 4400, reason: "a next message before connection_ack", cause: .protocolError)])
        let silent = Self.session()
        _ = silent.opened(atNanos: 0)
        #expect(silent.woke(atNanos: 2_000_000_000) == [.close(code: 4504, reason: "connection_ack did not come within 2s", cause: .protocolError)])
    }

    @Test func anOversizedMessageCloses1009WithoutBeingParsed() {
        let session = Self.session()
        _ = session.opened(atNanos: 0)
        let actions = session.received([UInt8](repeating: UInt8(ascii: "{"), count: GraphQLSubscriptionSession.maxMessageBytes + 1), text: true, atNanos: 1)
        #expect(actions == [.close(code: 1009, reason: "a GraphQL message over 4 MiB", cause: .frameTooLarge)])
    }

    @Test func theProtocolsCloseCodesAreNamed() {
        let session = Self.session()
        session.closed(code: 4409)
        #expect(session.record.closeName == "subscriberAlreadyExists")
        for (code, name) in [(4400, "badRequest"), (4401, "unauthorized"), (4403, "forbidden"), (4408, "connectionInitialisationTimeout"),
                             (4429, "tooManyInitialisationRequests"), (4499, "terminated"), (4504, "connectionAcknowledgementTimeout")] {
            #expect(GraphQLTransportWS.closeName(code) == name)
        }
        #expect(GraphQLTransportWS.closeName(1000) == nil)
        session.closed(code: 1000)
        #expect(session.record.closeName == nil)
    }
}
