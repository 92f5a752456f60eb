import AsyncHTTPClient
import Courier
import Foundation

extension AsyncHTTPClientTransport {
    /// The error of every request sent through a client passed in that follows
    /// redirects itself: its hops would bypass the transfer stage's redirect
    /// rules (credentials dropped across origins, no `https` to `http`, only
    /// `http` and `https`, bodies kept within their origin).
    /// It reaches callers as `NetworkError.transport(ClientFollowsRedirects)`,
    /// before anything is sent.
    public struct ClientFollowsRedirects: Error, Sendable, CustomStringConvertible {
        /// What happened and how to fix it.
        public var description: String {
            "the HTTPClient given to AsyncHTTPClientTransport follows redirects itself, around Courier's redirect rules; "
                + "create it with configuration.redirectConfiguration = .disallow"
        }
    }

    /// The error of every request sent through a client passed in that
    /// decompresses bodies itself: it would decode every response, whatever
    /// `TransferConfiguration.decodesContent` says, under a limit of its own.
    /// It reaches callers as `NetworkError.transport(ClientDecompresses)`,
    /// before anything is sent.
    public struct ClientDecompresses: Error, Sendable, CustomStringConvertible {
        /// What happened and how to fix it.
        public var description: String {
            "the HTTPClient given to AsyncHTTPClientTransport decompresses bodies itself, around the provider's decodesContent "
                + "and its limits; create it with configuration.decompression = .disabled (the transport decodes)"
        }
    }

    // AsyncHTTPClient keeps a client's configuration internal, so what the
    // transport must know of a client passed in is read by reflection. A
    // setting that cannot be found (another version of the library) counts
    // as the one that needs care, so that a rule is never bypassed unnoticed.

    /// Whether `client` follows redirects.
    static func followsRedirects(_ client: HTTPClient) -> Bool {
        guard let configuration = child("configuration", of: client),
              let redirects = child("redirectConfiguration", of: configuration),
              let mode = child("mode", of: redirects) else { return true }
        return "\(mode)" != "disallow"
    }

    /// Whether `client` decompresses bodies.
    static func decompresses(_ client: HTTPClient) -> Bool {
        guard let configuration = child("configuration", of: client),
              let decompression = child("decompression", of: configuration) else { return true }
        return "\(decompression)" != "disabled"
    }

    /// Whether `client` connects through a proxy.
    static func usesProxy(_ client: HTTPClient) -> Bool {
        guard let configuration = child("configuration", of: client),
              let proxy = child("proxy", of: configuration) else { return true }
        let mirror = Mirror(reflecting: proxy)
        return mirror.displayStyle != .optional || !mirror.children.isEmpty
    }

    private static func child(_ label: String, of value: Any) -> Any? {
        Mirror(reflecting: value).children.first { $0.label == label }?.value
    }
}
