import Foundation
import SondeSuite

/// The rules of a GraphQL document key (a probe's `graphql-query`, a soak's
/// `graphql-subscription`) with `graphql-variables` and `graphql-operation`, said once.
enum GraphQLSpecRules {
    /// The path of a `@FILE` document, nil for a document written out.
    static func documentFile(_ document: String) -> String? {
        document.hasPrefix("@") ? String(document.dropFirst()) : nil
    }

    /// A document's `@FILE` resolved against a suite file's folder (a document written out as it is).
    static func resolving(document: String?, against folder: String) -> String? {
        guard let document, let path = documentFile(document) else { return document }
        return ProbeSpec.resolve(path: path, against: folder).map { "@" + $0 }
    }

    /// `variables` and `operation` given without a document: each one's problem.
    static func withoutDocument(variables: String?, operation: String?, documentKey: String) -> [SpecProblem] {
        [(variables, "graphql-variables"), (operation, "graphql-operation")].compactMap { value, key in
            value == nil ? nil : SpecProblem(key: key, "needs \(documentKey) (the GraphQL document it goes with)")
        }
    }

    /// A `@FILE` that cannot be read, as a problem of `documentKey`; nil for a readable one or a document written out.
    static func fileProblem(_ document: String, documentKey: String) -> SpecProblem? {
        guard let path = documentFile(document) else { return nil }
        return SpecRules.readableFile(path, key: documentKey, maxBytes: Int64(GraphQLOperation.maxQueryBytes))
    }

    /// The operation (reads a `@FILE` document); a problem names `documentKey` for the document's own.
    static func operation(document: String, variables: String?, operation: String?, documentKey: String) throws(SpecProblem) -> GraphQLOperation {
        var text = document
        if let path = documentFile(document) {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw SpecProblem(key: documentKey, "cannot read \(path): no such file, or not readable")
            }
            guard let decoded = String(data: contents, encoding: .utf8) else {
                throw SpecProblem(key: documentKey, "\(path) is not UTF-8 text")
            }
            text = decoded
        }
        do throws(GraphQLOperation.Problem) {
            return try GraphQLOperation(query: text, variables: variables, operationName: operation)
        } catch {
            throw SpecProblem(key: error.key == "graphql-query" ? documentKey : error.key, error.message)
        }
    }
}
