import Foundation

/// The registry's kind extensions as a decoder's `userInfo` carries them to `CheckSpec.init(from:)`
/// (`CheckKinds.decodingUserInfo`): a spec decoded without them has only its kind's own keys.
public struct KindExtensionList: Sendable {
    public let types: [any KindExtension.Type]

    public init(_ types: [any KindExtension.Type]) { self.types = types }

    /// The `userInfo` key it goes under (`CodingUserInfoKey.init?(rawValue:)` accepts every string).
    public static let userInfoKey = CodingUserInfoKey(rawValue: "sonde.kindExtensions")

    /// A decoder's `userInfo` carrying the list.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        guard let key = Self.userInfoKey else { return [:] }
        return [key: self]
    }
}
