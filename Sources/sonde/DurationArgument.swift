import ArgumentParser

/// A duration on the command line: a number with a unit, `250ms`, `10s`, `5m`, `1h` (a bare
/// number means seconds). Stored in seconds: finite and not negative; each command bounds it
/// above in its own `validate`, saying the bound.
struct DurationArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    var seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60), ("h", 3600)]
        var scale = 1.0
        var number = Substring(text)
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            scale = factor
            number = text.dropLast(suffix.count)
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0, (value * scale).isFinite else { return nil }
        seconds = value * scale
    }

    var description: String {
        if seconds >= 1 && seconds < 1e15 && seconds == seconds.rounded() { return "\(Int(seconds))s" }
        return "\(seconds * 1000)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
