// What the snippet files share: the target the articles call `API`, and
// small helpers the tests use around the snippets (never shown in articles).

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The target the articles call `API`: one path on a base URL, accepting
/// 2xx answers only.
struct API: TargetType {
    var baseURL: URL
    var path: String = ""
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var headers: [String: String]? = nil
    var validationType: ValidationType { .successCodes }
}

/// Counts calls, for routes that answer differently each time.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    /// Adds one and returns the new count (1 for the first call).
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// A value set from a closure and read by the test.
final class Box<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)

    var value: Value? { stored.withLock { $0 } }

    func set(_ value: Value) {
        stored.withLock { $0 = value }
    }
}

extension Response {
    /// The body as UTF-8 text.
    var bodyText: String { String(decoding: data, as: UTF8.self) }
}
