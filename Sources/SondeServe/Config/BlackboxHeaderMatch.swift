extension BlackboxModule.HTTP {
    /// One entry of `fail_if_header_matches` or `fail_if_header_not_matches`: the values of the
    /// final response's header `header` (any case) against `regexp`. A header that is absent fails
    /// the probe unless `allowMissing`, as in blackbox_exporter 0.23.
    public struct HeaderMatch: Equatable, Sendable {
        /// `header`: the header's name.
        public var header: String
        /// `regexp`, compiled at load.
        public var regexp: GoRegexp
        /// `allow_missing`.
        public var allowMissing: Bool

        public init(header: String, regexp: GoRegexp, allowMissing: Bool = false) {
            self.header = header
            self.regexp = regexp
            self.allowMissing = allowMissing
        }
    }
}
