#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

/// What an XML body may cost to decode, checked on its bytes before the
/// parser (XMLCoder on Foundation's `XMLParser`, libxml2 on Linux) sees
/// them.
///
/// Entities are the XML bomb: a few hundred bytes of `<!ENTITY>`
/// declarations that refer to each other expand to gigabytes, and an
/// external entity (`SYSTEM "file:///…"`) reads files or URLs. Courier
/// refuses every entity declaration, and by default any document type
/// declaration (`<!DOCTYPE>`); response bodies of APIs need neither.
///
/// Two kinds of body would crash the process inside FoundationXML on Linux,
/// so they are refused too, whatever the limits: a body read as UTF-8 (no
/// declared encoding, or UTF-8 or ASCII declared) that is not valid UTF-8,
/// and a processing instruction without data (`<?name?>`), even inside a
/// comment or CDATA section. A body past a limit fails with
/// `NetworkError.mappingFailed(response, XMLMappingFailure)` whose
/// `underlyingError` is a `Courier/MappingLimitExceeded` naming it.
///
/// ```swift
/// let mapper = XMLDecodableMapper<Feed>(limits: XMLLimits(allowsDocumentType: true))
/// ```
public struct XMLLimits: Sendable, Equatable {
    /// How deep elements may nest; 128 by default.
    public var maximumDepth: Int
    /// Whether a `<!DOCTYPE>` is accepted; `false` by default. Even when
    /// `true`, a document type that declares an entity (`<!ENTITY`) is
    /// refused: there is no setting that expands entities.
    public var allowsDocumentType: Bool

    /// Creates limits.
    /// - Parameters:
    ///   - maximumDepth: How deep elements may nest.
    ///   - allowsDocumentType: Whether a `<!DOCTYPE>` without entity
    ///     declarations is accepted.
    public init(maximumDepth: Int = 128, allowsDocumentType: Bool = false) {
        self.maximumDepth = maximumDepth
        self.allowsDocumentType = allowsDocumentType
    }
}
