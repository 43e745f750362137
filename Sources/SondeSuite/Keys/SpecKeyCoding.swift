/// A spec key as a coding key (the suite key's name).
struct SpecCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Decodes each visited key from a keyed container; the first error stops it (`SuiteSpecDecoder`
/// sets that key aside and decodes again, so every bad key is reported).
struct SpecKeyDecoder: SpecKeyVisitor {
    let container: KeyedDecodingContainer<SpecCodingKey>
    private(set) var error: (any Error)?

    init(_ container: KeyedDecodingContainer<SpecCodingKey>) { self.container = container }

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) {
        guard error == nil else { return }
        do { value = try container.decodeIfPresent(T.self, forKey: SpecCodingKey(key.name)) } catch { self.error = error }
    }

    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) {
        guard error == nil else { return }
        do { value = try container.decode(T.self, forKey: SpecCodingKey(key.name)) } catch { self.error = error }
    }

    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {
        guard error == nil else { return }
        do {
            let set = try flags.filter { try container.decodeIfPresent(Bool.self, forKey: SpecCodingKey($0.key.name)) == true }
            guard set.count <= 1 else {
                error = DecodingError.dataCorruptedError(forKey: SpecCodingKey(set[1].key.name), in: container, debugDescription: conflict)
                return
            }
            choice = set.first?.value
        } catch {
            self.error = error
        }
    }
}

/// Encodes each visited key that has a value, in visiting order; a flag choice as its one flag `true`.
struct SpecKeyEncoder: SpecKeyVisitor {
    var container: KeyedEncodingContainer<SpecCodingKey>
    private(set) var error: (any Error)?

    init(_ container: KeyedEncodingContainer<SpecCodingKey>) { self.container = container }

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) {
        guard error == nil else { return }
        do { try container.encodeIfPresent(value, forKey: SpecCodingKey(key.name)) } catch { self.error = error }
    }

    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) {
        guard error == nil else { return }
        do { try container.encode(value, forKey: SpecCodingKey(key.name)) } catch { self.error = error }
    }

    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {
        guard error == nil, let choice, let flag = flags.first(where: { $0.value == choice }) else { return }
        do { try container.encode(true, forKey: SpecCodingKey(flag.key.name)) } catch { self.error = error }
    }
}

extension CheckSpec {
    /// Decoded key by key as `visitKeys` lists them (keys of other kinds are the suite reader's to
    /// refuse), the keys of the registry's extensions of this kind among them when the decoder's
    /// `userInfo` names them (`CheckKinds.decodingUserInfo`).
    public init(from decoder: any Decoder) throws {
        var spec = Self.unfilled
        if let key = KindExtensionList.userInfoKey, let registered = decoder.userInfo[key] as? KindExtensionList { spec.attach(registered.types) }
        var reader = SpecKeyDecoder(try decoder.container(keyedBy: SpecCodingKey.self))
        spec.visitKeys(&reader)
        if let error = reader.error { throw error }
        self = spec
    }

    /// Encoded key by key as `visitKeys` lists them, absent values left out.
    public func encode(to encoder: any Encoder) throws {
        var spec = self
        var writer = SpecKeyEncoder(encoder.container(keyedBy: SpecCodingKey.self))
        spec.visitKeys(&writer)
        if let error = writer.error { throw error }
    }
}
