// Numbers compare by value, because JSON has one number type: `1` and `1.0`
// are the same JSON number, whichever case a decoder picked.

extension JSONValue: Equatable {
    /// Whether two values are the same JSON: numbers by value, arrays in
    /// order, objects by their members.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.double(let left), .double(let right)): left == right
        case (.integer(let integer), .double(let double)), (.double(let double), .integer(let integer)):
            Int64(exactly: double) == integer
        case (.unsignedInteger(let unsigned), .integer), (.integer, .unsignedInteger(let unsigned)),
             (.unsignedInteger(let unsigned), .double), (.double, .unsignedInteger(let unsigned)),
             (.unsignedInteger(let unsigned), .unsignedInteger):
            // The other side as UInt64: a negative or fractional one never matches.
            (lhs.uint64Value == unsigned && rhs.uint64Value == unsigned)
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }
}

extension JSONValue: Hashable {
    /// Hashes so that equal values, `.integer(1)` and `.double(1)` among
    /// them, hash alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .unsignedInteger(let value):
            if let integer = Int64(exactly: value) {
                hasher.combine(2)
                hasher.combine(integer)
            } else {
                hasher.combine(7)
                hasher.combine(value)
            }
        case .double(let value):
            if let integer = Int64(exactly: value) {
                hasher.combine(2)
                hasher.combine(integer)
            } else if let unsigned = UInt64(exactly: value) {
                hasher.combine(7)
                hasher.combine(unsigned)
            } else {
                hasher.combine(3)
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(6)
            hasher.combine(value)
        }
    }
}
