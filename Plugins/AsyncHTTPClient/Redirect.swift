import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request a redirect leads to, following the same rules as
/// `URLSessionTransport`.
struct Redirect: Sendable {
    let request: URLRequest
    /// Whether the method and body are kept (307, 308).
    let keepsBody: Bool

    static func next(after head: ResponseHead, for request: URLRequest) -> Redirect? {
        guard [301, 302, 303, 307, 308].contains(head.statusCode),
              let location = head.value(forHTTPHeaderField: "Location"),
              let url = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = url
        let keepsBody = head.statusCode == 307 || head.statusCode == 308
        if !keepsBody {
            // 301, 302 and 303 turn into a GET without body, as browsers and
            // URLSession do.
            if next.httpMethod?.uppercased() != "HEAD" { next.httpMethod = "GET" }
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        if !Origin.same(request.url, url) {
            Origin.stripCredentials(from: &next)
        }
        return Redirect(request: next, keepsBody: keepsBody)
    }
}

