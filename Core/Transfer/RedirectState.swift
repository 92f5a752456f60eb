import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The redirect rules, once for every transport: which responses are
/// followed, where to, with which method and body, and what never crosses to
/// another origin.
struct RedirectState: Sendable {
    private let policy: TransferConfiguration.Redirects
    private(set) var hops = 0

    init(policy: TransferConfiguration.Redirects) {
        self.policy = policy
    }

    /// The request a redirect response leads to, `nil` when `response` is not
    /// a redirect to follow, or is one that would send a one-shot body stream
    /// again (the 3xx response is then the answer).
    /// - Throws: ``NetworkError/redirectRefused(_:)`` for a scheme other than
    ///   http and https, an https-to-http downgrade (unless allowed), a
    ///   `Location` that is not a URL, one redirect too many, a body that
    ///   would go to another origin (unless allowed), or a redirect the
    ///   policy's `decide` refuses.
    mutating func next(after response: TransportResponse, for request: OutgoingRequest) throws(NetworkError) -> OutgoingRequest? {
        let statusCode = response.statusCode
        // The status first: the header lookup is only paid by redirects.
        guard policy.follows, [301, 302, 303, 307, 308].contains(statusCode),
              let location = response.value(forHTTPHeaderField: "Location")
        else { return nil }
        let method = request.urlRequest.httpMethod?.uppercased() ?? "GET"
        // 303 turns anything but HEAD into a GET; 301 and 302 turn a POST into
        // a GET, as every browser does; 307 and 308 keep method and body.
        let becomesGET = (statusCode == 303 && method != "HEAD") || ((statusCode == 301 || statusCode == 302) && method == "POST")
        if !becomesGET, let stream = request.bodyStream, !stream.canBeSentAgain {
            return nil
        }
        guard let url = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw .redirectRefused(.invalidLocation)
        }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw .redirectRefused(.unsupportedScheme(scheme.isEmpty ? "scheme-less" : scheme))
        }
        guard let host = url.host, !host.isEmpty else { throw .redirectRefused(.invalidLocation) }
        if request.url?.scheme?.lowercased() == "https", scheme == "http", !policy.allowsInsecureDowngrade {
            throw .redirectRefused(.insecureDowngrade)
        }
        hops += 1
        guard hops <= policy.maximum else { throw .redirectRefused(.tooManyRedirects(max(0, policy.maximum))) }

        var next = request
        next.urlRequest.url = url
        if becomesGET {
            next.urlRequest.httpMethod = "GET"
            next.urlRequest.httpBody = nil
            next.uploadFile = nil
            next.bodyStream = nil
            next.bodyLength = 0
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.urlRequest.setValue(nil, forHTTPHeaderField: name)
            }
        }
        let crossesOrigin = !Origin.same(request.url, url)
        if crossesOrigin, !becomesGET, request.hasBody, !policy.allowsBodyToOtherOrigins {
            throw .redirectRefused(.bodyToAnotherOrigin)
        }
        if let decide = policy.decide, let from = request.url,
           decide(RedirectHop(statusCode: statusCode, from: from, to: url, method: next.urlRequest.httpMethod ?? "GET",
                              crossesOrigin: crossesOrigin)) == .refuse {
            throw .redirectRefused(.refusedByPolicy(statusCode: statusCode))
        }
        if crossesOrigin {
            Origin.strip(policy.credentialHeaders, from: &next.urlRequest)
        }
        return next
    }
}

/// Same-origin checks, and dropping the header fields that never leave their origin.
enum Origin {
    static func same(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    /// Drops the header fields named in `names` (compared ignoring case).
    static func strip(_ names: Set<String>, from request: inout URLRequest) {
        for name in names where request.value(forHTTPHeaderField: name) != nil {
            request.setValue(nil, forHTTPHeaderField: name)
        }
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
