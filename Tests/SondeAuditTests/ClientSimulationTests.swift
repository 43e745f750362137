import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// The client simulation's pieces without a network: the ClientHello encoder (its bytes read back
/// field by field), the TLS 1.3 key schedule on RFC 8448 §3's trace, the server-message parser on
/// good and truncated bytes, and `--clients` parsing.
@Suite struct ClientSimulationTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    /// The extensions of a ClientHello handshake message, by type.
    static func extensions(_ message: [UInt8]) throws -> (suites: [UInt16], extensions: [UInt16: [UInt8]], order: [UInt16]) {
        var reader = TLSByteReader(message)
        #expect(try reader.u8() == 1)
        #expect(try reader.u24() == message.count - 4)
        _ = try reader.u16()
        _ = try reader.take(32)
        _ = try reader.vector8()
        var suiteReader = TLSByteReader(try reader.vector16())
        var suites: [UInt16] = []
        while !suiteReader.atEnd { suites.append(try suiteReader.u16()) }
        #expect(try reader.vector8() == [0])
        var list = TLSByteReader(try reader.vector16())
        #expect(reader.atEnd)
        var result: [UInt16: [UInt8]] = [:]
        var order: [UInt16] = []
        while !list.atEnd {
            let type = try list.u16()
            result[type] = try list.vector16()
            order.append(type)
        }
        return (suites, result, order)
    }

    @Test func theClientHelloCarriesTheProfilesOfferInOrder() throws {
        let profile = try #require(TLSClientCatalog.profile("ios-17"))
        let share = [UInt8](repeating: 7, count: 32)
        let message = ClientHelloEncoder.handshake(profile, serverName: "api.example.com", shares: [(0x001D, share)],
                                                   random: [UInt8](repeating: 1, count: 32), sessionID: [UInt8](repeating: 2, count: 32))
        let hello = try Self.extensions(message)
        #expect(hello.suites == profile.suites)
        #expect(hello.extensions[0x0000] == ClientHelloEncoder.vector16([0] + ClientHelloEncoder.vector16(Array("api.example.com".utf8))))
        #expect(hello.extensions[0x000A] == ClientHelloEncoder.vector16([0x00, 0x1D, 0x00, 0x17, 0x00, 0x18, 0x00, 0x19]))
        // Apple's duplicate rsa_pss_rsae_sha384 is kept (OpenSSL's -sigalgs would refuse it).
        #expect(hello.extensions[0x000D] == ClientHelloEncoder.vector16(profile.signatureSchemes.flatMap(ClientHelloEncoder.u16)))
        #expect(hello.extensions[0x002B] == [4, 0x03, 0x04, 0x03, 0x03])
        #expect(hello.extensions[0x0033] == ClientHelloEncoder.vector16([0x00, 0x1D, 0x00, 0x20] + share))
        #expect(hello.extensions[0x0010] == ClientHelloEncoder.vector16([2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)))
        #expect(hello.extensions[0x002C] == nil)
        #expect(!hello.extensions.keys.contains(0x0807), "no ed25519 in Apple's list")
        #expect(!profile.signatureSchemes.contains(0x0807))
        // A TLS 1.2-only profile: no supported_versions, no key_share; an address: no SNI.
        let android7 = try #require(TLSClientCatalog.profile("android-7"))
        let old = try Self.extensions(ClientHelloEncoder.handshake(android7, serverName: "127.0.0.1", shares: [], random: [UInt8](repeating: 0, count: 32), sessionID: []))
        #expect(old.extensions[0x002B] == nil && old.extensions[0x0033] == nil && old.extensions[0x0000] == nil)
        #expect(old.extensions[0x000A] == ClientHelloEncoder.vector16([0x00, 0x17]))
        #expect(ClientHelloEncoder.records(message).prefix(5) == [22, 3, 1, UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
    }

    /// RFC 8448 §3 (Simple 1-RTT Handshake): from the (EC)DHE secret and the hash of ClientHello…ServerHello
    /// to the server's handshake traffic secret, key and IV.
    @Test func theKeyScheduleMatchesRFC8448() {
        let shared = Self.bytes("8b d4 05 4f b5 5b 9d 63 fd fb ac f9 f0 4b 9f 0d 35 e6 d6 3f 53 75 63 ef d4 62 72 90 0f 89 49 2d")
        let transcriptHash = Self.bytes("86 0c 06 ed c0 78 58 ee 8e 78 f0 e7 42 8c 58 ed d6 b4 3f 2c a3 e6 e9 5f 02 ed 06 3c f0 e1 ca d8")
        let secret = TLS13FlightDecryptor.serverHandshakeSecret(suite: 0x1301, sharedSecret: shared, transcriptHash: transcriptHash)
        #expect(secret == Self.bytes("b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4 e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38"))
        let traffic = TLS13FlightDecryptor.trafficKey(suite: 0x1301, secret: secret)
        #expect(traffic.key == Self.bytes("3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc"))
        #expect(traffic.iv == Self.bytes("5d 31 3e b2 67 12 76 ee 13 00 0b 30"))
    }

    @Test func serverHelloAndHelloRetryRequestParse() throws {
        // ServerHello: TLS 1.3 (supported_versions), TLS_AES_128_GCM_SHA256, key_share x25519.
        let share = [UInt8](repeating: 9, count: 32)
        let extensions = [0x00, 0x2B, 0x00, 0x02, 0x03, 0x04] + [0x00, 0x33, 0x00, 0x24, 0x00, 0x1D, 0x00, 0x20] + share
        let body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 5, count: 32) + [0] + [0x13, 0x01, 0] + ClientHelloEncoder.vector16(extensions)
        let hello = try TLSServerMessages.serverHello(body)
        #expect(hello == TLSServerMessages.ServerHello(version: 0x0304, suite: 0x1301, helloRetry: false, group: 0x001D, share: share, cookie: nil))
        let retryExtensions: [UInt8] = [0x00, 0x2B, 0x00, 0x02, 0x03, 0x04, 0x00, 0x33, 0x00, 0x02, 0x00, 0x18, 0x00, 0x2C, 0x00, 0x04, 0x00, 0x02, 0xAB, 0xCD]
        let retry = try TLSServerMessages.serverHello([0x03, 0x03] + TLSServerMessages.helloRetryRandom + [0, 0x13, 0x02, 0] + ClientHelloEncoder.vector16(retryExtensions))
        #expect(retry.helloRetry && retry.group == 0x0018 && retry.cookie == [0x00, 0x02, 0xAB, 0xCD] && retry.share.isEmpty)
        // Every truncation throws (but the one that ends before the extensions, a valid ServerHello); none traps.
        for length in 0..<body.count where length != 38 {
            #expect(throws: TLSParseError.self) { _ = try TLSServerMessages.serverHello(Array(body.prefix(length))) }
        }
        #expect(throws: TLSParseError.self) { _ = try TLSServerMessages.leaf([0, 0, 9, 0, 0, 200], tls13: false) }
    }

    @Test func targetSetsParseAndMatchProfiles() throws {
        let set = try ClientTargetSet.parse("ios>=15,android>=10").get()
        #expect(set.description == "ios>=15,android>=10")
        let targeted = TLSClientCatalog.all.filter(set.contains).map(\.id)
        #expect(targeted == ["ios-15", "ios-17", "android-10", "android-12", "android-14", "okhttp-modern", "okhttp-compatible"])
        #expect(try ClientTargetSet.parse("none").get().minimum.isEmpty)
        #expect(try ClientTargetSet.parse("ios").get().contains(#require(TLSClientCatalog.profile("ios-12"))))
        #expect(!ClientTargetSet.vendorSupported.contains(try #require(TLSClientCatalog.profile("curl-openssl-3"))))
        for bad in ["", "ios>=x", "windows>=10", "ios>=15,ios>=16", "library", "ios>=1.2.3.4", "ios>=-1"] {
            guard case .failure = ClientTargetSet.parse(bad) else { Issue.record("\(bad) was accepted"); continue }
        }
    }
}
