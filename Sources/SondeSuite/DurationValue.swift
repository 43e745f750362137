import SondeCore

/// A duration given to a check (an option or a suite key), parsed by sonde's one parser
/// (`Quantity.duration`): `250ms`, `10s`, `5m`, `1h`, `7d`, a bare number meaning seconds. Stored in
/// seconds, finite and not negative; each check bounds it above and says the bound. Encodes as
/// text with a unit (`"5s"`, `"250ms"`) and decodes from such text or a bare number (seconds).
public struct DurationValue: Codable, Equatable, Sendable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public init?(text: String) {
        guard let seconds = Quantity.duration(text.lowercased()) else { return nil }
        self.seconds = seconds
    }

    /// Whole hours, minutes or seconds when it is one; else milliseconds (`1500ms`, `0.25ms`).
    public var description: String {
        guard seconds < 1e15 else { return "\(seconds)s" }
        for (unit, length) in [("h", 3600.0), ("m", 60.0), ("s", 1.0)] where seconds >= length {
            let count = seconds / length
            if count == count.rounded() { return "\(Int(count))\(unit)" }
        }
        let ms = seconds * 1000
        return ms == ms.rounded() ? "\(Int(ms))ms" : "\(ms)ms"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let value = DurationValue(text: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not \(Quantity.durationHint)")
            }
            self = value
        } else if let number = try? container.decode(Double.self), number.isFinite, number >= 0 {
            self.seconds = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected \(Quantity.durationHint)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A size given to a check, parsed by sonde's one parser (`Quantity.size`): `64`, `512KiB`,
/// `16MiB`, a bare number meaning bytes. Encodes as a number of bytes.
public struct SizeValue: Codable, Equatable, Sendable, CustomStringConvertible {
    public var bytes: Int64

    public init(bytes: Int64) { self.bytes = bytes }

    public init?(text: String) {
        guard let bytes = Quantity.size(text) else { return nil }
        self.bytes = bytes
    }

    public var description: String { String(bytes) }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self), number >= 0 {
            self.bytes = number
        } else if let text = try? container.decode(String.self), let value = SizeValue(text: text) {
            self = value
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected \(Quantity.sizeHint)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes)
    }
}
