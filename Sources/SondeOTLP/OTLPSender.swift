import Foundation
import SondeCore
import SondeHTTP

/// Sends one OTLP/HTTP request body (protobuf) to one signal's target on sonde's libcurl engine
/// (`StreamingTransfer`), the way the OTLP specification asks: `POST` with
/// `Content-Type: application/x-protobuf`; a 2xx answer is success; 429, 502, 503, 504 and
/// failures to connect or transfer are retried (after the answer's `Retry-After` when it gives
/// seconds, else 100 ms, 200 ms, …), at most `maxAttempts` times and never past the target's
/// timeout, which bounds the whole send; any other answer is a failure at once. With protocol
/// `grpc` the body goes as the request message of the target's service's `Export` unary call
/// (`GRPCUnaryCall`, the host resolved once per attempt and the connection pinned to it; headers
/// as lowercase metadata); UNAVAILABLE, CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE,
/// DATA_LOSS and RESOURCE_EXHAUSTED are retried, as the OTLP specification lists them.
///
/// Threading: blocks the calling thread for at most the target's timeout (plus libcurl's last
/// tick); call it off Swift's cooperative pool.
struct OTLPSender {
    static let maxAttempts = 3

    /// What one send came to.
    struct Outcome {
        /// nil on success; else why the last attempt failed.
        var failure: String?
        var attempts: Int
    }

    let target: OTLPSettings.Target

    func send(_ body: [UInt8]) -> Outcome {
        if let service = target.grpcService { return sendGRPC(body, service: service) }
        let deadline = monotonicSeconds() + target.timeout
        var attempt = 0
        var lastFailure = "not sent"
        while attempt < Self.maxAttempts {
            attempt += 1
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0.001 else { break }
            var options = ProbeOptions()
            options.timeoutMs = max(1, Int(remaining * 1000))
            options.connectTimeoutMs = options.timeoutMs
            options.insecure = target.insecure
            options.caCertPath = target.caCertPath
            options.reuseConnections = false
            options.altSvc = false
            let transfer: StreamingTransfer
            do throws(TaskError) { transfer = try StreamingTransfer(options: options, redactor: Redactor(enabled: true, extraNames: [])) } catch {
                return Outcome(failure: error.message, attempts: attempt)
            }
            var offset = 0
            let upload = UploadBody(length: Int64(body.count)) { buffer in
                let count = min(buffer.count, body.count - offset)
                guard count > 0 else { return 0 }
                body.withUnsafeBytes { source in
                    if let base = source.baseAddress { buffer.baseAddress?.copyMemory(from: base + offset, byteCount: count) }
                }
                offset += count
                return count
            }
            let headers = [HeaderField(name: "Content-Type", value: "application/x-protobuf")] + target.headers
            let response = transfer.perform(url: target.url, method: "POST", headers: headers, body: upload)
            var retryAfter: Double?
            if let status = response.head?.status, response.error == nil {
                if (200...299).contains(status) { return Outcome(failure: nil, attempts: attempt) }
                lastFailure = "the collector answered HTTP \(status)"
                guard [429, 502, 503, 504].contains(status) else { return Outcome(failure: lastFailure, attempts: attempt) }
                if let text = response.head?.value("Retry-After"), let seconds = Double(text), seconds.isFinite, seconds >= 0 {
                    retryAfter = seconds
                }
            } else {
                lastFailure = response.error?.message ?? "no answer"
                if response.error?.code == .interrupted { return Outcome(failure: lastFailure, attempts: attempt) }
            }
            guard attempt < Self.maxAttempts else { break }
            let remainingNow = deadline - monotonicSeconds()
            let pause = retryAfter ?? 0.1 * Double(1 << (attempt - 1))
            // A pause that ends past the deadline leaves no attempt worth making.
            guard pause < remainingNow else { break }
            if pause > 0 { usleep(UInt32(min(pause, 300) * 1_000_000)) }
        }
        return Outcome(failure: lastFailure, attempts: attempt)
    }

    /// The gRPC codes the OTLP specification retries.
    static let retryableGRPC: Set<GRPCUnaryCall.Code> = [.unavailable, .cancelled, .deadlineExceeded, .aborted, .outOfRange, .dataLoss,
                                                         .resourceExhausted]

    private func sendGRPC(_ body: [UInt8], service: String) -> Outcome {
        guard let endpoint = GRPCEndpoint(target.url) else { return Outcome(failure: "the gRPC endpoint is not http(s)://HOST[:PORT]", attempts: 0) }
        let deadline = monotonicSeconds() + target.timeout
        var attempt = 0
        var lastFailure = "not sent"
        while attempt < Self.maxAttempts {
            attempt += 1
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0.001 else { break }
            let address: String
            switch AddressResolver.resolve(host: endpoint.host, preferred: "ip4", fallback: true) {
            case .success(let resolved): address = resolved.address
            case .failure(let error):
                lastFailure = error.message
                guard attempt < Self.maxAttempts, pause(attempt, until: deadline) else { return Outcome(failure: lastFailure, attempts: attempt) }
                continue
            }
            var call = GRPCUnaryCall(scheme: endpoint.scheme, host: endpoint.host, port: endpoint.port, address: address,
                                     path: "/\(service)/Export", timeoutMs: max(1, Int((deadline - monotonicSeconds()) * 1000)))
            call.tls.caFile = target.caCertPath
            call.tls.insecureSkipVerify = target.insecure
            call.metadata = target.headers.map { HeaderField(name: $0.name.lowercased(), value: $0.value) }
            let result = call.call(body)
            if result.code == .ok { return Outcome(failure: nil, attempts: attempt) }
            lastFailure = "the collector's gRPC status \(result.rawCode.map(String.init) ?? "\(result.code.rawValue)")"
                + (result.message.isEmpty ? "" : ": \(result.message.prefix(200))")
            guard Self.retryableGRPC.contains(result.code), attempt < Self.maxAttempts, pause(attempt, until: deadline) else {
                return Outcome(failure: lastFailure, attempts: attempt)
            }
        }
        return Outcome(failure: lastFailure, attempts: attempt)
    }

    /// Waits before attempt `attempt + 1` (100 ms, 200 ms, …); false when that would end past `deadline`.
    private func pause(_ attempt: Int, until deadline: Double) -> Bool {
        let pause = 0.1 * Double(1 << (attempt - 1))
        guard pause < deadline - monotonicSeconds() else { return false }
        usleep(UInt32(pause * 1_000_000))
        return true
    }

    private func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
