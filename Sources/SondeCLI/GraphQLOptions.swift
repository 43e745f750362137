import ArgumentParser
import SondeRun

/// `--graphql-query`, `--graphql-variables`, `--graphql-operation` (probe): a GraphQL operation
/// as the request (docs/graphql.md).
struct GraphQLOptions: ParsableArguments {
    @Option(name: .key(.graphqlQuery), help: .key(.graphqlQuery)) var query: String?
    @Option(name: .key(.graphqlVariables), help: .key(.graphqlVariables)) var variables: String?
    @Option(name: .key(.graphqlOperation), help: .key(.graphqlOperation)) var operation: String?

    func apply(to spec: inout ProbeSpec) {
        spec.graphqlQuery = query
        spec.graphqlVariables = variables
        spec.graphqlOperation = operation
    }
}

/// `--graphql-subscription`, `--graphql-variables`, `--graphql-operation` (soak): a GraphQL
/// subscription held on each connection over graphql-transport-ws (docs/graphql.md).
struct GraphQLSubscriptionOptions: ParsableArguments {
    @Option(name: .key(.graphqlSubscription), help: .key(.graphqlSubscription)) var subscription: String?
    @Option(name: .key(.graphqlVariables), help: .key(.graphqlVariables)) var variables: String?
    @Option(name: .key(.graphqlOperation), help: .key(.graphqlOperation)) var operation: String?

    func apply(to spec: inout SoakSpec) {
        spec.graphqlSubscription = subscription
        spec.graphqlVariables = variables
        spec.graphqlOperation = operation
    }
}
