import Testing
@testable import SondeServe

@Suite struct MallocRetentionTests {
    /// serve's retention settings reach glibc: `dlsym` finds `mallopt` and `malloc_trim` (a miss would make both
    /// calls no-ops without a word, and serve keep what its runs free), and both calls return.
    @Test func glibcsFunctionsAreFoundAndCalled() {
        #expect(MallocRetention.isAvailable)
        MallocRetention.fixMmapThreshold()
        MallocRetention.trim()
        MallocRetention.trim(notMoreOftenThan: 60)
    }
}
