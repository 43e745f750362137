import SondeCore
import SondeGraphQL
import SondeWebSocket

/// A soak's GraphQL subscription (`graphql-subscription`, `graphql-variables`,
/// `graphql-operation`; docs/graphql.md): the rules between these keys and the others, and the
/// engine's subprotocol they make (SondeGraphQL speaks `graphql-transport-ws`).
extension SoakSpec {
    /// The GraphQL keys' problems: those of the operation (as a probe's), a `@FILE` that cannot
    /// be read, keys without the document, and soak keys that do not go with a subscription.
    var graphqlProblems: [SpecProblem] {
        guard let graphqlSubscription else {
            return GraphQLSpecRules.withoutDocument(variables: graphqlVariables, operation: graphqlOperation, documentKey: "graphql-subscription")
        }
        var problems: [SpecProblem] = []
        if let messageRate, messageRate > 0 {
            problems.append(SpecProblem(key: "message-rate", "echoed messages do not go with graphql-subscription (the server speaks graphql-transport-ws)"))
        }
        if discoverIdleTimeout == true {
            problems.append(SpecProblem(key: "discover-idle-timeout", "does not go with graphql-subscription"))
        }
        if let problem = GraphQLSpecRules.fileProblem(graphqlSubscription, documentKey: "graphql-subscription") { return problems + [problem] }
        do throws(SpecProblem) { _ = try graphqlOperationValue() } catch { problems.append(error) }
        return problems
    }

    /// The subscription's `@FILE` resolved against a suite file's folder (a document as it is).
    func graphqlSubscriptionResolving(against folder: String) -> String? {
        guard let graphqlSubscription, let path = GraphQLSpecRules.documentFile(graphqlSubscription) else { return graphqlSubscription }
        return Self.resolve(path: path, against: folder).map { "@" + $0 }
    }

    /// The operation of this spec (reads a `@FILE` document); nil without `graphql-subscription`.
    func graphqlOperationValue() throws(SpecProblem) -> GraphQLOperation? {
        guard let graphqlSubscription else { return nil }
        return try GraphQLSpecRules.operation(document: graphqlSubscription, variables: graphqlVariables, operation: graphqlOperation,
                                              documentKey: "graphql-subscription")
    }

    /// The subprotocols offered: with a subscription, `graphql-transport-ws` first (unless given).
    var offeredSubprotocols: [String] {
        let given = subprotocols ?? []
        guard graphqlSubscription != nil, !given.contains(GraphQLTransportWS.subprotocol) else { return given }
        return [GraphQLTransportWS.subprotocol] + given
    }

    /// What the report's config records of the subscription (nil without one, or when its
    /// document cannot be read: `problems()` says why).
    var graphqlConfig: SoakConfig.GraphQLSubscription? {
        guard let operation = try? graphqlOperationValue() else { return nil }
        return SoakConfig.GraphQLSubscription(operationName: operation.operationName, subprotocol: GraphQLTransportWS.subprotocol)
    }

    /// The engine's subprotocol: `connection_ack` within the connect timeout, a new `subscribe`
    /// after `complete` or `error` once the backoff's initial delay (at least 100 ms) has passed.
    func graphqlFactory(redactor: Redactor, config: SoakConfig) throws(SpecProblem) -> SoakSubprotocolFactory? {
        guard let operation = try graphqlOperationValue() else { return nil }
        return GraphQLSubscriptionSession.factory(operation: operation, redactor: redactor, ackTimeoutS: config.connectTimeoutS,
                                                  resubscribeDelayS: max(0.1, config.backoff.initialMs / 1000))
    }
}
