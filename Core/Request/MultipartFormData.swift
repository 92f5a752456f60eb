import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes ``MultipartFormBodyPart``s into a `multipart/form-data` body.
///
/// Below ``memoryThreshold`` the body is built in memory; above it, it is
/// written to a temporary file in chunks and uploaded from there, so a large
/// upload never sits in memory whole.
public struct MultipartFormData: Sendable {
    /// Bodies up to 10 MB are built in memory.
    public static let defaultMemoryThreshold: UInt64 = 10_000_000

    /// An encoded body: in memory, or in a temporary file the caller removes
    /// after use.
    public enum EncodedBody: Sendable {
        /// The whole body, in memory.
        case data(Data)
        /// The body in a temporary file of `length` bytes, which the caller
        /// removes after use.
        case temporaryFile(URL, length: UInt64)
    }

    /// The parts, in order.
    public let parts: [MultipartFormBodyPart]
    /// The boundary between parts (it also goes into the `Content-Type`).
    public let boundary: String
    /// Bodies up to this many bytes are built in memory, longer ones in a
    /// temporary file.
    public let memoryThreshold: UInt64

    /// - Parameters:
    ///   - parts: The parts, in order.
    ///   - boundary: The boundary; a random one by default.
    ///   - memoryThreshold: Above this many bytes the body is streamed to a file.
    public init(
        parts: [MultipartFormBodyPart],
        boundary: String = MultipartFormData.randomBoundary(),
        memoryThreshold: UInt64 = MultipartFormData.defaultMemoryThreshold
    ) {
        self.parts = parts
        self.boundary = boundary
        self.memoryThreshold = memoryThreshold
    }

    /// A boundary that will not occur in practice: `courier.boundary.` and 16
    /// random hex digits.
    public static func randomBoundary() -> String {
        "courier.boundary." + String(format: "%016llx", UInt64.random(in: .min ... .max))
    }

    /// The `Content-Type` header value, boundary included.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The exact size of the encoded body in bytes.
    /// - Throws: ``RequestBuildFailure/multipart(_:)`` when a file part cannot
    ///   be read, or when the parts' lengths add up to more than a body can
    ///   hold (a stream part that claims an absurd length).
    public func contentLength() throws -> UInt64 {
        var total: UInt64 = 0
        for (index, part) in parts.enumerated() {
            total = try Self.adding(UInt64(header(for: part, first: index == 0).count), to: total)
            total = try Self.adding(try length(of: part.provider), to: total)
        }
        return try Self.adding(UInt64(closingBoundary.count), to: total)
    }

    /// The largest body a form may add up to: what a file offset can address.
    private static let maximumLength = UInt64(Int64.max)

    private static func adding(_ length: UInt64, to total: UInt64) throws -> UInt64 {
        let (sum, overflow) = total.addingReportingOverflow(length)
        guard !overflow, sum <= maximumLength else {
            throw RequestBuildFailure.multipart("the parts' lengths add up to more than \(maximumLength) bytes; check the length given for each stream part")
        }
        return sum
    }

    /// Encodes the body, in memory or into a temporary file by size.
    /// - Throws: ``RequestBuildFailure/multipart(_:)`` when a part cannot be
    ///   read, or the temporary file cannot be written (no half-written file is
    ///   left behind).
    public func encode() throws -> EncodedBody {
        let length = try contentLength()
        if length <= memoryThreshold {
            var output = DataSink()
            try write(to: &output)
            return .data(output.data)
        }
        let url: URL
        let handle: FileHandle
        do {
            (url, handle) = try PrivateTemporaryFile.create(prefix: "multipart")
        } catch {
            throw RequestBuildFailure.multipart("cannot create a temporary file (\(error))")
        }
        do {
            var output = FileSink(handle: handle)
            try write(to: &output)
            try output.flush()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
            throw error as? RequestBuildFailure ?? .multipart("writing the temporary file failed: \(error)")
        }
        return .temporaryFile(url, length: length)
    }

    // MARK: - Writing

    private var closingBoundary: Data { Data("\r\n--\(boundary)--\r\n".utf8) }

    private func header(for part: MultipartFormBodyPart, first: Bool) -> Data {
        var text = first ? "--\(boundary)\r\n" : "\r\n--\(boundary)\r\n"
        text += "Content-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
        if let fileName = part.fileName {
            text += "; filename=\"\(Self.quoted(fileName))\""
        }
        text += "\r\n"
        if let mimeType = part.mimeType {
            text += "Content-Type: \(mimeType)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// Escapes a name for a quoted header parameter as the HTML standard does.
    private static func quoted(_ name: String) -> String {
        name.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private func length(of provider: MultipartFormBodyPart.Provider) throws -> UInt64 {
        switch provider {
        case .data(let data):
            return UInt64(data.count)
        case .file(let url):
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                  let size = attributes[.size] as? NSNumber
            else {
                throw RequestBuildFailure.multipart("cannot read the file \(url.path); check that it exists and is readable")
            }
            return size.uint64Value
        case .stream(_, let length):
            return length
        }
    }

    private func write(to sink: inout some MultipartSink) throws {
        for (index, part) in parts.enumerated() {
            try sink.append(header(for: part, first: index == 0))
            switch part.provider {
            case .data(let data):
                try sink.append(data)
            case .file(let url):
                guard let stream = InputStream(url: url) else {
                    throw RequestBuildFailure.multipart("cannot open the file \(url.path)")
                }
                try copy(stream, expected: try length(of: part.provider), name: part.name, to: &sink)
            case .stream(let makeStream, let length):
                try copy(try makeStream(), expected: length, name: part.name, to: &sink)
            }
        }
        try sink.append(closingBoundary)
    }

    private func copy(_ stream: InputStream, expected: UInt64, name: String, to sink: inout some MultipartSink) throws {
        stream.open()
        defer { stream.close() }
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var copied: UInt64 = 0
        while copied < expected {
            let wanted = Int(min(UInt64(chunkSize), expected - copied))
            let read = stream.read(&buffer, maxLength: wanted)
            if read < 0 {
                throw RequestBuildFailure.multipart("reading part “\(name)” failed: \(stream.streamError.map(String.init(describing:)) ?? "unknown error")")
            }
            if read == 0 { break }
            try sink.append(Data(buffer[0..<read]))
            copied += UInt64(read)
        }
        guard copied == expected else {
            throw RequestBuildFailure.multipart("part “\(name)” gave \(copied) bytes where \(expected) were declared")
        }
    }
}

// MARK: - Sinks

private protocol MultipartSink {
    mutating func append(_ data: Data) throws
}

private struct DataSink: MultipartSink {
    var data = Data()
    mutating func append(_ chunk: Data) { data.append(chunk) }
}

private struct FileSink: MultipartSink {
    let handle: FileHandle
    var pending = Data()

    mutating func append(_ chunk: Data) throws {
        pending.append(chunk)
        if pending.count >= 1 << 20 { try flush() }
    }

    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        try handle.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }
}

/// A form written as a list of parts, as Moya allows:
/// `.uploadMultipartFormData([part1, part2])`.
extension MultipartFormData: ExpressibleByArrayLiteral {
    public init(arrayLiteral parts: MultipartFormBodyPart...) {
        self.init(parts: parts)
    }
}
