import ArgumentParser
import SondeRun

// A GraphQL option's name and help, taken from its spec key as SondeCLI's commands take theirs
// (SondeCLI's SpecKeyArguments.swift, which this module cannot import: SondeCLI depends on it).

extension NameSpecification {
    /// The key's long option (`SpecProblem.optionName`) and its short one.
    static func key(_ key: SpecKey) -> NameSpecification {
        let long = SpecProblem.optionName(forKey: key.name) ?? key.name
        guard let short = key.short else { return .customLong(long) }
        return [.customShort(short), .customLong(long)]
    }
}

extension ArgumentHelp {
    /// The key's help and value name.
    static func key(_ key: SpecKey) -> ArgumentHelp {
        ArgumentHelp(key.help, valueName: key.valueName)
    }
}
