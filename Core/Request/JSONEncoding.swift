import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes parameters as a JSON body with `Content-Type: application/json`.
///
/// ```swift
/// .requestParameters(parameters: ["name": "Ada", "tags": ["math"]], encoding: JSONEncoding.default)
/// ```
public struct JSONEncoding: ParameterEncoding {
    /// Compact JSON with sorted keys, so equal parameters give equal bodies.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Pretty-printed JSON with sorted keys.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: [.prettyPrinted, .sortedKeys]) }

    /// How `JSONSerialization` writes the body.
    public let options: JSONSerialization.WritingOptions

    /// Creates an encoding that writes parameters as a JSON body.
    /// - Parameter options: How `JSONSerialization` writes the body; sorted
    ///   keys unless told otherwise.
    public init(options: JSONSerialization.WritingOptions = [.sortedKeys]) {
        self.options = options
    }

    /// - Throws: ``RequestBuildFailure/invalidJSONParameters(_:)`` when a value
    ///   is not representable in JSON.
    public func encode(_ request: URLRequest, with parameters: Parameters?) throws -> URLRequest {
        guard let parameters else { return request }
        return try encode(request, withJSONObject: parameters)
    }

    /// Returns `request` with any JSON object (a dictionary or an array) as its
    /// body.
    public func encode(_ request: URLRequest, withJSONObject object: Any) throws -> URLRequest {
        guard JSONSerialization.isValidJSONObject(object) else {
            throw RequestBuildFailure.invalidJSONParameters("\(type(of: object)) holds a value that is not JSON")
        }
        var request = request
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: object, options: options)
        } catch {
            throw RequestBuildFailure.invalidJSONParameters(String(describing: error))
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
