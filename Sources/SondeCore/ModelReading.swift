/// `JSONReadable` conformances of the journal's task model (see `JSONReader` for why).
/// Each reads keys in any order, skips unknown ones, and throws when a required key is missing.

extension Timestamp: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        let text = try reader.readString()
        guard let value = Timestamp(iso8601: text) else { throw reader.error("not an ISO 8601 UTC timestamp: \(text)") }
        self = value
    }
}

extension HeaderField: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var name: String?, value: String?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "name": name = try r.readString()
            case "value": value = try r.readString()
            default: try r.skipValue()
            }
        }
        guard let name, let value else { throw reader.error("a header needs name and value") }
        self.init(name: name, value: value)
    }
}

extension RequestRecord: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var method: String?, url: String?, headers: [HeaderField]?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "method": method = try r.readString()
            case "url": url = try r.readString()
            case "headers": headers = try r.readArray(of: HeaderField.self)
            default: try r.skipValue()
            }
        }
        guard let method, let url, let headers else { throw reader.error("a request needs method, url and headers") }
        self.init(method: method, url: url, headers: headers)
    }
}

extension ResponseRecord: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var statusCode: Int?, headers: [HeaderField]?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "statusCode": statusCode = try r.readInt()
            case "headers": headers = try r.readArray(of: HeaderField.self)
            default: try r.skipValue()
            }
        }
        guard let statusCode, let headers else { throw reader.error("a response needs statusCode and headers") }
        self.init(statusCode: statusCode, headers: headers)
    }
}

extension HTTP3Fallback: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var reason: String?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "reason": reason = try r.readString()
            default: try r.skipValue()
            }
        }
        guard let reason else { throw reader.error("an http3Fallback needs a reason") }
        self.init(reason: reason)
    }
}

extension PeerCertificate: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var subject: String?, issuer: String?
        var certificate = PeerCertificate(subject: "", issuer: "")
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "subject": subject = try r.readString()
            case "issuer": issuer = try r.readString()
            case "serialNumber": certificate.serialNumber = try r.readOptionalString()
            case "signatureAlgorithm": certificate.signatureAlgorithm = try r.readOptionalString()
            case "publicKeyAlgorithm": certificate.publicKeyAlgorithm = try r.readOptionalString()
            case "notBefore": certificate.notBefore = try r.readOptional(Timestamp.self)
            case "notAfter": certificate.notAfter = try r.readOptional(Timestamp.self)
            case "fingerprintSHA256": certificate.fingerprintSHA256 = try r.readOptionalString()
            case "dnsNames": certificate.dnsNames = r.readNull() ? nil : try r.readStrings()
            case "ipAddresses": certificate.ipAddresses = r.readNull() ? nil : try r.readStrings()
            case "subjectDN": certificate.subjectDN = try r.readOptionalString()
            case "issuerDN": certificate.issuerDN = try r.readOptionalString()
            default: try r.skipValue()
            }
        }
        guard let subject, let issuer else { throw reader.error("a certificate needs subject and issuer") }
        certificate.subject = subject
        certificate.issuer = issuer
        self = certificate
    }
}

extension FlowEvidence.PacketMark: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var mark = FlowEvidence.PacketMark(offsetUs: 0, fromClient: false, payload: 0, flags: "")
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "offsetUs": mark.offsetUs = try r.readInt64()
            case "fromClient": mark.fromClient = try r.readBool()
            case "payload": mark.payload = try r.readInt()
            case "flags": mark.flags = try r.readString()
            default: try r.skipValue()
            }
        }
        self = mark
    }
}

extension CaptureEvidence: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var evidence = CaptureEvidence(flow: "")
        var flow: String?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "flow": flow = try r.readString()
            case "transport": evidence.transport = try r.readString()
            case "synSeen": evidence.synSeen = try r.readBool()
            case "clientInitialSeen": evidence.clientInitialSeen = try r.readOptionalBool()
            case "synToSynAckMs": evidence.synToSynAckMs = try r.readOptionalDouble()
            case "initialRttMs": evidence.initialRttMs = try r.readOptionalDouble()
            case "retransmissions": evidence.retransmissions = try r.readInt()
            case "resets": evidence.resets = try r.readInt()
            case "reuseAgrees": evidence.reuseAgrees = try r.readOptionalBool()
            case "connectAgrees": evidence.connectAgrees = try r.readOptionalBool()
            case "tlsVersion": evidence.tlsVersion = try r.readOptionalString()
            case "tlsHandshakeMs": evidence.tlsHandshakeMs = try r.readOptionalDouble()
            case "tlsAgrees": evidence.tlsAgrees = try r.readOptionalBool()
            case "packets": evidence.packets = try r.readArray(of: FlowEvidence.PacketMark.self)
            default: try r.skipValue()
            }
        }
        guard let flow else { throw reader.error("capture evidence needs flow") }
        evidence.flow = flow
        self = evidence
    }
}

extension Phases: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var phases = Phases()
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "dns": phases.dns = try r.readOptionalDouble()
            case "connect": phases.connect = try r.readOptionalDouble()
            case "tls": phases.tls = try r.readOptionalDouble()
            case "send": phases.send = try r.readOptionalDouble()
            case "wait": phases.wait = try r.readOptionalDouble()
            case "receive": phases.receive = try r.readOptionalDouble()
            case "total": phases.total = try r.readOptionalDouble()
            default: try r.skipValue()
            }
        }
        self = phases
    }
}

extension TaskError: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var code: ErrorCode?, message: String?, curlCode: Int?, reason: String?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "code":
                let text = try r.readString()
                guard let value = ErrorCode(rawValue: text) else { throw r.error("unknown error code \(text)") }
                code = value
            case "message": message = try r.readString()
            case "curlCode": curlCode = try r.readOptionalInt()
            case "reason": reason = try r.readOptionalString()
            default: try r.skipValue()
            }
        }
        guard let code, let message else { throw reader.error("an error needs code and message") }
        self.init(code: code, message: message, curlCode: curlCode, reason: reason)
    }
}

extension TaskInterval: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var start: Timestamp?, duration: Double?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "start": start = try Timestamp(reading: &r)
            case "durationMs": duration = try r.readDouble()
            default: try r.skipValue()
            }
        }
        guard let start, let duration else { throw reader.error("a task interval needs start and durationMs") }
        self.init(start: start, durationMs: duration)
    }
}

extension TransactionMetrics: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var request: RequestRecord?
        var t = TransactionMetrics(request: RequestRecord(method: "", url: "", headers: []))
        var seen = (reused: false, proxy: false, phases: false, counts: 0)
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "request": request = try RequestRecord(reading: &r)
            case "response": t.response = try r.readOptional(ResponseRecord.self)
            case "fetchStartDate": t.fetchStartDate = try r.readOptional(Timestamp.self)
            case "domainLookupStartDate": t.domainLookupStartDate = try r.readOptional(Timestamp.self)
            case "domainLookupEndDate": t.domainLookupEndDate = try r.readOptional(Timestamp.self)
            case "connectStartDate": t.connectStartDate = try r.readOptional(Timestamp.self)
            case "secureConnectionStartDate": t.secureConnectionStartDate = try r.readOptional(Timestamp.self)
            case "secureConnectionEndDate": t.secureConnectionEndDate = try r.readOptional(Timestamp.self)
            case "connectEndDate": t.connectEndDate = try r.readOptional(Timestamp.self)
            case "requestStartDate": t.requestStartDate = try r.readOptional(Timestamp.self)
            case "requestEndDate": t.requestEndDate = try r.readOptional(Timestamp.self)
            case "responseStartDate": t.responseStartDate = try r.readOptional(Timestamp.self)
            case "responseEndDate": t.responseEndDate = try r.readOptional(Timestamp.self)
            case "networkProtocolName": t.networkProtocolName = try r.readOptionalString()
            case "queue": t.queue = try r.readOptionalDouble()
            case "libcurlQueue": t.libcurlQueue = try r.readOptionalDouble()
            case "isReusedConnection": t.isReusedConnection = try r.readBool(); seen.reused = true
            case "isProxyConnection": t.isProxyConnection = try r.readBool(); seen.proxy = true
            case "connectionID": t.connectionID = try r.readOptionalInt()
            case "http3Fallback": t.http3Fallback = try r.readOptional(HTTP3Fallback.self)
            case "altSvc": t.altSvc = try r.readOptional(AltSvcUse.self)
            case "altSvcFailure": t.altSvcFailure = try r.readOptional(AltSvcFailure.self)
            case "remoteAddress": t.remoteAddress = try r.readOptionalString()
            case "remotePort": t.remotePort = try r.readOptionalInt()
            case "localAddress": t.localAddress = try r.readOptionalString()
            case "localPort": t.localPort = try r.readOptionalInt()
            case "negotiatedTLSProtocolVersion": t.negotiatedTLSProtocolVersion = try r.readOptionalString()
            case "negotiatedTLSCipherSuite": t.negotiatedTLSCipherSuite = try r.readOptionalString()
            case "tlsSessionReused": t.tlsSessionReused = try r.readOptionalBool()
            case "peerCertificates": t.peerCertificates = try r.readArray(of: PeerCertificate.self)
            case "countOfRequestHeaderBytesSent": t.countOfRequestHeaderBytesSent = try r.readInt64(); seen.counts += 1
            case "countOfRequestBodyBytesSent": t.countOfRequestBodyBytesSent = try r.readInt64(); seen.counts += 1
            case "countOfResponseHeaderBytesReceived": t.countOfResponseHeaderBytesReceived = try r.readInt64(); seen.counts += 1
            case "countOfResponseBodyBytesReceived": t.countOfResponseBodyBytesReceived = try r.readInt64(); seen.counts += 1
            case "phases": t.phases = try Phases(reading: &r); seen.phases = true
            case "capture": t.capture = try r.readOptional(CaptureEvidence.self)
            default: try r.skipValue()
            }
        }
        guard let request, seen.reused, seen.proxy, seen.phases, seen.counts == 4 else {
            throw reader.error("a transaction needs request, isReusedConnection, isProxyConnection, the four byte counts and phases")
        }
        t.request = request
        self = t
    }
}

extension ProbeTask: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var url: String?, iteration: Int?, interval: TaskInterval?, redirectCount: Int?
        var error: TaskError?
        var transactions: [TransactionMetrics]?
        var check: String?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "check": check = try r.readOptionalString()
            case "url": url = try r.readString()
            case "iteration": iteration = try r.readInt()
            case "taskInterval": interval = try TaskInterval(reading: &r)
            case "redirectCount": redirectCount = try r.readInt()
            case "error": error = try r.readOptional(TaskError.self)
            case "transactionMetrics": transactions = try r.readArray(of: TransactionMetrics.self)
            default: try r.skipValue()
            }
        }
        guard let url, let iteration, let interval, let redirectCount, let transactions else {
            throw reader.error("a task needs url, iteration, taskInterval, redirectCount and transactionMetrics")
        }
        self.init(url: url, iteration: iteration, taskInterval: interval, redirectCount: redirectCount, error: error,
                  transactionMetrics: transactions, check: check)
    }
}
