import Foundation
/// The time a `/probe` may take, as blackbox_exporter computes it: the scrape's timeout
/// (`X-Prometheus-Scrape-Timeout-Seconds`, 120 s without one) less `offset`, or the module's
/// timeout when that is shorter (or the difference is negative). A header never makes a probe run
/// longer than 120 s, or than the module's own timeout when that is longer: the client chooses the
/// header, and a probe holds one of `ServeLimits.maxProbes` places until it ends, even when the
/// client has gone.
enum ScrapeTimeout {
    /// A scrape timeout header that is not a number of seconds.
    struct Refused: Error {
        var message: String
    }

    /// blackbox's default `--timeout-offset`.
    static let defaultOffset = 0.5
    /// The longest scrape timeout sonde takes from a header (s): a day.
    static let maxHeader = 86_400.0
    /// The longest a header makes a probe run (s), unless the module's timeout is longer.
    static let maxFromHeader = 120.0

    /// The limit in seconds, or why the header is refused.
    static func seconds(header: String?, moduleTimeout: Double?, offset: Double = defaultOffset) -> Result<Double, Refused> {
        var scrape = 0.0
        if let header {
            guard let value = Double(header.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0, value <= maxHeader else {
                return .failure(Refused(message: "failed to parse timeout from Prometheus header: '\(header.prefix(64))' is not a number of seconds from 0 to \(Int(maxHeader))"))
            }
            scrape = min(value, max(maxFromHeader, moduleTimeout ?? 0))
        }
        if scrape == 0 { scrape = 120 }
        let most = scrape - offset
        if let module = moduleTimeout, module > 0, module < most || most < 0 { return .success(module) }
        return .success(max(0.001, most))
    }
}
