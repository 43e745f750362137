#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// What libcurl's verbose text of one transfer says about its QUIC attempt: the lines that name
/// QUIC or HTTP/3 failures or the UDP socket calls under them, which is how libcurl 8 accounts for
/// a lost `--http3` race (it clears its error buffer once TCP wins, so they are the only account).
///
/// libcurl 8.23 against a closed UDP port (ICMP port unreachable) logs, from lib/vquic/vquic.c and
/// the ngtcp2 filter:
///
///     sendmsg() returned -1 (errno 111)
///     QUIC connect to 127.0.0.1 port 8443 failed: Failed sending data to the peer
///
/// Kept: lines that mention "QUIC" (`QUIC connect to … failed: …`, `QUIC: connection to … refused`,
/// `QUIC: recvmsg() unexpectedly returned …`), the vquic socket calls' errors (`sendmsg()`,
/// `recvmsg()`, `recvmmsg()`, `recvfrom()`, `send()` … `returned`), and failures that name HTTP/3
/// or its libraries (`ngtcp2_…`, `nghttp3_…`, `quiche …`), but not the request log of a working
/// h3 stream (`[HTTP/3] [0] …`, `using HTTP/3`). "Failed to connect to …" lines are left out: a
/// TCP attempt logs them too. Pure; unit-tested on libcurl's own lines.
struct QUICAttemptLog: Equatable {
    /// The QUIC lines, in libcurl's order, each once, without their line ends.
    let lines: [String]

    /// - Parameter text: libcurl's CURLINFO_TEXT output of one transfer (newline-separated).
    init(text: String) {
        var kept: [String] = []
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = raw.trimmingSpaces()
            if Self.isAboutQUIC(line) && !kept.contains(line) { kept.append(line) }
        }
        lines = kept
    }

    /// Lines already picked from a transfer's text (as `CurlFailure.quicAttempt` carries them).
    init(lines: [String]) {
        self.lines = lines
    }

    static func isAboutQUIC(_ line: String) -> Bool {
        if line.hasPrefix("[HTTP/3]") || line.hasPrefix("using HTTP/3") { return false }
        if line.contains("QUIC") || line.contains("ngtcp2") || line.contains("nghttp3") || line.contains("quiche") { return true }
        for call in ["sendmsg()", "recvmsg()", "recvmmsg()", "recvfrom()", "send()", "sendmsg_x()", "recvmsg_x()"]
            where line.hasPrefix(call) && line.contains("returned") { return true }
        return line.contains("HTTP/3") && (line.contains("fail") || line.contains("error") || line.contains("refused")
            || line.contains("reset") || line.contains("cannot") || line.contains("lacks"))
    }

    /// The fallback record of a race TCP won: the lines joined with "; " (at most
    /// `HTTP3Fallback.maxReasonLength` characters, cut with "…"), or a sentence when libcurl
    /// logged nothing about QUIC (it was only slower).
    var fallback: HTTP3Fallback {
        guard !lines.isEmpty else {
            return HTTP3Fallback(reason: "TCP+TLS was ready before QUIC; libcurl logged no QUIC failure")
        }
        var reason = lines.joined(separator: "; ")
        if reason.count > HTTP3Fallback.maxReasonLength {
            reason = String(reason.prefix(HTTP3Fallback.maxReasonLength - 1)) + "…"
        }
        return HTTP3Fallback(reason: reason)
    }

    /// The errno of the first socket call that failed ("… (errno 111)"), nil when none is named.
    var socketErrno: Int32? {
        for line in lines {
            guard let range = line.range(of: "errno") else { continue }
            let digits = line[range.upperBound...].drop { $0 == " " || $0 == "=" }.prefix { $0.isASCII && $0.isNumber }
            if let value = Int32(digits) { return value }
        }
        return nil
    }
}

private extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var line = self
        while let first = line.first, first == " " || first == "\t" { line.removeFirst() }
        while let last = line.last, last == " " || last == "\t" { line.removeLast() }
        return String(line)
    }
}
