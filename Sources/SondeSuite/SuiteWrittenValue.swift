extension SuiteLoader {
    /// A check's value as the suite file wrote it, before `${NAME}` expansion (`"Bearer ${API_TOKEN}"`,
    /// `["wait.p95<200ms", "${EXTRA_THRESHOLD}"]`): what a printed suite writes back instead of a
    /// secret. Scalars and list items are the source text (`$$` still doubled, `${…}` unexpanded).
    public enum WrittenValue: Equatable, Sendable {
        case scalar(String)
        case list([String])
        /// A probe's `urls` with at least one `{name, url}` entry: each entry as written.
        case requests([WrittenRequest])
    }

    /// One entry of a probe's `urls` as the file wrote it (its URL's `${NAME}` unexpanded).
    public struct WrittenRequest: Equatable, Sendable {
        public var url: String
        public var name: String?
    }
}
