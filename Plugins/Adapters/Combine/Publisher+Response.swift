import Courier
import CourierCodable
import CourierJSON
import CourierString
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

// Moya's operators on publishers of responses. Each one is the `Response`
// method of the same name, applied to the value; its failure ends the stream
// with that `NetworkError`.

extension Publisher where Output == Response, Failure == NetworkError {
    /// Passes responses whose status is in `statusCodes`; any other ends the
    /// stream with `NetworkError/statusCode(_:)`.
    public func filter<R: RangeExpression & Sendable>(statusCodes: R) -> AnyPublisher<Response, NetworkError> where R.Bound == Int {
        attempt { response throws(NetworkError) in try response.filter(statusCodes: statusCodes) }
    }

    /// Passes responses with exactly `statusCode`.
    public func filter(statusCode: Int) -> AnyPublisher<Response, NetworkError> {
        attempt { response throws(NetworkError) in try response.filter(statusCode: statusCode) }
    }

    /// Passes responses with a 2xx status.
    public func filterSuccessfulStatusCodes() -> AnyPublisher<Response, NetworkError> {
        attempt { response throws(NetworkError) in try response.filterSuccessfulStatusCodes() }
    }

    /// Passes responses with a 2xx or 3xx status.
    public func filterSuccessfulStatusAndRedirectCodes() -> AnyPublisher<Response, NetworkError> {
        attempt { response throws(NetworkError) in try response.filterSuccessfulStatusAndRedirectCodes() }
    }

    /// Maps each response with `mapper`; a mapper's failure ends the stream
    /// with `NetworkError/mappingFailed(_:_:)`.
    public func map<Mapper: ResponseMapper>(_ mapper: Mapper) -> AnyPublisher<Mapper.Output, NetworkError> {
        attempt { response throws(NetworkError) in try response.map(mapper) }
    }

    /// Decodes each response's JSON body, or the value at `keyPath`, as `type`
    /// (`Response.map(_:atKeyPath:using:failsOnEmptyData:)`).
    public func map<D: Decodable>(
        _ type: D.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        failsOnEmptyData: Bool = true
    ) -> AnyPublisher<D, NetworkError> {
        attempt { response throws(NetworkError) in
            try response.map(type, atKeyPath: keyPath, using: decoder, failsOnEmptyData: failsOnEmptyData)
        }
    }

    /// Reads each response's body as untyped JSON (`Response.mapJSON(failsOnEmptyData:)`).
    public func mapJSON(failsOnEmptyData: Bool = true) -> AnyPublisher<Any, NetworkError> {
        attempt { response throws(NetworkError) in try response.mapJSON(failsOnEmptyData: failsOnEmptyData) }
    }

    /// Reads each response's body, or the string at `keyPath`, as text
    /// (`Response.mapString(atKeyPath:)`).
    public func mapString(atKeyPath keyPath: String? = nil) -> AnyPublisher<String, NetworkError> {
        attempt { response throws(NetworkError) in try response.mapString(atKeyPath: keyPath) }
    }

    private func attempt<T>(_ transform: @escaping (Response) throws(NetworkError) -> T) -> AnyPublisher<T, NetworkError> {
        flatMap(maxPublishers: .max(1)) { response -> AnyPublisher<T, NetworkError> in
            do throws(NetworkError) {
                return Just(try transform(response)).setFailureType(to: NetworkError.self).eraseToAnyPublisher()
            } catch {
                return Fail(error: error).eraseToAnyPublisher()
            }
        }
        .eraseToAnyPublisher()
    }
}
