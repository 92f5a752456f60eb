import Courier
import Testing

/// Field names compared as HTTP compares them, and the fields a decoded body
/// keeps: what both transports and the gzip plugin rely on.
struct HeaderFieldsTests {
    @Test func namesMatchInAnyLetterCaseAndNothingElse() {
        #expect(HeaderFields.equalIgnoringASCIICase("Content-Length", "content-length"))
        #expect(HeaderFields.equalIgnoringASCIICase("ETAG", "ETag"))
        #expect(HeaderFields.equalIgnoringASCIICase("", ""))
        // Lengths differ: one is a prefix of the other.
        #expect(!HeaderFields.equalIgnoringASCIICase("Content-Length", "Content-Lengths"))
        #expect(!HeaderFields.equalIgnoringASCIICase("Vary", ""))
        // 0x40 "@" and 0x60 "`" differ only in the case bit, yet are not letters.
        #expect(!HeaderFields.equalIgnoringASCIICase("X@", "X`"))
        #expect(!HeaderFields.equalIgnoringASCIICase("X-[", "X-{"))
        // Bytes beyond ASCII are compared as they are.
        #expect(HeaderFields.equalIgnoringASCIICase("X-Ä", "x-Ä"))
        #expect(!HeaderFields.equalIgnoringASCIICase("X-Ä", "X-ä"))
    }

    @Test func aValueIsFoundUnderAnySpellingOfItsName() {
        let fields = ["content-type": "application/json", "ETag": "\"1\""]
        #expect(HeaderFields.value("Content-Type", in: fields) == "application/json")
        #expect(HeaderFields.value("etag", in: fields) == "\"1\"")
        #expect(HeaderFields.value("Content-Length", in: fields) == nil)
    }

    @Test func aDecodedBodyKeepsNoEncodingAndItsOwnLength() {
        let fields = ["content-encoding": "gzip", "Content-Length": "120", "Content-Type": "text/plain"]
        #expect(HeaderFields.afterDecoding(fields, decodedLength: 4096)
                    == ["Content-Length": "4096", "Content-Type": "text/plain"])
        #expect(HeaderFields.afterDecoding(fields, decodedLength: nil) == ["Content-Type": "text/plain"])
    }
}
