import Foundation
@testable import SondeHTTP
import SondeCore
@testable import SondeServe
import Testing

/// The icmp and grpc probers' bytes: the echo message and its checksum, the health check's two
/// protobuf messages (hand-encoded, checked against bytes protoc's encoders write), and gRPC's
/// 5-byte message prefix, each with what a hostile peer could send.
@Suite struct ICMPGRPCWireTests {
    @Test func echoRequestCarriesAValidChecksum() throws {
        let echo = ICMPEcho(request: true, v4: true, identifier: 0x1234, sequence: 0x0102, data: Array("Prometheus Blackbox Exporter".utf8))
        let bytes = echo.encoded()
        #expect(bytes.count == 8 + 28 && bytes[0] == 8 && bytes[1] == 0 && bytes[4...7] == [0x12, 0x34, 0x01, 0x02])
        // The checksum over the whole message (checksum included) is 0: RFC 1071's check.
        #expect(ICMPEcho.checksum(bytes) == 0)
        // An odd length pads with a zero byte.
        let odd = ICMPEcho(request: true, v4: true, identifier: 1, sequence: 1, data: [0xAB]).encoded()
        #expect(ICMPEcho.checksum(odd) == 0)
        // ICMPv6's checksum is the kernel's (it covers a pseudo header): left 0.
        let v6 = ICMPEcho(request: true, v4: false, identifier: 1, sequence: 2, data: [1, 2]).encoded()
        #expect(v6[0] == 128 && v6[2] == 0 && v6[3] == 0)
    }

    @Test func replyMatchesItsRequestOnly() throws {
        let request = ICMPEcho(request: true, v4: true, identifier: 7, sequence: 9, data: [1, 2, 3])
        var replyBytes = request.encoded()
        replyBytes[0] = 0
        let reply = try #require(ICMPEcho(decoding: replyBytes[...], v4: true))
        #expect(reply.matches(request, checkIdentifier: true))
        // Our own request (a raw socket on loopback sees it) is no reply.
        #expect(!(try #require(ICMPEcho(decoding: request.encoded()[...], v4: true))).matches(request, checkIdentifier: true))
        // Another sequence, other data, another identifier (unless the kernel owns it) do not match.
        #expect(!ICMPEcho(request: false, v4: true, identifier: 7, sequence: 10, data: [1, 2, 3]).matches(request, checkIdentifier: true))
        #expect(!ICMPEcho(request: false, v4: true, identifier: 7, sequence: 9, data: [1, 2]).matches(request, checkIdentifier: true))
        let otherID = ICMPEcho(request: false, v4: true, identifier: 8, sequence: 9, data: [1, 2, 3])
        #expect(!otherID.matches(request, checkIdentifier: true) && otherID.matches(request, checkIdentifier: false))
        // Short, non-echo and nonzero-code messages are not echoes.
        #expect(ICMPEcho(decoding: [0, 0, 0, 0, 0, 0, 0][...], v4: true) == nil)
        #expect(ICMPEcho(decoding: [3, 1, 0, 0, 0, 0, 0, 0][...], v4: true) == nil)
        #expect(ICMPEcho(decoding: [0, 1, 0, 0, 0, 0, 0, 0][...], v4: true) == nil)
        #expect(ICMPEcho(decoding: [129, 0, 0, 0, 0, 1, 0, 2][...], v4: false)?.request == false)
    }

    @Test func healthCheckMessagesAsProtobufWritesThem() {
        // protoc: HealthCheckRequest(service="grpc.test") = 0a 09 "grpc.test"; an empty service writes nothing.
        #expect(GRPCHealthMessages.request(service: "grpc.test") == [0x0A, 0x09] + Array("grpc.test".utf8))
        #expect(GRPCHealthMessages.request(service: "") == [])
        let long = String(repeating: "s", count: 300)
        #expect(GRPCHealthMessages.request(service: long).prefix(3) == [0x0A, 0xAC, 0x02])
        // HealthCheckResponse(status=SERVING) = 08 01; NOT_SERVING 08 02; an empty message is UNKNOWN (0).
        #expect(GRPCHealthMessages.status(response: [0x08, 0x01]) == 1)
        #expect(GRPCHealthMessages.status(response: [0x08, 0x02]) == 2)
        #expect(GRPCHealthMessages.status(response: []) == 0)
        // Unknown fields of every wire type are skipped; the last status wins.
        #expect(GRPCHealthMessages.status(response: [0x10, 0x05, 0x1A, 0x02, 0x61, 0x62, 0x21, 1, 2, 3, 4, 5, 6, 7, 8, 0x2D, 1, 2, 3, 4, 0x08, 0x01, 0x08, 0x03]) == 3)
        // Malformed: a length past the end, a varint that never ends, field 0, a group, a truncated fixed64.
        for bad: [UInt8] in [[0x1A, 0x05, 0x61], [0x08] + [UInt8](repeating: 0xFF, count: 11), [0x00, 0x01], [0x0B], [0x21, 1, 2], [0x08]] {
            #expect(GRPCHealthMessages.status(response: bad) == nil, "\(bad)")
        }
    }

    @Test func grpcMessagePrefix() {
        #expect(GRPCUnaryCall.frame([0x08, 0x01]) == [0, 0, 0, 0, 2, 0x08, 0x01])
        #expect(GRPCUnaryCall.frame([]) == [0, 0, 0, 0, 0])
        if case .success(let message) = GRPCUnaryCall.unframe([0, 0, 0, 0, 2, 0x08, 0x01]) { #expect(message == [0x08, 0x01]) } else { Issue.record("refused") }
        for bad: [UInt8] in [[], [0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 3, 1], [0, 0, 0, 0, 1, 1, 2], [0, 0xFF, 0xFF, 0xFF, 0xFF]] {
            if case .success = GRPCUnaryCall.unframe(bad) { Issue.record("accepted \(bad)") }
        }
        #expect(GRPCUnaryCall.code(httpStatus: 404) == .unimplemented && GRPCUnaryCall.code(httpStatus: 503) == .unavailable
                && GRPCUnaryCall.code(httpStatus: 418) == .unknown)
        var call = GRPCUnaryCall(scheme: "http", host: "127.0.0.1", port: 1, address: "127.0.0.1", path: "/a.B/C", timeoutMs: 100)
        call.metadata = [HeaderField(name: "authorization", value: "Bearer x")]
        #expect(call.metadataProblem == nil)
        for (name, value) in [("Upper", "x"), ("grpc-timeout", "1S"), ("te", "x"), ("x", "a\r\nInjected: 1"), ("", "x"), ("a b", "x")] {
            call.metadata = [HeaderField(name: name, value: value)]
            #expect(call.metadataProblem != nil, "\(name): \(value)")
            #expect(call.call([]).code == .invalidArgument, "refused before anything is sent")
        }
        #expect(GRPCUnaryCall.percentDecoded("not%20found%3A x") == "not found: x" && GRPCUnaryCall.percentDecoded("bad %zz") == "bad %zz")
    }
}
