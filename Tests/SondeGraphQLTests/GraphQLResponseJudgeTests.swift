import Foundation
import Testing
import SondeCore
import SondeHTTP
@testable import SondeGraphQL

/// The verdict on a GraphQL response (GraphQL, 7.1 Response Format): data passes; errors fail as
/// graphqlError with the first message; data beside errors is graphqlPartial; anything that is not
/// a GraphQL response fails with a reason; the server's message is redacted and bounded.
@Suite struct GraphQLResponseJudgeTests {
    static let operation = try! GraphQLOperation(query: "query Q($token: String) { a }", variables: #"{"token": "s3cr3t", "id": "plain"}"#,
                                                 operationName: nil)

    static func judge(_ body: String, status: Int = 200, statusFailure: TaskError? = nil, redactor: Redactor = Redactor(),
                      maxBodyBytes: Int = GraphQLResponseJudge.defaultMaxBodyBytes) -> TaskError? {
        let judge = GraphQLResponseJudge(operation: operation, maxBodyBytes: maxBodyBytes)
        let bytes = Array(body.utf8)
        let kept = Array(bytes.prefix(judge.maxBodyBytes))
        let response = JudgedResponse(status: status, headers: [HeaderField(name: "Content-Type", value: "application/json")],
                                      body: kept, bodyExceeded: kept.count < bytes.count)
        return judge.judge(response, statusFailure: statusFailure, redactor: redactor)
    }

    @Test func dataPasses() {
        #expect(Self.judge(#"{"data": {"a": 1}}"#) == nil)
        #expect(Self.judge(#"{"data": {"a": 1}, "errors": []}"#) == nil)
    }

    @Test func errorsWithoutDataFailWithTheFirstMessage() throws {
        for body in [#"{"errors": [{"message": "boom"}, {"message": "second"}]}"#, #"{"data": null, "errors": [{"message": "boom"}, {"message": "x"}]}"#] {
            let error = try #require(Self.judge(body))
            #expect(error.code == .graphqlError && error.reason == nil)
            #expect(error.message.contains("2 errors") && error.message.contains("boom") && !error.message.contains("second"), "\(error.message)")
        }
    }

    @Test func dataBesideErrorsIsPartial() throws {
        let error = try #require(Self.judge(#"{"data": {"a": null}, "errors": [{"message": "cache miss"}]}"#))
        #expect(error.code == .graphqlPartial)
        #expect(error.message.contains("partial data") && error.message.contains("cache miss"))
    }

    @Test func aRefusedStatusWithAGraphQLBodySaysBoth() throws {
        let status = TaskError(code: .httpStatus, message: "the server answered 400 Bad Request")
        let error = try #require(Self.judge(#"{"errors": [{"message": "Cannot query field"}]}"#, status: 400, statusFailure: status))
        #expect(error.code == .graphqlError && error.message.contains("HTTP 400") && error.message.contains("Cannot query field"))
        // A refused status whose body is no GraphQL response stays the status's failure.
        #expect(Self.judge("<html>bad gateway</html>", status: 502, statusFailure: status) == status)
        #expect(Self.judge(#"{"data": {"a": 1}}"#, status: 500, statusFailure: status) == status)
    }

    @Test(arguments: [
        ("not json", "notJSON"), ("", "notJSON"), ("[1, 2]", "notObject"), ("\"text\"", "notObject"),
        ("{}", "noData"), (#"{"data": null}"#, "noData"), (#"{"errors": "boom"}"#, "noData"),
    ])
    func aBodyThatIsNoGraphQLResponseFails(body: String, reason: String) throws {
        let error = try #require(Self.judge(body))
        #expect(error.code == .graphqlError && error.reason == reason, "\(body): \(error)")
    }

    @Test func aBodyPastTheBoundIsNotJudged() throws {
        let big = #"{"data": {"a": ""# + String(repeating: "x", count: 100) + #""}}"#
        let error = try #require(Self.judge(big, maxBodyBytes: 64))
        #expect(error.code == .graphqlError && error.reason == "bodyTooLarge" && error.message.contains("64 bytes"))
        #expect(Self.judge(big, maxBodyBytes: 4096) == nil)
    }

    @Test func theServersMessageIsRedactedAndBounded() throws {
        let message = "token s3cr3t refused for plain at https://x.test/cb?access_token=abc\u{1b}[31m and " + String(repeating: "y", count: 1000)
        let body = try String(decoding: JSONSerialization.data(withJSONObject: ["errors": [["message": message]]]), as: UTF8.self)
        let error = try #require(Self.judge(body))
        #expect(!error.message.contains("s3cr3t") && !error.message.contains("abc") && error.message.contains(Redactor.mask), "\(error.message)")
        #expect(error.message.contains("plain"), "a variable whose name is no secret stays")
        #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
        #expect(error.message.count < GraphQLResponseJudge.maxMessageCharacters + 100)
        // --no-redact shows it as the server said it.
        #expect(try #require(Self.judge(body, redactor: .disabled)).message.contains("s3cr3t"))
    }
}
