import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

#if !Logging
#error("CourierLogging needs the package trait \"Logging\": add it to the traits of your Courier dependency.")
#endif

/// Logs requests and responses to a swift-log `Logger`: a line per request
/// and per response at info, headers, bodies and an optional cURL command at
/// debug, with credentials always shown as `<redacted>`.
///
/// ```swift
/// var logger = Logger(label: "api")
/// logger.logLevel = .debug
/// let logging = LoggingPlugin(.init(logger: logger, prettyPrintsJSON: true, logsCURL: true,
///                                   redactedQueryParameters: ["api_key"]))
/// let provider = Provider<API>(plugins: [logging, RetryPlugin()])
/// // --> GET https://api.example.com/users?api_key=<redacted>
/// // <-- GET https://api.example.com/users?api_key=<redacted> 200 (5120 bytes, 84 ms)
/// ```
///
/// Every transmission logs its request line from `willSend` (with the
/// attempt number on a replay or a retry). The call logs one response line
/// from `didReceive`, after every plugin's `intercept`: it names the attempt
/// that answered and times the whole call from its start (on a monotonic
/// clock, `RequestContext.elapsed`), so the plugin's
/// place among the others changes no line (first is the recommended order,
/// in the documentation of `Plugin`). The plugin only observes: it has no
/// `intercept`, so it adds no step around the transmission. Byte counts are
/// of the body as received, never the `Content-Length` header; a body the
/// transport left compressed is logged compressed.
public struct LoggingPlugin: Plugin {
    /// The configuration in force.
    public let configuration: Configuration
    private let redactor: LogRedactor
    private let bodies: BodyFormatter

    /// Creates the plugin.
    /// - Parameter configuration: The logger, the levels and what to hide.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        redactor = LogRedactor(headers: configuration.redactedHeaders,
                               parameters: configuration.redactedQueryParameters.union(configuration.redactedBodyFields))
        bodies = BodyFormatter(limit: configuration.bodyLimit, prettyPrintsJSON: configuration.prettyPrintsJSON, redactor: redactor)
    }

    // MARK: - Hooks

    /// Logs the request line for this transmission and, at the detail level,
    /// its headers, body and cURL command.
    public func willSend(_ request: URLRequest, context: RequestContext) async {
        let logger = configuration.logger
        // Nothing is built for a line the logger would drop.
        guard logger.logLevel <= max(configuration.summaryLevel, configuration.detailLevel) else { return }
        let attemptNumber = context.attempt
        let metadata = Self.metadata(context, attempt: attemptNumber)
        let attempt = Self.attempt(attemptNumber)
        // The request line once, for the summary and the details.
        let described = describe(request)
        logLine(configuration.summaryLevel, "--> \(described)\(attempt)", metadata)
        guard logger.logLevel <= configuration.detailLevel else { return }
        logLine(configuration.detailLevel, details(of: request, described: described, context: context), metadata)
        if configuration.logsCURL {
            log(configuration.detailLevel, CURLCommand.make(request, redactor: redactor), metadata)
        }
    }

    /// Logs the response line (status, bytes, milliseconds since the call
    /// started) and, at the detail level, its header fields and body; or the
    /// failure. Runs once per call, after every plugin's `intercept` has
    /// returned, so the line covers the whole call (replays, retries, a
    /// cache's answer) wherever the plugin sits among the others.
    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        // Nothing is built for a line the logger would drop: the most
        // severe level this call could log at must pass.
        let other: Logger.Level
        if case .success = result { other = configuration.detailLevel } else { other = configuration.failureLevel }
        guard configuration.logger.logLevel <= max(configuration.summaryLevel, other) else { return }
        let milliseconds = Self.milliseconds(context.elapsed)
        let attemptNumber = context.attempt
        let metadata = Self.metadata(context, attempt: attemptNumber)
        let attempt = Self.attempt(attemptNumber)
        let answered: Response?
        switch result {
        case .success(let response): answered = response
        case .failure(let error): answered = error.response
        }
        let described = describe(context.sentRequest ?? answered?.request, target: context.target)
        switch result {
        case .success(let response):
            if context.isStreamed {
                logStream(of: response, described: described, milliseconds: milliseconds, attempt: attempt, context: context,
                          metadata: metadata)
                return
            }
            logLine(configuration.summaryLevel, summary(of: response, described: described, milliseconds: milliseconds)
                + attempt, metadata)
            if configuration.logger.logLevel <= configuration.detailLevel {
                logLine(configuration.detailLevel, details(of: response, described: described), metadata)
            }
        case .failure(let error):
            let level = error.isCancelled ? configuration.summaryLevel : configuration.failureLevel
            let reason = redactor.text(String(describing: error))
            logLine(level, "<-- \(described)\(attempt) failed after \(milliseconds) ms: \(reason)", metadata)
        }
    }

    /// A streamed call: the head now (with its header fields at the detail
    /// level, never a body), and a summary line once the stream ends.
    private func logStream(of response: Response, described: String, milliseconds: Int, attempt: String,
                           context: RequestContext, metadata: Logger.Metadata) {
        let title = "<-- \(described) \(response.statusCode)"
        logLine(configuration.summaryLevel, "\(title) (head after \(milliseconds) ms, body streamed)" + attempt, metadata)
        if configuration.logger.logLevel <= configuration.detailLevel {
            logLine(configuration.detailLevel, block(title, headers: response.headerFields, body: "<body streamed to the caller>"),
                    metadata)
        }
        context.onStreamEnd { [self] summary in
            let elements = summary.elements > 0 ? ", \(summary.elements) elements" : ""
            let ending: String
            let level: Logger.Level
            switch summary.outcome {
            case .finished:
                (ending, level) = ("ended", configuration.summaryLevel)
            case .cancelled:
                (ending, level) = ("stopped by the reader", configuration.summaryLevel)
            case .failed(let error):
                (ending, level) = ("failed: \(redactor.text(String(describing: error)))", configuration.failureLevel)
            }
            let milliseconds = Int((summary.duration * 1000).rounded())
            logLine(level, "\(title) stream \(ending) (\(summary.bytes) bytes\(elements), \(milliseconds) ms)", metadata)
        }
    }

    // MARK: - Lines

    /// Logs `message` with every named query parameter hidden, wherever a
    /// URL appears in it (a description that quotes a redirect target).
    private func log(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
        configuration.logger.log(level: level, "\(redactor.text(message))", metadata: metadata)
    }

    /// Logs a line or a block as it is: every part of it is redacted
    /// already (the URL by ``LogRedactor/url(_:)``, an error's description,
    /// header values and bodies by ``LogRedactor/text(_:)``), so the whole
    /// is not scanned again.
    private func logLine(_ level: Logger.Level, _ message: @autoclosure () -> String, _ metadata: Logger.Metadata) {
        // The string as the message, not interpolated into a new one.
        configuration.logger.log(level: level, Logger.Message(stringLiteral: message()), metadata: metadata)
    }

    /// ` (attempt n)` on a replay: in `willSend`, the transmission going
    /// out; in `didReceive`, the one that answered.
    private static func attempt(_ number: Int) -> String {
        number > 1 ? " (attempt \(number))" : ""
    }

    private func describe(_ request: URLRequest) -> String {
        "\(request.httpMethod ?? "GET") \(redactor.url(request.url))"
    }

    /// The request that was sent, or for a call that never was (it failed
    /// before, or a cache answered), the one the response answers, or at
    /// least the target's method and URL.
    private func describe(_ request: URLRequest?, target: any TargetType) -> String {
        if let request { return describe(request) }
        let url = target.path.isEmpty ? target.baseURL : target.baseURL.appendingPathComponent(target.path)
        return "\(target.method.rawValue) \(redactor.url(url))"
    }

    private func summary(of response: Response, described: String, milliseconds: Int) -> String {
        "<-- \(described) \(response.statusCode) (\(Self.byteCount(response)) bytes, \(milliseconds) ms)"
    }

    private func details(of request: URLRequest, described: String, context: RequestContext) -> String {
        let body: String
        if let data = request.httpBody {
            body = bodies.format(data, contentType: request.value(forHTTPHeaderField: "Content-Type"),
                                 custom: configuration.requestBodyFormatter)
        } else if request.httpBodyStream != nil {
            body = "<streamed body>"
        } else {
            body = context.isFileUpload ? "<body streamed from a file>"
                : context.isBodyStreamed ? "<body streamed as it is made>" : "(empty body)"
        }
        return block("--> \(described)", headers: request.allHTTPHeaderFields ?? [:], body: body)
    }

    private func details(of response: Response, described: String) -> String {
        let body = response.fileURL.map { "<\(Self.byteCount(response)) bytes written to \($0.lastPathComponent)>" }
            ?? bodies.format(response.data, contentType: response.value(forHTTPHeaderField: "Content-Type"),
                             custom: configuration.responseBodyFormatter)
        return block("<-- \(described) \(response.statusCode)", headers: response.headerFields, body: body)
    }

    /// A title, header fields and a body as one entry, every part redacted:
    /// the title is built from redacted parts, and named query parameters
    /// are hidden in each field's value and in the body, wherever a URL
    /// appears in them (a `Location`, a link in a JSON body).
    private func block(_ title: String, headers: [String: String], body: String) -> String {
        let body = redactor.text(body)
        // One string, grown in place: no array of lines to join.
        var entry = title
        entry.reserveCapacity(title.utf8.count + body.utf8.count + 64 * headers.count + 16)
        for field in redactor.headerFields(headers) {
            entry += "\n    "
            entry += field.name
            entry += ": "
            entry += redactor.text(field.value)
        }
        entry += "\n"
        Self.append(indented: body, to: &entry)
        return entry
    }

    /// `text` with four spaces before each line, added to `entry`: line by
    /// line on its bytes, where Foundation's `replacingOccurrences` goes
    /// through NSString on Linux and a split by `Character` walks graphemes.
    private static func append(indented text: String, to entry: inout String) {
        guard LogRedactor.bytes(of: text, contain: UInt8(ascii: "\n")) else {
            entry += "    "
            entry += text
            return
        }
        var text = text
        text.withUTF8 { utf8 in
            var lineStart = 0
            while let newline = utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                entry += "    "
                entry += String(decoding: UnsafeBufferPointer(rebasing: utf8[lineStart...newline]), as: UTF8.self)
                lineStart = newline + 1
            }
            entry += "    "
            entry += String(decoding: UnsafeBufferPointer(rebasing: utf8[lineStart...]), as: UTF8.self)
        }
    }

    // MARK: - Measuring

    /// The call's number and the attempt's, as values a handler turns into
    /// text only if it writes the line.
    private static func metadata(_ context: RequestContext, attempt: Int) -> Logger.Metadata {
        ["courier.request": .stringConvertible(context.id), "courier.attempt": .stringConvertible(attempt)]
    }

    private static func milliseconds(_ elapsed: Duration) -> Int {
        let components = elapsed.components
        return Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }

    /// The bytes actually received: the body, or the downloaded file's size.
    private static func byteCount(_ response: Response) -> Int {
        guard let file = response.fileURL else { return response.data.count }
        let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        return size?.intValue ?? 0
    }

}
