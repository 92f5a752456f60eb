import Foundation

/// Splits bytes that arrive in chunks into lines, whichever line ending a
/// line has: LF, CRLF or a lone CR (as the server-sent events format allows
/// all three). A CRLF split between two chunks is one line ending.
///
/// A line is never longer than `maximumLength` bytes: past that, ``append(_:)``
/// stops and sets ``overflow`` instead of holding more, so a server that never
/// sends a line end cannot take the process's memory. The lines a chunk ended
/// before the long one are still returned, so where chunks happen to split
/// never changes what is read.
struct LineSplitter: Sendable {
    /// The line not yet ended, and whether one passed the limit.
    private var pending: BoundedBytes
    /// Whether the last byte seen was a CR, so an LF first in the next chunk
    /// ends nothing.
    private var afterCR = false

    /// The longest line kept, in bytes.
    var maximumLength: Int { pending.maximumLength }
    /// Set once a line passed `maximumLength`; nothing is read after it.
    var overflow: LineTooLong? { pending.overflow }

    init(maximumLength: Int) {
        pending = BoundedBytes(maximumLength: maximumLength)
    }

    /// The lines `chunk` completes, in order, without their line endings, up
    /// to a line that passes `maximumLength` (which sets ``overflow``).
    mutating func append(_ chunk: some Collection<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        guard overflow == nil else { return lines }
        for byte in chunk {
            switch byte {
            case 0x0A where afterCR:
                afterCR = false
            case 0x0A, 0x0D:
                lines.append(pending.take())
                afterCR = byte == 0x0D
            default:
                afterCR = false
                guard pending.append(byte) else { return lines }
            }
        }
        return lines
    }

    /// The last line, when the bytes ended without a line ending after it.
    mutating func finish() -> [UInt8]? {
        pending.finish()
    }
}

/// A line, event or record of a stream longer than its limit.
struct LineTooLong: Error {
    let limit: Int
}

/// Splits bytes into records that each start with a separator byte, as JSON
/// text sequences (RFC 7464) start each text with RS (0x1E).
struct RecordSplitter: Sendable {
    let separator: UInt8
    /// The record not yet ended, and whether one passed the limit.
    private var pending: BoundedBytes

    /// Set once a record passed `maximumLength`; nothing is read after it.
    var overflow: LineTooLong? { pending.overflow }

    init(separator: UInt8, maximumLength: Int) {
        self.separator = separator
        pending = BoundedBytes(maximumLength: maximumLength)
    }

    /// The records `chunk` completes (each ends where the next separator
    /// starts), without their separators, up to one that passes
    /// `maximumLength` (which sets ``overflow``). Bytes before the first
    /// separator are a record too, so nothing a server sends is dropped unseen.
    mutating func append(_ chunk: some Collection<UInt8>) -> [[UInt8]] {
        var records: [[UInt8]] = []
        guard overflow == nil else { return records }
        for byte in chunk {
            if byte == separator {
                records.append(pending.take())
            } else {
                guard pending.append(byte) else { return records }
            }
        }
        return records
    }

    /// The last record, when the bytes ended after one.
    mutating func finish() -> [UInt8]? {
        pending.finish()
    }
}

/// The bytes of one line or record not yet ended, never more than
/// `maximumLength`: the byte past it sets ``overflow`` and drops what was held.
private struct BoundedBytes: Sendable {
    let maximumLength: Int
    private var bytes: [UInt8] = []
    private(set) var overflow: LineTooLong?

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Adds `byte`; `false` (and ``overflow`` set) when it would pass the limit.
    mutating func append(_ byte: UInt8) -> Bool {
        guard bytes.count < maximumLength else {
            overflow = LineTooLong(limit: maximumLength)
            bytes.removeAll()
            return false
        }
        bytes.append(byte)
        return true
    }

    /// The bytes held, which start again from none.
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// The bytes held at the end of the stream, unless there are none or an
    /// element overflowed.
    mutating func finish() -> [UInt8]? {
        defer { bytes.removeAll() }
        return bytes.isEmpty || overflow != nil ? nil : bytes
    }
}
