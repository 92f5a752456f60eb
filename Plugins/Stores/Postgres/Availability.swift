/// Whether the database is worth asking: after a call failed or took too
/// long, calls are misses without trying for a while, then one call tries
/// again (and the others stay misses until it has answered).
///
/// A pure state machine; the cache performs the calls.
struct Availability: Sendable {
    enum State: Equatable, Sendable {
        /// Calls go to the database.
        case available
        /// Calls are misses until `until` (uptime, in seconds).
        case resting(until: Double)
        /// One call is trying the database; the others are misses.
        case probing
    }

    private(set) var state: State = .available
    /// How long to rest after a failure, in seconds.
    let pause: Double

    init(pause: Double) {
        self.pause = pause
    }

    /// Whether a call may go to the database at `now`.
    mutating func mayTry(now: Double) -> Bool {
        switch state {
        case .available:
            return true
        case .resting(let until) where now >= until:
            state = .probing
            return true
        case .resting, .probing:
            return false
        }
    }

    /// Whether a background write may go to the database at `now`: like
    /// `mayTry(now:)`, without becoming the probe (a write that is dropped
    /// would never report).
    func allows(now: Double) -> Bool {
        switch state {
        case .available: true
        case .resting(let until): now >= until
        case .probing: false
        }
    }

    /// A call answered.
    mutating func succeeded() {
        state = .available
    }

    /// A call failed or timed out at `now`.
    mutating func failed(now: Double) {
        state = .resting(until: now + pause)
    }
}
