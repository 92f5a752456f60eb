import Courier
import CourierCodable
import CourierImage
import CourierJSON
import CourierString
import CourierTestSupport
import Foundation
import Testing

/// Moya's response filtering and mapping (its `Single+MoyaSpec`), on
/// `Response` itself: each mapper product adds the method of Moya's name.
@Suite struct ResponseMappingTests {
    private static func response(_ status: Int, _ data: Data = Data()) -> Response {
        Response(statusCode: status, data: data)
    }

    private static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: .prettyPrinted)) ?? Data()
    }

    // MARK: Status codes

    @Test(arguments: [(10, 0...9), (-1, 0...9)])
    func aClosedRangeFiltersOutStatusesOutsideIt(status: Int, range: ClosedRange<Int>) {
        #expect(throws: NetworkError.self) { try Self.response(status).filter(statusCodes: range) }
    }

    @Test(arguments: [(10, 0..<10), (-1, 0..<10)])
    func aHalfOpenRangeFiltersOutStatusesOutsideIt(status: Int, range: Range<Int>) {
        #expect(throws: NetworkError.self) { try Self.response(status).filter(statusCodes: range) }
    }

    @Test func successfulStatusCodesPassAndOthersFail() throws {
        #expect(throws: NetworkError.self) { try Self.response(10).filterSuccessfulStatusCodes() }
        #expect(try Self.response(200).filterSuccessfulStatusCodes().statusCode == 200)
    }

    @Test func successfulAndRedirectCodesPassAndOthersFail() throws {
        #expect(throws: NetworkError.self) { try Self.response(10).filterSuccessfulStatusAndRedirectCodes() }
        #expect(try Self.response(200).filterSuccessfulStatusAndRedirectCodes().statusCode == 200)
        #expect(try Self.response(304).filterSuccessfulStatusAndRedirectCodes().statusCode == 304)
    }

    @Test func anIndividualStatusCodeFilters() throws {
        #expect(try Self.response(42).filter(statusCode: 42).statusCode == 42)
        let error = #expect(throws: NetworkError.self) { try Self.response(43).filter(statusCode: 42) }
        #expect(error?.response?.statusCode == 43) // the response rides on the error, as in Moya
    }

    // MARK: Images

    @Test func imageDataMapsToAnImageOfItsSize() throws {
        var gif = Data("GIF89a".utf8) + Data([40, 0, 30, 0]) + Data([0, 0, 0])
        gif.append(0x3B)
        let image = try Self.response(200, gif).mapImage()
        #expect(image.width == 40)
        #expect(image.height == 30)
    }

    @Test func dataThatIsNoImageFailsImageMapping() {
        let error = #expect(throws: NetworkError.self) { try Self.response(200).mapImage() }
        guard case .mappingFailed(let response, let failure)? = error else {
            Issue.record("expected mappingFailed, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 200)
        #expect(failure is ImageMappingFailure)
    }

    // MARK: JSON

    @Test func jsonDataMapsToThatJSON() throws {
        let json = ["name": "John Crighton", "occupation": "Astronaut"]
        let mapped = try Self.response(200, Self.json(json)).mapJSON() as? [String: String]
        #expect(mapped == json)
    }

    @Test func invalidJSONFailsWithAJSONMappingError() {
        let error = #expect(throws: NetworkError.self) { try Self.response(200, Data("{ \"name\": \"john }".utf8)).mapJSON() }
        guard case .mappingFailed(_, let failure as JSONMappingFailure)? = error else {
            Issue.record("expected a JSON mapping failure, got \(String(describing: error))")
            return
        }
        #expect(failure.underlyingError != nil) // Foundation's parse error, as Moya's Cocoa-domain error
    }

    @Test func anEmptyBodyIsNullWhenAllowedAndAnErrorOtherwise() throws {
        #expect(try Self.response(200).mapJSON(failsOnEmptyData: false) is NSNull)
        #expect(throws: NetworkError.self) { try Self.response(200).mapJSON() }
    }

    // MARK: Strings

    @Test func stringDataMapsToThatString() throws {
        let string = "You have the rights to the remains of a silent attorney."
        #expect(try Self.response(200, Data(string.utf8)).mapString() == string)
    }

    @Test func aStringAtAKeyPathMaps() throws {
        let string = "You have the rights to the remains of a silent attorney."
        #expect(try Self.response(200, Self.json(["words_to_live_by": string])).mapString(atKeyPath: "words_to_live_by") == string)
    }

    @Test func bytesThatAreNotUTF8FailStringMapping() {
        let error = #expect(throws: NetworkError.self) { try Self.response(200, Data([0xFF, 0xFF, 0x11, 0x00])).mapString() }
        guard case .mappingFailed(_, let failure)? = error else {
            Issue.record("expected mappingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure is StringMappingFailure)
    }

    // MARK: Decodable objects

    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter
    }()

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        return decoder
    }

    private static var issue: [String: Any] { ["title": "Hello, Moya!", "createdAt": "1995-01-14T12:34:56"] }

    @Test func jsonMapsToADecodableObject() throws {
        let issue = try Self.response(200, Self.json(Self.issue)).map(IssueFixture.self, using: Self.decoder)
        #expect(issue.title == "Hello, Moya!")
        #expect(issue.createdAt == Self.formatter.date(from: "1995-01-14T12:34:56"))
    }

    @Test func aJSONArrayMapsToAnArrayOfObjects() throws {
        let issues = try Self.response(200, Self.json([Self.issue, Self.issue, Self.issue])).map([IssueFixture].self, using: Self.decoder)
        #expect(issues.map(\.title) == ["Hello, Moya!", "Hello, Moya!", "Hello, Moya!"])
    }

    @Test(arguments: [nil, "issue"])
    func emptyDataMapsToAnObjectWithOptionalMembers(keyPath: String?) throws {
        let issue = try Self.response(200).map(OptionalIssue.self, atKeyPath: keyPath, using: Self.decoder, failsOnEmptyData: false)
        #expect(issue == OptionalIssue(title: nil, createdAt: nil))
    }

    @Test(arguments: [nil, "issues"])
    func emptyDataMapsToAnArrayOfOneObjectWithOptionalMembers(keyPath: String?) throws {
        let issues = try Self.response(200).map([OptionalIssue].self, atKeyPath: keyPath, using: Self.decoder, failsOnEmptyData: false)
        #expect(issues == [OptionalIssue(title: nil, createdAt: nil)])
    }

    @Test func anObjectAtAKeyPathMaps() throws {
        let issue = try Self.response(200, Self.json(["issue": Self.issue])).map(IssueFixture.self, atKeyPath: "issue", using: Self.decoder)
        #expect(issue.title == "Hello, Moya!")
        #expect(issue.createdAt == Self.formatter.date(from: "1995-01-14T12:34:56"))
    }

    @Test func anArrayAtAKeyPathMaps() throws {
        let issues = try Self.response(200, Self.json(["issues": [Self.issue]])).map([IssueFixture].self, atKeyPath: "issues", using: Self.decoder)
        #expect(issues.count == 1)
        #expect(issues.first?.title == "Hello, Moya!")
    }

    @Test func scalarsAtAKeyPathMap() throws {
        let body = Self.json(["count": 1, "isNew": true, "description": "Something interesting", "url": "http://www.example.com/test"])
        let response = Self.response(200, body)
        #expect(try response.map(Int.self, atKeyPath: "count", using: Self.decoder) == 1)
        #expect(try response.map(Bool.self, atKeyPath: "isNew", using: Self.decoder) == true)
        #expect(try response.map(String.self, atKeyPath: "description", using: Self.decoder) == "Something interesting")
        #expect(try response.map(URL.self, atKeyPath: "url", using: Self.decoder) == URL(string: "http://www.example.com/test"))
    }

    @Test func mismatchedScalarsAtAKeyPathFail() {
        let response = Self.response(200, Self.json(["isNew": 1, "test": "123", "list": ["123", "456"]]))
        #expect(throws: NetworkError.self) { try response.map(Bool.self, atKeyPath: "isNew", using: Self.decoder) }
        #expect(throws: NetworkError.self) { try response.map(Int.self, atKeyPath: "test", using: Self.decoder) }
        #expect(throws: NetworkError.self) { try response.map(String.self, atKeyPath: "list", using: Self.decoder) }
        #expect(throws: NetworkError.self) { try response.map([String].self, atKeyPath: "test", using: Self.decoder) }
    }

    @Test func anInvalidValueFailsWithTheDecodingErrorInside() {
        var json = Self.issue
        json["createdAt"] = "Hahaha"
        let error = #expect(throws: NetworkError.self) { try Self.response(200, Self.json(json)).map(IssueFixture.self, using: Self.decoder) }
        guard case .mappingFailed(_, let failure as DecodingFailure)? = error else {
            Issue.record("expected a decoding failure, got \(String(describing: error))")
            return
        }
        #expect(failure.underlyingError is DecodingError)
    }

    // MARK: Equality

    @Test func responsesCompareByStatusBodyAndRequest() {
        let request = URLRequest(url: URL(string: "https://api.github.com/zen")!)
        let one = Response(statusCode: 200, data: Data("a".utf8), request: request)
        #expect(one == Response(statusCode: 200, data: Data("a".utf8), request: request))
        #expect(one != Response(statusCode: 201, data: Data("a".utf8), request: request))
        #expect(one != Response(statusCode: 200, data: Data("b".utf8), request: request))
        #expect(one != Response(statusCode: 200, data: Data("a".utf8)))
    }
}
