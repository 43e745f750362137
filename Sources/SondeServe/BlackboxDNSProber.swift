import SondeCore
import SondeDNS
import SondeSuite

/// `/probe` with blackbox_exporter's dns prober: one query (`query_name`, `query_type`,
/// `query_class`, `recursion_desired`) to the target (`host[:port]`, port 53 by default) over
/// `transport_protocol`, the response's rcode judged by `valid_rcodes` (NOERROR by default) and
/// each section's records by their regexes, with blackbox 0.23's series:
/// `probe_dns_duration_seconds{phase=resolve|connect|request}`, `probe_dns_answer_rrs`,
/// `probe_dns_authority_rrs`, `probe_dns_additional_rrs`, `probe_dns_query_succeeded`,
/// `probe_dns_serial` (a SOA query), the lookup's three, `probe_success`, `probe_duration_seconds`.
///
/// Threading: `probe` runs the blocking work on a thread of `ProbeThreads`; call it from any task.
struct BlackboxDNSProber: BlockingBlackboxProber {
    static let kind = "dns"
    let module: BlackboxModule
    let moduleName: String
    /// The probe's time limit (s).
    let timeout: Double
    var debug = false

    func run(target: String) -> BlackboxProber.Outcome {
        let dns = module.dns
        var run = beginRun(target: target)
        for phase in ["resolve", "connect", "request"] { run.exposition.set("probe_dns_duration_seconds", 0, labels: [("phase", phase)]) }
        for name in ["probe_dns_answer_rrs", "probe_dns_authority_rrs", "probe_dns_additional_rrs", "probe_dns_query_succeeded"] {
            run.exposition.set(name, 0)
        }
        let queryType = DNSCodes.types[dns.queryType] ?? 255, queryClass = DNSCodes.classes[dns.queryClass] ?? 1
        // `host:port`, or a host alone (port 53), as blackbox splits it.
        let split = Endpoint.split(target)
        let host = split?.port == nil ? target : split?.host ?? target
        let port = split?.port ?? 53
        guard (1...65_535).contains(port) else {
            run.log.say("Error splitting target address and port", "err=\"port \(port) out of range\"")
            return run.finish(success: false)
        }
        guard let resolved = run.resolve(host: host, preferred: dns.preferredIPProtocol, fallback: dns.ipProtocolFallback) else {
            return run.finish(success: false)
        }
        run.exposition.set("probe_dns_duration_seconds", resolved.seconds, labels: [("phase", "resolve")])

        let id = UInt16.random(in: 0...UInt16.max)
        let query: [UInt8]
        do throws(DNSMessage.BadName) {
            query = try DNSMessage.query(id: id, name: dns.queryName, type: queryType, dnsClass: queryClass, recursionDesired: dns.recursionDesired)
        } catch {
            run.log.say("Error while sending a DNS query", "err=\"\(error.message)\"")
            return run.finish(success: false)
        }
        let dial = dns.transportProtocol + (resolved.family == 6 ? "6" : "4")
        let targetIP = resolved.family == 6 ? "[\(resolved.address)]:\(port)" : "\(resolved.address):\(port)"
        run.log.say("Making DNS query", "target=\(targetIP) dial_protocol=\(dial) query=\(dns.queryName) type=\(queryType) class=\(queryClass)")
        let exchange = DNSExchange(deadline: run.started + Int64(timeout * 1e6))
        var timing = DNSExchange.Timing()
        let result = exchange.exchange(query: query, address: resolved.address, family: resolved.family, port: port,
                                       tcp: dns.transportProtocol == "tcp", timing: &timing)
        run.exposition.set("probe_dns_duration_seconds", timing.connect, labels: [("phase", "connect")])
        run.exposition.set("probe_dns_duration_seconds", timing.request, labels: [("phase", "request")])
        let response: DNSMessage
        switch result {
        case .failure(let failure):
            run.log.say("Error while sending a DNS query", "err=\"\(failure.message)\"")
            return run.finish(success: false)
        case .success(let bytes):
            do throws(DNSWireReader.Malformed) {
                response = try DNSMessage.decode(bytes)
            } catch {
                run.log.say("Error while sending a DNS query", "err=\"malformed response: \(error)\"")
                return run.finish(success: false)
            }
        }
        run.log.say("Got response", "response=\"\(response.answers.count) answers, \(response.authority.count) authority, \(response.additional.count) additional\"")
        run.exposition.set("probe_dns_answer_rrs", Double(response.answers.count))
        run.exposition.set("probe_dns_authority_rrs", Double(response.authority.count))
        run.exposition.set("probe_dns_additional_rrs", Double(response.additional.count))
        run.exposition.set("probe_dns_query_succeeded", 1)
        if queryType == 6 {
            run.exposition.set("probe_dns_serial", 0)
            for record in response.answers where record.type == 6 && record.data.count >= 20 {
                // The serial is the first of the five numbers after the two names: the last 20 bytes' first 4.
                let serial = record.data[(record.data.count - 20)..<(record.data.count - 16)].reduce(0) { $0 << 8 | UInt32($1) }
                run.exposition.set("probe_dns_serial", Double(serial))
            }
        }
        let valid = dns.validRcodes.isEmpty ? [0] : dns.validRcodes.compactMap { DNSCodes.rcodes[$0] }
        guard valid.contains(response.rcode) else {
            run.log.say("Rcode is not one of the valid rcodes", "rcode=\(response.rcode) string_rcode=\(DNSCodes.rcodeName(response.rcode)) valid_rcodes=\(valid)")
            return run.finish(success: false)
        }
        run.log.say("Rcode is valid", "rcode=\(response.rcode) string_rcode=\(DNSCodes.rcodeName(response.rcode))")
        for (section, records, validator) in [("Answer", response.answers, dns.validateAnswer), ("Authority", response.authority, dns.validateAuthority),
                                              ("Additional", response.additional, dns.validateAdditional)] {
            run.log.say("Validating \(section) RRs", "")
            guard Self.valid(records.map(\.text), validator, deadline: run.started + Int64(timeout * 1e6), log: &run.log) else {
                run.log.say("\(section) RRs validation failed", "")
                return run.finish(success: false)
            }
        }
        return run.finish(success: true)
    }

    /// blackbox's `validRRs`: the section's records (as text) against the validator's four lists.
    /// Each match runs on `RegexpLane` and ends by `deadline` (monotonic µs): past it the section fails.
    static func valid(_ records: [String], _ validator: BlackboxModule.RRValidator, deadline: Int64, log: inout BlackboxProber.Log) -> Bool {
        if records.isEmpty && !validator.failIfNotMatches.isEmpty {
            log.say("fail_if_not_matches_regexp specified but no RRs returned", "")
            return false
        }
        if records.isEmpty && !validator.failIfNoneMatches.isEmpty {
            log.say("fail_if_none_matches_regexp specified but no RRs returned", "")
            return false
        }
        let failIfMatches = validator.failIfMatches, failIfAllMatch = validator.failIfAllMatch
        let failIfNotMatches = validator.failIfNotMatches, failIfNoneMatches = validator.failIfNoneMatches
        var allMatch = true, anyMatch = false
        do throws(RegexpLane.Overdue) {
            for record in records {
                log.say("Validating RR", "rr=\"\(record)\"")
                let text = Array(record.utf8)
                func matches(_ expression: GoRegexp) throws(RegexpLane.Overdue) -> Bool {
                    try RegexpLane.shared.matches(expression, text, deadline: deadline)
                }
                for expression in failIfMatches {
                    guard try !matches(expression) else {
                        log.say("At least one RR matched regexp", "regexp=\(expression.source) rr=\"\(record)\"")
                        return false
                    }
                }
                for expression in failIfAllMatch { if try !matches(expression) { allMatch = false } }
                for expression in failIfNotMatches {
                    guard try matches(expression) else {
                        log.say("At least one RR did not match regexp", "regexp=\(expression.source) rr=\"\(record)\"")
                        return false
                    }
                }
                for expression in failIfNoneMatches { if try matches(expression) { anyMatch = true } }
            }
        } catch {
            log.say("Error matching regexp", "err=\"the probe's deadline passed\"")
            return false
        }
        // blackbox 0.23 fails here when some record did *not* match (whatever the option's name says).
        if !failIfAllMatch.isEmpty && !allMatch {
            log.say("Not all RRs matched regexp", "")
            return false
        }
        if !failIfNoneMatches.isEmpty && !anyMatch {
            log.say("None of the RRs did matched any regexp", "")
            return false
        }
        return true
    }
}
