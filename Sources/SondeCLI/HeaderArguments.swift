import ArgumentParser
import SondeCore

/// `-H 'Name: value'` arguments as header fields; a malformed one is a usage error.
func parseHeaderArguments(_ lines: [String]) throws -> [HeaderField] {
    try lines.map { line in
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw ValidationError("header '\(line)' is not of the form 'Name: value'")
        }
        return HeaderField(name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                           value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }
}
