/// Hands long lists of positional arguments (`sonde probe URL…`, `sonde audit URL…`,
/// `sonde analyze FILE…`, `sonde report DIR…`) to swift-argument-parser in time linear in their number.
///
/// swift-argument-parser 1.x stores a repeated positional argument's values as one array inside
/// its parsed values and copies the whole array to append each value (`ParsedValues.update`), so
/// N values cost O(N²): 10,000 URLs took 3.9 s, 40,000 63 s and 100,000 278 s before a run began
/// (issue 39 #20). `joined` makes each run of consecutive positional tokens one token, the values
/// joined by `separator` (NUL, which no command-line argument can hold), and the command splits
/// them back in its `validate()` (`split`), so the parser appends a handful of values.
///
/// Which tokens are positional is decided as the parser decides it: a token is an option when it
/// starts with `-` (and is not `-` alone); a token right after an option without `=` may be that
/// option's value, so it is never joined to a run; everything after `--` is left as it is.
enum PositionalRuns {
    static let separator: Character = "\u{0}"

    /// The commands whose only positional argument is one repeated list of plain strings, and
    /// that split it back (`ProbeCommand`, `AuditCommand`, `AnalyzeCommand`, `ReportCommand`).
    static let commands: Set<String> = ["probe", "audit", "analyze", "report"]

    /// `arguments` (the command line after `sonde`) with each run of two or more positional
    /// tokens of a command in `commands` joined into one; other command lines unchanged.
    static func joined(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, commands.contains(command) else { return arguments }
        var result = [command]
        result.reserveCapacity(arguments.count)
        var run: [String] = []
        func flush() {
            if run.count > 1 {
                result.append(run.joined(separator: String(separator)))
            } else {
                result += run
            }
            run.removeAll(keepingCapacity: true)
        }
        var previous = command
        var index = 1
        while index < arguments.count {
            let token = arguments[index]
            if token == "--" {
                flush()
                result += arguments[index...]
                return result
            }
            if isOption(token) {
                flush()
                result.append(token)
            } else if isOption(previous) && !previous.contains("=") {
                // Perhaps the value of the option before it: left on its own.
                flush()
                result.append(token)
            } else {
                run.append(token)
            }
            previous = token
            index += 1
        }
        flush()
        return result
    }

    /// The values `joined` put together, apart again (in order; empty values kept).
    static func split(_ values: [String]) -> [String] {
        guard values.contains(where: { $0.contains(separator) }) else { return values }
        return values.flatMap { $0.split(separator: separator, omittingEmptySubsequences: false).map(String.init) }
    }

    private static func isOption(_ token: String) -> Bool { token.hasPrefix("-") && token != "-" }
}
