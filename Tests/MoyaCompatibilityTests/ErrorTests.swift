import Courier
import CourierCodable
import CourierJSON
import CourierTestSupport
import Foundation
import Testing

/// Moya's error tests, against the `NetworkError` case each `MoyaError` case
/// became: where the response and the underlying error are found, and what the
/// bridged `NSError` carries.
@Suite struct ErrorTests {
    private static let response = Response(statusCode: 200, data: Data())
    private static let underlying = NSError(domain: "UnderlyingDomain", code: 200, userInfo: ["data": "some data"])

    /// Moya's cases, each with the `NetworkError` Courier gives for the same
    /// situation, whether it carries a response, and whether an underlying
    /// error.
    private static var cases: [(moya: String, error: NetworkError, hasResponse: Bool, hasUnderlying: Bool)] {
        let mapping = NetworkError.mappingFailed(response, underlying)
        return [
            ("imageMapping", mapping, true, true),
            ("jsonMapping", mapping, true, true),
            ("stringMapping", mapping, true, true),
            ("objectMapping", mapping, true, true),
            ("encodableMapping", .requestBuildFailed(RequestBuildFailure.encodingFailed(underlying)), false, true),
            ("statusCode", .statusCode(response), true, false),
            ("underlying", .transport(underlying), false, true),
            ("underlying with a response", .plugin("Refresher", NetworkError.statusCode(response)), true, true),
            ("requestMapping", .requestBuildFailed(RequestBuildFailure.invalidURL("http://www.example.com")), false, true),
            ("parameterEncoding", .requestBuildFailed(underlying), false, true),
        ]
    }

    @Test func theResponseAndUnderlyingErrorAreWhereMoyaHadThem() {
        for (moya, error, hasResponse, hasUnderlying) in Self.cases {
            #expect((error.response == Self.response) == hasResponse, "\(moya)")
            #expect((error.underlyingError != nil) == hasUnderlying, "\(moya)")
        }
        #expect(NetworkError.mappingFailed(Self.response, Self.underlying).underlyingError as NSError? == Self.underlying)
        #expect(NetworkError.transport(Self.underlying).underlyingError as NSError? == Self.underlying)
    }

    @Test func theBridgedNSErrorHasTheDescriptionAndTheUnderlyingError() {
        for (moya, error, _, hasUnderlying) in Self.cases {
            let bridged = error as NSError
            #expect(bridged.domain == NetworkError.errorDomain, "\(moya)")
            #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String == error.errorDescription, "\(moya)")
            #expect(bridged.localizedDescription == error.description, "\(moya)")
            #expect((bridged.userInfo[NSUnderlyingErrorKey] != nil) == hasUnderlying, "\(moya)")
        }
        let bridged = NetworkError.transport(Self.underlying) as NSError
        #expect(bridged.userInfo[NSUnderlyingErrorKey] as? NSError == Self.underlying)
        #expect((NetworkError.statusCode(Response(statusCode: 503, data: Data())) as NSError).userInfo[NetworkError.statusCodeUserInfoKey] as? Int == 503)
    }

    @Test func everyCaseHasItsOwnCode() {
        let codes = Set(Self.cases.map { ($0.error as NSError).code })
        // mappingFailed stands for four of Moya's cases and requestBuildFailed for three.
        #expect(codes.count == 5)
        #expect((NetworkError.cancelled as NSError).code != (NetworkError.transport(Self.underlying) as NSError).code)
    }

    @Test func emptyDataFailsMapJSONUnlessAllowed() throws {
        #expect(throws: NetworkError.self) { try Self.response.mapJSON() }
        #expect(try Self.response.mapJSON(failsOnEmptyData: false) is NSNull)
    }

    @Test func aFailureWinsOverAResponseThatArrivedWithIt() async throws {
        // A transfer that failed after its head arrived is the failure, not the
        // head: a server that closes early gives connectionLost.
        try await withFaultyServer { server in
            let provider = Provider<TestTarget>()
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.url(.closeEarly), path: ""))
            }
            guard case .connectionLost? = error else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
                return
            }
        }
    }
}
