import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Whether a stored entry may be used as it is, following RFC 9111 when
// HTTP semantics are on, and the configured lifetimes alone when they are off.

extension CachePlugin {
    enum Usability {
        /// Serve it without asking the server.
        case fresh
        /// Ask the server first (conditionally, when the entry has validators).
        case stale
        /// Serve it, and refresh it in the background through `ticket`.
        case staleWhileRevalidating(RefreshTicket)
    }

    func usability(of entry: CachedResponse, plan: Plan) -> Usability {
        guard configuration.httpSemantics != nil else { return .fresh }
        let control = CacheControl(entry.value(forHTTPHeaderField: "Cache-Control"))
        if control.noCache { return .stale }
        guard let freshEnd = freshUntil(entry) else {
            // No freshness information: the configured lifetime decides,
            // unless the server asked for revalidation.
            return control.mustRevalidate ? .stale : .fresh
        }
        let now = configuration.clock()
        if now < freshEnd { return .fresh }
        if !control.mustRevalidate, let window = control.staleWhileRevalidate,
           now < freshEnd.addingTimeInterval(window),
           let ticket = plan.context.options[RefreshTicketKey.self] {
            return .staleWhileRevalidating(ticket)
        }
        return .stale
    }

    /// When the entry stops being fresh according to its `Cache-Control:
    /// max-age` or `Expires`, or `nil` when its headers say nothing.
    func freshUntil(_ entry: CachedResponse) -> Date? {
        let control = CacheControl(entry.value(forHTTPHeaderField: "Cache-Control"))
        let age = entry.value(forHTTPHeaderField: "Age")
            .flatMap { CacheControl.deltaSeconds($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        if let maxAge = control.maxAge {
            return entry.storedAt.addingTimeInterval(maxAge - age)
        }
        if let expires = entry.value(forHTTPHeaderField: "Expires") {
            // An invalid Expires means "already expired" (RFC 9111, 5.3).
            guard let date = HTTPDate.parse(expires) else { return .distantPast }
            let served = HTTPDate.parse(entry.value(forHTTPHeaderField: "Date")) ?? entry.storedAt
            return entry.storedAt.addingTimeInterval(date.timeIntervalSince(served) - age)
        }
        return nil
    }

    /// When the entry leaves the store: the configured lifetime (which also
    /// keeps an entry with validators for revalidation that long). Only when
    /// `HTTPSemantics/extendsLifetime` allows it is that stretched to the end
    /// of its HTTP freshness plus the longer of its `stale-if-error` and
    /// `stale-while-revalidate` windows, when that is later: by default a
    /// server's `max-age` never keeps an entry past the configured lifetime.
    func expiry(of entry: CachedResponse, plan: Plan) -> Date? {
        guard let lifetime = plan.lifetime else { return nil }
        let end = entry.storedAt.addingTimeInterval(lifetime)
        guard let semantics = configuration.httpSemantics, semantics.extendsLifetime else { return end }
        let control = CacheControl(entry.value(forHTTPHeaderField: "Cache-Control"))
        // The windows count from where staleOnError and usability count them.
        let staleWindow = max(control.staleIfError ?? semantics.staleIfError ?? 0, control.staleWhileRevalidate ?? 0)
        let fresh = freshUntil(entry)
        guard fresh != nil || staleWindow > 0 else { return end }
        return max(end, (fresh ?? entry.storedAt).addingTimeInterval(staleWindow))
    }

    /// The stale entry to serve instead of a failure, when `stale-if-error`
    /// (or the configured default window) allows it.
    func staleOnError(_ cached: CachedResponse?, plan: Plan) -> Response? {
        guard let semantics = configuration.httpSemantics, let cached else { return nil }
        let control = CacheControl(cached.value(forHTTPHeaderField: "Cache-Control"))
        guard !control.mustRevalidate, !control.noCache,
              let window = control.staleIfError ?? semantics.staleIfError else { return nil }
        let freshEnd = freshUntil(cached) ?? cached.storedAt
        guard configuration.clock() < freshEnd.addingTimeInterval(window) else { return nil }
        return cached.response(to: plan.request, status: .stale)
    }
}
