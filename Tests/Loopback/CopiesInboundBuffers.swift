import NIOCore
import NIOHTTP1

/// Copies every inbound buffer into storage of its own before it leaves the
/// event loop for the tasks of a test server or client.
///
/// A channel reads into one receive buffer and reuses it once nothing else
/// holds it. The server's task releasing a chunk on a cooperative thread, then
/// the event loop writing the next read into the same storage, are ordered by
/// the buffer's reference count; the thread sanitizer does not see the
/// runtime's reference-count atomics and reported the pair as a data race in
/// a full run. A copy made on the loop is never reused, so there is no pair
/// to report. (It costs the test server a copy per chunk, which is nothing
/// beside what it measures.)
public final class CopiesInboundBuffers<Part>: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = Part
    public typealias InboundOut = Part

    private let copy: (Part, ByteBufferAllocator) -> Part

    private init(copy: @escaping (Part, ByteBufferAllocator) -> Part) {
        self.copy = copy
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(wrapInboundOut(copy(unwrapInboundIn(data), context.channel.allocator)))
    }
}

extension CopiesInboundBuffers where Part == ByteBuffer {
    /// Copies raw bytes, as a connection without HTTP reads them.
    public convenience init() {
        self.init { buffer, allocator in allocator.buffer(buffer: buffer) }
    }
}

extension CopiesInboundBuffers where Part == HTTPServerRequestPart {
    /// Copies the body chunks of HTTP requests.
    public convenience init() {
        self.init { part, allocator in
            guard case .body(let buffer) = part else { return part }
            return .body(allocator.buffer(buffer: buffer))
        }
    }
}

extension CopiesInboundBuffers where Part == HTTPClientResponsePart {
    /// Copies the body chunks of HTTP responses.
    public convenience init() {
        self.init { part, allocator in
            guard case .body(let buffer) = part else { return part }
            return .body(allocator.buffer(buffer: buffer))
        }
    }
}
