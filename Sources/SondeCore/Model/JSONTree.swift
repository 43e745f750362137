import Foundation

/// Any JSON value as a tree: how `Codable` carries a model's parts (`ModelParts`), whose bytes
/// the fast writer and readers copy as they are. Object keys lose their order (a dictionary).
enum JSONTree: Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONTree].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONTree].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The tree of these JSON bytes.
    init(json bytes: [UInt8]) throws {
        self = try JSONDecoder().decode(JSONTree.self, from: Data(bytes))
    }

    /// The tree as compact JSON bytes (keys sorted).
    func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }
}
