import Foundation

/// Splits bytes that arrive in chunks into elements, one at a time: lines
/// (LF, CRLF or a lone CR, as the server-sent events format allows all three;
/// a CRLF split between two chunks is one line ending) or records that each
/// start with a separator byte (JSON text sequences, RFC 7464, start each text
/// with RS, 0x1E).
///
/// Its memory follows the input still pending, never what came before: it
/// holds the chunk being read and the one element not yet ended, and hands
/// each element out as an array of its own, sized to it, when asked. Feed a
/// chunk with ``feed(_:)``, then call ``next()`` until it returns `nil`, then
/// feed the next chunk.
///
/// An element is never longer than `maximumLength` bytes: past that,
/// ``next()`` sets ``overflow`` instead of holding more, so a server that never
/// ends a line cannot take the process's memory. The elements ended before the
/// long one are still handed out, so where chunks happen to split never
/// changes what is read.
struct LineSplitter: Sendable {
    /// Where one element ends and the next begins.
    enum Boundary: Sendable {
        /// LF, CR or CRLF ends a line.
        case lineEnding
        /// Each record starts with this byte. Bytes before the first one are
        /// a record too, so nothing a server sends is dropped unseen.
        case separator(UInt8)
    }

    let boundary: Boundary
    /// The longest element kept, in bytes.
    let maximumLength: Int
    /// The chunk being read, and how far.
    private var chunk = Data()
    private var offset = 0
    /// The start of the element not yet ended, from earlier chunks.
    private var pending: [UInt8] = []
    /// Whether the last byte seen was a CR, so an LF first in the next chunk
    /// ends nothing.
    private var afterCR = false

    /// Set once an element passed `maximumLength`; nothing is read after it.
    private(set) var overflow: LineTooLong?

    init(maximumLength: Int, boundary: Boundary = .lineEnding) {
        self.maximumLength = maximumLength
        self.boundary = boundary
    }

    /// The bytes held: the chunk not yet read and the element not yet ended.
    /// At most one chunk plus `maximumLength`, whatever came before.
    var heldBytes: Int { chunk.count + pending.capacity }

    /// Starts reading `chunk`. The last chunk must be read to its end
    /// (``next()`` returned `nil`) first.
    mutating func feed(_ chunk: Data) {
        self.chunk = chunk
        offset = 0
    }

    /// The next element the bytes fed so far complete, without its line
    /// ending or separator; `nil` once the chunk is read, or when an element
    /// passed `maximumLength` (which sets ``overflow``).
    mutating func next() -> [UInt8]? {
        guard overflow == nil, offset < chunk.count else { return release() }
        let chunk = self.chunk
        let found: (element: [UInt8]?, consumed: Int) = chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = offset
            if afterCR {
                afterCR = false
                if bytes[start] == 0x0A { start += 1 }
            }
            var end = start
            while end < bytes.count, !isBoundary(bytes[end]) { end += 1 }
            let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard pending.count + piece.count <= maximumLength else {
                overflow = LineTooLong(limit: maximumLength)
                pending = []
                return (nil, bytes.count)
            }
            guard end < bytes.count else {
                pending.append(contentsOf: piece)
                return (nil, bytes.count)
            }
            if case .lineEnding = boundary { afterCR = bytes[end] == 0x0D }
            guard !pending.isEmpty else { return (Array(piece), end + 1) }
            pending.append(contentsOf: piece)
            defer { pending = [] }
            return (pending, end + 1)
        }
        offset = found.consumed
        return found.element ?? next()
    }

    /// The last element, when the bytes ended without a line ending after it
    /// (or, for records, after the last separator).
    mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        return pending.isEmpty || overflow != nil ? nil : pending
    }

    /// Lets go of a chunk read to its end: `nil`, for ``next()``.
    private mutating func release() -> [UInt8]? {
        if !chunk.isEmpty {
            chunk = Data()
            offset = 0
        }
        return nil
    }

    private func isBoundary(_ byte: UInt8) -> Bool {
        switch boundary {
        case .lineEnding: byte == 0x0A || byte == 0x0D
        case .separator(let separator): byte == separator
        }
    }
}

/// A line, event or record of a stream longer than its limit.
struct LineTooLong: Error {
    let limit: Int
}
