import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plugin that writes down every hook call, in order, shared between
/// plugins so a test sees the whole interleaving.
public final class HookLog: Sendable {
    private let entries = Mutex<[String]>([])

    public init() {}

    public func append(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    public var all: [String] { entries.withLock { $0 } }
}

public struct RecordingPlugin: Plugin {
    public let name: String
    public let log: HookLog

    public init(_ name: String, log: HookLog) {
        self.name = name
        self.log = log
    }

    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        log.append("\(name).prepare")
        var request = request
        request.addValue(name, forHTTPHeaderField: "X-Prepared-By")
        return request
    }

    public func willSend(_ request: URLRequest, context: RequestContext) async {
        log.append("\(name).willSend#\(context.attempt)")
    }

    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        log.append("\(name).intercept>")
        let response = try await next(request)
        log.append("\(name).intercept<")
        return response
    }

    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        log.append("\(name).didReceive")
    }

    public func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        log.append("\(name).process")
        return result
    }
}

/// A minimal lock, so test helpers need no package.
public final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
