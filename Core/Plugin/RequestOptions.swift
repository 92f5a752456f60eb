import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Per-call options: the progress handler, and values that plugins read,
/// keyed by type, the way SwiftUI's environment is.
///
/// Progress for an upload or a download:
///
/// ```swift
/// let response = try await provider.request(.upload(file), options: RequestOptions(progress: { progress in
///     print(progress.fractionCompleted)
/// }))
/// ```
///
/// (Progress is an option, not a trailing closure of the async `request`, so
/// that `provider.request(target) { result in … }` always means the
/// completion-handler call, as it does with Moya, in async code too.)
///
/// A plugin declares a key; the caller sets it for one call:
///
/// ```swift
/// enum TraceIDKey: RequestOptionKey {
///     static let defaultValue: String? = nil
/// }
///
/// var options = RequestOptions()
/// options[TraceIDKey.self] = "abc123"
/// let response = try await provider.request(.feed, options: options)
/// // In the plugin: context.options[TraceIDKey.self]
/// ```
public struct RequestOptions: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Receives upload and download progress, in order; `nil` for none.
    public var progress: ProgressHandler?

    /// A name for the operation the call performs (an OpenAPI operation ID,
    /// say), for plugins that trace or count calls; `nil` for none. Keep it to
    /// a fixed set of names, never a value from the request: metrics use it as
    /// a dimension.
    public var operationID: String?

    /// Creates options with no plugin values set.
    /// - Parameters:
    ///   - progress: Receives upload and download progress, in order.
    ///   - operationID: A name for the operation, for tracing and metrics.
    public init(progress: ProgressHandler? = nil, operationID: String? = nil) {
        self.progress = progress
        self.operationID = operationID
    }

    /// The value for `key`, or its default when unset.
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get { storage[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// Returns a copy with `key` set to `value`.
    public func setting<Key: RequestOptionKey>(_ key: Key.Type, to value: Key.Value) -> RequestOptions {
        var copy = self
        copy[key] = value
        return copy
    }
}

/// A key into ``RequestOptions``.
public protocol RequestOptionKey {
    /// The type of the value the key holds.
    associatedtype Value: Sendable
    /// The value when the caller set none.
    static var defaultValue: Value { get }
}
