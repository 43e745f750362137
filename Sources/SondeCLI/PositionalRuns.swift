/// Hands long lists of positional arguments (`sonde probe URL…`, `sonde audit URL…`,
/// `sonde analyze FILE…`, `sonde report DIR…`) to swift-argument-parser in time linear in their
/// number, and binds `sonde probe`'s `--name NAME` to the URL right after it.
///
/// swift-argument-parser 1.x stores a repeated positional argument's values (and a repeated
/// option's) as one array inside its parsed values and copies the whole array to append each
/// value (`ParsedValues.update`), so N values cost O(N²): 10,000 URLs took 3.9 s, 40,000 63 s and
/// 100,000 278 s before a run began (issue 39 #20). `joined` makes each run of consecutive
/// positional tokens one token, and the command splits them back in its `validate()` (`split`,
/// `splitNamed`), so the parser appends a handful of values.
///
/// `--name NAME URL` (probe): the name applies to the URL right after it. Its position among the
/// URLs is what the parser would lose (it keeps a repeated option's values apart from the
/// positional ones), so `joined` takes the pair out of the line and puts the URL, with its name,
/// in the run of positional tokens it belongs to: a probe line with 10,000 named URLs is a few
/// tokens too. A `--name` that is not followed by a value and a URL (the last token, an option
/// after it, `--`) is left in the line as it was, and the command refuses it.
///
/// A joined token is `separator` followed by pairs `name separator value` joined by `separator`
/// (NUL, which no command-line argument can hold; an empty name for an unnamed value), so a token
/// the parser got from the user (no NUL) and one `joined` made are told apart, and an empty
/// argument or name stays what it was. Which tokens are positional is decided as the parser decides
/// it: a token is an option when it starts with `-` (and is not `-` alone); a token right after an
/// option without `=` may be that option's value, so it is never joined to a run; everything
/// after `--` is left as it is.
enum PositionalRuns {
    static let separator: Character = "\u{0}"

    /// The commands whose only positional argument is one repeated list of plain strings, and
    /// that split it back (`ProbeCommand`, `AuditCommand`, `AnalyzeCommand`, `ReportCommand`).
    static let commands: Set<String> = ["probe", "audit", "analyze", "report"]

    /// The option naming the URL after it, and the command that has it.
    static let nameOption = "--name"
    static let namingCommand = "probe"

    /// `arguments` (the command line after `sonde`) with each run of two or more positional
    /// tokens of a command in `commands` joined into one, and each `--name NAME URL` of a probe
    /// made a named value of its run; other command lines unchanged.
    static func joined(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, commands.contains(command) else { return arguments }
        let names = command == namingCommand
        var result = [command]
        result.reserveCapacity(arguments.count)
        var run: [(name: String?, value: String)] = []
        func flush() {
            if run.count > 1 || run.contains(where: { $0.name != nil }) {
                let sep = String(separator)
                result.append(sep + run.map { ($0.name ?? "") + sep + $0.value }.joined(separator: sep))
            } else {
                result += run.map(\.value)
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
            if names, let (name, url, next) = namedURL(at: index, in: arguments) {
                run.append((name, url))
                previous = url
                index = next
                continue
            }
            if isOption(token) {
                flush()
                result.append(token)
            } else if isOption(previous) && !previous.contains("=") {
                // Perhaps the value of the option before it: left on its own.
                flush()
                result.append(token)
            } else {
                run.append((nil, token))
            }
            previous = token
            index += 1
        }
        flush()
        return result
    }

    /// `--name NAME URL` or `--name=NAME URL` at `index`: the name, the URL and the index after
    /// them; nil when the tokens there are not that (the URL must not be an option or `--`).
    private static func namedURL(at index: Int, in arguments: [String]) -> (String, String, Int)? {
        let token = arguments[index]
        let name: String, urlIndex: Int
        if token == nameOption {
            guard index + 2 < arguments.count, !isOption(arguments[index + 1]) else { return nil }
            (name, urlIndex) = (arguments[index + 1], index + 2)
        } else if token.hasPrefix(nameOption + "=") {
            guard index + 1 < arguments.count else { return nil }
            (name, urlIndex) = (String(token.dropFirst(nameOption.count + 1)), index + 1)
        } else {
            return nil
        }
        let url = arguments[urlIndex]
        // An empty name is left to the command to refuse (joined, it would read as no name).
        guard !name.isEmpty, !isOption(url), url != "--" else { return nil }
        return (name, url, urlIndex + 1)
    }

    /// The values `joined` put together, apart again, with their names (in order; empty values kept).
    static func splitNamed(_ values: [String]) -> [(name: String?, value: String)] {
        var result: [(name: String?, value: String)] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard value.first == separator else {
                result.append((nil, value))
                continue
            }
            let parts = value.dropFirst().split(separator: separator, omittingEmptySubsequences: false)
            var index = 0
            while index + 1 < parts.count {
                result.append((parts[index].isEmpty ? nil : String(parts[index]), String(parts[index + 1])))
                index += 2
            }
        }
        return result
    }

    /// The values `joined` put together, apart again (in order; empty values kept).
    static func split(_ values: [String]) -> [String] {
        guard values.contains(where: { $0.first == separator }) else { return values }
        return splitNamed(values).map(\.value)
    }

    private static func isOption(_ token: String) -> Bool { token.hasPrefix("-") && token != "-" }
}
