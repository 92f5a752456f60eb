#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

/// What a YAML body may cost to decode, checked on the parser's events
/// before Yams builds anything.
///
/// Anchors and aliases make a small document stand for a huge one: nine
/// levels of nine aliases each are 350 bytes that expand to 387 million
/// nodes. A body past a limit fails with
/// `NetworkError.mappingFailed(response, YAMLMappingFailure)` whose
/// `underlyingError` is a `Courier/MappingLimitExceeded` naming the limit,
/// in time and memory proportional to the body's own size.
///
/// ```swift
/// let mapper = YAMLDecodableMapper<Deployment>(limits: YAMLLimits(maximumAliasExpansion: 1_000_000))
/// ```
public struct YAMLLimits: Sendable, Equatable {
    /// How deep sequences and mappings may nest, aliases expanded where they
    /// stand; 128 by default. (The YAML parser itself stops at 1,000.)
    public var maximumDepth: Int
    /// How many nodes aliases may add to the document in all, each alias
    /// counting the whole node it stands for with the aliases inside it
    /// expanded; 100,000 by default. A document without aliases adds none,
    /// whatever its size.
    public var maximumAliasExpansion: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maximumDepth: How deep sequences and mappings may nest.
    ///   - maximumAliasExpansion: How many nodes aliases may add in all.
    public init(maximumDepth: Int = 128, maximumAliasExpansion: Int = 100_000) {
        self.maximumDepth = maximumDepth
        self.maximumAliasExpansion = maximumAliasExpansion
    }
}
