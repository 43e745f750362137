import Foundation
import SondeCore
import SondeHTTP
import SondeSuite

/// `/probe` with blackbox_exporter's grpc prober: resolve the target's host (`host:port`, an
/// `http://` or `https://` before it allowed; port 80, or 443 with `tls`, when it has none) by the
/// module's IP preference, then one `grpc.health.v1.Health/Check` call naming `service` over
/// HTTP/2 (`GRPCUnaryCall`: h2c, or TLS with `tls_config` when `tls`), with blackbox 0.23's series:
/// `probe_grpc_duration_seconds{phase=resolve|check}`, `probe_grpc_status_code`,
/// `probe_grpc_healthcheck_response{serving_status=UNKNOWN|SERVING|NOT_SERVING|SERVICE_UNKNOWN}`,
/// `probe_grpc_ssl`, and after an answered call over TLS `probe_ssl_earliest_cert_expiry`,
/// `probe_tls_version_info{version}`, `probe_ssl_last_chain_info{…}`; the lookup's three,
/// `probe_success` (the call OK and SERVING), `probe_duration_seconds`.
///
/// Like blackbox, a call that fails (no connection, a status other than OK) reports its status
/// code and no TLS series; unlike blackbox (whose gRPC client resolves the name again and has no
/// deadline on the call), the call goes to the address the lookup chose and ends at the probe's
/// deadline (DEADLINE_EXCEEDED, 4).
///
/// Threading: `probe` runs the blocking work on a thread of `ProbeThreads`; call it from any task.
struct BlackboxGRPCProber: BlockingBlackboxProber {
    static let kind = "grpc"
    let module: BlackboxModule
    let moduleName: String
    /// The probe's time limit (s).
    let timeout: Double
    var debug = false

    func run(target: String) -> BlackboxProber.Outcome {
        let grpc = module.grpc
        var run = beginRun(target: target)
        run.exposition.set("probe_grpc_duration_seconds", 0, labels: [("phase", "resolve")])
        for name in ["probe_grpc_ssl", "probe_grpc_status_code", "probe_ssl_earliest_cert_expiry"] { run.exposition.set(name, 0) }
        guard let (host, givenPort) = Endpoint.split(Self.endpoint(of: target)), !host.isEmpty else {
            run.log.say("Could not parse target URL", "target=\(target)")
            return run.finish(success: false)
        }
        let port = givenPort ?? (grpc.tls ? 443 : 80)
        guard (1...65_535).contains(port) else {
            run.log.say("Could not parse target URL", "err=\"port \(port) out of range\"")
            return run.finish(success: false)
        }
        guard let resolved = run.resolve(host: host, preferred: grpc.preferredIPProtocol, fallback: grpc.ipProtocolFallback) else {
            return run.finish(success: false)
        }
        run.exposition.set("probe_grpc_duration_seconds", resolved.seconds, labels: [("phase", "resolve")])

        let checkStart = monotonicMicroseconds()
        var call = GRPCUnaryCall(scheme: grpc.tls ? "https" : "http", host: host, port: port, address: resolved.address,
                                 path: GRPCHealthMessages.checkPath, timeoutMs: max(1, Int((run.remaining * 1000).rounded(.down))))
        call.userAgent = "sonde/\(SondeVersion.current) (blackbox_exporter compatible)"
        if grpc.tls {
            let config = grpc.tlsConfig
            call.tls.caFile = config.caFile
            call.tls.certFile = config.certFile
            call.tls.keyFile = config.keyFile
            call.tls.insecureSkipVerify = config.insecureSkipVerify
            call.tls.serverName = config.serverName
            call.tls.minVersion = Self.version(config.minVersion) ?? .tls12
            call.tls.maxVersion = Self.version(config.maxVersion)
            call.tls.groups = BlackboxProber.goKeyExchangeGroups
        }
        run.log.say(grpc.tls ? "Dialing GRPC with TLS" : "Dialing GRPC without TLS", "address=\(resolved.address) port=\(port) service=\(grpc.service)")
        let result = call.call(GRPCHealthMessages.request(service: grpc.service))
        run.exposition.set("probe_grpc_duration_seconds", Double(monotonicMicroseconds() - checkStart) / 1e6, labels: [("phase", "check")])

        var servingStatus: String?
        var ok = false
        if result.code == .ok {
            if let bytes = result.response, let status = GRPCHealthMessages.status(response: bytes) {
                servingStatus = GRPCHealthMessages.statusNames[status] ?? "UNKNOWN"
                ok = status == 1
            } else {
                run.log.say("Malformed HealthCheckResponse", "")
            }
        }
        // blackbox's ServingStatus label values, all registered at 0 (in the order its registry writes them).
        for name in GRPCHealthMessages.statusNames.values.sorted() {
            run.exposition.set("probe_grpc_healthcheck_response", name == servingStatus ? 1 : 0, labels: [("serving_status", name)])
        }
        // Only an answered call has a peer in blackbox, so only then the TLS series.
        if result.code == .ok && servingStatus != nil && grpc.tls {
            run.exposition.set("probe_grpc_ssl", 1)
            let expiries = result.peerCertificates.compactMap(\.notAfter).map(\.microsecondsSince1970)
            // Go's `Unix()` of the earliest: whole seconds, rounded down; its zero time without one.
            let earliest = expiries.min().map { Double($0 / 1_000_000 - ($0 % 1_000_000 < 0 ? 1 : 0)) } ?? BlackboxTLS.goZeroTimeUnix
            run.exposition.set("probe_ssl_earliest_cert_expiry", earliest)
            run.exposition.set("probe_tls_version_info", 1, labels: [("version", BlackboxExposition.tlsVersionText(result.tlsVersion ?? "unknown"))])
            if let leaf = result.peerCertificates.first, let labels = BlackboxExposition.chainInfoLabels(leaf) {
                run.exposition.set("probe_ssl_last_chain_info", 1, labels: labels)
            }
        }
        run.exposition.set("probe_grpc_status_code", Double(result.code.rawValue))
        guard ok else {
            run.log.say("can't connect grpc server:", "code=\(result.code.rawValue) serving_status=\(servingStatus ?? "") err=\"\(result.message.replacingOccurrences(of: "\"", with: "'"))\"")
            return run.finish(success: false)
        }
        run.log.say("connect the grpc server successfully", "serving_status=\(servingStatus ?? "")")
        return run.finish(success: true)
    }

    /// The `host[:port]` of a grpc target: the target without an `http://` or `https://` before it
    /// (and a `/` after it), as blackbox reads it. The allow list checks this same text
    /// (`ServeRoutes.endpointRefusal`), so that what is checked is what is reached.
    static func endpoint(of target: String) -> String {
        guard let scheme = ["http://", "https://"].first(where: { target.lowercased().hasPrefix($0) }) else { return target }
        var endpoint = String(target.dropFirst(scheme.count))
        if endpoint.hasSuffix("/") { endpoint.removeLast() }
        return endpoint
    }

    static func version(_ name: String?) -> GRPCUnaryCall.TLSVersion? {
        switch name {
        case "TLS10": return .tls10
        case "TLS11": return .tls11
        case "TLS12": return .tls12
        case "TLS13": return .tls13
        default: return nil
        }
    }
}
