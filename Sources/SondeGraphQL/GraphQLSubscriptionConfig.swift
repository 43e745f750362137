import SondeCore

/// What a soak's config records of its GraphQL subscription (`config.graphql`, a part of the
/// config set by `GraphQLSubscriptionExtension.apply`): the document and variables are left out,
/// as variables may hold secrets.
public struct GraphQLSubscriptionConfig: Sendable, Equatable {
    /// The operation's name (given, or the document's first); nil for an anonymous operation.
    public var operationName: String?
    /// The subprotocol: always `graphql-transport-ws`.
    public var subprotocol: String

    public init(operationName: String?, subprotocol: String = GraphQLTransportWS.subprotocol) {
        self.operationName = operationName
        self.subprotocol = subprotocol
    }
}

extension GraphQLSubscriptionConfig: FieldModel {
    public static let blank = GraphQLSubscriptionConfig(operationName: nil)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("operationName", &operationName, .field)
        try v.visit("subprotocol", &subprotocol, .required)
    }
}
