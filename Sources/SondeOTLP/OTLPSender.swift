import Foundation
import SondeCore
import SondeHTTP
import SondeReport

/// Sends one OTLP/HTTP request body (protobuf) to one signal's target on sonde's libcurl engine
/// (`StreamingTransfer`), the way the OTLP specification asks: `POST` with
/// `Content-Type: application/x-protobuf`; a 2xx answer is success; 429, 502, 503, 504 and
/// failures to connect or transfer are retried (after the answer's `Retry-After` when it gives
/// seconds, else 100 ms, 200 ms, …), at most `maxAttempts` times and never past the target's
/// timeout, which bounds the whole send; any other answer is a failure at once. A redirect (3xx)
/// is never followed (the request carries the collector's headers, an API key among them, for
/// that collector only): it is a failure naming its Location. With `Content-Encoding: gzip` when
/// the target's compression says so. With protocol
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
        if let service = target.grpcService {
            guard let endpoint = GRPCEndpoint(target.url) else {
                return Outcome(failure: "the gRPC endpoint is not http(s)://HOST[:PORT]", attempts: 0)
            }
            return retrying { deadline in callGRPC(body, endpoint: endpoint, service: service, deadline: deadline) }
        }
        return retrying { deadline in post(body, deadline: deadline) }
    }

    /// What one attempt came to.
    private enum Attempt {
        case delivered
        /// A failure not worth retrying.
        case failed(String)
        /// A failure worth retrying, after this long when the collector said (else the backoff).
        case retry(String, after: Double?)
    }

    /// Makes attempts until one is delivered or fails for good, at most `maxAttempts`, pausing
    /// 100 ms, 200 ms, … (or as told) between them, all within the target's timeout. `once` gets
    /// the deadline (monotonic seconds).
    private func retrying(_ once: (Double) -> Attempt) -> Outcome {
        let deadline = monotonicSeconds() + target.timeout
        var attempt = 0
        var lastFailure = "not sent"
        while attempt < Self.maxAttempts {
            attempt += 1
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0.001 else { break }
            switch once(deadline) {
            case .delivered: return Outcome(failure: nil, attempts: attempt)
            case .failed(let why): return Outcome(failure: why, attempts: attempt)
            case .retry(let why, let after):
                lastFailure = why
                guard attempt < Self.maxAttempts else { return Outcome(failure: lastFailure, attempts: attempt) }
                let pause = after ?? 0.1 * Double(1 << (attempt - 1))
                // A pause that ends past the deadline leaves no attempt worth making.
                guard pause < deadline - monotonicSeconds() else { return Outcome(failure: lastFailure, attempts: attempt) }
                if pause > 0 { usleep(UInt32(min(pause, 300) * 1_000_000)) }
            }
        }
        return Outcome(failure: lastFailure, attempts: attempt)
    }

    /// One OTLP/HTTP POST.
    private func post(_ body: [UInt8], deadline: Double) -> Attempt {
        var options = ProbeOptions()
        options.timeoutMs = max(1, Int((deadline - monotonicSeconds()) * 1000))
        options.connectTimeoutMs = options.timeoutMs
        options.insecure = target.insecure
        options.caCertPath = target.caCertPath
        options.reuseConnections = false
        options.altSvc = false
        let transfer: StreamingTransfer
        let redactor = Redactor(enabled: true, extraNames: [])
        do throws(TaskError) { transfer = try StreamingTransfer(options: options, redactor: redactor, followsRedirects: false) } catch {
            return .failed(error.message)
        }
        var body = body
        var headers = [HeaderField(name: "Content-Type", value: "application/x-protobuf")]
        if target.compression == .gzip, let compressed = OTLPGzip.compress(body) {
            body = compressed
            headers.append(HeaderField(name: "Content-Encoding", value: "gzip"))
        }
        headers += target.headers
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
        let response = transfer.perform(url: target.url, method: "POST", headers: headers, body: upload)
        guard let status = response.head?.status, response.error == nil else {
            guard let error = response.error else { return .retry("no answer", after: nil) }
            if error.code == .interrupted { return .failed(error.message) }
            // libcurl's timeout hint names the probe's --timeout: the export has its own.
            let timedOut = error.code == .timedOut || error.code == .connectTimeout || error.code == .tlsTimeout
            return .retry(timedOut ? Self.timeoutMessage(target.timeout) : error.message, after: nil)
        }
        if (200...299).contains(status) { return .delivered }
        if (300...399).contains(status) {
            let location = response.head?.value("Location").map { "to \(redactor.redact(url: String($0.prefix(2000)))) " } ?? ""
            return .failed("the collector answered HTTP \(status), a redirect \(location)(not followed: an OTLP exporter sends to the "
                + "endpoint it is given, with its headers for that endpoint only; give the final URL)")
        }
        let why = "the collector answered HTTP \(status)"
        guard [429, 502, 503, 504].contains(status) else { return .failed(why) }
        let retryAfter = response.head?.value("Retry-After").flatMap { RetryAfter(parsing: String($0)) }
        return .retry(why, after: retryAfter?.delaySeconds(now: Date()))
    }

    /// What a collector that did not answer in time is told: the export's own bound and where it is set.
    static func timeoutMessage(_ timeout: Double) -> String {
        "the collector did not answer within the export's timeout of \(formatMs(timeout * 1000)) ms "
            + "(raise OTEL_EXPORTER_OTLP_TIMEOUT, in milliseconds, or otlp: {timeout:} in serve's config, if it is just slow)"
    }

    /// The gRPC codes the OTLP specification retries.
    static let retryableGRPC: Set<GRPCUnaryCall.Code> = [.unavailable, .cancelled, .deadlineExceeded, .aborted, .outOfRange, .dataLoss,
                                                         .resourceExhausted]

    /// One gRPC `Export` call, to the address the host resolves to now.
    private func callGRPC(_ body: [UInt8], endpoint: GRPCEndpoint, service: String, deadline: Double) -> Attempt {
        let address: String
        switch AddressResolver.resolve(host: endpoint.host, preferred: "ip4", fallback: true) {
        case .success(let resolved): address = resolved.address
        case .failure(let error): return .retry(error.message, after: nil)
        }
        var call = GRPCUnaryCall(scheme: endpoint.scheme, host: endpoint.host, port: endpoint.port, address: address,
                                 path: "/\(service)/Export", timeoutMs: max(1, Int((deadline - monotonicSeconds()) * 1000)))
        call.tls.caFile = target.caCertPath
        call.tls.insecureSkipVerify = target.insecure
        call.metadata = target.headers.map { HeaderField(name: $0.name.lowercased(), value: $0.value) }
        let result = call.call(body)
        if result.code == .ok { return .delivered }
        let why = "the collector's gRPC status \(result.rawCode.map(String.init) ?? "\(result.code.rawValue)")"
            + (result.message.isEmpty ? "" : ": \(result.message.prefix(200))")
        return Self.retryableGRPC.contains(result.code) ? .retry(why, after: nil) : .failed(why)
    }

    private func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
