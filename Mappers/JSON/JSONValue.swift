/// Any JSON value, typed: SwiftyJSON's role, as a Swift enum.
///
/// Integers stay exact: `12345678901234567` is an `integer(_:)`, and a
/// whole number above `Int64.max` up to `UInt64.max` (such as
/// `18446744073709551615`) an `unsignedInteger(_:)`, never rounded through
/// `Double`; only larger ones become a `double(_:)`. Numbers compare by value, so `.integer(1)` equals
/// `.double(1)`.
///
/// ```swift
/// let json = try await provider.requestJSONValue(.search("swift"))
/// let firstID = json["data"]?["items"]?[0]?["id"]?.intValue
/// let names = json["data"]?["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
/// let query: JSONValue = ["q": "swift", "page": 2, "exact": true, "tags": ["a", "b"], "cursor": nil]
/// ```
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in 64 bits, kept exact.
    case integer(Int64)
    /// A whole number above `Int64.max` that fits in `UInt64`, kept exact.
    /// Decoders make this only for what `integer(_:)` cannot hold.
    case unsignedInteger(UInt64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
}

// MARK: - Subscripts

extension JSONValue {
    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index`, when this is an array long enough.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

// MARK: - Typed accessors

extension JSONValue {
    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number as an exact 64-bit integer: an integer, or a double with
    /// no fraction that fits.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .unsignedInteger(let value): Int64(exactly: value)
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The number as an exact unsigned 64-bit integer, when it is integral,
    /// not negative, and fits.
    public var uint64Value: UInt64? {
        switch self {
        case .integer(let value): UInt64(exactly: value)
        case .unsignedInteger(let value): value
        case .double(let value): UInt64(exactly: value)
        default: nil
        }
    }

    /// The number as an exact `Int`, when it is integral and fits.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// The number as a `Double` (an integer beyond 2^53 is rounded).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }
}
