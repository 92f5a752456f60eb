// The code of Mappers/Image/CourierImage.docc/CourierImage.md.
// Needs the test target to depend on CourierImage.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierImage

@Suite struct CourierImageCatalogSnippets {
    /// The first bytes of a GIF of 2 × 3 pixels: enough for the header.
    static let gifHeader = Data("GIF89a".utf8) + Data([0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00])

    @Test func anImageReadsItsFormatAndSize() async throws {
        try await withServer { server in
            server.route("/avatar") { _ in
                LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: .data(Self.gifHeader))
            }
            let provider = Provider<API>()
            let avatarTarget = API(baseURL: server.baseURL, path: "/avatar")
            let avatar = try await provider.requestImage(avatarTarget)
            print(avatar.format, avatar.width, avatar.height) // GIF 2 3
            #expect(avatar.format == .gif)
            #expect(avatar.width == 2)
            #expect(avatar.height == 3)
            #expect(avatar.data == Self.gifHeader)
        }
    }

    @Test func aHeaderReadsFromBytes() throws {
        let header = try ImageHeader(data: Self.gifHeader)
        #expect(header == ImageHeader(format: .gif, width: 2, height: 3))
        #expect(header.description == "GIF 2×3")
    }
}
