import Courier
import CourierXML
import Foundation

/// Accepts any element.
struct AnyElement: Decodable {}

/// An element with a text child, as most payloads have.
struct Note: Decodable {
    let body: String
}

/// XML bodies through `XMLDecodableMapper` with a small depth limit, so that
/// inputs reach it; document types are allowed, to reach the entity check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let response = Response(statusCode: 200, data: Data(bytes: bytes, count: count))
    let limits = XMLLimits(maximumDepth: 16, allowsDocumentType: count % 2 == 0)
    _ = try? response.map(XMLDecodableMapper<AnyElement>(limits: limits))
    _ = try? response.map(XMLDecodableMapper<Note>(limits: limits))
    return 0
}
