import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A target that fixes its own response type: the call site names no type and
/// parses nothing.
///
/// A generic endpoint struct, one value per endpoint (`DecodableMapper` comes
/// from `CourierCodable`):
/// ```swift
/// struct API<Output: Decodable & Sendable>: TypedTarget {
///     let path: String
///     var baseURL: URL { URL(string: "https://api.example.com")! } // a literal, not input
///     var method: HTTPMethod { .get }
///     var task: RequestTask { .requestPlain }
///     var headers: [String: String]? { nil }
///     var mapper: DecodableMapper<Output> { DecodableMapper() }
/// }
///
/// extension API where Output == User {
///     static var me: API<User> { API(path: "/me") }
/// }
///
/// let me = try await Provider<API<User>>().request(.me) // a User
/// ```
///
/// For an enum of endpoints, where each case returns a different type, pair a
/// case with its mapper in a ``Typed`` value (see ``TargetType/returning(_:)``).
public protocol TypedTarget: TargetType {
    /// The type of the mapper, whose output the request returns.
    associatedtype Mapper: ResponseMapper
    /// The mapper that turns this target's response into its output.
    var mapper: Mapper { get }
}

extension Provider where Target: TypedTarget {
    /// Sends the request for `target` and returns its mapped output.
    /// - Throws: ``NetworkError``; a mapping failure is
    ///   ``NetworkError/mappingFailed(_:_:)``.
    public func request(
        _ target: Target,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Target.Mapper.Output {
        try await request(target, mapper: target.mapper, options: options)
    }
}

/// A target paired with the mapper for its response: how an enum of endpoints
/// gives each case its own output type.
///
/// ```swift
/// enum Shop: TargetType {
///     case product(id: Int)
///     case cart
///     // … baseURL, path, method, task, headers …
/// }
///
/// extension Shop {
///     static func productDetails(_ id: Int) -> Typed<Shop, DecodableMapper<Product>> {
///         Shop.product(id: id).returning(DecodableMapper())
///     }
/// }
///
/// let product = try await provider.request(Shop.productDetails(7)) // a Product
/// ```
public struct Typed<Target: TargetType, Mapper: ResponseMapper>: Sendable {
    /// The endpoint to call.
    public let target: Target
    /// Turns the endpoint's response into the value the request returns.
    public let mapper: Mapper

    /// Pairs a target with the mapper of its response.
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - mapper: Turns its response into the value the request returns.
    public init(_ target: Target, mapper: Mapper) {
        self.target = target
        self.mapper = mapper
    }
}

extension TargetType {
    /// Pairs this target with the mapper for its response.
    public func returning<Mapper: ResponseMapper>(_ mapper: Mapper) -> Typed<Self, Mapper> {
        Typed(self, mapper: mapper)
    }
}

extension Provider {
    /// Sends the request for a typed target and returns its mapped output.
    /// - Throws: ``NetworkError``; a mapping failure is
    ///   ``NetworkError/mappingFailed(_:_:)``.
    public func request<Mapper: ResponseMapper>(
        _ typed: Typed<Target, Mapper>,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mapper.Output {
        try await request(typed.target, mapper: typed.mapper, options: options)
    }
}
