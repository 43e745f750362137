import Foundation
import SondeCore

/// Where and how a trial's transfer will be interrupted.
public enum TrialPlan {
    /// An interruption point as a user gives it: absolute bytes or a fraction of the length.
    public enum Offset: Sendable, Equatable {
        case bytes(Int64)
        case fraction(Double)

        /// `1048576`, `512KiB`, `4MB`, `50%` (sizes by sonde's one parser, `Quantity.size`, with its
        /// units: KiB/MiB/GiB powers of 1024, KB/MB/GB powers of 1000); nil when malformed, 0 or 100 %.
        public init?(parsing text: String) {
            let value = text.trimmingCharacters(in: .whitespaces)
            if value.hasSuffix("%") {
                guard let percent = Double(value.dropLast()), percent > 0, percent < 100 else { return nil }
                self = .fraction(percent / 100)
                return
            }
            guard let bytes = Quantity.size(value), bytes > 0 else { return nil }
            self = .bytes(bytes)
        }

        func resolve(length: Int64) -> Int64 {
            switch self {
            case .bytes(let value): return value
            case .fraction(let fraction): return Int64(Double(length) * fraction)
            }
        }
    }

    /// The stops of trial `trial` (1-based): `count` offsets, given or uniform at random in
    /// 1..<length, ascending and distinct; kinds taken in turn from `kinds`, shifted by the trial
    /// number so that every kind comes at every position across trials. Offsets outside the
    /// body are dropped.
    public static func stops(trial: Int, length: Int64, count: Int, offsets: [Offset]?, kinds: [InterruptionKind],
                             using generator: inout some RandomNumberGenerator) -> [PlannedStop] {
        guard length > 1, !kinds.isEmpty, count > 0 else { return [] }
        var positions: [Int64]
        if let offsets, !offsets.isEmpty {
            positions = offsets.map { $0.resolve(length: length) }
        } else {
            positions = (0..<count).map { _ in Int64.random(in: 1..<length, using: &generator) }
        }
        positions = Array(Set(positions.filter { $0 > 0 && $0 < length })).sorted()
        return positions.enumerated().map { index, offset in
            PlannedStop(atByte: offset, kind: kinds[(trial - 1 + index) % kinds.count])
        }
    }
}
