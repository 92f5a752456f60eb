import Courier
import CourierTestSupport
import Foundation
import Testing

/// Configuration values at the edges of their types: clamped or refused with
/// a clear error, never a trap.
struct ConfigurationLimitsTests {
    @Test func aStreamPartWithAnAbsurdLengthIsRefused() async throws {
        let part = MultipartFormBodyPart(provider: .stream({ InputStream(data: Data()) }, length: .max), name: "huge")
        #expect(throws: RequestBuildFailure.self) { try MultipartFormData(parts: [part]).contentLength() }
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub)
        let error = await #expect(throws: NetworkError.self) {
            try await provider.request(TestTarget(URL(string: "http://stub.invalid")!, method: .post, task: .uploadMultipart([part])))
        }
        guard case .requestBuildFailed? = error else {
            Issue.record("expected requestBuildFailed, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: [1e11, .greatestFiniteMagnitude, .infinity])
    func aTimeOutOfCenturiesStillSendsTheRequest(timeout: TimeInterval) async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let response = try await provider.request(TestTarget(server.baseURL, path: "/status/204", timeout: timeout))
            #expect(response.statusCode == 204)
        }
    }
}
