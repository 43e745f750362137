/// Encodes the ClientHello a `TLSClientProfile` sends (RFC 8446 §4.1.2, RFC 5246 §7.4.1.2) from
/// sonde's own extension template: server_name (a host name only; none for an address literal,
/// as testssl.sh does), extended_master_secret, renegotiation_info, supported_groups,
/// ec_point_formats, ALPN, status_request, signature_algorithms, and for a TLS 1.3 offer
/// key_share, psk_key_exchange_modes and supported_versions (then a cookie after a
/// HelloRetryRequest). No GREASE, no padding. Pure.
enum ClientHelloEncoder {
    /// The handshake message (type 1, 3-byte length, body).
    /// - Parameters:
    ///   - shares: the key shares, as (group, public bytes), in the order sent.
    ///   - random: 32 bytes; `sessionID`: 0…32 bytes.
    static func handshake(_ profile: TLSClientProfile, serverName: String?, shares: [(group: UInt16, key: [UInt8])],
                          random: [UInt8], sessionID: [UInt8], cookie: [UInt8]? = nil) -> [UInt8] {
        var extensions: [UInt8] = []
        if let serverName, !serverName.isEmpty, !Self.isAddressLiteral(serverName) {
            let name = Array(serverName.utf8.prefix(255))
            add(&extensions, 0x0000, vector16([0] + vector16(name)))
        }
        add(&extensions, 0x0017, [])
        add(&extensions, 0xFF01, [0])
        if !profile.groups.isEmpty {
            add(&extensions, 0x000A, vector16(profile.groups.flatMap(u16)))
            add(&extensions, 0x000B, [1, 0])
        }
        if !profile.alpn.isEmpty {
            add(&extensions, 0x0010, vector16(profile.alpn.flatMap { vector8(Array($0.utf8.prefix(255))) }))
        }
        add(&extensions, 0x0005, [1, 0, 0, 0, 0])
        if !profile.signatureSchemes.isEmpty { add(&extensions, 0x000D, vector16(profile.signatureSchemes.flatMap(u16))) }
        if profile.offersTLS13 {
            add(&extensions, 0x0033, vector16(shares.flatMap { u16($0.group) + vector16($0.key) }))
            add(&extensions, 0x002D, [1, 1])
            add(&extensions, 0x002B, vector8(profile.versions.flatMap(u16)))
            if let cookie { add(&extensions, 0x002C, cookie) }
        }
        let legacyVersion = min(profile.highestVersion, 0x0303)
        var body = u16(legacyVersion) + random.prefix(32) + vector8(Array(sessionID.prefix(32)))
        body += vector16(profile.suites.flatMap(u16)) + [1, 0] + vector16(extensions)
        return [1] + u24(body.count) + body
    }

    /// A TLS record of `type` (22 handshake) carrying `payload`, split at 16 KiB (RFC 8446 §5.1);
    /// record version 0x0301 as clients send their first flight.
    static func records(type: UInt8 = 22, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        repeat {
            let chunk = payload[offset..<min(payload.count, offset + 16_384)]
            out += [type, 3, 1] + u16(UInt16(chunk.count)) + chunk
            offset += chunk.count
        } while offset < payload.count
        return out
    }

    /// An IPv4 or IPv6 literal (no SNI for those: RFC 6066 §3).
    static func isAddressLiteral(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func u24(_ value: Int) -> [UInt8] { [UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func vector8(_ bytes: [UInt8]) -> [UInt8] { [UInt8(min(bytes.count, 255))] + bytes.prefix(255) }
    static func vector16(_ bytes: [UInt8]) -> [UInt8] { u16(UInt16(min(bytes.count, 65_535))) + bytes.prefix(65_535) }
    private static func add(_ extensions: inout [UInt8], _ type: UInt16, _ data: [UInt8]) {
        extensions += u16(type) + vector16(data)
    }
}
