import Foundation

/// gzip, zlib and raw deflate on the system zlib: one-shot functions here,
/// streaming in ``GzipCompressor`` and ``GzipDecompressor``.
///
/// ```swift
/// let packed = try Gzip.compress(Data(json.utf8))
/// let unpacked = try Gzip.decompress(packed, limit: 10 * 1024 * 1024)
/// ```
///
/// Decompression always has a size limit: a few kilobytes can inflate to
/// gigabytes (a decompression bomb), and the limit turns that into
/// ``Gzip/Error/sizeLimitExceeded(limit:)`` long before memory runs out.
public enum Gzip {
    /// The decompressed-size limit when a caller names none: 256 MiB.
    public static let defaultLimit = 256 * 1024 * 1024

    // MARK: - Formats and levels

    /// The container around the deflate data.
    public enum Format: Sendable, Hashable, CustomStringConvertible {
        /// gzip (RFC 1952): `Content-Encoding: gzip`, `.gz` files.
        case gzip
        /// zlib (RFC 1950): what `Content-Encoding: deflate` means.
        case zlib
        /// Raw deflate (RFC 1951), which some servers send as `deflate`.
        case rawDeflate

        /// The format the first bytes of `data` show: gzip's magic number, a
        /// valid zlib header, or else raw deflate.
        /// - Parameter data: At least the first two bytes of the stream.
        /// - Returns: The detected format.
        public static func detect(from data: some DataProtocol) -> Format {
            let bytes = Array(data.prefix(2))
            guard bytes.count == 2 else { return .rawDeflate }
            if bytes[0] == 0x1F && bytes[1] == 0x8B { return .gzip }
            let header = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            if bytes[0] & 0x0F == 8 && bytes[0] >> 4 <= 7 && header % 31 == 0 { return .zlib }
            return .rawDeflate
        }

        /// zlib's `windowBits` for this format with a 32 KiB window.
        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .rawDeflate: -15
            }
        }

        /// The format's name, for messages.
        public var description: String {
            switch self {
            case .gzip: "gzip"
            case .zlib: "zlib"
            case .rawDeflate: "raw deflate"
            }
        }
    }

    /// How hard the compressor works: 0 (store only) to 9 (smallest output).
    public struct Level: Sendable, Hashable {
        /// zlib's level, -1 for its default.
        public let rawValue: Int32

        /// A level from 0 to 9; values outside are clamped.
        /// - Parameter value: 0 stores, 1 is fastest, 9 compresses most.
        public init(_ value: Int) {
            rawValue = Int32(min(9, max(0, value)))
        }

        private init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// zlib's default trade-off (level 6).
        public static let `default` = Level(rawValue: -1)
        /// The fastest compression (level 1).
        public static let fastest = Level(1)
        /// The smallest output (level 9).
        public static let best = Level(9)
    }

    // MARK: - One shot

    /// Compresses `data` in one go.
    /// - Parameters:
    ///   - data: The bytes to compress.
    ///   - format: The container; gzip unless you need zlib or raw deflate.
    ///   - level: How hard to work.
    /// - Returns: The compressed bytes.
    /// - Throws: ``Gzip/Error`` if zlib cannot start (out of memory).
    public static func compress(_ data: Data, format: Format = .gzip, level: Level = .default) throws(Gzip.Error) -> Data {
        if data.count <= GzipCompressor.largestWhole {
            // zlib writes straight into the result: no buffer of its own, no copy.
            return try GzipCompressor(format: format, level: level, bufferSize: 0).compressWhole(data)
        }
        let compressor = try GzipCompressor(format: format, level: level)
        var output = try compressor.compress(data)
        output.append(try compressor.finish())
        return output
    }

    /// Decompresses `data` in one go, refusing to produce more than `limit`
    /// bytes.
    /// - Parameters:
    ///   - data: The compressed bytes.
    ///   - format: The container, or `nil` to detect it from the first bytes.
    ///   - limit: The most bytes the output may have.
    /// - Returns: The decompressed bytes.
    /// - Throws: ``Gzip/Error/corrupt(_:)`` for bytes that are not valid
    ///   compressed data, ``Gzip/Error/truncated(consumed:)`` when the stream
    ///   ends early, ``Gzip/Error/sizeLimitExceeded(limit:)`` past `limit`.
    public static func decompress(_ data: Data, format: Format? = nil, limit: Int = defaultLimit) throws(Gzip.Error) -> Data {
        // zlib inflates straight into the result, with room for the size a
        // gzip trailer announces: no buffer of its own, no copy.
        let decompressor = GzipDecompressor(format: format, limit: limit, bufferSize: 0)
        let output = try decompressor.decompressWhole(data, expectedSize: expectedSize(of: data, limit: limit))
        try decompressor.finish()
        return output
    }

    /// The size a single-member gzip stream says its output has (its last
    /// four bytes, modulo 4 GiB), as a capacity to reserve: never more than
    /// `limit`, nor than deflate's largest ratio (1,032 to 1) allows. Only a
    /// hint: a wrong value costs a reallocation, never a wrong result.
    private static func expectedSize(of data: Data, limit: Int) -> Int {
        guard data.count >= 18, isGzipped(data) else { return 0 }
        let end = data.endIndex
        // Read as 32 bits, so a size past Int32.max (a 32-bit platform) is
        // clamped instead of turning negative.
        let size = Int(clamping: (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[end - 4 + $1]) << (8 * $1) })
        return min(size, limit, data.count.multipliedReportingOverflow(by: 1032).partialValue)
    }

    /// Whether `data` starts with gzip's magic number.
    /// - Parameter data: Any bytes.
    /// - Returns: `true` for gzip data.
    public static func isGzipped(_ data: Data) -> Bool {
        Format.detect(from: data) == .gzip
    }
}
