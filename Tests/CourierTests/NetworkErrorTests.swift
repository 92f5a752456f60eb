import Courier
import CourierTestSupport
import Foundation
import Testing

/// Each `NetworkError` case from a real cause, with a description a person can
/// act on.
@Suite struct NetworkErrorTests {
    let provider = Provider<TestTarget>()

    @Test func aClosedPortIsServerUnreachable() async throws {
        // Nothing listens on port 1, and unlike a port a stopped test server
        // freed, no other test's server can be given it meanwhile.
        let error = await #expect(throws: NetworkError.self) {
            try await provider.request(TestTarget(URL(string: "http://127.0.0.1:1")!))
        }
        guard case .serverUnreachable = error else {
            Issue.record("expected serverUnreachable, got \(String(describing: error))")
            return
        }
        #expect("\(error!)".contains("Check the base URL and that the server is running"))
    }

    /// A crash reporter records `NSError`'s `userInfo` with the errors under
    /// it: the `URLError`'s failing URL there keeps no query or user.
    @Test func theBridgedErrorCarriesNoFailingURLWithItsQuery() async throws {
        let target = TestTarget(URL(string: "http://sekrit-user@127.0.0.1:1")!, path: "/feed",
                                task: .requestParameters(parameters: ["api_key": "sekrit-key"], encoding: URLEncoding.queryString))
        let error = try #require(await #expect(throws: NetworkError.self) { try await provider.request(target) })
        let bridged = error as NSError
        let underlying = try #require(bridged.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSURLErrorDomain)
        #expect((underlying.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.absoluteString == "http://127.0.0.1:1/feed")
        #expect(!"\(bridged.userInfo)".contains("sekrit"))
        #expect(!"\(underlying.userInfo)".contains("sekrit"))
    }

    @Test func aResponseDelayedPastTheTimeoutIsTimedOut() async throws {
        try await withServer { server in
            let target = TestTarget(server.baseURL, path: "/delay/3000", timeout: 0.3)
            let error = await #expect(throws: NetworkError.self) { try await provider.request(target) }
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
            #expect("\(error!)".contains("raise the target's timeout"))
        }
    }

    @Test func aFractionalTimeoutIsHonouredNotTruncated() async throws {
        // URLSession on Linux truncates 0.9 s to 0 s, which fails every request
        // at once; Courier must not. On a loaded machine (or under the thread
        // sanitizer) one request may really take 0.9 s, so one success in twenty
        // attempts is the bar: a truncating transport fails all twenty at once.
        try await withServer { server in
            let provider = Provider<TestTarget>(transport: URLSessionTransport())
            var successes = 0
            for _ in 0..<20 where successes == 0 {
                if let response = try? await provider.request(TestTarget(server.baseURL, path: "/echo", timeout: 0.9)) {
                    #expect(response.statusCode == 200)
                    successes += 1
                }
            }
            #expect(successes == 1)
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/delay/3000", timeout: 0.5))
            }
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        try await withServer { server in
            let gate = Gate()
            server.route("/hold") { _ in
                await gate.wait()
                return .text("too late")
            }
            let task = Task { try await provider.request(TestTarget(server.baseURL, path: "/hold")) }
            let received = try await withDeadline { await server.waitForRequest(to: "/hold") }
            task.cancel()
            let result = await task.result
            #expect((result.failure as? NetworkError)?.isCancelled == true)
            try await withDeadline(120, "the server seeing the connection close") {
                await server.waitForClose(ofConnection: received.connectionID)
            }
            gate.open()
        }
    }

    @Test func aMalformedURLFailsToBuild() async throws {
        let provider = Provider<TestTarget>(endpointClosure: { target in
            Endpoint(url: "http://[::1", sampleResponseClosure: { .networkResponse(200, Data()) },
                     method: target.method, task: target.task, httpHeaderFields: nil)
        })
        let error = await #expect(throws: NetworkError.self) {
            try await provider.request(TestTarget(URL(string: "http://127.0.0.1")!))
        }
        guard case .requestBuildFailed(let underlying) = error else {
            Issue.record("expected requestBuildFailed, got \(String(describing: error))")
            return
        }
        #expect("\(underlying)".contains("“http://[::1” is not a valid URL"))
    }

    @Test func aHostThatDoesNotResolveIsServerUnreachable() async throws {
        // `.invalid` never resolves (RFC 6761). The name still goes to the
        // machine's resolver, which answers at once when it is reachable; the
        // time-out only has to outlast a resolver that answers late (a full
        // run under the thread sanitizer waited past 30 s once), since what is
        // checked is the kind of failure, not how soon it comes.
        let error = await #expect(throws: NetworkError.self) {
            try await provider.request(TestTarget(URL(string: "http://courier-test.invalid")!, timeout: 120))
        }
        guard case .serverUnreachable = error else {
            Issue.record("expected serverUnreachable, got \(String(describing: error))")
            return
        }
    }

    @Test func aStatusErrorCarriesTheResponseAndSaysWhatToDo() async throws {
        try await withServer { server in
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/status/503", validationType: .successCodes))
            }
            #expect(error?.response?.statusCode == 503)
            #expect(error?.response?.data == Data("status 503".utf8))
            #expect("\(error!)".hasPrefix("The server answered 503 from \(server.baseURL.absoluteString)/status/503"))
        }
    }

    @Test func descriptionsNeverCarryAQueryString() async throws {
        try await withServer { server in
            let target = TestTarget(server.baseURL, path: "/status/401",
                                    task: .requestParameters(parameters: ["api_key": "SECRET"], encoding: URLEncoding.queryString),
                                    validationType: .successCodes)
            let error = await #expect(throws: NetworkError.self) { try await provider.request(target) }
            let text = "\(error!)"
            #expect(!text.contains("SECRET"))
            #expect(text.contains("/status/401?…"))
        }
    }

    @Test func urlErrorsAreClassifiedByCause() {
        func kind(_ code: URLError.Code) -> String {
            switch NetworkError(transportError: URLError(code)) {
            case .noConnection: "noConnection"
            case .serverUnreachable: "serverUnreachable"
            case .timedOut: "timedOut"
            case .connectionLost: "connectionLost"
            case .cancelled: "cancelled"
            case .requestBuildFailed: "requestBuildFailed"
            default: "transport"
            }
        }
        #expect(kind(.notConnectedToInternet) == "noConnection")
        #expect(kind(.cannotFindHost) == "serverUnreachable")
        #expect(kind(.cannotConnectToHost) == "serverUnreachable")
        #expect(kind(.timedOut) == "timedOut")
        #expect(kind(.networkConnectionLost) == "connectionLost")
        #expect(kind(.cancelled) == "cancelled")
        #expect(kind(.unsupportedURL) == "requestBuildFailed")
        #expect(kind(.secureConnectionFailed) == "transport")
        #expect(NetworkError(transportError: CancellationError()).isCancelled)
        if case .serverUnreachable = NetworkError(transportError: POSIXError(.ECONNREFUSED)) {} else {
            Issue.record("ECONNREFUSED should be serverUnreachable")
        }
    }

    @Test func everyDescriptionIsASentence() {
        let response = Response(statusCode: 500, data: Data())
        let errors: [NetworkError] = [
            .requestBuildFailed(RequestBuildFailure.missingURL), .noConnection(URLError(.notConnectedToInternet)),
            .serverUnreachable(URLError(.cannotConnectToHost)), .timedOut(URLError(.timedOut)),
            .connectionLost(URLError(.networkConnectionLost)), .cancelled, .statusCode(response),
            .mappingFailed(response, RequestBuildFailure.missingURL),
            .plugin("P", URLError(.unknown)), .transport(URLError(.secureConnectionFailed)),
        ]
        for error in errors {
            let text = error.description
            #expect(text.first?.isUppercase == true, "\(text)")
            #expect(text.hasSuffix("."), "\(text)")
            #expect(error.localizedDescription == text)
        }
    }
}

/// The public cases of `NetworkError`, pinned: adding or removing one is a
/// major version (see "How the error evolves" in its documentation). The
/// switch has no `default`, so a new case fails to compile here, and the
/// codes, which callers may have stored, must stay as they are.
@Suite struct NetworkErrorCasesTests {
    struct Reason: Error {}

    static let everyCase: [NetworkError] = [
        .requestBuildFailed(Reason()), .noConnection(Reason()), .serverUnreachable(Reason()), .timedOut(Reason()),
        .connectionLost(Reason()), .cancelled, .statusCode(Response(statusCode: 500, data: Data())),
        .mappingFailed(Response(statusCode: 200, data: Data()), Reason()),
        .plugin("Plugin", Reason()), .redirectRefused(.tooManyRedirects(10)),
        .responseTooLarge(ResponseTooLarge(limit: .memory, bytes: 1)), .downloadFailed(.destinationExists(path: "/x")),
        .invalidResponse(Reason()), .serverTrustFailed(ServerTrustFailure(host: "h", reason: .selfSigned)),
        .transport(Reason()),
    ]

    /// Compiles only while these are all the cases there are.
    static func isKnown(_ error: NetworkError) -> Bool {
        switch error {
        case .requestBuildFailed, .noConnection, .serverUnreachable, .timedOut, .connectionLost, .cancelled, .statusCode,
             .mappingFailed, .plugin, .redirectRefused, .responseTooLarge, .downloadFailed,
             .invalidResponse, .transport, .serverTrustFailed:
            true
        }
    }

    @Test func theCasesAndTheirCodesArePinned() {
        #expect(Self.everyCase.allSatisfy(Self.isKnown))
        // In the order of `everyCase`: transport is 15, serverTrustFailed 16;
        // 9 (authenticationFailed, now CourierAuth's own error) stays retired.
        #expect(Self.everyCase.map(\.errorCode) == [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 16, 15])
    }
}
