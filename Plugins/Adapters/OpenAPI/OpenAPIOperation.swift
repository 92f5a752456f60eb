import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if !OpenAPI
#error("CourierOpenAPI needs the package trait \"OpenAPI\": add it to the traits of your Courier dependency.")
#endif

/// The target of one call of a generated OpenAPI client: what
/// ``CourierClientTransport`` hands to the `Provider` for each operation.
///
/// Plugins see it as `context.target` (its `operationID` is also
/// `context.operationID`), so they can tell operations apart:
///
/// ```swift
/// struct AuditPlugin: Plugin {
///     func willSend(_ request: URLRequest, context: RequestContext) async {
///         if let operation = context.target as? OpenAPIOperation {
///             print("calling \(operation.operationID)")
///         }
///     }
/// }
/// ```
///
/// The full URL (the server URL, the operation's path and its query) is the
/// `baseURL`; `path` is empty, so nothing is encoded twice.
public struct OpenAPIOperation: TargetType {
    /// The operation's ID in the OpenAPI document, such as `getGreeting`.
    public let operationID: String
    /// The request's full URL: server URL, path and query.
    public let baseURL: URL
    /// Always empty: the path is part of `baseURL`.
    public var path: String { "" }
    /// The operation's method.
    public let method: HTTPMethod
    /// The body: none, bytes in memory, or a file the body was spooled to.
    public let task: RequestTask
    /// The header fields the generated client set (repeated fields joined
    /// with `, `).
    public let headers: [String: String]?
    /// Never validates: the generated client decides what each status means.
    public var validationType: ValidationType { .none }
    /// Empty: stub an operation with an endpoint closure that returns its
    /// sample response.
    public var sampleData: Data { Data() }

    /// Creates the target of one operation.
    /// - Parameters:
    ///   - operationID: The operation's ID in the OpenAPI document.
    ///   - url: The request's full URL.
    ///   - method: The method.
    ///   - task: The body.
    ///   - headers: The header fields.
    public init(operationID: String, url: URL, method: HTTPMethod, task: RequestTask, headers: [String: String]?) {
        self.operationID = operationID
        self.baseURL = url
        self.method = method
        self.task = task
        self.headers = headers
    }
}
