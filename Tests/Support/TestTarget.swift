import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A target whose every member a test sets.
public struct TestTarget: TargetType {
    public var baseURL: URL
    public var path: String
    public var method: HTTPMethod
    public var task: RequestTask
    public var headers: [String: String]?
    public var validationType: ValidationType
    public var sampleData: Data
    public var timeout: TimeInterval?
    public var deadline: TimeInterval?
    public var maximumResponseSize: Int64?

    public init(
        _ baseURL: URL,
        path: String = "/echo",
        method: HTTPMethod = .get,
        task: RequestTask = .requestPlain,
        headers: [String: String]? = nil,
        validationType: ValidationType = .none,
        sampleData: Data = Data(),
        timeout: TimeInterval? = nil,
        deadline: TimeInterval? = nil,
        maximumResponseSize: Int64? = nil
    ) {
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.task = task
        self.headers = headers
        self.validationType = validationType
        self.sampleData = sampleData
        self.timeout = timeout
        self.deadline = deadline
        self.maximumResponseSize = maximumResponseSize
    }
}

/// The `/echo` route's JSON.
public struct Echo: Decodable, Sendable {
    public let method: String
    public let uri: String
    public let path: String
    public let query: String
    public let headers: [[String]]
    public let body: String
    public let bodyLength: Int

    public init(_ response: Response) throws {
        self = try JSONDecoder().decode(Echo.self, from: response.data)
    }

    public var bodyData: Data { Data(base64Encoded: body) ?? Data() }
    public var bodyText: String { String(decoding: bodyData, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.first?.caseInsensitiveCompare(name) == .orderedSame }?.last
    }
}
