import SondeSuite

/// The GraphQL keys (docs/graphql.md), declared once: a probe's operation (`graphql-query`,
/// `GraphQLOperationExtension`), a soak's subscription (`graphql-subscription`,
/// `GraphQLSubscriptionExtension`), and the variables and operation name both take.
extension SpecKey {
    public static let graphqlQuery = SpecKey(
        "graphql-query", .text, valueName: "document",
        summary: "A GraphQL document sent as a POST of {query, variables, operationName} (docs/graphql.md); @FILE reads it from a file (relative to the suite file's folder)",
        help: "Send this GraphQL operation as a POST of {query, variables, operationName} and judge the response's errors (docs/graphql.md); "
            + "@FILE reads the document from a file.")
    public static let graphqlSubscription = SpecKey(
        "graphql-subscription", .text, valueName: "document",
        summary: "A GraphQL subscription held on each connection over graphql-transport-ws (docs/graphql.md); @FILE reads it from a file (relative to the suite file's folder)",
        help: "Hold this GraphQL subscription on each connection (graphql-transport-ws: connection_init, subscribe, next; the protocol's ping "
            + "instead of ping frames; docs/graphql.md); @FILE reads the document from a file.")
    public static let graphqlVariables = SpecKey(
        "graphql-variables", .text, valueName: "json",
        summary: "The GraphQL operation's variables: a JSON object's text, like '{\"id\": \"1\"}'",
        help: "The variables of the GraphQL operation: a JSON object, like '{\"id\": \"1\"}'.")
    public static let graphqlOperation = SpecKey(
        "graphql-operation", .text, valueName: "name",
        summary: "The operation to run (default: the document's first); names a probe's request results unless the URL has a name",
        help: "The operation of the document to run (default: the first); a probe's request is named after it unless --name gives one.")
}
