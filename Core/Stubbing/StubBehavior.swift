import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether and how a ``Provider`` answers a target from its sample response
/// instead of the network.
///
/// Stubbed answers go through every plugin and the validation exactly as real
/// ones do; only the transport is skipped.
///
/// ```swift
/// let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
/// ```
public enum StubBehavior: Sendable, Equatable {
    /// Use the network.
    case never
    /// Answer with the sample response at once.
    case immediate
    /// Answer with the sample response after `seconds` (cancellable).
    case delayed(seconds: TimeInterval)
}

/// What a stub answers: a status and body, a full `HTTPURLResponse`, or an
/// error as if the network had failed.
///
/// ```swift
/// let endpointClosure: Provider<GitHub>.EndpointClosure = { target in
///     Provider.defaultEndpointMapping(for: target)
///         .replacing(sampleResponse: .networkResponse(503, Data("busy".utf8)))
/// }
/// ```
public enum EndpointSampleResponse: Sendable {
    /// A response with this status code and body.
    case networkResponse(Int, Data)
    /// This exact response and body.
    case response(HTTPURLResponse, Data)
    /// A failure, classified as ``NetworkError/init(transportError:)`` does
    /// (a `URLError(.timedOut)` becomes ``NetworkError/timedOut(_:)``).
    case networkError(any Error)
}
