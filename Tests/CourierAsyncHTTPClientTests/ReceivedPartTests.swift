import Foundation
import NIOCore
import Testing
@testable import CourierAsyncHTTPClient

/// A part of a body the client read is handed on as `Data`: shared with the
/// client's buffer when it fills most of it (no copy on the event loop), and
/// copied when it is small or would keep a much larger buffer alive. A shared
/// part must keep its bytes whatever the client does with its buffer next,
/// and let the buffer go when it is dropped.
@Suite struct ReceivedPartTests {
    /// A buffer of `count` bytes that fills its storage, each byte its index
    /// modulo 251.
    private func fullBuffer(_ count: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeBytes((0..<count).map { UInt8($0 % 251) })
        return buffer
    }

    private func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { $0.baseAddress }
    }

    @Test func aPartThatFillsItsBufferIsSharedAndKeepsItsBytesWhenTheClientWritesAgain() {
        var buffer = fullBuffer(64 << 10)
        #expect(buffer.readableBytes * 4 >= buffer.storageCapacity * 3)
        let original = Data(buffer.readableBytesView)
        let part = Exchange.part(buffer)
        #expect(part == original)
        #expect(part.withUnsafeBytes { $0.baseAddress } == address(buffer), "a full 64 KiB part is shared, not copied")
        // The client reuses its buffer for the next read: the write copies
        // the storage the part holds instead of changing it.
        buffer.setBytes([UInt8](repeating: 0xFF, count: buffer.readableBytes), at: buffer.readerIndex)
        // Compared as a yes or no: a failing `==` would diff 64 KiB.
        #expect(part.elementsEqual(original))
    }

    @Test func aDroppedPartLetsItsBufferGo() {
        var buffer = fullBuffer(64 << 10)
        let storage = address(buffer)
        do {
            let part = Exchange.part(buffer)
            #expect(part.count == 64 << 10)
        }
        // The buffer is the storage's only owner again: writing to it does
        // not copy.
        buffer.setInteger(UInt8(0xFF), at: buffer.readerIndex)
        #expect(address(buffer) == storage)
    }

    @Test func aSmallPartIsCopied() {
        let buffer = fullBuffer(Exchange.sharedPartMinimum - 1)
        let part = Exchange.part(buffer)
        #expect(part == Data(buffer.readableBytesView))
        #expect(part.withUnsafeBytes { $0.baseAddress } != address(buffer))
    }

    @Test func aPartOverTLSIsCopied() {
        // The TLS handler reuses its one buffer for every read: a part that
        // shared it would make that buffer be copied whole before the next.
        let buffer = fullBuffer(64 << 10)
        let part = Exchange.part(buffer, shares: false)
        #expect(part.elementsEqual(buffer.readableBytesView))
        #expect(part.withUnsafeBytes { $0.baseAddress } != address(buffer))
    }

    @Test func aPartThatWouldKeepALargerBufferAliveIsCopied() {
        // 16 KiB read out of a 64 KiB buffer: sharing it would keep four
        // times its bytes alive while it waits unread.
        let whole = fullBuffer(64 << 10)
        let slice = whole.getSlice(at: whole.readerIndex, length: 16 << 10) ?? ByteBuffer()
        #expect(slice.storageCapacity >= 64 << 10)
        let part = Exchange.part(slice)
        #expect(part == Data(slice.readableBytesView))
        #expect(part.withUnsafeBytes { $0.baseAddress } != address(slice))
    }
}
