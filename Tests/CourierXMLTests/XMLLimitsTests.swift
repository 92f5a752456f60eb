import Courier
import CourierTestSupport
import CourierXML
import Foundation
import Testing

private struct Note: Decodable, Sendable {
    let body: String
}

/// Accepts any element: for documents whose content does not matter.
private struct AnyElement: Decodable, Sendable {}

/// `levels` entities, each ten references to the one before: the last
/// stands for 10^levels copies of "lol".
private func entityBomb(levels: Int) -> String {
    var declarations = ["<!ENTITY l0 \"lol\">"]
    for level in 1..<levels {
        declarations.append("<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">")
    }
    return "<?xml version=\"1.0\"?>\n<!DOCTYPE note [\n" + declarations.joined(separator: "\n")
        + "\n]>\n<note><body>&l\(levels - 1);</body></note>\n"
}

private func mapped<Output: Decodable>(
    _ body: Data, as type: Output.Type, limits: XMLLimits = XMLLimits()
) async throws -> Result<Output, NetworkError> {
    let response = try await served(body, contentType: "application/xml")
    return Result { () throws(NetworkError) in try response.map(XMLDecodableMapper<Output>(limits: limits)) }
}

private func mapped<Output: Decodable>(
    _ xml: String, as type: Output.Type, limits: XMLLimits = XMLLimits()
) async throws -> Result<Output, NetworkError> {
    try await mapped(Data(xml.utf8), as: type, limits: limits)
}

private func exceededLimit<Output>(_ result: Result<Output, NetworkError>) -> MappingLimitExceeded? {
    guard case .failure(.mappingFailed(_, let underlying)) = result else { return nil }
    return (underlying as? XMLMappingFailure)?.underlyingError as? MappingLimitExceeded
}

@Suite(.serialized) struct XMLLimitsTests {
    @Test func anEntityBombIsRefusedInBoundedMemoryAndTime() async throws {
        try await MeasuredAlone.run(suite: "XMLLimitsTests", case: "anEntityBombIsRefusedInBoundedMemoryAndTime") {
            // Only the mapping is measured: the loopback round trip before it
            // is not the decoder's, and on a loaded machine it takes seconds.
            let response = try await served(Data(entityBomb(levels: 9).utf8), contentType: "application/xml")
            let measured = await PeakMemory.measure {
                Result { () throws(NetworkError) in try response.map(XMLDecodableMapper<Note>()) }
            }
            let limit = try #require(exceededLimit(measured.result))
            #expect(limit.description.contains("<!ENTITY"))
            MeasuredAlone.report("XML: an entity bomb: the resident memory grew by \(measured.growth) MiB in \(measured.duration)")
            #expect(measured.growth < 64, "the resident memory grew by \(measured.growth) MiB")
            #expect(measured.duration < .seconds(2), "took \(measured.duration)")
        }
    }

    /// A small expansion that libxml2 itself lets through is refused too:
    /// no entity is ever expanded.
    @Test func anyEntityDeclarationIsRefusedEvenWithDocumentTypesAllowed() async throws {
        for limits in [XMLLimits(), XMLLimits(allowsDocumentType: true)] {
            let result = try await mapped(entityBomb(levels: 3), as: Note.self, limits: limits)
            #expect(exceededLimit(result)?.reason.contains("entity") == true, "\(result)")
        }
    }

    @Test func anExternalEntityNeverReadsTheFile() async throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("courier-xml-secret-\(UUID().uuidString)")
        try Data("top secret".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE note [<!ENTITY s SYSTEM \"\(secret.absoluteString)\">]>\n<note><body>&s;</body></note>"
        let result = try await mapped(xml, as: Note.self, limits: XMLLimits(allowsDocumentType: true))
        #expect(exceededLimit(result) != nil)
        #expect(!"\(result)".contains("top secret"))
    }

    @Test func aDocumentTypeIsRefusedUnlessAllowed() async throws {
        let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE note SYSTEM \"note.dtd\">\n<note><body>hi</body></note>"
        let refused = try await mapped(xml, as: Note.self)
        #expect(exceededLimit(refused)?.remedy.contains("XMLLimits.allowsDocumentType") == true)
        let allowed = try await mapped(xml, as: Note.self, limits: XMLLimits(allowsDocumentType: true))
        #expect((try? allowed.get())?.body == "hi")
    }

    /// UTF-16 hides the markup from a check that reads bytes as ASCII.
    @Test func aDocumentTypeInUTF16IsRefusedToo() async throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!DOCTYPE note [<!ENTITY a \"aaaa\">]>\n<note><body>&a;</body></note>"
        let body = try #require(xml.data(using: .utf16))
        #expect(exceededLimit(try await mapped(body, as: Note.self)) != nil)
    }

    /// Found by the fuzz harness: libxml2 passed an element name with a byte
    /// that is not UTF-8 on to FoundationXML, which trapped.
    @Test func aNameThatIsNotUTF8IsRefusedInsteadOfKillingTheProcess() async throws {
        for declaration in ["<?xml version=\"1.0\"?>\n", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", ""] {
            var body = Data((declaration + "<").utf8)
            body.append(0xFA)
            body.append(Data("note><body>hi</body></note>".utf8))
            let limit = exceededLimit(try await mapped(body, as: Note.self))
            #expect(limit?.reason == "is not valid UTF-8", "\(declaration)")
        }
        // Latin-1 declared: libxml2 converts it, so the same byte is a letter.
        var latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><note><body>".utf8)
        latin1.append(0xFA)
        latin1.append(Data("</body></note>".utf8))
        #expect(try await mapped(latin1, as: Note.self).get().body == "\u{FA}")
    }

    /// Found by the fuzz harness: libxml2 reports `<?name?>`'s data as a null
    /// pointer, and FoundationXML's `strlen` of it crashed the process.
    @Test func aProcessingInstructionWithoutDataIsRefusedInsteadOfKillingTheProcess() async throws {
        let documents = [
            "<?xml version=\"1.0\"?>\n<note><body>hi</body><?page?></note>",
            "<?xml version=\"1.0\"?>\n<?xm?>\n<note><body>hi</body></note>",
            "<!DOCTYPE note [<?page?>]><note><body>hi</body></note>",
            // libxml2 reads on past the broken end tag, and reaches it.
            "<?xml version=\"1.0\"?>\n<note><body>hi</ody<?xm?>\n</note>",
        ]
        for xml in documents {
            let limit = exceededLimit(try await mapped(xml, as: Note.self, limits: XMLLimits(allowsDocumentType: true)))
            #expect(limit?.reason.contains("processing instruction without data") == true, "\(xml)")
        }
        // With data, as feeds send them, they pass.
        let styled = "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"feed.xsl\"?><note><?page 1?><body>hi</body></note>"
        #expect(try await mapped(styled, as: Note.self).get().body == "hi")
    }

    @Test func nestingPastTheLimitIsRefused() async throws {
        func nested(_ depth: Int) -> String {
            "<?xml version=\"1.0\"?>" + String(repeating: "<a x=\"1>\">", count: depth) + String(repeating: "</a>", count: depth)
        }
        let limit = exceededLimit(try await mapped(nested(200), as: AnyElement.self))
        #expect(limit?.limit == "XMLLimits.maximumDepth")
        #expect(limit?.maximum == 128)
        #expect((try? await mapped(nested(100), as: AnyElement.self).get()) != nil)
        #expect(exceededLimit(try await mapped(nested(100), as: AnyElement.self, limits: XMLLimits(maximumDepth: 50))) != nil)
    }

    @Test func commentsCDATAAndSelfClosedElementsDoNotCount() async throws {
        let xml = "<?xml version=\"1.0\"?><note><!-- <a><a><a> --><body><![CDATA[<b><b><b>]]></body>"
            + String(repeating: "<empty/>", count: 300) + "</note>"
        let note = try await mapped(xml, as: Note.self, limits: XMLLimits(maximumDepth: 2)).get()
        #expect(note.body == "<b><b><b>")
    }
}
