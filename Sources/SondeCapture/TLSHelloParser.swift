/// Reads the two cleartext hellos of a TLS handshake (RFC 8446 §4.1.2, §4.1.3; RFC 5246 §7.4.1)
/// from the body of a handshake record: what the client offered (SNI, ALPN, versions) and what
/// the server chose (version, cipher suite, ALPN up to TLS 1.2). Every read is bounds-checked: a
/// malformed or truncated hello is nil, never a trap.
enum TLSHelloParser {
    struct ClientHello: Equatable {
        var serverName: String?
        var alpn: [String] = []
        /// supported_versions when present, else the legacy version; GREASE values left out.
        var versions: [String] = []
    }

    struct ServerHello: Equatable {
        var version: String
        var cipherSuiteCode: UInt16
        var alpn: String?
        /// A HelloRetryRequest: a ServerHello whose random is RFC 8446's fixed value.
        var isHelloRetryRequest: Bool
    }

    /// The handshake message type of a handshake record's body (1 ClientHello, 2 ServerHello, …).
    static func messageType(_ body: [UInt8]) -> UInt8? { body.first }

    static func clientHello(_ body: [UInt8]) -> ClientHello? {
        var r = Cursor(body)
        guard r.u8() == 1, let length = r.u24(), var m = r.sub(length),
              let legacy = m.u16(), m.skip(32), let session = m.u8(), m.skip(Int(session)),
              let suites = m.u16(), m.skip(Int(suites)), let compression = m.u8(), m.skip(Int(compression)) else { return nil }
        var hello = ClientHello()
        var versions: [UInt16] = []
        if let total = m.u16(), var extensions = m.sub(Int(total)) {
            while let type = extensions.u16(), let size = extensions.u16(), var data = extensions.sub(Int(size)) {
                switch type {
                case 0:  // server_name: a list of (type, name); type 0 is host_name
                    guard let listLength = data.u16(), var list = data.sub(Int(listLength)) else { return nil }
                    while let nameType = list.u8(), let nameLength = list.u16(), let name = list.bytes(Int(nameLength)) {
                        if nameType == 0 && hello.serverName == nil { hello.serverName = String(decoding: name, as: UTF8.self) }
                    }
                case 16:  // application_layer_protocol_negotiation
                    hello.alpn = protocols(&data) ?? []
                case 43:  // supported_versions: a 1-byte length, then 2-byte versions
                    guard let listLength = data.u8(), var list = data.sub(Int(listLength)) else { return nil }
                    while let version = list.u16() { versions.append(version) }
                default:
                    break
                }
            }
        }
        if versions.isEmpty { versions = [legacy] }
        hello.versions = versions.filter { !isGrease($0) }.map(versionName)
        return hello
    }

    static func serverHello(_ body: [UInt8]) -> ServerHello? {
        var r = Cursor(body)
        guard r.u8() == 2, let length = r.u24(), var m = r.sub(length),
              let legacy = m.u16(), let random = m.bytes(32), let session = m.u8(), m.skip(Int(session)),
              let suite = m.u16(), m.skip(1) else { return nil }
        var hello = ServerHello(version: versionName(legacy), cipherSuiteCode: suite, alpn: nil,
                                isHelloRetryRequest: random.elementsEqual(helloRetryRequestRandom))
        if let total = m.u16(), var extensions = m.sub(Int(total)) {
            while let type = extensions.u16(), let size = extensions.u16(), var data = extensions.sub(Int(size)) {
                switch type {
                case 16: hello.alpn = protocols(&data)?.first
                case 43: if let selected = data.u16() { hello.version = versionName(selected) }
                default: break
                }
            }
        }
        return hello
    }

    /// An ALPN ProtocolNameList: a 2-byte length, then 1-byte-length names.
    private static func protocols(_ data: inout Cursor) -> [String]? {
        guard let listLength = data.u16(), var list = data.sub(Int(listLength)) else { return nil }
        var names: [String] = []
        while let size = list.u8(), let name = list.bytes(Int(size)) { names.append(String(decoding: name, as: UTF8.self)) }
        return names
    }

    /// OpenSSL's spelling, as libcurl reports the negotiated version ("TLSv1.3").
    static func versionName(_ code: UInt16) -> String {
        switch code {
        case 0x0300: return "SSLv3"
        case 0x0301: return "TLSv1"
        case 0x0302: return "TLSv1.1"
        case 0x0303: return "TLSv1.2"
        case 0x0304: return "TLSv1.3"
        default: return hex(code)
        }
    }

    /// RFC 8701 GREASE values: 0x?A?A with equal bytes.
    static func isGrease(_ code: UInt16) -> Bool { code & 0x0F0F == 0x0A0A && code >> 8 == code & 0xFF }

    static func hex(_ code: UInt16) -> String {
        let digits = String(code, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// IANA names of the suites OpenSSL, BoringSSL and the platforms' stacks negotiate today.
    static func cipherSuiteName(_ code: UInt16) -> String? {
        switch code {
        case 0x1301: return "TLS_AES_128_GCM_SHA256"
        case 0x1302: return "TLS_AES_256_GCM_SHA384"
        case 0x1303: return "TLS_CHACHA20_POLY1305_SHA256"
        case 0x1304: return "TLS_AES_128_CCM_SHA256"
        case 0x1305: return "TLS_AES_128_CCM_8_SHA256"
        case 0xC02B: return "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        case 0xC02C: return "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
        case 0xC02F: return "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0xC030: return "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0xCCA8: return "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xCCA9: return "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xC013: return "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"
        case 0xC014: return "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"
        case 0xC009: return "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
        case 0xC00A: return "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"
        case 0x009C: return "TLS_RSA_WITH_AES_128_GCM_SHA256"
        case 0x009D: return "TLS_RSA_WITH_AES_256_GCM_SHA384"
        case 0x009E: return "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0x009F: return "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0x002F: return "TLS_RSA_WITH_AES_128_CBC_SHA"
        case 0x0035: return "TLS_RSA_WITH_AES_256_CBC_SHA"
        default: return nil
        }
    }

    private static let helloRetryRequestRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// A bounds-checked reader over a slice of a message; every read past the end is nil.
    private struct Cursor {
        private let bytes: [UInt8]
        private var position: Int
        private let end: Int

        init(_ bytes: [UInt8]) { self.init(bytes, 0, bytes.count) }
        private init(_ bytes: [UInt8], _ position: Int, _ end: Int) {
            self.bytes = bytes
            self.position = position
            self.end = end
        }

        mutating func u8() -> UInt8? {
            guard position < end else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func u16() -> UInt16? {
            guard position + 2 <= end else { return nil }
            defer { position += 2 }
            return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
        }

        mutating func u24() -> Int? {
            guard position + 3 <= end else { return nil }
            defer { position += 3 }
            return Int(bytes[position]) << 16 | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, position + count <= end else { return false }
            position += count
            return true
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, position + count <= end else { return nil }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        /// The next `count` bytes as a cursor of their own (a length-prefixed field).
        mutating func sub(_ count: Int) -> Cursor? {
            guard count >= 0, position + count <= end else { return nil }
            defer { position += count }
            return Cursor(bytes, position, position + count)
        }
    }
}
