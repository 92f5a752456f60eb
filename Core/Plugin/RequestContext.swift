import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a plugin knows about the request it is working on: the target, which
/// transmission this is, the per-call options.
///
/// One context lives for one `provider.request(...)` call, across every
/// replay and retry of it.
public struct RequestContext: Sendable {
    /// The target being requested; the wrapped one for a ``MultiTarget``.
    public let target: any TargetType
    /// A number unique to this call within the process, for correlating log
    /// lines.
    public let id: UInt64
    /// The per-call options (see ``RequestOptions``).
    public let options: RequestOptions
    /// How the provider answers: from the network or from a stub.
    public let stubBehavior: StubBehavior
    /// When the call started.
    public let startedAt: Date

    /// Whether the request downloads to a file.
    public let isDownload: Bool
    /// Whether the request uploads from a file (a file task, or a multipart
    /// body too large to build in memory).
    public private(set) var isFileUpload: Bool
    private let attempts: Locked<Int>

    init(
        target: any TargetType,
        options: RequestOptions,
        stubBehavior: StubBehavior,
        isDownload: Bool = false,
        isFileUpload: Bool = false
    ) {
        self.target = target
        self.id = RequestContext.nextID.withLock { id in
            id += 1
            return id
        }
        self.options = options
        self.stubBehavior = stubBehavior
        self.startedAt = Date()
        self.isDownload = isDownload
        self.isFileUpload = isFileUpload
        self.attempts = Locked(0)
    }

    /// How many times the request has been handed to the transport (or the
    /// stub) so far: 1 during the first transmission's `willSend`, 2 during a
    /// replay's, and so on.
    public var attempt: Int { attempts.current }

    /// Whether the request's body can be sent again: false when it is a
    /// one-shot `httpBodyStream`. Retrying plugins check this.
    public func isBodyReplayable(_ request: URLRequest) -> Bool {
        request.httpBodyStream == nil
    }

    /// Marks the call as uploading from a file, once its body is built.
    mutating func markFileUpload() {
        isFileUpload = true
    }

    func beginAttempt() -> Int {
        attempts.withLock { count in
            count += 1
            return count
        }
    }

    private static let nextID = Locked<UInt64>(0)
}
