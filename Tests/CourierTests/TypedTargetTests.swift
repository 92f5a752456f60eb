import Courier
import CourierTestSupport
import Foundation
import Testing

/// Targets that fix their own output type, so the call site parses nothing.
@Suite struct TypedTargetTests {
    struct LineCount: ResponseMapper {
        func map(_ response: Response) throws -> Int {
            String(decoding: response.data, as: UTF8.self).split(separator: "\n").count
        }
    }

    struct Text: ResponseMapper {
        struct NotText: Error {}
        func map(_ response: Response) throws -> String {
            guard let text = String(data: response.data, encoding: .utf8) else { throw NotText() }
            return text
        }
    }

    /// A generic endpoint struct: each value names its output type.
    struct Endpoint<Mapper: ResponseMapper>: TypedTarget {
        let baseURL: URL
        let path: String
        let mapper: Mapper
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .successCodes }
    }

    @Test func aTypedTargetReturnsItsOutput() async throws {
        try await withServer { server in
            server.route("/poem") { _ in .text("one\ntwo\nthree") }
            let provider = Provider<Endpoint<LineCount>>()
            let lines: Int = try await provider.request(Endpoint(baseURL: server.baseURL, path: "/poem", mapper: LineCount()))
            #expect(lines == 3)
        }
    }

    @Test func typedPairsGiveEachCaseItsOwnOutput() async throws {
        try await withServer { server in
            server.route("/poem") { _ in .text("a\nb") }
            server.route("/title") { _ in .text("Ode") }
            let target = TestTarget(server.baseURL, path: "/poem")
            let provider = Provider<TestTarget>()
            let count = try await provider.request(target.returning(LineCount()))
            var titleTarget = target
            titleTarget.path = "/title"
            let title = try await provider.request(titleTarget.returning(Text()))
            #expect(count == 2)
            #expect(title == "Ode")
        }
    }

    @Test func aMapperFailureIsMappingFailedWithTheResponse() async throws {
        try await withServer { server in
            server.route("/binary") { _ in LoopbackResponse(body: .data(Data([0xFF, 0xFE, 0xFD]))) }
            let provider = Provider<TestTarget>()
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/binary"), mapper: Text())
            }
            guard case .mappingFailed(let response, let underlying) = error else {
                Issue.record("expected mappingFailed, got \(String(describing: error))")
                return
            }
            #expect(response.data == Data([0xFF, 0xFE, 0xFD]))
            #expect(underlying is Text.NotText)
            #expect(error?.response?.statusCode == 200)
        }
    }
}
