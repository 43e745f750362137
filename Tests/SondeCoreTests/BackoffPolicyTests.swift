import SondeCore
import Testing

@Suite struct BackoffPolicyTests {
    @Test func growsAndCaps() {
        let policy = BackoffPolicy(initialMs: 100, maxMs: 1000, multiplier: 2, jitter: .none)
        #expect((1...6).map { policy.cappedDelayMs(failure: $0) } == [100, 200, 400, 800, 1000, 1000])
        #expect(policy.cappedDelayMs(failure: 5000) == 1000)
    }

    @Test func jitterStaysInItsRange() {
        var generator = SystemRandomNumberGenerator()
        for jitter in BackoffPolicy.Jitter.allCases {
            let policy = BackoffPolicy(initialMs: 50, maxMs: 800, multiplier: 3, jitter: jitter)
            for failure in 1...8 {
                let range = policy.bounds(failure: failure)
                for _ in 0..<200 {
                    let delay = policy.delayMs(failure: failure, using: &generator)
                    #expect(range.contains(delay))
                }
            }
        }
        let equal = BackoffPolicy(initialMs: 100, maxMs: 100, multiplier: 2, jitter: .equal)
        #expect(equal.bounds(failure: 3) == 50...100)
        let full = BackoffPolicy(initialMs: 100, maxMs: 100, multiplier: 2, jitter: .full)
        #expect(full.bounds(failure: 3) == 0...100)
    }

    @Test func rejectsUnusablePolicies() {
        #expect(BackoffPolicy(initialMs: 0).problem != nil)
        #expect(BackoffPolicy(initialMs: 100, maxMs: 50).problem != nil)
        #expect(BackoffPolicy(initialMs: 100, maxMs: 500, multiplier: 0.5).problem != nil)
        #expect(BackoffPolicy(initialMs: .nan).problem != nil)
        #expect(BackoffPolicy().problem == nil)
    }
}
