import Courier

/// A target whose request bodies ``GzipPlugin`` compresses.
///
/// ```swift
/// extension UploadAPI: GzipRequestCompressible {
///     var compressesRequestBody: Bool {
///         if case .uploadLog = self { return true }
///         return false
///     }
/// }
/// ```
///
/// The server must accept `Content-Encoding: gzip` on requests: many do not,
/// which is why compressing is opt-in.
public protocol GzipRequestCompressible: TargetType {
    /// Whether this target's body is compressed (when above the plugin's
    /// threshold). `true` unless a target says otherwise.
    var compressesRequestBody: Bool { get }
}

extension GzipRequestCompressible {
    /// Compress: a target that conforms wants it, unless it says otherwise.
    public var compressesRequestBody: Bool { true }
}
