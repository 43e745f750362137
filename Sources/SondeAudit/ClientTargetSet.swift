/// Which client profiles the audit targets (`--clients`): a client in the set that cannot connect
/// makes `tls.clients` fail; any other one is `info`. Written `ios>=15,android>=13`: a platform
/// and the oldest version targeted, or a platform alone (all its versions), or `none`.
public struct ClientTargetSet: Sendable, Equatable, CustomStringConvertible {
    /// The oldest version targeted per platform ([major, minor]); a platform absent is not targeted.
    public var minimum: [TLSClientProfile.Platform: [Int]]

    public init(minimum: [TLSClientProfile.Platform: [Int]]) { self.minimum = minimum }

    /// The platform versions their vendors still ship security fixes for (docs/audit.md states the
    /// dates): iOS 15 (iOS 15.8.5, 2025-09-15) and Android 13 (Android Security Bulletins of 2025
    /// list 13, 14, 15, 16).
    public static let vendorSupported = ClientTargetSet(minimum: [.iOS: [15], .android: [13]])

    public static let syntax = "PLATFORM>=VERSION or PLATFORM (ios, android), comma-separated, or none"

    /// Parses `ios>=15,android>=10`; nil with a message for anything else.
    public static func parse(_ text: String) -> Result<ClientTargetSet, ClientTargetError> {
        var minimum: [TLSClientProfile.Platform: [Int]] = [:]
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { return .failure(ClientTargetError(description: "is empty (\(syntax))")) }
        if items == ["none"] { return .success(ClientTargetSet(minimum: [:])) }
        for item in items {
            let parts = item.components(separatedBy: ">=")
            guard parts.count <= 2, let platform = TLSClientProfile.Platform(rawValue: parts[0].lowercased()), platform != .library else {
                return .failure(ClientTargetError(description: "\(item): expected \(syntax)"))
            }
            guard minimum[platform] == nil else { return .failure(ClientTargetError(description: "\(item): \(platform.rawValue) given twice")) }
            if parts.count == 2 {
                let numbers = parts[1].split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
                guard !numbers.isEmpty, numbers.count <= 3, numbers.allSatisfy({ $0.map { (0...999).contains($0) } ?? false }) else {
                    return .failure(ClientTargetError(description: "\(item): the version must be like 15 or 12.2"))
                }
                minimum[platform] = numbers.compactMap { $0 }
            } else {
                minimum[platform] = [0]
            }
        }
        return .success(ClientTargetSet(minimum: minimum))
    }

    public func contains(_ profile: TLSClientProfile) -> Bool {
        guard let oldest = minimum[profile.platform] else { return false }
        return profile.reaches(oldest)
    }

    /// "ios>=15,android>=13".
    public var description: String {
        guard !minimum.isEmpty else { return "none" }
        return TLSClientProfile.Platform.allCases.compactMap { platform in
            minimum[platform].map { $0 == [0] ? platform.rawValue : "\(platform.rawValue)>=\($0.map(String.init).joined(separator: "."))" }
        }.joined(separator: ",")
    }
}

/// Why a `--clients` value is not one.
public struct ClientTargetError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
