import Courier
import Foundation

extension JSONValue {
    /// Converts what `JSONSerialization` returns into a ``JSONValue``.
    ///
    /// Returns `nil` for anything `JSONSerialization` would not produce (a
    /// `Date`, a custom class).
    /// - Parameter object: A `JSONSerialization` object or fragment.
    public init?(jsonObject object: Any) {
        switch object {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = Self.number(number)
        case let array as [Any]:
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for element in array {
                guard let value = JSONValue(jsonObject: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, element) in dictionary {
                guard let value = JSONValue(jsonObject: element) else { return nil }
                members[key] = value
            }
            self = .object(members)
        default:
            return nil
        }
    }

    /// The value as `JSONSerialization` objects (`NSNull`, `NSNumber`,
    /// `String`, `[Any]`, `[String: Any]`).
    public var jsonObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): NSNumber(value: value)
        case .integer(let value): NSNumber(value: value)
        case .unsignedInteger(let value): NSNumber(value: value)
        case .double(let value): NSNumber(value: value)
        case .string(let value): value
        case .array(let elements): elements.map(\.jsonObject)
        case .object(let members): members.mapValues(\.jsonObject)
        }
    }

    /// Booleans are the two shared boolean `NSNumber`s; whole numbers that
    /// fit stay integers.
    private static func number(_ number: NSNumber) -> JSONValue {
        if number === NSNumber(value: true) || number === NSNumber(value: false) { return .bool(number.boolValue) }
        let type = String(cString: number.objCType)
        if ["c", "s", "i", "l", "q", "C", "S", "I", "L"].contains(type) { return .integer(number.int64Value) }
        if type == "Q" {
            let value = number.uint64Value
            return Int64(exactly: value).map(JSONValue.integer) ?? .unsignedInteger(value)
        }
        return .double(number.doubleValue)
    }
}

// MARK: - Key paths

extension JSONValue {
    /// The value at a key path such as `data.items[3].id`, or `nil` when the
    /// path is malformed or leads nowhere.
    /// - Parameter keyPath: Dot-separated keys with optional `[index]` steps.
    /// - Returns: The value there.
    public func value(atKeyPath keyPath: String) -> JSONValue? {
        guard let path = JSONKeyPath(keyPath) else { return nil }
        return try? value(at: path)
    }

    /// Follows `path`.
    /// - Throws: `JSONKeyPath/Miss` naming the first step that does not exist.
    func value(at path: JSONKeyPath) throws(JSONKeyPath.Miss) -> JSONValue {
        var current = self
        for (offset, component) in path.components.enumerated() {
            let here = JSONKeyPath.format(Array(path.components[...offset]))
            switch (component, current) {
            case (.key(let key), .object(let members)):
                guard let next = members[key] else { throw JSONKeyPath.Miss(path: here, found: "no such key") }
                current = next
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else {
                    throw JSONKeyPath.Miss(path: here, found: "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")")
                }
                current = elements[index]
            default:
                throw JSONKeyPath.Miss(path: here, found: JSONKeyPath.describe(current.jsonObject))
            }
        }
        return current
    }
}
