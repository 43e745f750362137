import ArgumentParser
import SondeSuite

/// `--graphql-query`, `--graphql-variables`, `--graphql-operation` (`sonde probe`): a GraphQL
/// operation as the request (docs/graphql.md). `ProbeCommand` names it in one `@OptionGroup`
/// line and applies it to its spec.
public struct GraphQLOperationOptions: ParsableArguments {
    @Option(name: .key(.graphqlQuery), help: .key(.graphqlQuery)) var query: String?
    @Option(name: .key(.graphqlVariables), help: .key(.graphqlVariables)) var variables: String?
    @Option(name: .key(.graphqlOperation), help: .key(.graphqlOperation)) var operation: String?

    public init() {}

    /// The spec's GraphQL operation (`GraphQLOperationExtension`) from these options.
    public func apply(to spec: inout ProbeSpec) {
        spec.extensions[GraphQLOperationExtension.self] = GraphQLOperationExtension(query: query, variables: variables, operation: operation)
    }
}

/// `--graphql-subscription`, `--graphql-variables`, `--graphql-operation` (`sonde soak`): a
/// GraphQL subscription held on each connection over graphql-transport-ws (docs/graphql.md).
/// `SoakCommand` names it in one `@OptionGroup` line and applies it to its spec.
public struct GraphQLSubscriptionOptions: ParsableArguments {
    @Option(name: .key(.graphqlSubscription), help: .key(.graphqlSubscription)) var subscription: String?
    @Option(name: .key(.graphqlVariables), help: .key(.graphqlVariables)) var variables: String?
    @Option(name: .key(.graphqlOperation), help: .key(.graphqlOperation)) var operation: String?

    public init() {}

    /// The spec's GraphQL subscription (`GraphQLSubscriptionExtension`) from these options.
    public func apply(to spec: inout SoakSpec) {
        spec.extensions[GraphQLSubscriptionExtension.self] = GraphQLSubscriptionExtension(subscription: subscription, variables: variables, operation: operation)
    }
}
