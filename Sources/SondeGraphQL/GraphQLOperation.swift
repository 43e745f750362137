import Foundation
import SondeCore

/// One GraphQL operation as a probe sends it (GraphQL over HTTP, POST): the document, its
/// variables and the operation's name, made into the JSON body Apollo's and URLSession-based
/// clients send, `{"query":…,"variables":{…},"operationName":…}`, with `Content-Type:
/// application/json` and `Accept: application/graphql-response+json, application/json;q=0.9`.
///
/// Invariants (checked by `init`): `query` is not empty; `variablesJSON` is the text of a JSON
/// object; `operationName` is nil or a GraphQL name (`[_A-Za-z][_0-9A-Za-z]*`).
public struct GraphQLOperation: Sendable, Equatable {
    /// Why an operation cannot be made, in the words of the key it names (`graphql-variables`…).
    public struct Problem: Error, Sendable, Equatable {
        public var key: String
        public var message: String
    }

    public let query: String
    /// The variables as given (a JSON object's text, sent as it is); `{}` when none were given.
    public let variablesJSON: String
    /// The name given, else the name of the document's first operation; nil for an anonymous one.
    public let operationName: String?
    /// Each string value in the variables (at any depth) with the name of the member holding it:
    /// the judge masks those whose names look secret (`Redactor.isSecret(name:)`) in the server's messages.
    public let stringVariables: [StringVariable]

    /// A string value of the variables and the name of the member that holds it.
    public struct StringVariable: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// The most bytes of a query (a document or a `@file`) and of the variables' text.
    public static let maxQueryBytes = 1 << 20
    public static let maxVariablesBytes = 1 << 20

    /// - Parameters:
    ///   - variables: the text of a JSON object, or nil for none.
    ///   - operationName: nil: the first operation's own name (`GraphQLDocument.firstOperationName`).
    public init(query: String, variables: String?, operationName: String?) throws(Problem) {
        guard !query.allSatisfy(\.isWhitespace) else { throw Problem(key: "graphql-query", message: "is empty: give a GraphQL document, or @FILE") }
        guard query.utf8.count <= Self.maxQueryBytes else {
            throw Problem(key: "graphql-query", message: "is larger than \(Self.maxQueryBytes >> 20) MiB")
        }
        if let operationName, !GraphQLDocument.isName(operationName) {
            throw Problem(key: "graphql-operation", message: "'\(operationName)' is not a GraphQL name (letters, digits and _, not starting with a digit)")
        }
        var strings: [StringVariable] = []
        if let variables {
            guard variables.utf8.count <= Self.maxVariablesBytes else {
                throw Problem(key: "graphql-variables", message: "is larger than \(Self.maxVariablesBytes >> 20) MiB")
            }
            let parsed: Any
            do { parsed = try JSONSerialization.jsonObject(with: Data(variables.utf8), options: [.fragmentsAllowed]) } catch {
                throw Problem(key: "graphql-variables", message: "is not JSON: give a JSON object, like '{\"id\": \"1\"}'")
            }
            guard let object = parsed as? [String: Any] else {
                throw Problem(key: "graphql-variables", message: "must be a JSON object, like '{\"id\": \"1\"}' (got \(Self.kind(of: parsed)))")
            }
            Self.collectStrings(object, into: &strings)
        }
        self.query = query
        self.variablesJSON = variables.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "{}"
        self.operationName = operationName ?? GraphQLDocument.firstOperationName(in: query)
        self.stringVariables = strings.filter { !$0.value.isEmpty }
    }

    /// The request body: `{"query":…,"variables":…,"operationName":…}` (UTF-8; `operationName`
    /// null for an anonymous operation).
    public var requestBody: [UInt8] {
        let name = operationName.map(Self.jsonString) ?? "null"
        return Array("{\"query\":\(Self.jsonString(query)),\"variables\":\(variablesJSON),\"operationName\":\(name)}".utf8)
    }

    /// The headers a GraphQL request carries, as the GraphQL over HTTP specification has clients send them.
    public static let requestHeaders = [
        HeaderField(name: "Content-Type", value: "application/json"),
        HeaderField(name: "Accept", value: "application/graphql-response+json, application/json;q=0.9"),
    ]

    /// `text` as a JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A JSON value's kind in words, for messages.
    static func kind(of value: Any) -> String {
        switch value {
        case is [Any]: return "an array"
        case is String: return "a string"
        case is NSNull: return "null"
        case is NSNumber: return "a number or a boolean"
        default: return "a JSON value"
        }
    }

    /// Depth-first; an array's strings go by the name of the member holding the array.
    private static func collectStrings(_ value: Any, name: String = "", into strings: inout [StringVariable]) {
        if let object = value as? [String: Any] {
            for (member, item) in object.sorted(by: { $0.key < $1.key }) { collectStrings(item, name: member, into: &strings) }
        } else if let array = value as? [Any] {
            for item in array { collectStrings(item, name: name, into: &strings) }
        } else if let text = value as? String {
            strings.append(StringVariable(name: name, value: text))
        }
    }
}
