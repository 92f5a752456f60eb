import Foundation

/// A response's header fields as the transfer stage and ``Response`` keep
/// them: the dictionary a transport built, or the name and value pairs of a
/// response head as they arrived, made into a dictionary only when one is
/// asked for.
///
/// Most calls read one or two fields (`Content-Length`, `Location`) and map
/// the body: hashing every name of every response into a dictionary cost
/// the AsyncHTTPClient transport about 5,000 instructions a response, a
/// quarter of its exchange.
struct HeaderFieldList: Sendable, Equatable {
    private enum Storage: Sendable {
        case dictionary([String: String])
        /// In the order they arrived, a repeated name not yet joined.
        case pairs([(name: String, value: String)])
    }

    private let storage: Storage

    /// Fields already in a dictionary.
    init(_ fields: [String: String]) {
        storage = .dictionary(fields)
    }

    /// Fields as they arrived, in order, with repeated names.
    init(pairs: [(name: String, value: String)]) {
        storage = .pairs(pairs)
    }

    /// The fields as a dictionary: a repeated field's values joined with
    /// ", " under the spelling of its first occurrence.
    var dictionary: [String: String] {
        switch storage {
        case .dictionary(let fields):
            return fields
        case .pairs(let pairs):
            var fields: [String: String] = [:]
            fields.reserveCapacity(pairs.count)
            var names: [String] = []
            names.reserveCapacity(pairs.count)
            for (name, value) in pairs {
                if let key = names.first(where: { HeaderFields.equalIgnoringASCIICase($0, name) }), let existing = fields[key] {
                    fields[key] = "\(existing), \(value)"
                } else {
                    names.append(name)
                    fields[name] = value
                }
            }
            return fields
        }
    }

    /// The value of the field named `name` in any letter case, a repeated
    /// field's values joined with ", "; `nil` when there is none.
    func value(_ name: String) -> String? {
        switch storage {
        case .dictionary(let fields):
            return HeaderFields.value(name, in: fields)
        case .pairs(let pairs):
            // By index: each name is compared where it lies, not copied out
            // with its value first (a response head of eight fields would
            // otherwise pay sixteen retains and releases for one lookup).
            var joined: String?
            for index in pairs.indices where HeaderFields.equalIgnoringASCIICase(pairs[index].name, name) {
                let value = pairs[index].value
                joined = joined.map { "\($0), \(value)" } ?? value
            }
            return joined
        }
    }

    /// The fields after the body's content coding was undone (see
    /// ``HeaderFields/afterDecoding(_:decodedLength:)``).
    func afterDecoding(decodedLength: Int64?) -> HeaderFieldList {
        switch storage {
        case .dictionary(let fields):
            return HeaderFieldList(HeaderFields.afterDecoding(fields, decodedLength: decodedLength))
        case .pairs(let pairs):
            var kept = pairs.filter { name, _ in !HeaderFields.isDroppedAfterDecoding(name) }
            if let decodedLength { kept.append((name: "Content-Length", value: String(decodedLength))) }
            return HeaderFieldList(pairs: kept)
        }
    }

    static func == (lhs: HeaderFieldList, rhs: HeaderFieldList) -> Bool {
        lhs.dictionary == rhs.dictionary
    }
}
