import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response from the server, or from a stub: status code, body, and the
/// request and HTTP response it came from.
public struct Response: Sendable, CustomStringConvertible {
    /// The HTTP status code.
    public let statusCode: Int
    /// The body. Empty for a download, whose body is in `fileURL`.
    public let data: Data
    /// The request as it was sent, after every plugin's `prepare`.
    public let request: URLRequest?
    /// Where a download's body was written, for the download tasks: at its
    /// destination once the call returns; while plugins see the response, in
    /// its temporary file next to the destination (it is moved only after
    /// validation passed).
    public let fileURL: URL?
    private let head: Head
    /// A download still in its temporary file, placed after validation.
    let download: DownloadFile?

    /// The HTTP response, with its header fields.
    ///
    /// For a response created with ``init(statusCode:data:request:url:headerFields:fileURL:)``
    /// it is made on first read (and kept).
    public var response: HTTPURLResponse? {
        switch head {
        case .none: nil
        case .made(let response): response
        case .deferred(let deferred): deferred.response
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
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.head = response.map(Head.made) ?? .none
        self.fileURL = fileURL
        self.download = nil
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
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.head = .deferred(DeferredHTTPResponse(url: url, statusCode: statusCode, fields: headerFields))
        self.fileURL = fileURL
        self.download = nil
    }

    /// A download in its temporary file, from the transfer stage.
    init(statusCode: Int, data: Data, request: URLRequest?, url: URL, headerFields: [String: String], download: DownloadFile) {
        self.init(statusCode: statusCode, data: data, request: request,
                  head: .deferred(DeferredHTTPResponse(url: url, statusCode: statusCode, fields: headerFields)),
                  fileURL: download.temporaryURL, download: download)
    }

    private init(statusCode: Int, data: Data, request: URLRequest?, head: Head, fileURL: URL?, download: DownloadFile?) {
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.head = head
        self.fileURL = fileURL
        self.download = download
    }

    /// The value of a response header field, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        switch head {
        case .none: nil
        case .made(let response): response.value(forHTTPHeaderField: field)
        case .deferred(let deferred): deferred.value(forHTTPHeaderField: field)
        }
    }

    public var description: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Returns a copy with another body (for plugins that rewrite it, such as
    /// decompression).
    public func replacing(data: Data) -> Response {
        Response(statusCode: statusCode, data: data, request: request, head: head, fileURL: fileURL, download: download)
    }

    /// Returns a copy with another HTTP response (for plugins that rewrite
    /// headers).
    public func replacing(response: HTTPURLResponse?) -> Response {
        Response(statusCode: response?.statusCode ?? statusCode, data: data, request: request,
                 head: response.map(Head.made) ?? .none, fileURL: fileURL, download: download)
    }

    /// Moves a download from its temporary file to its destination; the
    /// response unchanged when it is not a download waiting to be placed.
    func placingDownload() throws(NetworkError) -> Response {
        guard let download else { return self }
        let placed = try download.place()
        return Response(statusCode: statusCode, data: data, request: request, head: head, fileURL: placed, download: nil)
    }
}

// MARK: - The HTTP response, made or deferred

extension Response {
    fileprivate enum Head: Sendable {
        case none
        case made(HTTPURLResponse)
        case deferred(DeferredHTTPResponse)
    }
}

/// Status code and header fields whose `HTTPURLResponse` is made on first
/// read; the copies of one ``Response`` share the one that is made. A struct
/// around the lock, so a response costs one allocation for it, not two.
private struct DeferredHTTPResponse: Sendable {
    let url: URL
    let statusCode: Int
    let fields: [String: String]
    private let made = Locked<HTTPURLResponse?>(nil)

    init(url: URL, statusCode: Int, fields: [String: String]) {
        self.url = url
        self.statusCode = statusCode
        self.fields = fields
    }

    var response: HTTPURLResponse? {
        made.withLock { made in
            if let made { return made }
            made = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
            return made
        }
    }

    func value(forHTTPHeaderField name: String) -> String? {
        HeaderFields.value(name, in: fields)
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
        case .deferred(let deferred): deferred.url
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
        case .deferred(let deferred):
            return deferred.fields
        }
    }
}
