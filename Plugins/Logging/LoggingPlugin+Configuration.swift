import Courier
import Foundation
import Logging

extension LoggingPlugin {
    /// Turns a body into the text that is logged.
    public typealias BodyFormatting = @Sendable (_ body: Data) -> String

    /// Where the plugin logs, at which levels, and what it hides.
    public struct Configuration: Sendable {
        /// The logger every line goes to.
        public var logger: Logger
        /// The level of the one-line summaries: one per request, one per
        /// response.
        public var summaryLevel: Logger.Level
        /// The level of headers, bodies and the cURL command.
        public var detailLevel: Logger.Level
        /// The level of the line for a request that failed without a response.
        public var failureLevel: Logger.Level
        /// Bodies longer than this many characters are cut, with a note of
        /// how much was left out. At most `maximumBodyLimit`.
        public var bodyLimit: Int
        /// Whether JSON bodies are pretty-printed.
        public var prettyPrintsJSON: Bool
        /// Whether each request is also logged as a `curl` command line.
        public var logsCURL: Bool
        /// Header fields shown as `<redacted>`, besides `Authorization`,
        /// `Proxy-Authorization`, `Cookie` and `Set-Cookie`. Case-insensitive.
        public var redactedHeaders: Set<String>
        /// Query parameters (and form fields) whose values are shown as
        /// `<redacted>`, for example `["api_key", "token"]`. Case-insensitive.
        public var redactedQueryParameters: Set<String>
        /// JSON keys (at any depth) and form fields whose values are shown as
        /// `<redacted>` in bodies and cURL lines, besides
        /// `redactedQueryParameters`. Case-insensitive.
        public var redactedBodyFields: Set<String>
        /// Turns a request body into the text that is logged, in place of the
        /// built-in formatting (Moya's `requestData` formatter); `nil` uses the
        /// built-in one. Redacted JSON keys and query parameters are still
        /// hidden in what it returns, and the text is still cut at
        /// `bodyLimit`.
        public var requestBodyFormatter: BodyFormatting?
        /// Turns a response body into the text that is logged (Moya's
        /// `responseData` formatter), under the same rules as
        /// `requestBodyFormatter`.
        public var responseBodyFormatter: BodyFormatting?

        /// The body fields hidden unless told otherwise: the usual names of
        /// passwords and OAuth secrets.
        public static let defaultRedactedBodyFields: Set<String> = URLRedactor.defaultSecretNames

        /// The query parameters hidden unless configured otherwise: the same
        /// names as `defaultRedactedBodyFields` (an OAuth `code` or an
        /// `api_key` travels in URLs as often as in bodies).
        public static let defaultRedactedQueryParameters: Set<String> = defaultRedactedBodyFields

        /// The largest `bodyLimit`: more would overflow the byte count the
        /// plugin decodes (a few bytes per character).
        public static let maximumBodyLimit = Int.max / 8

        /// Creates a configuration.
        /// - Parameters:
        ///   - logger: The logger to write to; its own level decides what shows.
        ///   - summaryLevel: The level of request and response lines.
        ///   - detailLevel: The level of headers, bodies and cURL lines.
        ///   - failureLevel: The level of lines for failed requests.
        ///   - bodyLimit: The most characters of a body to show.
        ///   - prettyPrintsJSON: Whether to pretty-print JSON bodies.
        ///   - logsCURL: Whether to log a cURL command per request.
        ///   - redactedHeaders: More header fields to hide.
        ///   - redactedQueryParameters: Query parameters to hide, in URLs,
        ///     error descriptions and bodies.
        ///   - redactedBodyFields: JSON keys and form fields to hide in bodies.
        ///   - requestBodyFormatter: Formats request bodies in place of the
        ///     built-in formatting; see `requestBodyFormatter`.
        ///   - responseBodyFormatter: Formats response bodies; see
        ///     `responseBodyFormatter`.
        public init(
            logger: Logger = Logger(label: "courier"),
            summaryLevel: Logger.Level = .info,
            detailLevel: Logger.Level = .debug,
            failureLevel: Logger.Level = .error,
            bodyLimit: Int = 1024,
            prettyPrintsJSON: Bool = false,
            logsCURL: Bool = false,
            redactedHeaders: Set<String> = [],
            redactedQueryParameters: Set<String> = Configuration.defaultRedactedQueryParameters,
            redactedBodyFields: Set<String> = Configuration.defaultRedactedBodyFields,
            requestBodyFormatter: BodyFormatting? = nil,
            responseBodyFormatter: BodyFormatting? = nil
        ) {
            self.logger = logger
            self.summaryLevel = summaryLevel
            self.detailLevel = detailLevel
            self.failureLevel = failureLevel
            self.bodyLimit = min(max(0, bodyLimit), Self.maximumBodyLimit)
            self.prettyPrintsJSON = prettyPrintsJSON
            self.logsCURL = logsCURL
            self.redactedHeaders = redactedHeaders
            self.redactedQueryParameters = redactedQueryParameters
            self.redactedBodyFields = redactedBodyFields
            self.requestBodyFormatter = requestBodyFormatter
            self.responseBodyFormatter = responseBodyFormatter
        }
    }
}
