import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SondeCore
import SondeHTTP
import SondeSuite

/// `/probe` with blackbox_exporter's tcp prober: resolve the target's host by the module's IP
/// preference, connect (with TLS from the first byte when `tls:`), then each `query_response`
/// step in order: read lines until one matches `expect`, send `send` (expanded from the match)
/// with a newline, upgrade to TLS on `starttls`. The series are blackbox 0.23's:
/// `probe_failed_due_to_regex`, the lookup's three (`BlackboxProbeRun.resolve`), the TLS ones
/// after a handshake (`BlackboxTLS.record`), `probe_success`, `probe_duration_seconds`.
///
/// The connection is SwiftNIO's (NIOSSL for TLS), on NIO's shared event loops; the whole probe
/// is bounded by `timeout`: the connection is closed at the deadline, whatever step it is in, the
/// deadline is checked before each line read, and each match runs on `RegexpLane` under it.
///
/// Threading: `probe` is async and may be called from any task; the lookup runs on `ProbeThreads`.
struct BlackboxTCPProber {
    let module: BlackboxModule
    let moduleName: String
    /// The probe's time limit (s).
    let timeout: Double
    var debug = false

    func probe(target: String) async -> BlackboxProber.Outcome {
        var run = BlackboxProbeRun(timeout: timeout, log: BlackboxProber.Log(target: target, module: moduleName, enabled: debug))
        let tcp = module.tcp
        run.log.say("Beginning probe", "probe=tcp timeout_seconds=\(timeout)")
        run.exposition.set("probe_failed_due_to_regex", 0)
        guard let (host, port) = Endpoint.split(target), let port, (1...65_535).contains(port) else {
            run.log.say("Error splitting target address and port", "err=\"address \(target): missing port in address\"")
            return run.finish(success: false)
        }
        let (afterLookup, resolved) = await WorkerPool.probeThreads.run { () -> (BlackboxProbeRun, AddressResolver.Resolved?) in
            var copy = run
            let resolved = copy.resolve(host: host, preferred: tcp.preferredIPProtocol, fallback: tcp.ipProtocolFallback)
            return (copy, resolved)
        }
        run = afterLookup
        guard let resolved else {
            run.log.say("Error dialing TCP", "err=\"could not resolve \(host)\"")
            return run.finish(success: false)
        }
        let success = await converse(host: host, port: port, address: resolved.address, run: &run)
        return run.finish(success: success)
    }

    /// Connects and runs the steps; false (logged) on the first failure.
    private func converse(host: String, port: Int, address: String, run: inout BlackboxProbeRun) async -> Bool {
        let tcp = module.tcp
        let serverName = tcp.tlsConfig.serverName ?? host
        var sslContext: NIOSSLContext?
        if tcp.tls || tcp.queryResponse.contains(where: \.startTLS) {
            do {
                sslContext = try BlackboxTLS.context(tcp.tlsConfig)
            } catch {
                run.log.say("Error creating TLS configuration", "err=\"\(error)\"")
                return false
            }
        }
        let socketAddress: SocketAddress
        do {
            socketAddress = try SocketAddress(ipAddress: address, port: port)
        } catch {
            run.log.say("Error dialing TCP", "err=\"\(error)\"")
            return false
        }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: BlackboxTLS.Facts.self)
        run.log.say(tcp.tls ? "Dialing TCP with TLS" : "Dialing TCP without TLS", "")
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            let initialTLS = tcp.tls ? sslContext : nil
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.nanoseconds(Int64(run.remaining * 1e9)))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(to: socketAddress) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let initialTLS {
                            let sync = channel.pipeline.syncOperations
                            let tls = try BlackboxTLS.handler(context: initialTLS, serverName: serverName)
                            try sync.addHandler(tls)
                            try sync.addHandler(TLSHandshakeWatcher(promise: handshake, watching: tls))
                        }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            handshake.fail(ChannelError.ioOnClosedChannel)
            run.log.say("Error dialing TCP", "err=\"\(error)\"")
            return false
        }
        if !tcp.tls { handshake.succeed(BlackboxTLS.Facts()) }
        // The deadline: the connection is closed, and whatever waits on it ends.
        let raw = channel.channel
        let closer = raw.eventLoop.scheduleTask(in: .nanoseconds(Int64(run.remaining * 1e9))) { raw.close(promise: nil) }
        defer { closer.cancel() }
        var log = run.log
        var exposition = run.exposition
        let deadline = run.started + Int64(timeout * 1e6)
        let expiredBy: @Sendable () -> Bool = { monotonicMicroseconds() >= deadline }
        let success: Bool
        do {
            success = try await channel.executeThenClose { inbound, outbound in
                let initialFacts: BlackboxTLS.Facts
                do {
                    initialFacts = try await handshake.futureResult.get()
                } catch {
                    log.say("Error dialing TCP", "err=\"\(Self.describe(error, expired: expiredBy()))\"")
                    return false
                }
                log.say("Successfully dialed", "")
                if tcp.tls { BlackboxTLS.record(initialFacts, verified: !tcp.tlsConfig.insecureSkipVerify, into: &exposition) }
                var reader = TCPLineReader(inbound.makeAsyncIterator())
                for (number, step) in tcp.queryResponse.enumerated() {
                    log.say("Processing query response entry", "entry_number=\(number)")
                    var send = step.send
                    if let expression = step.expect {
                        var matched: (line: [UInt8], match: GoRegexp.Match)?
                        var last: [UInt8] = []
                        do {
                            var lines = 0
                            // The deadline is checked before each line: a peer streaming lines that never
                            // match cannot keep the probe reading past it (the lines NIO buffered included).
                            while matched == nil, !expiredBy(), let bytes = try await reader.next() {
                                last = bytes
                                if let match = try await RegexpLane.shared.firstMatch(expression, bytes, deadline: deadline) { matched = (bytes, match) }
                                lines += 1
                                // Other tasks (another probe, `/-/healthy`) get the thread between lines.
                                if lines % 32 == 0 { await Task.yield() }
                            }
                        } catch {
                            log.say("Error reading from connection", "err=\"\(Self.describe(error, expired: expiredBy()))\"")
                            return false
                        }
                        // The connection closed at the deadline ends the lines as an end of stream would:
                        // for blackbox that is a read error (i/o timeout), not a regex that found no line.
                        if matched == nil && expiredBy() {
                            log.say("Error reading from connection", "err=\"\(Self.describe(ChannelError.eof, expired: true))\"")
                            return false
                        }
                        guard let (line, match) = matched else {
                            exposition.set("probe_failed_due_to_regex", 1)
                            log.say("Regexp did not match", "regexp=\(expression.source) line=\"\(String(decoding: last, as: UTF8.self))\"")
                            return false
                        }
                        log.say("Regexp matched", "regexp=\(expression.source) line=\"\(String(decoding: line, as: UTF8.self))\"")
                        exposition.set("probe_failed_due_to_regex", 0)
                        send = expression.expand(send, bytes: line, match: match)
                    }
                    if !send.isEmpty {
                        do {
                            try await outbound.write(ByteBuffer(string: send + "\n"))
                        } catch {
                            log.say("Failed to send", "err=\"\(Self.describe(error, expired: expiredBy()))\"")
                            return false
                        }
                    }
                    if step.startTLS, let sslContext {
                        let facts: BlackboxTLS.Facts
                        do {
                            facts = try await Self.startTLS(raw, context: sslContext, serverName: serverName)
                        } catch {
                            log.say("TLS Handshake (client) failed", "err=\"\(Self.describe(error, expired: expiredBy()))\"")
                            return false
                        }
                        log.say("TLS Handshake (client) succeeded.", "")
                        reader.discardBuffered()
                        BlackboxTLS.record(facts, verified: !tcp.tlsConfig.insecureSkipVerify, into: &exposition)
                    }
                }
                return true
            }
        } catch {
            log.say("Error on the connection", "err=\"\(Self.describe(error, expired: expiredBy()))\"")
            success = false
        }
        run.log = log
        run.exposition = exposition
        return success
    }

    /// Puts TLS in front of the connection (the pipeline's first handlers, in one event-loop
    /// turn so that no byte passes between), waits for the handshake and returns what it told.
    static func startTLS(_ channel: Channel, context: NIOSSLContext, serverName: String) async throws -> BlackboxTLS.Facts {
        let promise = channel.eventLoop.makePromise(of: BlackboxTLS.Facts.self)
        try await channel.eventLoop.submit {
            let sync = channel.pipeline.syncOperations
            let tls = try BlackboxTLS.handler(context: context, serverName: serverName)
            try sync.addHandler(TLSHandshakeWatcher(promise: promise, watching: tls), position: .first)
            try sync.addHandler(tls, position: .first)
        }.get()
        return try await promise.futureResult.get()
    }

    /// An error as the log says it; a connection closed at the deadline, or a match that did not
    /// end before it, is a timeout.
    static func describe(_ error: Error, expired: Bool) -> String {
        if expired || error is RegexpLane.Overdue { return "i/o timeout (the probe's deadline passed)" }
        if error is TCPLineReader.Failure { return "bufio.Scanner: token too long" }
        return String(describing: error).replacingOccurrences(of: "\"", with: "'")
    }
}
