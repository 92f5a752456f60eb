@testable import Courier
import Foundation

/// What a server, libcurl or a configuration file hands Courier about TLS and
/// sizes: PEM texts given to `ServerTrust`, libcurl's certificate sentences,
/// host names of pinned hosts and `Content-Length` values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for certificate in ServerTrust.derCertificates(inPEM: text) {
        precondition(!certificate.isEmpty, "an empty certificate from \(text)")
    }
    _ = ServerTrustFailure.reason(inVerificationMessage: text)
    let host = ServerTrust.normalizedHost(text)
    precondition(host == host.lowercased(), "\(host) from \(text) is not in lower case")
    if let length = Transfer.contentLength(text) {
        precondition(length >= 0 && length < 1_000_000_000_000_000_000, "length \(length) from \(text)")
    }
    return 0
}
