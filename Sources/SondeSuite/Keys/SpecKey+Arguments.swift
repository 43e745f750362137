import ArgumentParser

// A check option's name and help, taken from its spec key (`SpecKey`): the command line spells
// no check option of its own. `@Option(name: .key(.maxRedirects), help: .key(.maxRedirects))`, in
// SondeCLI's commands and in a kind extension's option group.

extension NameSpecification {
    /// The key's long option (`--header` for `headers`: `SpecProblem.optionName`) and its short one.
    package static func key(_ key: SpecKey) -> NameSpecification {
        let long = SpecProblem.optionName(forKey: key.name) ?? key.name
        guard let short = key.short else { return .customLong(long) }
        return [.customShort(short), .customLong(long)]
    }
}

extension ArgumentHelp {
    /// The key's help and value name.
    package static func key(_ key: SpecKey) -> ArgumentHelp {
        ArgumentHelp(key.help, valueName: key.valueName)
    }
}
