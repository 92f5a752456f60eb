@testable import CourierRetry
import Foundation

/// `Retry-After`: seconds, an HTTP date, or garbage. Never negative, never NaN.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let delay = RetryAfter.delay(from: text, now: Date(timeIntervalSince1970: 1_700_000_000))
    precondition(!delay.isNaN && delay >= 0, "delay \(delay) from \(text)")
    return 0
}
