import CourierString
import Foundation

/// Text in every charset Courier reads: the first byte picks the charset, the
/// rest is the body; and `Content-Type` values as a whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let first = data.first else { return 0 }
    let charsets = Charset.allCases
    _ = charsets[Int(first) % charsets.count].decode(data.dropFirst())
    _ = Charset.sniffingByteOrderMark(in: data)
    let text = String(decoding: data, as: UTF8.self)
    if let label = Charset.label(inContentType: text) { _ = Charset(label: label) }
    return 0
}
