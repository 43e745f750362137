import Foundation
import Testing
import SondeCore
@testable import SondeGraphQL

/// The request a GraphQL probe sends: the body's JSON (read back by JSONSerialization, as a
/// server reads it), the operation's name from the document, and the variables' rules.
@Suite struct GraphQLOperationTests {
    static func decoded(_ operation: GraphQLOperation) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(operation.requestBody)) as? [String: Any])
    }

    @Test func theBodyCarriesQueryVariablesAndOperationName() throws {
        let query = "query Q($id: ID!) {\n\tuser(id: $id) { name } # a \"comment\" \\ with \u{1}\n}"
        let operation = try GraphQLOperation(query: query, variables: #" {"id": "1", "n": 12345678901234567890} "#, operationName: nil)
        let body = try Self.decoded(operation)
        #expect(body["query"] as? String == query)
        #expect(body["operationName"] as? String == "Q")
        let variables = try #require(body["variables"] as? [String: Any])
        #expect(variables["id"] as? String == "1")
        // The variables go as they were written: no number loses digits on the way.
        #expect(String(decoding: operation.requestBody, as: UTF8.self).contains("12345678901234567890"))
        #expect(Array(body.keys).sorted() == ["operationName", "query", "variables"])
    }

    @Test func withoutVariablesOrNameTheBodySaysSo() throws {
        let body = try Self.decoded(try GraphQLOperation(query: "{ me { name } }", variables: nil, operationName: nil))
        #expect((body["variables"] as? [String: Any])?.isEmpty == true)
        #expect(body["operationName"] is NSNull)
    }

    @Test func aGivenNameWinsOverTheDocuments() throws {
        let operation = try GraphQLOperation(query: "query A { a } query B { b }", variables: nil, operationName: "B")
        #expect(operation.operationName == "B")
        #expect(try Self.decoded(operation)["operationName"] as? String == "B")
    }

    @Test(arguments: [
        ("query GetUser($id: ID!) { user(id: $id) { name } }", "GetUser"),
        ("mutation AddUser { add { id } }", "AddUser"),
        ("  # query Fake\n subscription OnEvent { e }", "OnEvent"),
        ("fragment F on User { name } query WithFragment { me { ...F } }", "WithFragment"),
        ("\"\"\"a description with { and query Nope\"\"\" query Real { a }", "Real"),
        ("{ me { name } }", nil),
        ("query { me { name } }", nil),
        ("query($id: ID) { me }", nil),
        ("query A { a } query B { b }", "A"),
        ("{ a } query Later { b }", nil),
        ("query Q(\n  $s: String = \"}\"\n) { a }", "Q"),
        ("", nil),
    ] as [(String, String?)])
    func theFirstOperationsName(document: String, name: String?) {
        #expect(GraphQLDocument.firstOperationName(in: document) == name, "\(document)")
    }

    @Test(arguments: [
        ("[1, 2]", "must be a JSON object", "an array"),
        ("\"id\"", "must be a JSON object", "a string"),
        ("42", "must be a JSON object", "a number"),
        ("null", "must be a JSON object", "null"),
        ("{id: 1}", "is not JSON", nil),
        ("", "is not JSON", nil),
    ] as [(String, String, String?)])
    func variablesMustBeAJSONObject(variables: String, message: String, kind: String?) {
        #expect {
            _ = try GraphQLOperation(query: "{ a }", variables: variables, operationName: nil)
        } throws: { error in
            guard let problem = error as? GraphQLOperation.Problem else { return false }
            return problem.key == "graphql-variables" && problem.message.contains(message) && (kind.map { problem.message.contains($0) } ?? true)
        }
    }

    @Test func badNamesAndEmptyDocumentsAreRefused() {
        for name in ["1abc", "a-b", "", "naïve"] {
            #expect(throws: GraphQLOperation.Problem.self) { _ = try GraphQLOperation(query: "{ a }", variables: nil, operationName: name) }
        }
        #expect(throws: GraphQLOperation.Problem.self) { _ = try GraphQLOperation(query: " \n ", variables: nil, operationName: nil) }
        #expect(GraphQLDocument.isName("_a1") && GraphQLDocument.isName("Z"))
    }

    @Test func stringVariablesAreCollectedWithTheirNames() throws {
        let operation = try GraphQLOperation(query: "{ a }", variables: #"{"input": {"password": "hunter2", "tags": ["x", "y"]}, "id": 7}"#,
                                             operationName: nil)
        #expect(operation.stringVariables.contains(.init(name: "password", value: "hunter2")))
        #expect(operation.stringVariables.contains(.init(name: "tags", value: "y")))
        #expect(!operation.stringVariables.contains { $0.name == "id" })
    }
}
