import CourierTestSupport
import Logging

/// The lines a logger received, for assertions.
final class LogCapture: Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let storage = Mutex<[Line]>([])

    var lines: [Line] { storage.withLock { $0 } }
    var messages: [String] { lines.map(\.message) }

    func append(_ line: Line) {
        storage.withLock { $0.append(line) }
    }

    /// A logger at `level` that writes here.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "courier.test") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = level
        return logger
    }
}

/// A `LogHandler` that keeps every line in a ``LogCapture``.
struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.append(.init(level: event.level, message: event.message.description, metadata: event.metadata ?? [:]))
    }
}
