import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The network leg: conditional headers, 304 handling, stale-if-error, and
// storing what came back.

extension CachePlugin {
    /// Sends the request (conditionally when HTTP semantics are on and the
    /// entry has validators), and stores the answer when `shouldStore` agrees.
    func fetch(
        _ plan: Plan,
        cached: CachedResponse?,
        next: PluginNext,
        shouldStore: (Response) -> Bool = { _ in true }
    ) async throws -> Response {
        var outgoing = plan.request
        let conditional = addValidators(from: cached, to: &outgoing)
        let response: Response
        do {
            response = try await next(outgoing)
        } catch {
            let failure = NetworkError(transportError: error)
            if !failure.isCancelled, let stale = staleOnError(cached, plan: plan) { return stale }
            throw error
        }
        // An answer a redirect reached at another origin is that origin's
        // resource, not this request's: it neither revalidates nor replaces
        // the entry, and is never stored under this request's key.
        guard isFromRequestedOrigin(response, plan: plan) else { return response }
        if conditional, response.statusCode == 304, let cached {
            let refreshed = refresh(cached, with: response, plan: plan)
            let answer = refreshed.response(to: outgoing, status: .revalidated)
            if shouldStore(answer) { write(refreshed, key: plan.key) }
            return answer
        }
        if (500...599).contains(response.statusCode), let stale = staleOnError(cached, plan: plan) {
            return stale
        }
        if shouldStore(response) { save(response, plan: plan) }
        return response
    }

    /// Whether `response` came from the origin `plan`'s request was sent to,
    /// and not from another one a redirect led to.
    private func isFromRequestedOrigin(_ response: Response, plan: Plan) -> Bool {
        guard let sent = plan.request.url, let answered = response.response?.url else { return false }
        return answered.hasSameOrigin(as: sent)
    }

    /// Adds `If-None-Match` and `If-Modified-Since` from the entry, unless the
    /// caller set conditions of their own (then a 304 is theirs to handle).
    private func addValidators(from cached: CachedResponse?, to request: inout URLRequest) -> Bool {
        guard let semantics = configuration.httpSemantics, semantics.revalidates, let cached,
              request.value(forHTTPHeaderField: "If-None-Match") == nil,
              request.value(forHTTPHeaderField: "If-Modified-Since") == nil else { return false }
        if let etag = cached.etag {
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified = cached.lastModified {
            request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return cached.etag != nil || cached.lastModified != nil
    }

    /// The entry after a 304: the 304's header fields replace the stored ones
    /// (except those describing the body and those never stored, such as
    /// `Set-Cookie`), and it counts as stored now.
    private func refresh(_ cached: CachedResponse, with notModified: Response, plan: Plan) -> CachedResponse {
        var headers = cached.headers
        // The stored Age was the age when first stored; now that the entry
        // counts as stored now, only an Age on the 304 itself still holds.
        if notModified.value(forHTTPHeaderField: "Age") == nil {
            headers = headers.filter { !HeaderFields.equalIgnoringASCIICase($0.key, "Age") }
        }
        let bodyFields: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
        for (name, value) in notModified.headerFields {
            guard !bodyFields.contains(name.lowercased()),
                  !CachedResponse.unstoredFields.contains(name.lowercased()) else { continue }
            if let existing = headers.keys.first(where: { HeaderFields.equalIgnoringASCIICase($0, name) }) {
                headers[existing] = nil
            }
            headers[name] = value
        }
        var entry = CachedResponse(
            key: cached.key, statusCode: cached.statusCode, headers: headers, body: cached.body, url: cached.url,
            storedAt: configuration.clock(), expiresAt: nil, varyValues: cached.varyValues
        )
        entry.expiresAt = expiry(of: entry, plan: plan)
        return entry
    }
}
