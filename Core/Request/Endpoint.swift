import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything needed to build one request: URL, method, task, header fields
/// and the sample response a stub answers with.
///
/// A provider makes one from each target through its `endpointClosure`; write
/// your own closure to add headers or change tasks for every target.
///
/// ```swift
/// let provider = Provider<GitHub>(endpointClosure: { target in
///     Provider.defaultEndpointMapping(for: target)
///         .adding(newHTTPHeaderFields: ["X-App-Version": "2.1"])
/// })
/// ```
public struct Endpoint: Sendable {
    /// Makes the sample response a stub answers with.
    public typealias SampleResponseClosure = @Sendable () -> EndpointSampleResponse

    /// The full URL, as a string (it is checked when the request is built).
    public let url: String
    /// The response a stub answers with.
    public let sampleResponseClosure: SampleResponseClosure
    /// The HTTP method.
    public let method: HTTPMethod
    /// What the request carries: its parameters, body, upload or download.
    public let task: RequestTask
    /// Header fields set on the request, or `nil` for none.
    public let httpHeaderFields: [String: String]?
    /// The idle time-out in seconds, or `nil` for the provider's. It becomes
    /// the request's `timeoutInterval`, which the transfer stage reads as the
    /// request leaves the plugins.
    public let timeout: TimeInterval?
    /// The deadline for the whole transfer in seconds, or `nil` for the
    /// provider's.
    public let deadline: TimeInterval?
    /// The largest response body in bytes, or `nil` for the provider's limits.
    public let maximumResponseSize: Int64?
    /// `url` as the `URL` it was made from, when it was made from one: the
    /// request is then built on it instead of parsing the string again.
    private let madeFrom: URL?

    /// Creates an endpoint; an endpoint closure usually starts from
    /// `Provider.defaultEndpointMapping(for:)` and changes it instead.
    /// - Parameters:
    ///   - url: The full URL, as a string.
    ///   - sampleResponseClosure: The response a stub answers with.
    ///   - method: The HTTP method.
    ///   - task: What the request carries.
    ///   - httpHeaderFields: Header fields to set, or `nil`.
    ///   - timeout: The idle time-out in seconds, or `nil` for the provider's.
    ///   - deadline: The deadline for the whole transfer in seconds, or `nil`
    ///     for the provider's.
    ///   - maximumResponseSize: The largest response body in bytes, or `nil`
    ///     for the provider's limits.
    public init(
        url: String,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?,
        timeout: TimeInterval? = nil,
        deadline: TimeInterval? = nil,
        maximumResponseSize: Int64? = nil
    ) {
        self.init(url: url, madeFrom: nil, sampleResponseClosure: sampleResponseClosure, method: method, task: task,
                  httpHeaderFields: httpHeaderFields, timeout: timeout, deadline: deadline,
                  maximumResponseSize: maximumResponseSize)
    }

    /// An endpoint whose `url` string is `madeFrom`'s absolute string, or
    /// parsed when the request is built when `madeFrom` is `nil`.
    init(
        url: String,
        madeFrom: URL?,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?,
        timeout: TimeInterval?,
        deadline: TimeInterval?,
        maximumResponseSize: Int64?
    ) {
        self.url = url
        self.madeFrom = madeFrom
        self.sampleResponseClosure = sampleResponseClosure
        self.method = method
        self.task = task
        self.httpHeaderFields = httpHeaderFields
        self.timeout = timeout
        self.deadline = deadline
        self.maximumResponseSize = maximumResponseSize
    }

    /// Returns a copy with `newHTTPHeaderFields` added, replacing fields of the
    /// same name.
    public func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        var fields = httpHeaderFields ?? [:]
        for (name, value) in newHTTPHeaderFields {
            if let existing = fields.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                fields.removeValue(forKey: existing)
            }
            fields[name] = value
        }
        return Endpoint(url: url, madeFrom: madeFrom, sampleResponseClosure: sampleResponseClosure, method: method,
                        task: task, httpHeaderFields: fields, timeout: timeout, deadline: deadline,
                        maximumResponseSize: maximumResponseSize)
    }

    /// Returns a copy with another task.
    public func replacing(task: RequestTask) -> Endpoint {
        Endpoint(url: url, madeFrom: madeFrom, sampleResponseClosure: sampleResponseClosure, method: method,
                 task: task, httpHeaderFields: httpHeaderFields, timeout: timeout, deadline: deadline,
                 maximumResponseSize: maximumResponseSize)
    }

    /// Returns a copy with `timeout` as its idle time-out.
    public func replacing(timeout: TimeInterval?) -> Endpoint {
        Endpoint(url: url, madeFrom: madeFrom, sampleResponseClosure: sampleResponseClosure, method: method,
                 task: task, httpHeaderFields: httpHeaderFields, timeout: timeout, deadline: deadline,
                 maximumResponseSize: maximumResponseSize)
    }

    /// Returns a copy whose stub answers `sampleResponse`.
    public func replacing(sampleResponse: EndpointSampleResponse) -> Endpoint {
        Endpoint(url: url, madeFrom: madeFrom, sampleResponseClosure: { sampleResponse }, method: method,
                 task: task, httpHeaderFields: httpHeaderFields, timeout: timeout, deadline: deadline,
                 maximumResponseSize: maximumResponseSize)
    }

    /// Builds the `URLRequest`: URL, method, header fields, and the body or
    /// query the task describes. Upload bodies (a file, a multipart form) are
    /// attached by the provider when it sends, so they are not part of this
    /// request.
    ///
    /// - Throws: ``NetworkError/requestBuildFailed(_:)`` when the URL is not
    ///   valid, the parameters cannot be encoded or an `Encodable` throws.
    public func urlRequest() throws(NetworkError) -> URLRequest {
        guard let url = madeFrom ?? URL(string: url),
              url.isPlainHTTPWithHost || url.scheme?.isEmpty == false && url.checkedHost?.isEmpty == false
        else {
            throw .requestBuildFailed(RequestBuildFailure.invalidURL(self.url))
        }
        var request = URLRequest(url: url)
        // A new request is already a GET, and setting the method copies the
        // request's storage on Linux.
        if request.httpMethod != method.rawValue {
            request.httpMethod = method.rawValue
        }
        for (name, value) in httpHeaderFields ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        // Setting a field copies the request's storage on Linux: only when it changes.
        if let timeout, request.timeoutInterval != timeout {
            request.timeoutInterval = timeout
        }
        do {
            return try task.apply(to: request)
        } catch let error as RequestBuildFailure {
            throw .requestBuildFailed(error)
        } catch {
            throw .requestBuildFailed(RequestBuildFailure.encodingFailed(error))
        }
    }
}

// MARK: - Writing a task into a request

extension RequestTask {
    fileprivate func apply(to request: URLRequest) throws -> URLRequest {
        var request = request
        switch self {
        case .requestPlain, .uploadFile, .uploadStream, .uploadMultipart, .uploadMultipartFormData, .downloadDestination:
            return request
        case .requestData(let data):
            request.httpBody = data
            return request
        case .requestJSONEncodable(let value):
            return try Self.encodeJSON(value, with: JSONEncoder(), into: request)
        case .requestCustomJSONEncodable(let value, let encoder):
            return try Self.encodeJSON(value, with: encoder, into: request)
        case .requestParameters(let parameters, let encoding):
            return try encoding.encode(request, with: parameters)
        case .requestCompositeData(let bodyData, let urlParameters):
            request.httpBody = bodyData
            return try URLEncoding.queryString.encode(request, with: urlParameters)
        case .requestCompositeParameters(let bodyParameters, let bodyEncoding, let urlParameters):
            if let encoding = bodyEncoding as? URLEncoding, encoding.writesToURL(for: HTTPMethod(rawValue: request.httpMethod ?? "GET")) {
                throw RequestBuildFailure.bodyParametersInURL(request.httpMethod ?? "GET")
            }
            request = try bodyEncoding.encode(request, with: bodyParameters)
            return try URLEncoding.queryString.encode(request, with: urlParameters)
        case .uploadCompositeMultipart(_, let urlParameters), .uploadCompositeMultipartFormData(_, let urlParameters):
            return try URLEncoding.queryString.encode(request, with: urlParameters)
        case .downloadParameters(let parameters, let encoding, _):
            return try encoding.encode(request, with: parameters)
        }
    }

    private static func encodeJSON(_ value: any Encodable, with encoder: JSONEncoder, into request: URLRequest) throws -> URLRequest {
        var request = request
        do {
            request.httpBody = try encoder.encode(value)
        } catch {
            throw RequestBuildFailure.encodingFailed(error)
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}

// MARK: - Equality

/// Two endpoints are equal when they build the same `URLRequest` (URL,
/// method, header fields, time-out, and a body of the same bytes or the same
/// JSON) and have the same deadline, size limit and upload source (file, or
/// each multipart part); endpoints whose request cannot be built compare by
/// URL, method and header fields. The sample response and a download
/// destination, both closures, are not compared.
extension Endpoint: Equatable, Hashable {
    public static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
        guard lhs.deadline == rhs.deadline, lhs.maximumResponseSize == rhs.maximumResponseSize,
              lhs.task.uploadSource == rhs.task.uploadSource
        else { return false }
        switch (try? lhs.urlRequest(), try? rhs.urlRequest()) {
        case (let left?, let right?):
            // Foundation's URLRequest equality does not compare bodies on
            // every platform.
            return left == right && sameBody(left.httpBody, right.httpBody)
        case (nil, nil):
            return lhs.url == rhs.url && lhs.method == rhs.method && (lhs.httpHeaderFields ?? [:]) == (rhs.httpHeaderFields ?? [:])
        default:
            return false
        }
    }

    /// Bodies are the same bytes, or the same JSON: an encoder may write an
    /// object's keys in any order.
    private static func sameBody(_ left: Data?, _ right: Data?) -> Bool {
        guard left != right else { return true }
        guard let left, let right, let one = sortedJSON(left), let other = sortedJSON(right) else { return false }
        return one == other
    }

    private static func sortedJSON(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(method)
        hasher.combine(httpHeaderFields ?? [:])
    }
}

extension RequestTask {
    /// What an upload task reads its body from, compared by ``Endpoint``'s
    /// equality: the file, or each part's name, file name, type and source.
    fileprivate var uploadSource: [String] {
        switch self {
        case .uploadFile(let url):
            return [url.absoluteString]
        case .uploadStream(let body):
            // A sequence has no identity to compare: streams of one length
            // are the same upload, as multipart stream parts are.
            return ["stream:\(body.length)"]
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            return parts.flatMap(\.identity)
        case .uploadMultipartFormData(let form), .uploadCompositeMultipartFormData(let form, _):
            // The boundary is random plumbing: two forms of the same parts are
            // the same upload.
            return form.parts.flatMap(\.identity)
        default:
            return []
        }
    }
}

extension MultipartFormBodyPart {
    fileprivate var identity: [String] {
        let source = switch provider {
        case .data(let data): "data:" + data.base64EncodedString()
        case .file(let url): "file:" + url.absoluteString
        case .stream(_, let length): "stream:\(length)"
        }
        return [name, fileName ?? "", mimeType ?? "", source]
    }
}
