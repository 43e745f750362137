/// The capture evidence's fields, declared once (`FieldModel`). An absent optional is left out
/// (`omittedWhenNil`), as these have always been written; keys in declaration order, which
/// `JSONEncoder` with `.sortedKeys` sorts in the report.

private let optional = FieldRule.omittedWhenNil

extension CaptureReport: FieldModel {
    public static let blank = CaptureReport(file: "", linkType: "", packets: 0, otherPackets: 0, complete: false, problems: [], flows: [])
    public static var schemaName: String? { "capture" }

    /// `quicFlows` may be missing: journals written before QUIC was analysed still read.
    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("file", &file, .required)
        try v.visit("interface", &interface, optional)
        try v.visit("filter", &filter, optional)
        try v.visit("linkType", &linkType, .required)
        try v.visit("packets", &packets, .requiredCount)
        try v.visit("otherPackets", &otherPackets, .requiredCount)
        try v.visit("drops", &drops, FieldRule(omitsNil: true, unit: .count))
        try v.visit("complete", &complete, .required)
        try v.visit("problems", &problems, .required)
        try v.visit("flows", &flows, .required)
        try v.visit("quicFlows", &quicFlows, .field)
        try v.visit("omitted", &omitted, optional)
    }
}

extension CaptureReport.OmittedFlows: FieldModel {
    public static let blank = CaptureReport.OmittedFlows(limit: 0)
    public static var schemaName: String? { "omittedFlows" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("limit", &limit, .requiredCount)
        try v.visit("tcpSyns", &tcpSyns, .requiredCount)
        try v.visit("tcpSegments", &tcpSegments, .requiredCount)
        try v.visit("tcpBytes", &tcpBytes, .requiredCount)
        try v.visit("quicDatagrams", &quicDatagrams, .requiredCount)
        try v.visit("quicInitials", &quicInitials, .requiredCount)
        try v.visit("quicBytes", &quicBytes, .requiredCount)
    }
}

extension FlowEvidence: FieldModel {
    public static let blank = FlowEvidence(tuple: "", clientAddress: "", clientPort: 0, serverAddress: "", serverPort: 0,
                                           firstPacketAt: TaskInterval.blank.start, lastPacketAt: TaskInterval.blank.start,
                                           handshake: .blank, initialRttMs: nil, clientToServer: Direction(), serverToClient: Direction(),
                                           resets: 0, fins: 0, closedBy: nil)
    public static var schemaName: String? { "flow" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("tuple", &tuple, .required)
        try v.visit("clientAddress", &clientAddress, .required)
        try v.visit("clientPort", &clientPort, .required)
        try v.visit("serverAddress", &serverAddress, .required)
        try v.visit("serverPort", &serverPort, .required)
        try v.visit("firstPacketAt", &firstPacketAt, .required)
        try v.visit("lastPacketAt", &lastPacketAt, .required)
        try v.visit("handshake", &handshake, .required)
        try v.visit("initialRttMs", &initialRttMs, FieldRule(omitsNil: true, unit: .milliseconds))
        try v.visit("clientToServer", &clientToServer, .required)
        try v.visit("serverToClient", &serverToClient, .required)
        try v.visit("resets", &resets, .requiredCount)
        try v.visit("fins", &fins, .requiredCount)
        try v.visit("closedBy", &closedBy, FieldRule(omitsNil: true, values: ["client", "server"]))
        try v.visit("tls", &tls, optional)
        try v.visit("packets", &packets, optional)
    }
}

extension FlowEvidence.Handshake: FieldModel {
    public static let blank = FlowEvidence.Handshake(synAt: nil, synAckAt: nil, ackAt: nil, complete: false, clientOptions: nil, serverOptions: nil)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("synAt", &synAt, optional)
        try v.visit("synAckAt", &synAckAt, optional)
        try v.visit("ackAt", &ackAt, optional)
        try v.visit("complete", &complete, .required)
        try v.visit("clientOptions", &clientOptions, optional)
        try v.visit("serverOptions", &serverOptions, optional)
    }
}

extension FlowEvidence.TCPOptions: FieldModel {
    public static let blank = FlowEvidence.TCPOptions(mss: nil, windowScale: nil, sackPermitted: false, timestamps: false)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("mss", &mss, optional)
        try v.visit("windowScale", &windowScale, optional)
        try v.visit("sackPermitted", &sackPermitted, .required)
        try v.visit("timestamps", &timestamps, .required)
    }
}

/// `windowFull` may be missing: captures analysed before it was counted still read.
extension FlowEvidence.Direction: FieldModel {
    public static let blank = FlowEvidence.Direction()
    public static var schemaName: String? { "flowDirection" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("segments", &segments, .requiredCount)
        try v.visit("bytes", &bytes, .requiredCount)
        try v.visit("payloadBytes", &payloadBytes, .requiredCount)
        try v.visit("retransmissions", &retransmissions, .requiredCount)
        try v.visit("fastRetransmissions", &fastRetransmissions, .requiredCount)
        try v.visit("outOfOrder", &outOfOrder, .requiredCount)
        try v.visit("duplicateAcks", &duplicateAcks, .requiredCount)
        try v.visit("zeroWindows", &zeroWindows, .requiredCount)
        try v.visit("keepAlives", &keepAlives, .requiredCount)
        try v.visit("windowFull", &windowFull, .count)
    }
}

extension FlowEvidence.TLS: FieldModel {
    public static let blank = FlowEvidence.TLS()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("clientHelloAt", &clientHelloAt, optional)
        try v.visit("serverName", &serverName, optional)
        try v.visit("offeredAlpn", &offeredAlpn, .required)
        try v.visit("offeredVersions", &offeredVersions, .required)
        try v.visit("serverHelloAt", &serverHelloAt, optional)
        try v.visit("version", &version, optional)
        try v.visit("cipherSuite", &cipherSuite, optional)
        try v.visit("cipherSuiteCode", &cipherSuiteCode, optional)
        try v.visit("alpn", &alpn, optional)
        try v.visit("helloRetryRequest", &helloRetryRequest, .required)
        try v.visit("clientChangeCipherSpecAt", &clientChangeCipherSpecAt, optional)
        try v.visit("serverChangeCipherSpecAt", &serverChangeCipherSpecAt, optional)
        try v.visit("clientFinishedAt", &clientFinishedAt, optional)
        try v.visit("serverFinishedAt", &serverFinishedAt, optional)
        try v.visit("clientFirstApplicationDataAt", &clientFirstApplicationDataAt, optional)
        try v.visit("serverFirstApplicationDataAt", &serverFirstApplicationDataAt, optional)
        try v.visit("handshakeMs", &handshakeMs, FieldRule(omitsNil: true, unit: .milliseconds))
        try v.visit("alerts", &alerts, .requiredCount)
        try v.visit("problem", &problem, optional)
    }
}

extension QUICFlowEvidence: FieldModel {
    public static let blank = QUICFlowEvidence(tuple: "", clientAddress: "", clientPort: 0, serverAddress: "", serverPort: 0,
                                               firstPacketAt: TaskInterval.blank.start, lastPacketAt: TaskInterval.blank.start)
    public static var schemaName: String? { "quicFlow" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("tuple", &tuple, .required)
        try v.visit("clientAddress", &clientAddress, .required)
        try v.visit("clientPort", &clientPort, .required)
        try v.visit("serverAddress", &serverAddress, .required)
        try v.visit("serverPort", &serverPort, .required)
        try v.visit("version", &version, FieldRule(omitsNil: true, pattern: "^0x[0-9a-f]{8}$"))
        try v.visit("versionName", &versionName, optional)
        try v.visit("originalDestinationConnectionId", &originalDestinationConnectionId, FieldRule(omitsNil: true, pattern: "^[0-9a-f]*$"))
        try v.visit("clientConnectionId", &clientConnectionId, FieldRule(omitsNil: true, pattern: "^[0-9a-f]*$"))
        try v.visit("serverConnectionId", &serverConnectionId, FieldRule(omitsNil: true, pattern: "^[0-9a-f]*$"))
        try v.visit("firstPacketAt", &firstPacketAt, .required)
        try v.visit("lastPacketAt", &lastPacketAt, .required)
        try v.visit("firstClientInitialAt", &firstClientInitialAt, optional)
        try v.visit("firstServerPacketAt", &firstServerPacketAt, optional)
        try v.visit("initialRttMs", &initialRttMs, FieldRule(omitsNil: true, unit: .milliseconds))
        try v.visit("handshakeMs", &handshakeMs, FieldRule(omitsNil: true, unit: .milliseconds))
        try v.visit("clientToServer", &clientToServer, .required)
        try v.visit("serverToClient", &serverToClient, .required)
        try v.visit("problems", &problems, .required)
        try v.visit("packets", &packets, optional)
    }
}

extension QUICFlowEvidence.Direction: FieldModel {
    public static let blank = QUICFlowEvidence.Direction()
    public static var schemaName: String? { "quicDirection" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("datagrams", &datagrams, .requiredCount)
        try v.visit("bytes", &bytes, .requiredCount)
        try v.visit("payloadBytes", &payloadBytes, .requiredCount)
        try v.visit("packets", &packets, .requiredCount)
        try v.visit("initialPackets", &initialPackets, .requiredCount)
        try v.visit("zeroRttPackets", &zeroRttPackets, .requiredCount)
        try v.visit("handshakePackets", &handshakePackets, .requiredCount)
        try v.visit("retryPackets", &retryPackets, .requiredCount)
        try v.visit("versionNegotiationPackets", &versionNegotiationPackets, .requiredCount)
        try v.visit("shortHeaderPackets", &shortHeaderPackets, .requiredCount)
        try v.visit("firstShortHeaderAt", &firstShortHeaderAt, optional)
        try v.visit("lastHandshakeAt", &lastHandshakeAt, optional)
    }
}
