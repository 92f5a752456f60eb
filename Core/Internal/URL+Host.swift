import Foundation

extension URL {
    /// The host as written (still percent-encoded), or `nil` when there is
    /// none or it does not decode (`http://%FF/`). Decoding is only paid for
    /// a host that has a `%` in it: this runs for every request.
    var checkedHost: String? {
        guard let host = host(percentEncoded: true) else { return nil }
        guard host.utf8.contains(UInt8(ascii: "%")) else { return host }
        return self.host == nil ? nil : host
    }
}
