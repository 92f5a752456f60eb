import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a suite whose tests could hang on a server that never
    /// answers, so that a hang fails the suite and not the whole CI run. Five
    /// minutes: the limit counts from the start of a full run, where every
    /// test starts at once and waits its turn for a core.
    public static var hangsFailTheSuite: Self { .timeLimit(.minutes(5)) }
}
