import Courier
import CourierImage
import CourierTestSupport
import Foundation
import Testing

@Suite struct ImageLimitsTests {
    /// 100,000 × 100,000 pixels announced in a 33-byte PNG header: 40 GB once
    /// decoded.
    @Test func anImageWithTooManyPixelsIsRefusedFromItsHeader() async throws {
        let response = try await served(ImageFixtures.png(width: 100_000, height: 100_000), contentType: "image/png")
        let error = #expect(throws: NetworkError.self) { try response.map(ImageMapper()) }
        guard case .mappingFailed(_, let underlying)? = error,
              case .limitExceeded(.png, let limit)? = underlying as? ImageMappingFailure else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
        #expect(limit.limit == "ImageMapper.maximumPixelCount")
        #expect(limit.maximum == 8192 * 8192)
        #expect("\(try #require(error))".contains("100000 × 100000"))
    }

    /// Width × height past `Int.max` is refused, not a trap.
    @Test func aPixelCountThatOverflowsIsRefused() async throws {
        let response = try await served(ImageFixtures.png(width: .max, height: .max), contentType: "image/png")
        #expect(throws: NetworkError.self) { try response.map(ImageMapper(maximumPixelCount: .max)) }
    }

    @Test func theLimitIsConfigurable() async throws {
        let response = try await served(ImageFixtures.png(width: 640, height: 480), contentType: "image/png")
        #expect(try response.map(ImageMapper()).width == 640)
        #expect(try response.mapImage().height == 480)
        #expect(throws: NetworkError.self) { try response.map(ImageMapper(maximumPixelCount: 640 * 480 - 1)) }
    }
}
