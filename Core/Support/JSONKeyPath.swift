import Foundation

/// A parsed key path into JSON, such as `data.items[3].id`: what the
/// Codable, JSON and String mappers accept as `atKeyPath`, public so a
/// mapper of your own reads paths the same way and names them the same way
/// in its errors.
///
/// Keys are the JSON's own keys (a decoder's key strategy does not apply to
/// them); `[n]` picks the element at index `n` of an array.
///
/// ```swift
/// let path = JSONKeyPath("data.items[1].id")!
/// let root = try JSONSerialization.jsonObject(with: body)
/// let id = try path.value(in: root)   // throws JSONKeyPath.Miss naming the step that failed
/// ```
public struct JSONKeyPath: Sendable, CustomStringConvertible {
    /// One step of a key path.
    public enum Component: Sendable, Equatable {
        /// The value under this key of an object.
        case key(String)
        /// The element at this index of an array.
        case index(Int)
    }

    /// The steps, from the root.
    public let components: [Component]

    /// Parses `path`; `nil` when it is empty or malformed (an unclosed or
    /// non-numeric index, an empty key).
    public init?(_ path: String) {
        var components: [Component] = []
        for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let parsed = Self.parse(segment) else { return nil }
            components += parsed
        }
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    /// A key path of these steps.
    public init(components: [Component]) {
        self.components = components
    }

    /// The path as it is written (`data.items[3].id`).
    public var description: String { Self.format(components) }

    /// Formats components as `data.items[3].id`, or `the top level` for none.
    public static func format(_ components: [Component]) -> String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text.isEmpty ? "the top level" : text
    }

    // MARK: - Parsing

    /// `items[3][0]` is a key and two indices; `[3]` alone is an index.
    private static func parse(_ segment: Substring) -> [Component]? {
        var rest = segment
        var components: [Component] = []
        if let bracket = rest.firstIndex(of: "[") {
            let key = rest[..<bracket]
            if !key.isEmpty { components.append(.key(String(key))) }
            rest = rest[bracket...]
        } else {
            guard !rest.isEmpty else { return nil }
            return [.key(String(rest))]
        }
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]"),
                  let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0
            else { return nil }
            components.append(.index(index))
            rest = rest[rest.index(after: close)...]
        }
        return components
    }
}

// MARK: - Walking a JSONSerialization tree

extension JSONKeyPath {
    /// Why a key path leads nowhere.
    public struct Miss: Error, Sendable {
        /// The path up to and including the step that failed.
        public let path: String
        /// What was there instead, in words.
        public let found: String

        /// A miss at `path`, where `found` describes what was there.
        public init(path: String, found: String) {
            self.path = path
            self.found = found
        }
    }

    /// Follows the path through a `JSONSerialization` object.
    /// - Throws: ``Miss`` naming the first step that does not exist.
    public func value(in root: Any) throws(Miss) -> Any {
        var current = root
        for (offset, component) in components.enumerated() {
            let here = Self.format(Array(components[...offset]))
            switch component {
            case .key(let key):
                guard let object = current as? [String: Any] else {
                    throw Miss(path: here, found: Self.describe(current))
                }
                guard let next = object[key] else { throw Miss(path: here, found: "no such key") }
                current = next
            case .index(let index):
                guard let array = current as? [Any] else {
                    throw Miss(path: here, found: Self.describe(current))
                }
                guard index < array.count else {
                    throw Miss(path: here, found: "an array of \(array.count) element\(array.count == 1 ? "" : "s")")
                }
                current = array[index]
            }
        }
        return current
    }

    /// Says what kind of JSON value `value` is: `a string`, `null`, `a number (7)`.
    public static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        // Never the string itself: descriptions reach logs, and the string
        // may be a token or a password.
        case let string as String: return string.count == 1 ? "a string of 1 character" : "a string of \(string.count) characters"
        case let number as NSNumber: return isBoolean(number) ? "a boolean (\(number.boolValue))" : "a number (\(number))"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "a \(type(of: value))"
        }
    }

    /// `JSONSerialization` gives booleans as the two shared boolean
    /// `NSNumber`s, on Darwin and on Linux alike.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number === NSNumber(value: true) || number === NSNumber(value: false)
    }
}
