/// The soak's journal lines without Foundation's `JSONEncoder`/`JSONDecoder`: a soak of ten
/// thousand connections journals an attempt twice per connection, and `JSONEncoder` was a fifth
/// of such a run's CPU time (perf). Keys in the encoder's sorted order, null written for absent
/// values, as the Codable conformances do; `JSONOutputTests` checks the two agree.

extension SoakAttempt: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("attempt", attempt)
            o.member("backoffFailure", backoffFailure)
            o.member("backoffMs", backoffMs)
            o.member("cause", cause?.rawValue)
            o.member("closeCode", closeCode)
            o.member("closeReason", closeReason)
            o.member("closedAt", closedAt)
            o.member("closedBy", closedBy)
            o.member("connection", connection)
            o.member("error", error)
            o.member("gaveUp", gaveUp)
            o.member("handshake", handshake)
            o.member("messages", messages)
            o.member("openedAt", openedAt)
            o.member("pings", pings)
            o.member("startedAt", startedAt)
            o.member("timeToRecoverMs", timeToRecoverMs)
        }
    }
}

extension SoakAttempt: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var connection: Int?, number: Int?, startedAt: Timestamp?, handshake: WebSocketHandshake?
        var backoffMs: Double?, backoffFailure: Int?, error: TaskError?, openedAt: Timestamp?, closedAt: Timestamp?
        var closeCode: Int?, closeReason: String?, closedBy: String?, cause: DisconnectCause?, recover: Double?
        var pings = Pings(), messages = Messages(), gaveUp = false
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "connection": connection = try r.readInt()
            case "attempt": number = try r.readInt()
            case "startedAt": startedAt = try Timestamp(reading: &r)
            case "backoffMs": backoffMs = try r.readOptionalDouble()
            case "backoffFailure": backoffFailure = try r.readOptionalInt()
            case "handshake": handshake = try WebSocketHandshake(reading: &r)
            case "error": error = try r.readOptional(TaskError.self)
            case "openedAt": openedAt = try r.readOptional(Timestamp.self)
            case "closedAt": closedAt = try r.readOptional(Timestamp.self)
            case "closeCode": closeCode = try r.readOptionalInt()
            case "closeReason": closeReason = try r.readOptionalString()
            case "closedBy": closedBy = try r.readOptionalString()
            case "cause":
                if let text = try r.readOptionalString() {
                    guard let value = DisconnectCause(rawValue: text) else { throw r.error("unknown disconnect cause \(text)") }
                    cause = value
                }
            case "timeToRecoverMs": recover = try r.readOptionalDouble()
            case "pings": pings = try Pings(reading: &r)
            case "messages": messages = try Messages(reading: &r)
            case "gaveUp": gaveUp = try r.readBool()
            default: try r.skipValue()
            }
        }
        guard let connection, let number, let startedAt, let handshake else {
            throw reader.error("an attempt needs connection, attempt, startedAt and handshake")
        }
        self.init(connection: connection, attempt: number, startedAt: startedAt, backoffMs: backoffMs,
                  backoffFailure: backoffFailure, handshake: handshake)
        self.error = error
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.closeCode = closeCode
        self.closeReason = closeReason
        self.closedBy = closedBy
        self.cause = cause
        self.timeToRecoverMs = recover
        self.pings = pings
        self.messages = messages
        self.gaveUp = gaveUp
    }
}

extension SoakAttempt.Pings: JSONWritable, JSONReadable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("answered", answered)
            o.member("missed", missed)
            o.member("sent", sent)
            o.member("serverPings", serverPings)
            o.member("unanswered", unanswered)
            o.member("unsolicitedPongs", unsolicitedPongs)
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "sent": sent = try r.readInt()
            case "answered": answered = try r.readInt()
            case "missed": missed = try r.readInt()
            case "unanswered": unanswered = try r.readInt()
            case "unsolicitedPongs": unsolicitedPongs = try r.readInt()
            case "serverPings": serverPings = try r.readInt()
            default: try r.skipValue()
            }
        }
    }
}

extension SoakAttempt.Messages: JSONWritable, JSONReadable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("corrupted", corrupted)
            o.member("duplicated", duplicated)
            o.member("fromServer", fromServer)
            o.member("lost", lost)
            o.member("received", received)
            o.member("reordered", reordered)
            o.member("sent", sent)
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "sent": sent = try r.readInt()
            case "received": received = try r.readInt()
            case "lost": lost = try r.readInt()
            case "duplicated": duplicated = try r.readInt()
            case "reordered": reordered = try r.readInt()
            case "corrupted": corrupted = try r.readInt()
            case "fromServer": fromServer = try SoakAttempt.ServerMessages(reading: &r)
            default: try r.skipValue()
            }
        }
    }
}

extension SoakAttempt.ServerMessages: JSONWritable, JSONReadable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("bytes", bytes)
            o.member("count", count)
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "count": count = try r.readInt()
            case "bytes": bytes = try r.readInt()
            default: try r.skipValue()
            }
        }
    }
}

extension WebSocketHandshake: JSONWritable, JSONReadable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("connectMs", connectMs)
            o.member("dnsMs", dnsMs)
            o.key("extensions")
            o.array(extensions) { $0.string($1) }
            o.member("localPort", localPort)
            o.member("remoteAddress", remoteAddress)
            o.member("remotePort", remotePort)
            o.member("responseHeaders", responseHeaders)
            o.member("statusCode", statusCode)
            o.member("subprotocol", subprotocol)
            o.member("tlsMs", tlsMs)
            o.member("tlsProtocolVersion", tlsProtocolVersion)
            o.member("totalMs", totalMs)
            o.member("upgradeMs", upgradeMs)
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "dnsMs": dnsMs = try r.readOptionalDouble()
            case "connectMs": connectMs = try r.readOptionalDouble()
            case "tlsMs": tlsMs = try r.readOptionalDouble()
            case "upgradeMs": upgradeMs = try r.readOptionalDouble()
            case "totalMs": totalMs = try r.readOptionalDouble()
            case "statusCode": statusCode = try r.readOptionalInt()
            case "subprotocol": subprotocol = try r.readOptionalString()
            case "extensions":
                var values: [String] = []
                try r.readArray { (e: inout JSONReader) throws(JSONReadError) in values.append(try e.readString()) }
                extensions = values
            case "responseHeaders": responseHeaders = try r.readArray(of: HeaderField.self)
            case "remoteAddress": remoteAddress = try r.readOptionalString()
            case "remotePort": remotePort = try r.readOptionalInt()
            case "localPort": localPort = try r.readOptionalInt()
            case "tlsProtocolVersion": tlsProtocolVersion = try r.readOptionalString()
            default: try r.skipValue()
            }
        }
    }
}

extension SoakSamples: JSONWritable, JSONReadable {
    public func writeJSON(to output: inout JSONOutput) {
        func rows(_ rows: [[Int64]]) -> (inout JSONOutput, [Int64]) -> Void {
            { output, row in output.array(row) { $0.int($1) } }
        }
        output.object { o in
            o.key("echoes")
            o.array(echoes) { $0.int($1) }
            o.key("missed")
            o.array(missed, rows(missed))
            o.key("pings")
            o.array(pings, rows(pings))
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        func rows(_ r: inout JSONReader) throws(JSONReadError) -> [[Int64]] {
            var result: [[Int64]] = []
            try r.readArray { (row: inout JSONReader) throws(JSONReadError) in
                var values: [Int64] = []
                try row.readArray { (value: inout JSONReader) throws(JSONReadError) in values.append(try value.readInt64()) }
                result.append(values)
            }
            return result
        }
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "pings": pings = try rows(&r)
            case "missed": missed = try rows(&r)
            case "echoes":
                var values: [Int64] = []
                try r.readArray { (value: inout JSONReader) throws(JSONReadError) in values.append(try value.readInt64()) }
                echoes = values
            default: try r.skipValue()
            }
        }
    }
}
