#if canImport(Glibc)
import Glibc
#endif
import CurlShim
import SondeCore

/// Maps a failed libcurl transfer to sonde's error taxonomy with a message a person can act on.
///
/// Pure: it only looks at the facts it is given, so it is unit-tested without a network.
public struct CurlFailure: Sendable {
    /// The CURLcode's numeric value.
    public var curlCode: Int
    /// libcurl's detailed message (CURLOPT_ERRORBUFFER), may be empty.
    public var detail: String
    /// CURLINFO_OS_ERRNO.
    public var osErrno: Int32
    /// CURLINFO_SSL_VERIFYRESULT (an X509_V_ERR_* value), 0 when verification passed or did not run.
    public var verifyResult: Int
    /// True when the TCP connection had been established before the failure.
    public var connected: Bool
    /// True when TCP had connected for an https transfer whose TLS handshake had not finished.
    public var tlsPending: Bool
    /// The URL (redacted) for messages.
    public var url: String
    /// Host and port the transfer went to, when known.
    public var remote: String?
    /// libcurl's verbose lines about a QUIC attempt (`QUICAttemptLog`), empty when there was none
    /// or its text was not collected.
    public var quicAttempt: [String]
    /// True when the transfer could only use QUIC (`--http3-only`, or an h3 `Alt-Svc`
    /// alternative, which libcurl tries without TCP): a failure to connect is QUIC's, never TCP's.
    public var overQUIC: Bool

    public init(curlCode: Int, detail: String, osErrno: Int32 = 0, verifyResult: Int = 0, connected: Bool = false,
                tlsPending: Bool = false, url: String, remote: String? = nil, quicAttempt: [String] = [], overQUIC: Bool = false) {
        self.quicAttempt = quicAttempt
        self.overQUIC = overQUIC
        self.tlsPending = tlsPending
        self.curlCode = curlCode
        self.detail = detail
        self.osErrno = osErrno
        self.verifyResult = verifyResult
        self.connected = connected
        self.url = url
        self.remote = remote
    }

    /// True for failures that happen before any network activity (libcurl also answers
    /// CURLE_UNSUPPORTED_PROTOCOL to a reply that is not HTTP, after connecting).
    public var isLocal: Bool {
        !connected && (curlCode == Int(CURLE_URL_MALFORMAT.rawValue) || curlCode == Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue))
    }
}

public enum CurlErrorClassifier {
    /// CURLE_TOO_LARGE (100), libcurl 8.6.0+; Debian's 7.88 headers do not name it.
    static let tooLarge = CURLcode(rawValue: 100)

    public static func classify(_ failure: CurlFailure) -> TaskError {
        let code = CURLcode(rawValue: UInt32(clamping: failure.curlCode))
        let detail = failure.detail.isEmpty ? String(cString: curl_easy_strerror(code)) : failure.detail
        let target = failure.remote ?? failure.url
        let lowercasedDetail = detail.lowercased()
        func error(_ kind: ErrorCode, _ message: String, reason: String? = nil) -> TaskError {
            TaskError(code: kind, message: "\(message) (libcurl: \(detail))", curlCode: failure.curlCode, reason: reason)
        }
        if !failure.connected && (failure.overQUIC || !failure.quicAttempt.isEmpty),
           [CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_QUIC_CONNECT_ERROR, CURLE_COULDNT_CONNECT].contains(code)
            || (failure.overQUIC && code == CURLE_OPERATION_TIMEDOUT) {
            return classifyQUIC(failure, timedOut: code == CURLE_OPERATION_TIMEDOUT, target: target, error)
        }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL where failure.connected:
            // "Received HTTP/0.9 when not allowed", "Unsupported response code in HTTP response".
            return error(.invalidResponse, "\(target) did not answer with an HTTP response (no status line, or a status outside 100-599)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return error(.unsupportedScheme, "unsupported URL scheme in \(failure.url): sonde probes http:// and https:// URLs")
        case CURLE_URL_MALFORMAT:
            return error(.malformedURL, "malformed URL \(failure.url): check the scheme, host and port")
        case CURLE_COULDNT_RESOLVE_HOST:
            return error(.dnsFailure, "could not resolve the host of \(failure.url): check the name, or pin it with --resolve host:port:address")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return error(.dnsFailure, "could not resolve the proxy host", reason: "proxy")
        case CURLE_COULDNT_CONNECT:
            switch failure.osErrno {
            case ECONNREFUSED:
                return error(.connectionRefused, "connection refused by \(target): nothing listens on that port")
            case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
                return error(.hostUnreachable, "no route to \(target): check the address and the network")
            case ETIMEDOUT:
                return error(.connectTimeout, "TCP connect to \(target) timed out")
            default:
                return error(.connectionRefused, "could not connect to \(target)")
            }
        case CURLE_OPERATION_TIMEDOUT:
            if failure.tlsPending {
                return error(.tlsTimeout, "TCP connected to \(target), but the TLS handshake did not finish in time: the server accepts connections and does not answer TLS (raise --connect-timeout or --timeout if it is just slow)")
            }
            if !failure.connected {
                return error(.connectTimeout, "TCP connect to \(target) did not complete in time: raise --connect-timeout, or check that the host answers")
            }
            return error(.timedOut, "the transfer did not finish in time: raise --timeout if the server is just slow")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CONNECT_ERROR,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_INITFAILED:
            return classifyTLS(code, failure, error)
        case CURLE_PARTIAL_FILE:
            return error(.truncatedBody, "the server closed the connection before sending the whole body it announced")
        case CURLE_RECV_ERROR where lowercasedDetail.contains("too large") && lowercasedDetail.contains("header"):
            // "Too large response headers: 307265 > 307200"
            return error(.headerTooLarge, "the response headers from \(target) are larger than libcurl accepts (300 KiB in all)")
        case CURLE_RECV_ERROR where lowercasedDetail.contains("chunk"):
            // "Illegal or missing hexadecimal sequence in chunked-encoding" and the like.
            return error(.invalidResponse, "the response from \(target) broke its chunked transfer encoding")
        case CurlErrorClassifier.tooLarge where failure.connected:
            // libcurl 8.6+ (CURLE_TOO_LARGE): a header line over its limit, or the header section.
            return error(.headerTooLarge, "a response header line (or the header section) from \(target) is larger than libcurl accepts")
        case CURLE_OUT_OF_MEMORY where failure.connected:
            // libcurl 7.88 fails a header line over its 100 KiB limit with this code and "Out of memory".
            return error(.headerTooLarge, "a response header line from \(target) is longer than libcurl accepts (100 KiB)")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if failure.osErrno == ECONNRESET || failure.osErrno == EPIPE {
                return error(.connectionReset, "the connection to \(target) was reset by the peer")
            }
            return error(.connectionClosed, "the connection to \(target) failed while transferring")
        case CURLE_SEND_FAIL_REWIND, CURLE_UPLOAD_FAILED:
            // The connection failed under a request body (libcurl could not replay it on a new one).
            if failure.osErrno == ECONNRESET || failure.osErrno == EPIPE {
                return error(.connectionReset, "the connection to \(target) was reset while the request body was being sent")
            }
            return error(.connectionClosed, "the connection to \(target) failed while the request body was being sent")
        case CURLE_GOT_NOTHING:
            return error(.emptyReply, "the server closed the connection without sending a response")
        case CURLE_BAD_CONTENT_ENCODING:
            return error(.contentDecodingFailed, "the body's Content-Encoding could not be decoded (truncated or corrupt)")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY,
             CURLE_HTTP_RETURNED_ERROR, CURLE_RANGE_ERROR, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return error(.protocolError, "the server's reply broke the protocol")
        case CURLE_TOO_MANY_REDIRECTS:
            return error(.tooManyRedirects, "too many redirects")
        case CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION, CURLE_FUNCTION_NOT_FOUND:
            return error(.unsupportedFeature, "the linked libcurl lacks a feature this probe needs")
        case CURLE_ABORTED_BY_CALLBACK:
            return error(.interrupted, "the transfer was stopped")
        case CURLE_WRITE_ERROR, CURLE_READ_ERROR:
            return error(.localIOError, "sonde could not read or write local data")
        default:
            return error(.protocolError, "the transfer failed")
        }
    }

    /// A QUIC connection that never came up (`--http3-only`, an `Alt-Svc` alternative, or a
    /// race both sides lost): libcurl 8 reports it as CURLE_SEND_ERROR or CURLE_RECV_ERROR
    /// ("Failed to connect to …: Failed sending data to the peer") without an OS errno; the errno
    /// is in its verbose lines. A UDP port that drops the packets times out (`timedOut`).
    private static func classifyQUIC(_ failure: CurlFailure, timedOut: Bool, target: String,
                                     _ error: (ErrorCode, String, String?) -> TaskError) -> TaskError {
        let said = failure.quicAttempt.joined(separator: "; ")
        let lines = said.isEmpty ? "" : " [\(said)]"
        if timedOut {
            return error(.connectTimeout, "the QUIC handshake with \(target) did not complete in time: nothing answered on that UDP port "
                + "(raise --connect-timeout, or check that the host serves HTTP/3 there)\(lines)", "quic")
        }
        switch QUICAttemptLog(lines: failure.quicAttempt).socketErrno {
        case ECONNREFUSED:
            return error(.connectionRefused, "QUIC to \(target) was refused (ICMP port unreachable): nothing listens on that UDP port\(lines)", "quic")
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
            return error(.hostUnreachable, "no route to \(target) over UDP (QUIC)\(lines)", "quic")
        default:
            return error(.connectionRefused, "the QUIC connection to \(target) did not come up\(lines)", "quic")
        }
    }

    private static func classifyTLS(_ code: CURLcode, _ failure: CurlFailure,
                                    _ error: (ErrorCode, String, String?) -> TaskError) -> TaskError {
        let detail = failure.detail.lowercased()
        if code == CURLE_SSL_PINNEDPUBKEYNOTMATCH {
            return error(.tlsFailure, "the server's public key does not match --pinned-pubkey", "pinnedKeyMismatch")
        }
        if code == CURLE_SSL_CACERT_BADFILE {
            return error(.tlsFailure, "the CA file could not be read: check the path given to --cacert", "caFileUnreadable")
        }
        // X509_V_ERR_* values from OpenSSL's x509_vfy.h.
        switch failure.verifyResult {
        case 10:
            return error(.tlsFailure, "the server's certificate has expired", "certificateExpired")
        case 9:
            return error(.tlsFailure, "the server's certificate is not valid yet", "certificateNotYetValid")
        case 2, 18, 19, 20, 21:
            return error(.tlsFailure, "the server's certificate is not trusted (unknown CA or self-signed): pass the CA with --cacert FILE, or --insecure to skip verification", "unknownCA")
        case 62:
            return error(.tlsFailure, "the server's certificate does not name this host", "hostnameMismatch")
        default:
            break
        }
        if detail.contains("no alternative certificate subject name") || detail.contains("does not match target host") {
            return error(.tlsFailure, "the server's certificate does not name this host", "hostnameMismatch")
        }
        if detail.contains("expired") {
            return error(.tlsFailure, "the server's certificate has expired", "certificateExpired")
        }
        if detail.contains("self-signed") || detail.contains("unable to get local issuer") || detail.contains("self signed") {
            return error(.tlsFailure, "the server's certificate is not trusted (unknown CA or self-signed): pass the CA with --cacert FILE, or --insecure to skip verification", "unknownCA")
        }
        if code == CURLE_PEER_FAILED_VERIFICATION {
            return error(.tlsFailure, "the server's certificate failed verification", "verificationFailed")
        }
        return error(.tlsFailure, "the TLS handshake failed", "handshakeFailed")
    }
}
