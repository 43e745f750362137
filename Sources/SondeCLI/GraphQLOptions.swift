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
