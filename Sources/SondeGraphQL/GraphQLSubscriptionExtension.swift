import SondeCore
import SondeReport
import SondeSuite
import SondeWebSocket

/// A soak's GraphQL subscription (`graphql-subscription`, `graphql-variables`,
/// `graphql-operation`; docs/graphql.md): a kind extension of `kind: soak`. Its rules with the
/// soak's other keys, and what it makes of the engine's options: `graphql-transport-ws` offered
/// first, the subscription's part of the report's config, and the subprotocol each connection
/// speaks (`GraphQLSubscriptionSession`: `connection_ack` within the connect timeout, a new
/// `subscribe` after `complete` or `error` once the backoff's initial delay, at least 100 ms, has passed).
public struct GraphQLSubscriptionExtension: KindExtension {
    public typealias Base = SoakSpec

    public static let name = "graphql-subscription"

    /// The subscription's part of the soak's model (attempts, config, summary and verdict) and
    /// its lines in the soak's terminal view, report.html, Prometheus and OTLP.
    public static var soakPartRenderer: (any SoakPartRenderer)? { GraphQLSubscriptionPart() }

    /// The subscription's document (`@FILE`: read from the file), its variables (a JSON object's
    /// text) and the operation's name.
    public var subscription: String?
    public var variables: String?
    public var operation: String?

    public init(subscription: String? = nil, variables: String? = nil, operation: String? = nil) {
        self.subscription = subscription
        self.variables = variables
        self.operation = operation
    }

    public static var unfilled: GraphQLSubscriptionExtension { GraphQLSubscriptionExtension() }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visit(.graphqlSubscription, &subscription)
        v.visit(.graphqlVariables, &variables)
        v.visit(.graphqlOperation, &operation)
    }

    /// The operation's problems (as a probe's), a `@FILE` that cannot be read, keys without the
    /// document, and soak keys that do not go with a subscription (`message-rate`, `discover-idle-timeout`).
    public func problems(in spec: SoakSpec) -> [SpecProblem] {
        guard let subscription else {
            return GraphQLSpecRules.withoutDocument(variables: variables, operation: operation, documentKey: "graphql-subscription")
        }
        var problems: [SpecProblem] = []
        if let messageRate = spec.messageRate, messageRate > 0 {
            problems.append(SpecProblem(key: "message-rate", "echoed messages do not go with graphql-subscription (the server speaks graphql-transport-ws)"))
        }
        if spec.discoverIdleTimeout == true {
            problems.append(SpecProblem(key: "discover-idle-timeout", "does not go with graphql-subscription"))
        }
        if let problem = GraphQLSpecRules.fileProblem(subscription, documentKey: "graphql-subscription") { return problems + [problem] }
        do throws(SpecProblem) { _ = try operationValue() } catch { problems.append(error) }
        return problems
    }

    /// The subscription's `@FILE` resolved against a suite file's folder (a document as it is).
    public func resolvingPaths(against folder: String) -> GraphQLSubscriptionExtension {
        var resolved = self
        resolved.subscription = GraphQLSpecRules.resolving(document: subscription, against: folder)
        return resolved
    }

    /// The operation (reads a `@FILE` document); nil without `graphql-subscription`.
    func operationValue() throws(SpecProblem) -> GraphQLOperation? {
        guard let subscription else { return nil }
        return try GraphQLSpecRules.operation(document: subscription, variables: variables, operation: operation, documentKey: "graphql-subscription")
    }

    public func apply(to options: inout SoakOptions, of spec: SoakSpec, redactor: Redactor) throws(SpecProblem) {
        guard let operation = try operationValue() else { return }
        if !options.subprotocols.contains(GraphQLTransportWS.subprotocol) {
            options.subprotocols.insert(GraphQLTransportWS.subprotocol, at: 0)
        }
        options.config.subprotocols = SoakSpec.redact(subprotocols: options.subprotocols, redactor)
        options.config.parts.set(GraphQLSubscriptionPart.configKey, GraphQLSubscriptionConfig(operationName: operation.operationName))
        options.subprotocol = GraphQLSubscriptionSession.factory(operation: operation, redactor: redactor, ackTimeoutS: options.config.connectTimeoutS,
                                                                 resubscribeDelayS: max(0.1, options.config.backoff.initialMs / 1000))
    }
}
