import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One stored response: status, header fields and body, with the metadata the
/// cache needs to decide whether to use it (when it was stored, when it
/// expires, its validators and the request header values it varies on).
public struct CachedResponse: Sendable, Equatable {
    /// The key the entry was stored under; a store checks it on reading, so a
    /// file-name collision is a miss, never someone else's response.
    public var key: String
    /// The HTTP status code.
    public var statusCode: Int
    /// The response header fields.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// The URL the response came from.
    public var url: URL?
    /// When the response was stored, or last revalidated.
    public var storedAt: Date
    /// When the entry stops being served at all, or `nil` for never (until
    /// the store trims it). Stores treat an expired entry as a miss.
    public var expiresAt: Date?
    /// The `ETag` validator, for `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` validator, for `If-Modified-Since`.
    public var lastModified: String?
    /// The SHA-256 (lower-case hex) of the values of the request header
    /// fields the response's `Vary` names, keyed by lower-cased field name
    /// (an absent field counts as an empty string). Digests, never the values:
    /// `Vary: Authorization` must not write a token to disk.
    public var varyValues: [String: String]

    /// Creates an entry.
    /// - Parameters:
    ///   - key: The key it is stored under.
    ///   - statusCode: The HTTP status.
    ///   - headers: The response header fields.
    ///   - body: The body.
    ///   - url: The URL the response came from.
    ///   - storedAt: When it was stored.
    ///   - expiresAt: When it stops being served, or `nil` for never.
    ///   - varyValues: The SHA-256 digests of the request header values its
    ///     `Vary` names.
    public init(
        key: String,
        statusCode: Int,
        headers: [String: String],
        body: Data,
        url: URL?,
        storedAt: Date,
        expiresAt: Date?,
        varyValues: [String: String] = [:]
    ) {
        self.init(key: key, statusCode: statusCode, headers: headers, body: body, url: url, storedAt: storedAt,
                  expiresAt: expiresAt, etag: HeaderFields.value("ETag", in: headers),
                  lastModified: HeaderFields.value("Last-Modified", in: headers), varyValues: varyValues)
    }

    /// An entry whose validators are known already (a cache file stores them),
    /// so the header fields are not searched for them again.
    init(
        key: String,
        statusCode: Int,
        headers: [String: String],
        body: Data,
        url: URL?,
        storedAt: Date,
        expiresAt: Date?,
        etag: String?,
        lastModified: String?,
        varyValues: [String: String]
    ) {
        self.key = key
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.etag = etag
        self.lastModified = lastModified
        self.varyValues = varyValues
    }

    /// Whether the entry has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }

    /// The approximate number of bytes the entry occupies, for size limits.
    public var cost: Int {
        body.count + key.utf8.count + headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The value of a header field, matched case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        HeaderFields.value(name, in: headers)
    }

    static let unstoredFields: Set<String> = ["set-cookie", "set-cookie2"]

}

// MARK: - Converting to and from responses

extension CachedResponse {
    /// Makes an entry from a response.
    init(response: Response, key: String, storedAt: Date, expiresAt: Date?, varyValues: [String: String]) {
        var headers: [String: String] = [:]
        for (name, value) in response.headerFields {
            // Cookies are the user's secrets and the cookie store's business.
            if !Self.unstoredFields.contains(name.lowercased()) {
                headers[name] = value
            }
        }
        self.init(key: key, statusCode: response.statusCode, headers: headers, body: response.data,
                  url: response.response?.url ?? response.request?.url,
                  storedAt: storedAt, expiresAt: expiresAt, varyValues: varyValues)
    }

    /// The entry as a `Response` to `request`, marked with where it came
    /// from (see `Response/cacheStatus`).
    func response(to request: URLRequest, status: CacheStatus, statusCode: Int? = nil) -> Response {
        var fields = headers
        fields[CacheStatus.headerField] = status.rawValue
        let code = statusCode ?? self.statusCode
        let url = request.url ?? url ?? URL(fileURLWithPath: "/")
        let http = HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: fields)
        return Response(statusCode: code, data: body, request: request, response: http)
    }
}
