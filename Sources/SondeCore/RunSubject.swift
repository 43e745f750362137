import Foundation

/// What a run measured: its checks and the URLs they work on (`RunInfo.subject`, written when the
/// run starts). `--baseline` compares a run only with a baseline of the same subject (unless
/// `--baseline-any`), and `--baseline previous` looks for the newest run of it.
///
/// Invariants: both lists are sorted and hold no duplicates; a check is its suite name, or its
/// kind (`probe`, `soak`, `resume`, `audit`) for a plain command's single check, followed by
/// ` [link <profile>]` when it runs over an emulated link; a URL is kept without its user info,
/// query and fragment (`target(_:)`), so that the subject holds nothing secret and rotating
/// tokens do not make a run another subject.
public struct RunSubject: Codable, Sendable, Equatable, Hashable {
    public var checks: [String]
    public var urls: [String]

    public init(checks: [String], urls: [String]) {
        self.checks = Array(Set(checks)).sorted()
        self.urls = Array(Set(urls.map(Self.target))).sorted()
    }

    /// The subject as JSON with sorted keys: one text per subject (the history's `run.subject`).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Two arrays of strings always encode; "" would match no recorded subject.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// A check's part of the subject: its name (or kind), and the link it crosses.
    public static func check(name: String?, kind: String, linkSpec: String?) -> String {
        (name ?? kind) + (linkSpec.map { " [link \($0)]" } ?? "")
    }

    /// `url` without user info, query and fragment: `https://u:p@h/p?q#f` → `https://h/p`.
    public static func target(_ url: String) -> String {
        var bare = String(url.prefix { $0 != "?" && $0 != "#" })
        guard let scheme = bare.range(of: "://") else { return bare }
        let authorityEnd = bare[scheme.upperBound...].firstIndex(of: "/") ?? bare.endIndex
        if let at = bare[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
            bare.removeSubrange(scheme.upperBound...at)
        }
        return bare
    }

    /// How `other` differs from this subject, in words for a one-sentence refusal: the checks
    /// and URLs only one of them has (at most three of each named).
    public func difference(from other: RunSubject) -> String {
        func only(_ a: [String], _ b: [String]) -> [String] { a.filter { !b.contains($0) } }
        func listed(_ items: [String]) -> String {
            items.prefix(3).joined(separator: ", ") + (items.count > 3 ? " and \(items.count - 3) more" : "")
        }
        var parts: [String] = []
        let (missingChecks, extraChecks) = (only(checks, other.checks), only(other.checks, checks))
        let (missingURLs, extraURLs) = (only(urls, other.urls), only(other.urls, urls))
        if !extraChecks.isEmpty { parts.append("it has check \(listed(extraChecks))") }
        if !missingChecks.isEmpty { parts.append("it lacks check \(listed(missingChecks))") }
        if !extraURLs.isEmpty { parts.append("it measured \(listed(extraURLs))") }
        if !missingURLs.isEmpty { parts.append("it did not measure \(listed(missingURLs))") }
        return parts.isEmpty ? "it is the same subject" : parts.joined(separator: "; ")
    }
}
