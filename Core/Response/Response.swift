import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response from the server, or from a stub: status code, body, and the
/// request and HTTP response it came from.
public struct Response: Sendable, CustomStringConvertible {
    /// Everything the response holds, in one object: a response is copied
    /// from plugin to plugin, and one reference is one retain per copy. The
    /// parts never change; the `HTTPURLResponse` made from a deferred head on
    /// first read is kept under the lock.
    private let storage: FixedAndLocked<Parts, HTTPURLResponse?>

    /// The HTTP status code.
    public var statusCode: Int { storage.readFixed { $0.statusCode } }
    /// The body. Empty for a download, whose body is in `fileURL`.
    public var data: Data { storage.readFixed { $0.data } }
    /// The request as it was sent, after every plugin's `prepare`.
    public var request: URLRequest? { storage.readFixed { $0.request } }
    /// Where a download's body was written, for the download tasks: its
    /// destination, where the transfer stage moved it once it arrived whole
    /// with a status the target's validation accepts (before any plugin sees
    /// the response, as Alamofire, the HTTP library Moya is built on, places
    /// its downloads); `nil` when it was not accepted.
    public var fileURL: URL? { storage.readFixed { $0.fileURL } }
    private var head: Head { storage.readFixed { $0.head } }

    /// The HTTP response, with its header fields.
    ///
    /// For a response created with ``init(statusCode:data:request:url:headerFields:fileURL:)``
    /// it is made on first read (and kept).
    public var response: HTTPURLResponse? {
        switch head {
        case .none: nil
        case .made(let response): response
        case .deferred(let url, let fields): made(url: url, fields: fields)
        }
    }

    /// Creates a response, as a stub, a test or a plugin that answers by
    /// itself makes one.
    ///
    /// ```swift
    /// let response = Response(statusCode: 200, data: Data(#"{"id": 1}"#.utf8))
    /// ```
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - data: The body.
    ///   - request: The request it answers, if any.
    ///   - response: The HTTP response with its header fields, if any.
    ///   - fileURL: Where a download's body is, for a download.
    public init(
        statusCode: Int,
        data: Data,
        request: URLRequest? = nil,
        response: HTTPURLResponse? = nil,
        fileURL: URL? = nil
    ) {
        self.init(Parts(statusCode: statusCode, data: data, request: request, fileURL: fileURL,
                        head: response.map(Head.made) ?? .none))
    }

    /// Creates a response from its status code and header fields, for a
    /// ``Transport`` whose client does not hand over an `HTTPURLResponse`.
    ///
    /// Building an `HTTPURLResponse` parses its header fields, which costs as
    /// much as a small request through a fast client, so ``response`` is made
    /// only when first read; ``value(forHTTPHeaderField:)`` reads the fields
    /// without making it.
    ///
    /// ```swift
    /// Response(statusCode: 200, data: body, request: request, url: url,
    ///          headerFields: ["Content-Type": "application/json"])
    /// ```
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - data: The body.
    ///   - request: The request as it was sent, if any.
    ///   - url: The URL the response came from.
    ///   - headerFields: The header fields, repeated fields joined with ", ".
    ///   - fileURL: Where a download's body is, for a download.
    public init(
        statusCode: Int,
        data: Data,
        request: URLRequest? = nil,
        url: URL,
        headerFields: [String: String],
        fileURL: URL? = nil
    ) {
        self.init(Parts(statusCode: statusCode, data: data, request: request, fileURL: fileURL,
                        head: .deferred(url: url, fields: HeaderFieldList(headerFields))))
    }

    /// A response from the transfer stage, its fields as the transport
    /// handed them over.
    init(statusCode: Int, data: Data, request: URLRequest?, url: URL, fields: HeaderFieldList, fileURL: URL? = nil) {
        self.init(Parts(statusCode: statusCode, data: data, request: request, fileURL: fileURL,
                        head: .deferred(url: url, fields: fields)))
    }

    private init(_ parts: Parts, made: HTTPURLResponse? = nil) {
        storage = FixedAndLocked(fixed: parts, value: made)
    }

    /// The header fields, a repeated field's values joined with ", ": read
    /// without making ``response`` when the transport handed over its
    /// fields (building an `HTTPURLResponse` parses them again).
    ///
    /// ```swift
    /// for (name, value) in response.headerFields.sorted(by: { $0.key < $1.key }) { print(name, value) }
    /// ```
    public var headerFields: [String: String] { head.fields }

    /// The value of a response header field, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        switch head {
        case .none: nil
        case .made(let response): response.value(forHTTPHeaderField: field)
        case .deferred(_, let fields): fields.value(field)
        }
    }

    public var description: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Returns a copy with another body (for plugins that rewrite it, such as
    /// decompression).
    public func replacing(data: Data) -> Response {
        var parts = storage.readFixed { copy $0 }
        parts.data = data
        return Response(parts, made: storage.withLock { $0 })
    }

    /// Returns a copy with another HTTP response (for plugins that rewrite
    /// headers).
    public func replacing(response: HTTPURLResponse?) -> Response {
        var parts = storage.readFixed { copy $0 }
        parts.statusCode = response?.statusCode ?? statusCode
        parts.head = response.map(Head.made) ?? .none
        return Response(parts)
    }
}

// MARK: - Storage

extension Response {
    /// The HTTP response: none, the one given, or its URL and fields, from
    /// which one is made on first read.
    fileprivate enum Head: Sendable {
        case none
        case made(HTTPURLResponse)
        case deferred(url: URL, fields: HeaderFieldList)
    }

    fileprivate struct Parts: Sendable {
        var statusCode: Int
        var data: Data
        var request: URLRequest?
        var fileURL: URL?
        var head: Head
    }

    /// The HTTP response made from `url` and `fields`, made on the first
    /// read and kept.
    private func made(url: URL, fields: HeaderFieldList) -> HTTPURLResponse? {
        storage.withLock { made in
            if let made { return made }
            made = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields.dictionary)
            return made
        }
    }
}

// MARK: - Mapping

extension Response {
    /// Maps this response with `mapper`.
    ///
    /// ```swift
    /// let user = try response.map(DecodableMapper<User>())
    /// ```
    /// - Returns: The mapper's output.
    /// - Throws: ``NetworkError/mappingFailed(_:_:)`` with this response and the
    ///   mapper's failure (a mapper that throws a ``NetworkError`` has it
    ///   passed on as it is).
    public func map<Mapper: ResponseMapper>(_ mapper: Mapper) throws(NetworkError) -> Mapper.Output {
        do {
            return try mapper.map(self)
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .mappingFailed(self, error)
        }
    }
}

// MARK: - Filters

extension Response {
    /// Returns the response if its status code is in `statusCodes`.
    /// - Throws: `NetworkError.statusCode(self)` otherwise.
    public func filter<R: RangeExpression>(statusCodes: R) throws(NetworkError) -> Response where R.Bound == Int {
        guard statusCodes.contains(statusCode) else { throw .statusCode(self) }
        return self
    }

    /// Returns the response if its status code is `statusCode`.
    /// - Throws: `NetworkError.statusCode(self)` otherwise.
    public func filter(statusCode: Int) throws(NetworkError) -> Response {
        try filter(statusCodes: statusCode...statusCode)
    }

    /// Returns the response if its status code is 200–299.
    /// - Throws: `NetworkError.statusCode(self)` otherwise.
    public func filterSuccessfulStatusCodes() throws(NetworkError) -> Response {
        try filter(statusCodes: 200...299)
    }

    /// Returns the response if its status code is 200–399.
    /// - Throws: `NetworkError.statusCode(self)` otherwise.
    public func filterSuccessfulStatusAndRedirectCodes() throws(NetworkError) -> Response {
        try filter(statusCodes: 200...399)
    }
}

// MARK: - Equality

/// Two responses are equal when their status, body, request, file and HTTP
/// response (URL and header fields) are equal, as Moya compares them.
extension Response: Equatable {
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data && lhs.request == rhs.request
            && lhs.fileURL == rhs.fileURL && lhs.head.url == rhs.head.url && lhs.head.fields == rhs.head.fields
    }
}

extension Response.Head {
    fileprivate var url: URL? {
        switch self {
        case .none: nil
        case .made(let response): response.url
        case .deferred(let url, _): url
        }
    }

    fileprivate var fields: [String: String] {
        switch self {
        case .none:
            return [:]
        case .made(let response):
            var fields: [String: String] = [:]
            for case (let name as String, let value as String) in response.allHeaderFields {
                fields[name] = value
            }
            return fields
        case .deferred(_, let fields):
            return fields.dictionary
        }
    }
}
