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
    /// The HTTP response, with its header fields.
    public let response: HTTPURLResponse?
    /// Where a download's body was written, for the download tasks.
    public let fileURL: URL?

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
        self.response = response
        self.fileURL = fileURL
    }

    /// The value of a response header field, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        response?.value(forHTTPHeaderField: field)
    }

    public var description: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Returns a copy with another body (for plugins that rewrite it, such as
    /// decompression).
    public func replacing(data: Data) -> Response {
        Response(statusCode: statusCode, data: data, request: request, response: response, fileURL: fileURL)
    }

    /// Returns a copy with another HTTP response (for plugins that rewrite
    /// headers).
    public func replacing(response: HTTPURLResponse?) -> Response {
        Response(statusCode: response?.statusCode ?? statusCode, data: data, request: request, response: response, fileURL: fileURL)
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
