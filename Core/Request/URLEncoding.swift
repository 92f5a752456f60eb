import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes parameters as a URL-encoded query string, either into the URL or as an
/// `application/x-www-form-urlencoded` body, the way Alamofire's `URLEncoding`
/// does: keys sorted, nested dictionaries as `key[sub]`, arrays per
/// ``ArrayEncoding``, booleans per ``BoolEncoding``, and RFC 3986 escaping.
///
/// ```swift
/// .requestParameters(parameters: ["q": "swift", "page": 2], encoding: URLEncoding.queryString)
/// // → ?page=2&q=swift
/// ```
public struct URLEncoding: ParameterEncoding {
    /// Where the encoded string goes.
    public enum Destination: Sendable {
        /// The query string for GET, HEAD and DELETE; the body otherwise.
        case methodDependent
        /// Always the query string.
        case queryString
        /// Always the body.
        case httpBody
    }

    /// How array values are written.
    public enum ArrayEncoding: Sendable {
        /// `key[]=a&key[]=b`
        case brackets
        /// `key=a&key=b`
        case noBrackets
        /// `key[0]=a&key[1]=b`
        case indexInBrackets

        func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            }
        }
    }

    /// How boolean values are written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0`
        case numeric
        /// `true` and `false`
        case literal

        func encode(_ value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// Method-dependent destination, brackets for arrays, numeric booleans.
    public static var `default`: URLEncoding { URLEncoding() }
    /// Always into the query string.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always into a form body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    /// Where the parameters go: the query, a form body, or by method.
    public let destination: Destination
    /// How array values are written (`a[]=1&a[]=2` or `a=1&a=2`).
    public let arrayEncoding: ArrayEncoding
    /// How Booleans are written (`1`/`0` or `true`/`false`).
    public let boolEncoding: BoolEncoding

    /// Creates a URL encoding.
    /// - Parameters:
    ///   - destination: Where the parameters go.
    ///   - arrayEncoding: How array values are written.
    ///   - boolEncoding: How Booleans are written.
    public init(
        destination: Destination = .methodDependent,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    public func encode(_ request: URLRequest, with parameters: Parameters?) throws -> URLRequest {
        guard let parameters, !parameters.isEmpty else { return request }
        var request = request
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        if writesToURL(for: method) {
            guard let url = request.url else { throw RequestBuildFailure.missingURL }
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw RequestBuildFailure.invalidURL(url.absoluteString)
            }
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + query(parameters)
            guard let encodedURL = components.url else {
                throw RequestBuildFailure.invalidURL(url.absoluteString)
            }
            request.url = encodedURL
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(query(parameters).utf8)
        }
        return request
    }

    /// The encoded query string for `parameters`, without a leading `?`.
    public func query(_ parameters: Parameters) -> String {
        var components: [(String, String)] = []
        for key in parameters.keys.sorted(by: <) {
            if let value = parameters[key] {
                components += queryComponents(fromKey: key, value: value)
            }
        }
        return components.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// The escaped `key=value` pairs for one parameter, descending into
    /// dictionaries and arrays.
    public func queryComponents(fromKey key: String, value: Any) -> [(String, String)] {
        switch value {
        case let dictionary as [String: Any]:
            return dictionary.keys.sorted().flatMap { nestedKey in
                queryComponents(fromKey: "\(key)[\(nestedKey)]", value: dictionary[nestedKey] as Any)
            }
        case let array as [Any]:
            return array.enumerated().flatMap { index, element in
                queryComponents(fromKey: arrayEncoding.encode(key: key, atIndex: index), value: element)
            }
        case let bool as Bool:
            return [(Self.escape(key), Self.escape(boolEncoding.encode(bool)))]
        case let optional as any OptionalProtocol:
            guard let wrapped = optional.wrapped else { return [] }
            return queryComponents(fromKey: key, value: wrapped)
        default:
            return [(Self.escape(key), Self.escape("\(value)"))]
        }
    }

    /// Percent-escapes `string` for a query component: everything outside
    /// RFC 3986's unreserved set and the sub-delimiters that are safe in a query
    /// (`?` and `/` stay, as RFC 3986 section 3.4 allows).
    ///
    /// Byte by byte on the UTF-8: Foundation's `addingPercentEncoding` goes
    /// through `CFString` on Linux and cost a tenth of a whole in-memory
    /// request; a component with nothing to escape is returned as it is.
    public static func escape(_ string: String) -> String {
        var string = string
        return string.withUTF8 { utf8 in
            guard !utf8.allSatisfy(isAllowedInQuery) else { return nil }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(utf8.count * 3)
            for byte in utf8 {
                if isAllowedInQuery(byte) {
                    escaped.append(byte)
                } else {
                    escaped += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
                }
            }
            return String(decoding: escaped, as: UTF8.self)
        } ?? string
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Foundation's `urlQueryAllowed` without the general delimiters
    /// `:#[]@` and the sub-delimiters `!$&'()*+,;=`: letters, digits,
    /// `-._~` and the `/` and `?` a query may hold as they are.
    static func isAllowedInQuery(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            true
        default:
            false
        }
    }

    func writesToURL(for method: HTTPMethod) -> Bool {
        switch destination {
        case .methodDependent: method.encodesParametersInURL
        case .queryString: true
        case .httpBody: false
        }
    }
}

/// Lets the encoder see through `Optional` values hidden in `Any`.
private protocol OptionalProtocol {
    var wrapped: Any? { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrapped: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}
