import CurlShim
import SondeCore
import Testing
@testable import SondeHTTP

@Suite struct CurlErrorClassifierTests {
    private func classify(_ code: CURLcode, errno: Int32 = 0, verify: Int = 0, connected: Bool = false, tlsPending: Bool = false,
                          detail: String = "") -> TaskError {
        CurlErrorClassifier.classify(CurlFailure(curlCode: Int(code.rawValue), detail: detail, osErrno: errno, verifyResult: verify,
                                                 connected: connected, tlsPending: tlsPending, url: "https://h/", remote: "127.0.0.1:1"))
    }

    /// The same libcurl code means different things before and after a connection: each gets its own cause.
    @Test func repliesThatAreNotHTTPAndOversizedHeadersHaveTheirOwnCodes() {
        #expect(classify(CURLE_UNSUPPORTED_PROTOCOL, connected: true, detail: "Received HTTP/0.9 when not allowed").code == .invalidResponse)
        #expect(classify(CURLE_UNSUPPORTED_PROTOCOL, connected: false).code == .unsupportedScheme)
        #expect(classify(CURLE_RECV_ERROR, connected: true, detail: "Too large response headers: 307265 > 307200").code == .headerTooLarge)
        #expect(classify(CURLE_RECV_ERROR, connected: true, detail: "Illegal or missing hexadecimal sequence in chunked-encoding").code == .invalidResponse)
        #expect(classify(CURLE_OUT_OF_MEMORY, connected: true, detail: "Out of memory").code == .headerTooLarge)
        #expect(classify(CURLE_OPERATION_TIMEDOUT, connected: true, tlsPending: true, detail: "SSL connection timeout").code == .tlsTimeout)
        #expect(classify(CURLE_RECV_ERROR, errno: 104, connected: true).code == .connectionReset)
    }

    @Test func mapsEveryClassToItsCode() {
        #expect(classify(CURLE_URL_MALFORMAT).code == .malformedURL)
        #expect(classify(CURLE_UNSUPPORTED_PROTOCOL).code == .unsupportedScheme)
        #expect(classify(CURLE_COULDNT_RESOLVE_HOST).code == .dnsFailure)
        #expect(classify(CURLE_COULDNT_CONNECT, errno: 111).code == .connectionRefused)
        #expect(classify(CURLE_COULDNT_CONNECT, errno: 113).code == .hostUnreachable)
        #expect(classify(CURLE_OPERATION_TIMEDOUT, connected: false).code == .connectTimeout)
        #expect(classify(CURLE_OPERATION_TIMEDOUT, connected: true).code == .timedOut)
        #expect(classify(CURLE_PARTIAL_FILE).code == .truncatedBody)
        #expect(classify(CURLE_RECV_ERROR, errno: 104).code == .connectionReset)
        #expect(classify(CURLE_GOT_NOTHING).code == .emptyReply)
        #expect(classify(CURLE_HTTP2).code == .protocolError)
    }

    @Test func tlsFailuresCarryTheirReason() {
        #expect(classify(CURLE_PEER_FAILED_VERIFICATION, verify: 10).reason == "certificateExpired")
        #expect(classify(CURLE_PEER_FAILED_VERIFICATION, verify: 20).reason == "unknownCA")
        #expect(classify(CURLE_PEER_FAILED_VERIFICATION, detail: "SSL: no alternative certificate subject name matches target host name 'x'").reason == "hostnameMismatch")
        #expect(classify(CURLE_SSL_PINNEDPUBKEYNOTMATCH).reason == "pinnedKeyMismatch")
        let error = classify(CURLE_PEER_FAILED_VERIFICATION, verify: 19)
        #expect(error.code == .tlsFailure)
        #expect(error.curlCode == 60)
        #expect(error.message.contains("--cacert"))
    }
}

@Suite struct StatusLineTests {
    @Test func theStatusCodeIsTheThreeDigitsAfterTheFirstSpace() {
        func code(_ line: String) -> Int? { Array(line.utf8).withUnsafeBytes { EasyHandle.statusCode($0) } }
        #expect(code("HTTP/1.1 200 OK") == 200)
        #expect(code("HTTP/2 104") == 104)
        #expect(code("HTTP/1.0 503 Service Unavailable") == 503)
        #expect(code("HTTP/1.1 20 OK") == nil)
        #expect(code("HTTP/1.1 20") == nil)
        #expect(code("HTTP/1.1 2000 OK") == nil)
        #expect(code("HTTP/1.1 2x0 OK") == nil)
        #expect(code("HTTP/1.1") == nil)
        #expect(code("HTTP/1.1 ") == nil)
    }
}

@Suite struct CertificateInfoParserTests {
    @Test func parsesCurlCertinfoLines() {
        let lines = ["Subject:O = sonde, CN = localhost", "Issuer:O = sonde, CN = sonde target CA", "Version:2",
                     "Serial Number:1a2b", "Signature Algorithm:ecdsa-with-SHA256", "Public Key Algorithm:id-ecPublicKey",
                     "Start date:Nov  1 21:00:00 2026 GMT", "Expire date:Dec 31 23:59:59 2027 GMT", "Cert:-----BEGIN CERTIFICATE-----"]
        let certificate = CertificateInfoParser.parse([lines])[0]
        #expect(certificate.subject == "O = sonde, CN = localhost")
        #expect(certificate.issuer == "O = sonde, CN = sonde target CA")
        #expect(certificate.serialNumber == "1a2b")
        #expect(certificate.notBefore?.description == "2026-11-01T21:00:00.000000Z")
        #expect(certificate.notAfter?.description == "2027-12-31T23:59:59.000000Z")
    }

    @Test func unparseableDatesBecomeNil() {
        #expect(CertificateInfoParser.parseOpenSSLDate("not a date") == nil)
        #expect(CertificateInfoParser.parseOpenSSLDate("Foo 1 00:00:00 2026 GMT") == nil)
    }
}

@Suite struct StatusSetTests {
    @Test func parsesListsAndRanges() throws {
        let set = try #require(StatusSet(parsing: "200-299,404"))
        #expect(set.contains(204) && set.contains(404) && !set.contains(403))
        #expect(set.description == "200-299,404")
        #expect(StatusSet(parsing: "abc") == nil)
        #expect(StatusSet(parsing: "300-200") == nil)
        #expect(StatusSet(parsing: "") == nil)
        #expect(StatusSet(parsing: "700") == nil)
    }
}
