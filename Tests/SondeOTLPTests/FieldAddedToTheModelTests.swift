import Foundation
import SondeCore
@testable import SondeOTLP
@testable import SondeReport
import Testing

/// A transaction as a model with more fields: what a field added to `TransactionMetrics` would
/// be. Neither HAR's mapping (`HARFieldTable.transaction`, `HARWriter`) nor OTLP's
/// (`OTLPFieldTable.transaction`, `OTLPTracesBuilder`) is changed for them.
struct TransactionWithNewFields: FieldModel {
    var transaction: TransactionMetrics
    var roundTrips: Int?
    var serverTLSName: String?

    static let blank = TransactionWithNewFields(transaction: .blank, roundTrips: nil, serverTLSName: nil)

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try transaction.visitFields(&v)
        try v.visit("roundTrips", &roundTrips, .count)
        try v.visit("serverTLSName", &serverTLSName, .field)
    }
}

/// A field added to a visited model shows in HAR and OTLP with no change to either writer.
@Suite struct FieldAddedToTheModelTests {
    static func harMembers(_ model: TransactionWithNewFields) throws -> [String: Any] {
        var output = JSONOutput()
        output.object { o in
            HARFieldWriter.write(model, members: HARFieldTable.transaction.members(of: TransactionWithNewFields.self), to: &o)
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
    }

    static func attributes(_ model: TransactionWithNewFields) -> [String: OTLPAttribute.Value] {
        let list = OTLPFieldAttributes.of(model, names: OTLPFieldTable.transaction.attributeNames(of: TransactionWithNewFields.self))
        return Dictionary(list.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aNewFieldIsAHARMemberAndAnOTLPAttribute() throws {
        let transaction = OTLPFieldTableTests.transaction
        let extended = TransactionWithNewFields(transaction: transaction, roundTrips: 2, serverTLSName: "h")
        let members = try Self.harMembers(extended)
        #expect(members["_roundTrips"] as? Int == 2 && members["_serverTLSName"] as? String == "h")
        let attributes = Self.attributes(extended)
        #expect(attributes["sonde.round_trips"] == .int(2) && attributes["sonde.server_tls_name"] == .string("h"))
        // The transaction's own members and attributes are the same as without the new fields.
        let absent = TransactionWithNewFields(transaction: transaction, roundTrips: nil, serverTLSName: nil)
        let plainAttributes = Self.attributes(absent)
        #expect(Set(attributes.keys).subtracting(plainAttributes.keys) == ["sonde.round_trips", "sonde.server_tls_name"])
        #expect(plainAttributes.count == OTLPFieldAttributes.of(transaction, names: OTLPFieldTable.transaction.attributeNames(of: TransactionMetrics.self)).count)
        // HAR writes an absent value as null (the key is there), OTLP leaves it out.
        let absentMembers = try Self.harMembers(absent)
        #expect(absentMembers["_roundTrips"] is NSNull && absentMembers.count == members.count)
    }
}
