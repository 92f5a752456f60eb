extension JSONValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as pretty-printed JSON: two-space indents, keys sorted. A
    /// non-finite double, which JSON cannot hold, is written as `null`.
    public var description: String {
        var text = ""
        write(into: &text, indent: "")
        return text
    }

    /// The value as JSON on one line, keys sorted.
    public var compactDescription: String {
        var text = ""
        write(into: &text, indent: nil)
        return text
    }

    /// The pretty-printed JSON.
    public var debugDescription: String { description }

    // MARK: - Writing

    /// `indent` is `nil` for compact output.
    private func write(into text: inout String, indent: String?) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .unsignedInteger(let value): text += String(value)
        case .double(let value): text += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.writeString(value, into: &text)
        case .array(let elements):
            Self.writeContainer(elements, open: "[", close: "]", into: &text, indent: indent) { element, text, inner in
                element.write(into: &text, indent: inner)
            }
        case .object(let members):
            let sorted = members.sorted { $0.key < $1.key }
            Self.writeContainer(sorted, open: "{", close: "}", into: &text, indent: indent) { member, text, inner in
                Self.writeString(member.key, into: &text)
                text += inner == nil ? ":" : ": "
                member.value.write(into: &text, indent: inner)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: String, close: String, into text: inout String, indent: String?,
        writeElement: (Element, inout String, String?) -> Void
    ) {
        guard !elements.isEmpty else {
            text += open + close
            return
        }
        let inner = indent.map { $0 + "  " }
        text += open
        for (offset, element) in elements.enumerated() {
            if offset > 0 { text += "," }
            if let inner { text += "\n" + inner }
            writeElement(element, &text, inner)
        }
        if let indent { text += "\n" + indent }
        text += close
    }

    private static func writeString(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case let scalar where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
