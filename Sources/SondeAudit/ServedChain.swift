/// The certificates one server sent, in the order sent, and how they link: the path from the leaf
/// up through the certificates that issued it (by name: a certificate's issuer is the subject of
/// the next on the path), whether the order sent is that path's, and what was sent beside it.
///
/// TLS 1.2 (RFC 5246 §7.4.2): "each following certificate MUST directly certify the one preceding
/// it"; TLS 1.3 (RFC 8446 §4.4.2) relaxes the MUST to a SHOULD and lets clients build the path
/// themselves. Pure: a value made from the certificates alone.
struct ServedChain: Sendable, Equatable {
    var certificates: [ServedCertificate]

    init(_ certificates: [ServedCertificate]) { self.certificates = certificates }

    /// From CURLINFO_CERTINFO's lines, leaf first as the server sent them.
    init(certinfo: [[String]]) {
        certificates = certinfo.enumerated().map { ServedCertificate(certinfo: $0.element, index: $0.offset) }
    }

    /// Indices of the path from the leaf (index 0): each next one the served certificate whose
    /// subject is the previous one's issuer, until a self-issued one or none. Empty without certificates.
    var path: [Int] {
        guard !certificates.isEmpty else { return [] }
        var path = [0]
        while let last = path.last, !certificates[last].selfIssued, let issuer = certificates[last].issuerDER,
              let next = certificates.indices.first(where: { !path.contains($0) && certificates[$0].subjectDER == issuer }) {
            path.append(next)
        }
        return path
    }

    /// The order sent is the path's order (each certificate certifies the one before it).
    var inOrder: Bool { path == Array(0..<path.count) }

    /// Certificates sent that are not on the path (unrelated, or duplicates).
    var extras: [ServedCertificate] {
        let onPath = Set(path)
        return certificates.indices.filter { !onPath.contains($0) }.map { certificates[$0] }
    }

    /// The path ends in a self-issued certificate that was sent (a root: the client has it already).
    var rootSent: Bool {
        guard let last = path.last, path.count > 1 else { return false }
        return certificates[last].selfIssued
    }

    /// Whether the certificate at `index` is a CA the path goes through (every one after the leaf).
    func isIssuer(_ index: Int) -> Bool { index != 0 && path.contains(index) }

    /// One evidence line per certificate: "#2 CN = root (self-issued), RSA 2048 bits, sha256WithRSAEncryption; issued #1".
    var lines: [String] {
        let pathOrder = path
        return certificates.map { certificate in
            var parts = [certificate.label]
            if let key = certificate.key { parts.append(key.description) } else { parts.append("key not read") }
            if let signature = certificate.signature { parts.append("signed " + signature.name) }
            var line = parts.joined(separator: ", ")
            if let position = pathOrder.firstIndex(of: certificate.index) {
                if position > 0 { line += "; issued #\(pathOrder[position - 1] + 1)" }
                if certificate.selfIssued { line += position > 0 ? " (self-issued: a root)" : " (self-issued)" }
            } else {
                line += "; not on the leaf's path (issues none of the certificates sent)"
            }
            return line
        }
    }
}
