import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Whether the request's body can be sent again: false when it is a
    /// one-shot `httpBodyStream`, true for no body, `httpBody` data or a file.
    /// Plugins that send a request again (a retry, a replay after a token
    /// refresh) check it first, with ``RequestContext/isBodyReplayable``
    /// (a ``RequestBodyStream`` rides beside the request, not in it).
    ///
    /// ```swift
    /// guard request.isBodyReplayable, context.isBodyReplayable else { return try await next(request) }
    /// ```
    public var isBodyReplayable: Bool {
        httpBodyStream == nil
    }
}
