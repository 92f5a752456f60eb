import Courier
import CourierImage
import CourierTestSupport
import Foundation
import Testing

/// Serves `body` as `contentType` and maps it with the image sugar.
private func serve(_ body: Data, contentType: String = "application/octet-stream") async throws -> ResponseImage {
    try await withServer { server in
        server.route("/image") { _ in LoopbackResponse(headers: [("Content-Type", contentType)], body: .data(body)) }
        return try await Provider<TestTarget>().requestImage(TestTarget(server.baseURL, path: "/image"))
    }
}

private func failure(serving body: Data, contentType: String = "image/png") async throws -> ImageMappingFailure {
    let error = await #expect(throws: NetworkError.self) { try await serve(body, contentType: contentType) }
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.data == body)
    return try #require(underlying as? ImageMappingFailure)
}

@Suite struct ImageMapperTests {
    static let cases: [(String, Data, ImageHeader)] = [
        ("png", ImageFixtures.png(width: 640, height: 480), ImageHeader(format: .png, width: 640, height: 480)),
        ("gif", ImageFixtures.gif(width: 3, height: 70), ImageHeader(format: .gif, width: 3, height: 70)),
        ("bmp", ImageFixtures.bmp(width: 5, height: 4), ImageHeader(format: .bmp, width: 5, height: 4)),
        ("top-down bmp", ImageFixtures.bmp(width: 2, height: -3), ImageHeader(format: .bmp, width: 2, height: 3)),
        ("jpeg", ImageFixtures.jpeg(width: 1920, height: 1080), ImageHeader(format: .jpeg, width: 1920, height: 1080)),
        ("lossy webp", ImageFixtures.webpLossy(width: 300, height: 200), ImageHeader(format: .webp, width: 300, height: 200)),
        ("lossless webp", ImageFixtures.webpLossless(width: 16_384, height: 1), ImageHeader(format: .webp, width: 16_384, height: 1)),
        ("extended webp", ImageFixtures.webpExtended(width: 70_000, height: 3), ImageHeader(format: .webp, width: 70_000, height: 3)),
        ("heic", ImageFixtures.heic(width: 4032, height: 3024), ImageHeader(format: .heic, width: 4032, height: 3024)),
    ]

    @Test(arguments: cases.indices)
    func readsFormatAndSizeFromTheBytesNotTheHeader(index: Int) async throws {
        let (name, data, expected) = Self.cases[index]
        let image = try await serve(data)
        #expect(image.header == expected, "\(name)")
        #expect(image.data == data)
    }

    @Test func aTruncatedHeaderIsAMappingFailure() async throws {
        let png = ImageFixtures.png(width: 1, height: 1)
        #expect(try await failure(serving: png.prefix(20)) == .truncated(.png, needed: 24, available: 20))
        #expect(try await failure(serving: png.prefix(5)) == .truncated(.png, needed: 8, available: 5))

        let jpeg = ImageFixtures.jpeg(width: 10, height: 10)
        guard case .truncated(.jpeg, _, 30) = try await failure(serving: jpeg.prefix(30), contentType: "image/jpeg") else {
            Issue.record("a JPEG cut before its frame header is not reported as truncated")
            return
        }
        let heic = ImageFixtures.heic(width: 10, height: 10)
        guard case .truncated(.heic, _, 40) = try await failure(serving: heic.prefix(40), contentType: "image/heic") else {
            Issue.record("a HEIC cut inside its meta box is not reported as truncated")
            return
        }
        let description = ImageMappingFailure.truncated(.png, needed: 24, available: 20).description
        #expect(description == "the PNG image is truncated: its header needs 24 bytes but the body has 20; the download may have been cut short")
    }

    @Test func bytesThatAreNoImageSayWhatTheyStartWith() async throws {
        let html = Data("<html>oops</html>".utf8)
        let reason = try await failure(serving: html, contentType: "image/png")
        #expect(reason == .notAnImage(firstBytes: "3C 68 74 6D 6C 3E 6F 6F"))
        #expect(reason.description.contains("is not a PNG, JPEG, GIF, WebP, BMP or HEIC image"))
        #expect(try await failure(serving: Data()) == .notAnImage(firstBytes: ""))
    }

    @Test func malformedHeadersAreNamed() async throws {
        guard case .malformed(.jpeg, _) = try await failure(serving: ImageFixtures.jpegWithoutFrame()) else {
            Issue.record("a JPEG without a frame header is not reported as malformed")
            return
        }
        guard case .malformed(.webp, _) = try await failure(serving: ImageFixtures.riff(chunk: "ALPH", payload: Data(count: 20))) else {
            Issue.record("a WebP with an unknown first chunk is not reported as malformed")
            return
        }
        #expect(try await failure(serving: ImageFixtures.png(width: 0, height: 5)) == .malformed(.png, "it gives a size of 0×5 pixels"))
        let wave = ImageFixtures.riff(chunk: "fmt ", payload: Data(count: 16))
        var notWebP = wave
        notWebP.replaceSubrange(8..<12, with: Data("WAVE".utf8))
        guard case .notAnImage = try await failure(serving: notWebP) else {
            Issue.record("a RIFF WAVE file is taken for an image")
            return
        }
    }

    @Test func heifWithoutAHEVCBrandIsNotHEIC() throws {
        let avif = ImageFixtures.heic(width: 8, height: 8, brands: ["avif", "mif1", "miaf"])
        #expect(throws: ImageMappingFailure.self) { try ImageHeader(data: avif) }
        #expect(try ImageHeader(data: ImageFixtures.heic(width: 8, height: 8, brands: ["mif1", "heic"])).format == .heic)
    }

    @Test func aMetaBoxTooShortForItsVersionIsMalformed() throws {
        // A 24-byte ftyp naming heic, then a meta box with no content at all.
        let ftyp = ImageFixtures.box("ftyp", Data("heic".utf8) + ImageFixtures.be32(0) + Data("mif1heic".utf8))
        let body = ftyp + Data([0, 0, 0, 8]) + Data("meta".utf8)
        #expect(ftyp.count == 24)
        #expect(throws: ImageMappingFailure.malformed(.heic, "its “meta” box holds 0 bytes, too few for its version and flags")) {
            try ImageHeader(data: body)
        }
    }

    @Test func aShortIspeBoxIsMalformed() throws {
        let body = ImageFixtures.heic(properties: ImageFixtures.box("ispe", ImageFixtures.be32(0) + ImageFixtures.be32(640)))
        #expect(throws: ImageMappingFailure.malformed(.heic, "an “ispe” box holds 8 bytes, too few for a width and height")) {
            try ImageHeader(data: body)
        }
    }

    @Test func hugeIspeSizesCompareWithoutOverflow() throws {
        let huge = ImageFixtures.box("ispe", ImageFixtures.be32(0) + ImageFixtures.be32(.max) + ImageFixtures.be32(.max))
        let larger = ImageFixtures.box("ispe", ImageFixtures.be32(0) + ImageFixtures.be32(.max) + ImageFixtures.be32(.max - 1))
        let header = try ImageHeader(data: ImageFixtures.heic(properties: larger + huge))
        #expect(header == ImageHeader(format: .heic, width: Int(UInt32.max), height: Int(UInt32.max)))
    }
}
