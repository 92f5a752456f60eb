import Courier
import CourierTestSupport
import Foundation
import Testing

@Test func echoRoundTrip() async throws {
    try await withServer { server in
        let provider = Provider<TestTarget>()
        let response = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: .post, task: .requestData(Data("hello".utf8))))
        #expect(response.statusCode == 200)
        let echo = try Echo(response)
        #expect(echo.method == "POST")
        #expect(echo.bodyText == "hello")
        print(echo.headers)
    }
}
