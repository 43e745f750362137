import Foundation
import SondeRun
import Yams

/// The icmp and grpc sections of a blackbox_exporter module (`BlackboxModule.ICMP`, `.GRPC`):
/// every key checked and every number range-checked at load, as blackbox 0.23 checks them (a
/// `ttl` outside 0 to 255 is refused) and more (a `payload_size` that cannot fit an IPv4 datagram).
extension SuiteReader {
    mutating func readICMP(_ node: Node, key: String, into icmp: inout BlackboxModule.ICMP, notImplemented: inout [String]) {
        guard let fields = fields(of: node, key: key, expected: "a mapping of the icmp prober's options") else { return }
        for (keyNode, field, value, here) in fields {
            switch field {
            case "preferred_ip_protocol": if let name = ipProtocol(value, key: here) { icmp.preferredIPProtocol = name }
            case "ip_protocol_fallback": if let flag = boolean(value, key: here) { icmp.ipProtocolFallback = flag }
            case "dont_fragment": if let flag = boolean(value, key: here) { icmp.dontFragment = flag }
            case "payload_size":
                if let size = integer(value, key: here, within: 0...BlackboxModule.ICMP.maxPayloadSize) { icmp.payloadSize = size }
            case "ttl": if let ttl = integer(value, key: here, within: 0...255) { icmp.ttl = ttl }
            default:
                if BlackboxModule.ICMP.keysNotImplemented.contains(field) {
                    notImplemented.append("icmp.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.ICMP.keys + BlackboxModule.ICMP.keysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
    }

    mutating func readGRPC(_ node: Node, key: String, into grpc: inout BlackboxModule.GRPC, notImplemented: inout [String]) {
        guard let fields = fields(of: node, key: key, expected: "a mapping of the grpc prober's options") else { return }
        for (keyNode, field, value, here) in fields {
            switch field {
            case "service":
                guard let service = text(value, key: here) else { continue }
                guard service.utf8.count <= BlackboxModule.GRPC.maxServiceBytes, !SpecRules.hasControlCharacters(service) else {
                    report(value.mark, key: here, "a service name is at most \(BlackboxModule.GRPC.maxServiceBytes) bytes without control characters")
                    continue
                }
                grpc.service = service
            case "tls": if let flag = boolean(value, key: here) { grpc.tls = flag }
            case "tls_config": readTLSConfig(value, key: here, into: &grpc.tlsConfig, notImplemented: &notImplemented, section: "grpc")
            case "preferred_ip_protocol": if let name = ipProtocol(value, key: here) { grpc.preferredIPProtocol = name }
            case "ip_protocol_fallback": if let flag = boolean(value, key: here) { grpc.ipProtocolFallback = flag }
            default:
                report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.GRPC.keys.joined(separator: ", ")))")
            }
        }
    }
}
