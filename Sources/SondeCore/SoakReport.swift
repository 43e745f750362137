/// One WebSocket soak (`sonde soak URL`): the report's `soaks[]` entry, built by
/// `SoakReportBuilder` from the attempts and samples the run journalled.
public struct SoakReport: Sendable {
    /// The URL as given, redacted.
    public var url: String
    public var config: SoakConfig
    /// Logical connections held (each reconnects on its own).
    public var connections: Int
    public var startedAt: Timestamp
    public var finishedAt: Timestamp?
    /// Every connection attempt, in order of connection then attempt.
    public var attempts: [SoakAttempt]
    public var pings: PingSummary
    public var messages: MessageSummary
    public var reconnects: ReconnectSummary
    /// Disconnects by cause and by close code (a close frame's code, either side).
    public var disconnects: DisconnectSummary
    /// The reconnect delays actually waited, per retry number, beside the policy's range.
    public var backoffSchedule: [BackoffStep]
    /// Connections that were open when the soak ended.
    public var upAtEnd: Int
    /// Connections that stopped reconnecting after `--max-attempts` failed attempts.
    public var gaveUp: Int
    /// The idle-timeout discovery's findings (`--discover-idle-timeout`), else null.
    public var idleTimeout: IdleTimeoutFindings?
    /// Ping RTT over time for the first connections (bounded), for the timeline.
    public var timeline: [PingSeries]
    /// False when a connection gave up, never opened, or a message came back corrupted.
    public var passed: Bool
    /// Why the soak failed, in words (empty when it passed).
    public var problems: [String]
    /// The check of a `sonde run` suite the soak belongs to; nil (and absent) in runs without checks.
    public var check: String?
    /// The kind extensions' parts of the soak (a subscription's figures under `subscription`),
    /// each summed from its attempts' by its `SoakPart`.
    public var parts = ModelParts()

    public init(url: String, config: SoakConfig, connections: Int, startedAt: Timestamp, finishedAt: Timestamp?,
                attempts: [SoakAttempt], pings: PingSummary, messages: MessageSummary, reconnects: ReconnectSummary,
                disconnects: DisconnectSummary, backoffSchedule: [BackoffStep], upAtEnd: Int, gaveUp: Int,
                idleTimeout: IdleTimeoutFindings?, timeline: [PingSeries], passed: Bool, problems: [String], check: String? = nil,
                parts: ModelParts = ModelParts()) {
        self.url = url
        self.config = config
        self.connections = connections
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.attempts = attempts
        self.pings = pings
        self.messages = messages
        self.reconnects = reconnects
        self.disconnects = disconnects
        self.backoffSchedule = backoffSchedule
        self.upAtEnd = upAtEnd
        self.gaveUp = gaveUp
        self.idleTimeout = idleTimeout
        self.timeline = timeline
        self.passed = passed
        self.problems = problems
        self.check = check
        self.parts = parts
    }

    public struct PingSummary: Sendable, Equatable {
        public var sent = 0
        public var answered = 0
        /// Pings whose pong did not come within the pong timeout (each one closed its connection).
        public var missed = 0
        /// Pings still waiting for their pong when their connection ended for another reason
        /// (sent = answered + missed + unanswered).
        public var unanswered = 0
        /// Pongs that matched no outstanding ping.
        public var unsolicitedPongs = 0
        /// Pings the server sent (answered automatically, RFC 6455 §5.5.2).
        public var serverPings = 0
        public var rttMs: DistributionSummary?
        public init() {}
    }

    public struct MessageSummary: Sendable, Equatable {
        public var sent = 0
        /// Distinct messages echoed back intact.
        public var received = 0
        /// Sent but never echoed on the connection they were sent on.
        public var lost = 0
        public var duplicated = 0
        /// Echoes that arrived after a later message's echo.
        public var reordered = 0
        /// Echoes whose payload did not match what was sent.
        public var corrupted = 0
        public var rttMs: DistributionSummary?
        /// Messages the server sent of its own accord (not in sonde's format): never echoes.
        public var fromServer = ServerMessageSummary()
        public init() {}
    }

    /// Data messages the server sent of its own accord (greetings, subscriptions, presence):
    /// every text or binary message that does not carry sonde's message header.
    public struct ServerMessageSummary: Sendable, Equatable {
        public var count = 0
        /// Their payload bytes (reassembled).
        public var bytes = 0
        /// Messages per second per open connection: the messages of the attempts that opened
        /// and ended over the seconds those were open (an attempt still open in a killed run's
        /// journal has no end, so it counts in neither); null when there is no such attempt.
        public var ratePerSecond: Double?
        public init() {}
    }

    /// Invariants: `count` ≤ the disconnects (one recovery per outage, an outage begins with one
    /// disconnect); `count` ≤ `attempts`; `timeToRecoverMs` has at most `count` values.
    public struct ReconnectSummary: Sendable, Equatable {
        /// Recoveries: attempts that opened after their connection had been open and was
        /// disconnected, one per outage however many attempts it took (`ws.reconnects.count`).
        public var count = 0
        /// Attempts after a connection's first (each retry, failed or not).
        public var attempts = 0
        /// Attempts whose opening handshake failed (refused, timed out, answered without 101; a
        /// connection's first included), by error code. They are not disconnects.
        public var failedAttempts: [String: Int] = [:]
        /// What ended the connection each reconnect recovered from (the disconnect that began the outage).
        public var byCause: [String: Int] = [:]
        /// From a disconnect to the next open connection (backoff and failed attempts included), one per recovery.
        public var timeToRecoverMs: DistributionSummary?
        public init() {}
    }

    /// What ended connections that were open (a failed handshake is a failed attempt, not here).
    public struct DisconnectSummary: Sendable, Equatable {
        public var byCause: [String: Int] = [:]
        public var byCloseCode: [String: Int] = [:]
        public init() {}
    }

    /// The delays waited before retry `failure` of any connection, beside the policy's range.
    public struct BackoffStep: Sendable, Equatable {
        /// 1 for the delay after the first failure in a row.
        public var failure: Int
        public var policyMinMs: Double
        public var policyMaxMs: Double
        public var count: Int
        public var minMs: Double
        public var maxMs: Double
        /// Up to 20 of the delays, in the order they were waited.
        public var examplesMs: [Double]
    }

    /// Ping RTTs of one connection over time (ms since the soak started, RTT ms); missed pings,
    /// disconnects (of an open connection) and failed attempts as separate marks.
    public struct PingSeries: Sendable, Equatable {
        public var connection: Int
        public var points: [[Double]]
        public var missedAtMs: [Double]
        public var disconnects: [Disconnect]
        /// When attempts of this connection failed their handshake (ms since the soak started).
        public var failedAttemptsAtMs: [Double]

        public init(connection: Int, points: [[Double]] = [], missedAtMs: [Double] = [], disconnects: [Disconnect] = [],
                    failedAttemptsAtMs: [Double] = []) {
            self.connection = connection
            self.points = points
            self.missedAtMs = missedAtMs
            self.disconnects = disconnects
            self.failedAttemptsAtMs = failedAttemptsAtMs
        }

        public struct Disconnect: Sendable, Equatable {
            public var atMs: Double
            public var cause: String
            public var closeCode: Int?
            /// When the connection was open again (ms since the soak started); null when it was
            /// still down at the end. The outage runs from `atMs` to here.
            public var recoveredAtMs: Double?

            public init(atMs: Double, cause: String, closeCode: Int?, recoveredAtMs: Double? = nil) {
                self.atMs = atMs
                self.cause = cause
                self.closeCode = closeCode
                self.recoveredAtMs = recoveredAtMs
            }

        }
    }
}

/// The options of a soak as the report records them.
public struct SoakConfig: Sendable, Equatable {
    public var durationS: Double
    public var connections: Int
    /// Starts are spread evenly over this many seconds.
    public var rampS: Double
    /// 0 means no pings.
    public var pingIntervalS: Double
    public var pongTimeoutS: Double
    /// Messages per second per connection (0: none) and their size in bytes.
    public var messageRate: Double
    public var messageSize: Int
    public var subprotocols: [String]
    /// Extra request headers, redacted.
    public var headers: [HeaderField]
    public var backoff: BackoffPolicy
    /// A connection that stays up this long resets its backoff to the initial delay.
    public var stableAfterS: Double
    /// Attempts in a row a connection may fail before it gives up (null: never gives up).
    public var maxAttempts: Int?
    public var connectTimeoutS: Double
    public var insecure: Bool
    /// The kind extensions' parts of the config (a subscription's operation), set by
    /// their `apply`; empty for a plain soak.
    public var parts = ModelParts()

    public init(durationS: Double, connections: Int, rampS: Double, pingIntervalS: Double, pongTimeoutS: Double,
                messageRate: Double, messageSize: Int, subprotocols: [String], headers: [HeaderField],
                backoff: BackoffPolicy, stableAfterS: Double, maxAttempts: Int?, connectTimeoutS: Double, insecure: Bool,
                parts: ModelParts = ModelParts()) {
        self.durationS = durationS
        self.connections = connections
        self.rampS = rampS
        self.pingIntervalS = pingIntervalS
        self.pongTimeoutS = pongTimeoutS
        self.messageRate = messageRate
        self.messageSize = messageSize
        self.subprotocols = subprotocols
        self.headers = headers
        self.backoff = backoff
        self.stableAfterS = stableAfterS
        self.maxAttempts = maxAttempts
        self.connectTimeoutS = connectTimeoutS
        self.insecure = insecure
        self.parts = parts
    }

    /// The longest soak (and ramp) accepted, seconds: 30 days.
    public static let maxDurationS: Double = 30 * 86_400
    /// The longest ping interval, pong timeout, connect timeout and stable-after, seconds: a day.
    public static let maxIntervalS: Double = 86_400

    /// Why these settings cannot run (the setting's key, and in words with the bound), or nil.
    /// Every duration is bounded above so that no conversion to nanoseconds or microseconds can overflow.
    public func problem(maxMessageSize: Int) -> SettingProblem? {
        if let problem = backoff.problem { return problem }
        if !(durationS > 0) || !durationS.isFinite { return SettingProblem(key: "duration", "must be a positive duration") }
        if durationS > Self.maxDurationS { return SettingProblem(key: "duration", "must be at most 30 days (720h)") }
        if rampS > Self.maxDurationS { return SettingProblem(key: "ramp", "must be at most 30 days (720h)") }
        for (key, value) in [("ping-interval", pingIntervalS), ("pong-timeout", pongTimeoutS),
                             ("connect-timeout", connectTimeoutS), ("stable-after", stableAfterS)] where value > Self.maxIntervalS {
            return SettingProblem(key: key, "must be at most 24 hours (24h)")
        }
        if connections < 1 { return SettingProblem(key: "connections", "must be at least 1") }
        if connections > 100_000 { return SettingProblem(key: "connections", "is limited to 100000") }
        if pingIntervalS < 0 || !pingIntervalS.isFinite { return SettingProblem(key: "ping-interval", "must not be negative") }
        if pingIntervalS > 0 && pingIntervalS < 0.01 { return SettingProblem(key: "ping-interval", "must be at least 10ms") }
        if !(pongTimeoutS > 0) { return SettingProblem(key: "pong-timeout", "must be a positive duration") }
        if messageRate < 0 || messageRate > 10_000 || !messageRate.isFinite {
            return SettingProblem(key: "message-rate", "must be between 0 and 10000 per second")
        }
        if messageSize < 16 || messageSize > maxMessageSize {
            return SettingProblem(key: "message-size", "must be between 16 bytes and \(maxMessageSize) bytes")
        }
        if rampS < 0 || !rampS.isFinite { return SettingProblem(key: "ramp", "must not be negative") }
        if let attempts = maxAttempts, attempts < 1 { return SettingProblem(key: "max-attempts", "must be at least 1") }
        if !(connectTimeoutS > 0) { return SettingProblem(key: "connect-timeout", "must be a positive duration") }
        return nil
    }
}

/// What ended a WebSocket connection (or kept an attempt from opening). Raw values are part of
/// the report format.
public enum DisconnectCause: String, Sendable, CaseIterable, ModelValue {
    /// A close frame arrived (or was sent by sonde after a protocol problem); see closedBy/closeCode.
    case closeFrame
    /// The TCP connection was reset (RST) without a close frame.
    case tcpReset
    /// The TCP connection ended (FIN) without a close frame.
    case eof
    /// A pong did not arrive within the pong timeout: sonde closed the connection.
    case pongTimeout
    /// The opening handshake failed (see the attempt's error).
    case handshakeFailure
    /// The peer broke the WebSocket protocol (a masked frame, RSV bits, a reserved opcode, a bad
    /// control frame, invalid UTF-8): sonde failed the connection with 1002 or 1007.
    case protocolError
    /// A frame or message over sonde's maximum frame size: sonde closed with 1009.
    case frameTooLarge
    /// The soak's duration ended (or it was interrupted): sonde closed with 1000.
    case runEnded
    /// An idle-timeout probe connection reached its planned silence and sonde closed it.
    case probeFinished
}

/// One connection attempt of a soak: its handshake, and when open, how it ended.
public struct SoakAttempt: Sendable, Equatable {
    /// 0-based logical connection.
    public var connection: Int
    /// 1-based attempt of that connection.
    public var attempt: Int
    public var startedAt: Timestamp
    /// The delay waited before this attempt (null for a connection's first), ms.
    public var backoffMs: Double?
    /// The retry number this delay was drawn for (1 after the first failure in a row), else null.
    public var backoffFailure: Int?
    public var handshake: WebSocketHandshake
    /// Why the handshake failed; null when it opened.
    public var error: TaskError?
    public var openedAt: Timestamp?
    public var closedAt: Timestamp?
    public var closeCode: Int?
    public var closeReason: String?
    /// "client" or "server": who sent the first close frame; null without one.
    public var closedBy: String?
    /// Null while the connection is open.
    public var cause: DisconnectCause?
    /// For the attempt that reopened a connection after a disconnect: from that disconnect to
    /// this open, ms (backoff and failed attempts included).
    public var timeToRecoverMs: Double?
    public var pings: Pings
    public var messages: Messages
    /// True on a connection's last attempt when it stopped reconnecting (`--max-attempts`).
    public var gaveUp = false
    /// The OTLP span id of this attempt (16 hex digits): the parent its handshake's `traceparent`
    /// carried under `--traceparent`. nil (and absent) in reports written before sonde recorded it.
    public var spanId: String?
    /// The kind extensions' parts of this attempt (a subscription's exchange under
    /// `subscription`): its subprotocol's record (`SoakSubprotocol.parts`); empty in other soaks.
    public var parts = ModelParts()

    public init(connection: Int, attempt: Int, startedAt: Timestamp, backoffMs: Double?, backoffFailure: Int?,
                handshake: WebSocketHandshake = WebSocketHandshake()) {
        self.connection = connection
        self.attempt = attempt
        self.startedAt = startedAt
        self.backoffMs = backoffMs
        self.backoffFailure = backoffFailure
        self.handshake = handshake
        pings = Pings()
        messages = Messages()
    }

    public struct Pings: Sendable, Equatable {
        public var sent = 0
        public var answered = 0
        public var missed = 0
        /// Pings still waiting for their pong when the connection ended for another reason.
        public var unanswered = 0
        public var unsolicitedPongs = 0
        public var serverPings = 0
        public init() {}
    }

    public struct Messages: Sendable, Equatable {
        public var sent = 0
        public var received = 0
        public var lost = 0
        public var duplicated = 0
        public var reordered = 0
        public var corrupted = 0
        /// Messages the server sent of its own accord (not in sonde's format).
        public var fromServer = ServerMessages()
        public init() {}
    }

    /// Data messages the server sent of its own accord on one connection, and their payload bytes.
    public struct ServerMessages: Sendable, Equatable {
        public var count = 0
        public var bytes = 0
        public init() {}
    }
}

/// The opening handshake of one attempt (RFC 6455 §4): phases in ms, null when a phase did
/// not happen (no DNS for an IP literal, no TLS for ws://) or was not reached.
public struct WebSocketHandshake: Sendable, Equatable {
    public var dnsMs: Double?
    public var connectMs: Double?
    public var tlsMs: Double?
    /// From sending the upgrade request to receiving the response head.
    public var upgradeMs: Double?
    public var totalMs: Double?
    public var statusCode: Int?
    public var subprotocol: String?
    public var extensions: [String]
    /// The response headers, redacted.
    public var responseHeaders: [HeaderField]
    public var remoteAddress: String?
    public var remotePort: Int?
    public var localPort: Int?
    public var tlsProtocolVersion: String?

    public init() {
        extensions = []
        responseHeaders = []
    }
}

/// What `--discover-idle-timeout` found: the longest silence a connection survived and the
/// shortest one that was cut, and what cut it.
public struct IdleTimeoutFindings: Sendable, Equatable {
    public var maxIdleS: Double
    /// Longest planned silence after which the connection still answered a ping, s.
    public var longestSurvivedS: Double?
    /// Shortest silence after which the connection was found cut, s (measured from the last
    /// frame sent to the moment the cut was seen).
    public var shortestCutS: Double?
    /// How the shortest cut connection ended (cause, close code).
    public var cutBy: String?
    public var probes: [Probe]

    public init(maxIdleS: Double, longestSurvivedS: Double?, shortestCutS: Double?, cutBy: String?, probes: [Probe]) {
        self.maxIdleS = maxIdleS
        self.longestSurvivedS = longestSurvivedS
        self.shortestCutS = shortestCutS
        self.cutBy = cutBy
        self.probes = probes
    }

    public struct Probe: Sendable, Equatable {
        /// The silence planned, s.
        public var plannedS: Double
        public var survived: Bool
        /// When cut: seconds from the last frame sent to the cut.
        public var cutAfterS: Double?
        public var cause: String?
        public var closeCode: Int?

        public init(plannedS: Double, survived: Bool, cutAfterS: Double?, cause: String?, closeCode: Int?) {
            self.plannedS = plannedS
            self.survived = survived
            self.cutAfterS = cutAfterS
            self.cause = cause
            self.closeCode = closeCode
        }
    }
}
