import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Content-Disposition` file names as a server sends them: whatever comes
/// out is one safe name that stays in its folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let url = URL(string: "http://fuzz.invalid/file") ?? URL(fileURLWithPath: "/")
    let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Disposition": value])
    for candidate in [response?.suggestedFilename, value] {
        let name = DownloadDestinations.safeFileName(candidate)
        precondition(!name.isEmpty && name != "." && name != "..", "unsafe name \(name) from \(value)")
        precondition(!name.contains("/") && !name.contains("\\") && !name.contains("\0"), "unsafe name \(name) from \(value)")
    }
    return 0
}
