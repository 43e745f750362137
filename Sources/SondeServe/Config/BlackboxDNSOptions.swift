extension BlackboxModule {
    /// The dns prober's options (`dns:`), with blackbox_exporter 0.23's defaults.
    public struct DNS: Equatable, Sendable {
        public var preferredIPProtocol = "ip6"
        public var ipProtocolFallback = true
        /// `transport_protocol`: `udp` or `tcp`.
        public var transportProtocol = "udp"
        /// `query_name` (made fully qualified when sent); required.
        public var queryName = ""
        /// `query_type` (a name of `DNSCodes.types`; blackbox's default ANY) and its number.
        public var queryType = "ANY"
        /// `query_class` (IN by default).
        public var queryClass = "IN"
        /// `recursion_desired`.
        public var recursionDesired = true
        /// `valid_rcodes` as names (`NOERROR`); empty: NOERROR only.
        public var validRcodes: [String] = []
        /// `validate_answer_rrs`, `validate_authority_rrs`, `validate_additional_rrs`.
        public var validateAnswer = RRValidator()
        public var validateAuthority = RRValidator()
        public var validateAdditional = RRValidator()

        public init() {}
    }

    /// Regular expressions (Go's syntax, compiled at load) a section's records are matched against, each record in
    /// its presentation form (`example.com.\t300\tIN\tA\t192.0.2.1`), as blackbox does.
    public struct RRValidator: Equatable, Sendable {
        /// `fail_if_matches_regexp`: fail when any record matches any of them.
        public var failIfMatches: [GoRegexp] = []
        /// `fail_if_all_match_regexp`: as blackbox 0.23 runs it, fail when some record does *not*
        /// match one of them (the opposite of its name; sonde keeps blackbox's behaviour).
        public var failIfAllMatch: [GoRegexp] = []
        /// `fail_if_not_matches_regexp`: fail when a record does not match one of them (or there is no record).
        public var failIfNotMatches: [GoRegexp] = []
        /// `fail_if_none_matches_regexp`: fail when no record matches one of them (or there is no record).
        public var failIfNoneMatches: [GoRegexp] = []

        public init() {}

        public var isEmpty: Bool { failIfMatches.isEmpty && failIfAllMatch.isEmpty && failIfNotMatches.isEmpty && failIfNoneMatches.isEmpty }
    }
}
