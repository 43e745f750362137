import SondeCore
import SondeHTTP
import SondeSuite

/// A probe's GraphQL operation (`graphql-query`, `graphql-variables`, `graphql-operation`;
/// docs/graphql.md): a kind extension of `kind: probe`. Its rules with the probe's other keys,
/// and what it makes of the engine's options: the operation's body, POST, the GraphQL over HTTP
/// headers (a header the user gave wins), the response judge (`GraphQLResponseJudge`) and the
/// operation's name for unnamed URLs.
public struct GraphQLOperationExtension: KindExtension {
    public typealias Base = ProbeSpec

    public static let name = "graphql-operation"

    /// The document (`@FILE`: read from the file), its variables (a JSON object's text) and the operation's name.
    public var query: String?
    public var variables: String?
    public var operation: String?

    public init(query: String? = nil, variables: String? = nil, operation: String? = nil) {
        self.query = query
        self.variables = variables
        self.operation = operation
    }

    public static var unfilled: GraphQLOperationExtension { GraphQLOperationExtension() }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visit(.graphqlQuery, &query)
        v.visit(.graphqlVariables, &variables)
        v.visit(.graphqlOperation, &operation)
    }

    /// Variables that are not a JSON object, a bad operation name, a query file that cannot be
    /// read, and probe keys that do not go with a GraphQL operation (`data`, `data-file`, a method other than POST).
    public func problems(in spec: ProbeSpec) -> [SpecProblem] {
        guard let query else {
            return GraphQLSpecRules.withoutDocument(variables: variables, operation: operation, documentKey: "graphql-query")
        }
        var problems: [SpecProblem] = []
        if spec.data != nil || spec.dataFile != nil {
            problems.append(SpecProblem(key: "graphql-query", "choose one of data, data-file and graphql-query (a GraphQL operation is the request body)"))
        }
        if let request = spec.request, request.uppercased() != "POST" {
            problems.append(SpecProblem(key: "graphql-query", "a GraphQL operation is sent with POST (request is '\(request)')"))
        }
        if let problem = GraphQLSpecRules.fileProblem(query, documentKey: "graphql-query") { return problems + [problem] }
        do throws(SpecProblem) { _ = try operationValue() } catch { problems.append(error) }
        return problems
    }

    /// The query's `@FILE` resolved against a suite file's folder (the document itself as it is).
    public func resolvingPaths(against folder: String) -> GraphQLOperationExtension {
        var resolved = self
        resolved.query = GraphQLSpecRules.resolving(document: query, against: folder)
        return resolved
    }

    /// The operation (reads a `@FILE` query); nil without `graphql-query`.
    func operationValue() throws(SpecProblem) -> GraphQLOperation? {
        guard let query else { return nil }
        return try GraphQLSpecRules.operation(document: query, variables: variables, operation: operation, documentKey: "graphql-query")
    }

    public func apply(to options: inout ProbeOptions, of spec: ProbeSpec, redactor: Redactor) throws(SpecProblem) {
        guard let operation = try operationValue() else { return }
        options.body = operation.requestBody
        options.method = "POST"
        let given = Set(options.headers.map { $0.name.lowercased() })
        options.headers += GraphQLOperation.requestHeaders.filter { !given.contains($0.name.lowercased()) }
        options.bodyJudge = GraphQLResponseJudge(operation: operation)
        options.defaultRequestName = operation.operationName
    }
}
