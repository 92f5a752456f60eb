import CZlib
import Foundation

/// Memory zlib writes a one-shot call's output into
/// (``GzipDecompressor/decompressWhole(_:expectedSize:)``,
/// ``GzipCompressor/compressWhole(_:)``): allocated without zero-filling,
/// grown by reallocation, and handed over as `Data` without a copy.
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Bytes written so far.
    var count = 0

    init(capacity: Int) throws(Gzip.Error) {
        guard let base = malloc(max(capacity, 1)) else { throw Self.outOfMemory(capacity) }
        self.base = base
        self.capacity = capacity
    }

    deinit {
        free(base)
    }

    /// The room after what was written.
    var freeSpace: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: base + count, count: capacity - count)
    }

    mutating func grow(to newCapacity: Int) throws(Gzip.Error) {
        guard let grown = realloc(base, newCapacity) else { throw Self.outOfMemory(newCapacity) }
        base = grown
        capacity = newCapacity
    }

    /// What was written, as `Data` that owns the memory from now on.
    consuming func data() -> Data {
        let base = base
        let count = count
        let capacity = capacity
        discard self
        // Room reserved for more than was written is given back.
        let kept = count < capacity ? realloc(base, max(count, 1)) ?? base : base
        return Data(bytesNoCopy: kept, count: count, deallocator: .free)
    }

    private static func outOfMemory(_ bytes: Int) -> Gzip.Error {
        .zlibFailure(code: Int(Z_MEM_ERROR), message: "cannot allocate \(bytes) bytes for the output")
    }
}
