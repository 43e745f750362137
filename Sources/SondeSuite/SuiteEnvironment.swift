/// `${NAME}` references in a suite's values: the only form expanded (no `$NAME`, no defaults or
/// other shell syntax), `$$` for one literal `$`, and any other `$` kept as written. A name is
/// `[A-Za-z_][A-Za-z0-9_]*`. An unset variable is an error, never an empty string: a suite that
/// silently ran with an empty token would test the wrong thing.
enum SuiteEnvironment {
    /// What expanding one scalar gave: its text, and whether it referenced the environment.
    struct Expansion: Equatable {
        var text: String
        var referencesEnvironment: Bool
    }

    /// `text` with every `${NAME}` replaced from `environment` and `$$` by `$`; the problem in
    /// words when a reference is malformed or names an unset variable.
    /// The names of the `${NAME}` references in `text` (a `$$` is not one).
    static func names(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("$") { rest = after.dropFirst(); continue }
            guard after.hasPrefix("{"), let close = after.firstIndex(of: "}") else { rest = after; continue }
            let name = String(after[after.index(after: after.startIndex)..<close])
            if isValid(name: name) { names.append(name) }
            rest = after[after.index(after: close)...]
        }
        return names
    }

    static func expand(_ text: String, environment: [String: String]) -> Result<Expansion, SpecProblem> {
        guard text.contains("$") else { return .success(Expansion(text: text, referencesEnvironment: false)) }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var referenced = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$", index + 1 < scalars.count else {
                result.append(scalar)
                index += 1
                continue
            }
            switch scalars[index + 1] {
            case "$":
                result.append("$")
                index += 2
            case "{":
                guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                    return .failure(SpecProblem(key: nil, "'${' is not closed by '}' (write ${NAME}, or $$ for a literal $)"))
                }
                let name = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
                guard isValid(name: name) else {
                    return .failure(SpecProblem(key: nil, "'${\(name)}' does not name an environment variable "
                        + "(a name is letters, digits and _, not starting with a digit; write $$ for a literal $)"))
                }
                guard let value = environment[name] else {
                    return .failure(SpecProblem(key: nil, "${\(name)} is not set in the environment"))
                }
                result.append(contentsOf: value.unicodeScalars)
                referenced = true
                index = close + 1
            default:
                result.append(scalar)
                index += 1
            }
        }
        return .success(Expansion(text: String(result), referencesEnvironment: referenced))
    }

    /// Whether `name` is an environment variable name a suite may reference.
    static func isValid(name: String) -> Bool {
        func letter(_ scalar: Unicode.Scalar) -> Bool { scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = name.unicodeScalars.first, letter(first) else { return false }
        return name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}
