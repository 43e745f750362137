import Foundation
import SondeCore
import SondeGraphQL
import SondeHTTP

/// A probe's GraphQL operation (`graphql-query`, `graphql-variables`, `graphql-operation`;
/// docs/graphql.md): the rules between these keys and the others, and what they make of the
/// engine's options (SondeGraphQL builds the body and judges the response).
extension ProbeSpec {
    /// The GraphQL keys' problems: variables that are not a JSON object, a bad operation name, a
    /// query file that cannot be read, and keys that do not go with a GraphQL operation.
    var graphqlProblems: [SpecProblem] {
        guard let graphqlQuery else {
            return GraphQLSpecRules.withoutDocument(variables: graphqlVariables, operation: graphqlOperation, documentKey: "graphql-query")
        }
        var problems: [SpecProblem] = []
        if data != nil || dataFile != nil {
            problems.append(SpecProblem(key: "graphql-query", "choose one of data, data-file and graphql-query (a GraphQL operation is the request body)"))
        }
        if let request, request.uppercased() != "POST" {
            problems.append(SpecProblem(key: "graphql-query", "a GraphQL operation is sent with POST (request is '\(request)')"))
        }
        if let problem = GraphQLSpecRules.fileProblem(graphqlQuery, documentKey: "graphql-query") { return problems + [problem] }
        do throws(SpecProblem) { _ = try graphqlOperationValue() } catch { problems.append(error) }
        return problems
    }

    /// The query's `@FILE` resolved against a suite file's folder (the document itself as it is).
    func graphqlQueryResolving(against folder: String) -> String? {
        guard let graphqlQuery, let path = GraphQLSpecRules.documentFile(graphqlQuery) else { return graphqlQuery }
        return Self.resolve(path: path, against: folder).map { "@" + $0 }
    }

    /// The operation of this spec (reads a `@FILE` query); nil without `graphql-query`.
    func graphqlOperationValue() throws(SpecProblem) -> GraphQLOperation? {
        guard let graphqlQuery else { return nil }
        return try GraphQLSpecRules.operation(document: graphqlQuery, variables: graphqlVariables, operation: graphqlOperation, documentKey: "graphql-query")
    }

    /// With a GraphQL operation: its body, POST, the GraphQL over HTTP headers (a header the user
    /// gave wins), the response judge and the operation's name for unnamed URLs.
    func applyGraphQL(to options: inout ProbeOptions) throws(SpecProblem) {
        guard let operation = try graphqlOperationValue() else { return }
        options.body = operation.requestBody
        options.method = "POST"
        let given = Set(options.headers.map { $0.name.lowercased() })
        options.headers += GraphQLOperation.requestHeaders.filter { !given.contains($0.name.lowercased()) }
        options.bodyJudge = GraphQLResponseJudge(operation: operation)
        options.defaultRequestName = operation.operationName
    }
}
