/// Which HTTP status codes a target accepts. A response outside them ends in
/// ``NetworkError/statusCode(_:)``.
public enum ValidationType: Sendable, Hashable {
    /// Every status code is accepted.
    case none
    /// 200–299.
    case successCodes
    /// 200–399.
    case successAndRedirectCodes
    /// Exactly these codes.
    case customCodes([Int])

    /// The accepted codes; empty for ``none``.
    public var statusCodes: [Int] {
        switch self {
        case .none: []
        case .successCodes: Array(200..<300)
        case .successAndRedirectCodes: Array(200..<400)
        case .customCodes(let codes): codes
        }
    }

    /// Whether `statusCode` passes this validation.
    public func accepts(_ statusCode: Int) -> Bool {
        switch self {
        case .none: true
        case .successCodes: (200..<300).contains(statusCode)
        case .successAndRedirectCodes: (200..<400).contains(statusCode)
        case .customCodes(let codes): codes.contains(statusCode)
        }
    }
}
