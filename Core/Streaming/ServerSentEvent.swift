import Foundation

/// One event of a `text/event-stream` response (server-sent events), as the
/// WHATWG HTML specification's event-stream format defines it.
///
/// ```swift
/// for try await event in try await provider.stream(.completions(prompt)).serverSentEvents {
///     let delta = try event.decode(Delta.self)
///     print(delta.text, terminator: "")
/// }
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's type: its `event` field, or `"message"` when it had none.
    public var event: String
    /// The event's data: its `data` fields joined with line feeds.
    public var data: String
    /// The last event ID the stream set (by this event's `id` field or an
    /// earlier one), or `nil` when none was set; a reconnection sends it as
    /// `Last-Event-ID`.
    public var id: String?
    /// The reconnection time in milliseconds, when this event's block set one
    /// with a `retry` field.
    public var retry: Int?

    /// Creates an event, for tests and for code that replays a stream.
    /// - Parameters:
    ///   - event: The event's type.
    ///   - data: The event's data.
    ///   - id: The last event ID.
    ///   - retry: The reconnection time in milliseconds.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// Decodes the event's data as JSON, as token-streaming APIs send it.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: ``MappingLimitExceeded`` when the data nests arrays and
    ///   objects deeper than ``JSONNesting/defaultMaximumDepth`` levels (no
    ///   parser sees it then), or the decoder's error when the data is not a
    ///   `type` in JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        let json = Data(data.utf8)
        let depth = JSONNesting.defaultMaximumDepth
        guard !JSONNesting.exceeds(depth, in: json) else {
            throw MappingLimitExceeded(limit: "JSONNesting.defaultMaximumDepth", maximum: depth,
                                       reason: "the event's data nests arrays and objects deeper than \(depth) levels")
        }
        return try decoder.decode(type, from: json)
    }
}

/// Parses the lines of an event stream into events, field by field, as the
/// WHATWG specification's "interpret an event stream" steps say: `event`,
/// `data` (several joined with LF), `id` (ignored when it holds NUL),
/// `retry` (ASCII digits only), comments (a leading colon) ignored, one space
/// after the colon dropped, an unknown field ignored, and an event dispatched
/// at a blank line only, so one left unfinished at the end is discarded.
struct ServerSentEventParser: Sendable {
    /// The most bytes an event's data may hold.
    let maximumDataLength: Int
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    /// The ID the `id` fields of the event being read set; it becomes the
    /// stream's last event ID only when that event is dispatched.
    private var idBuffer: String?
    /// The ID of the last event dispatched.
    private var lastEventID: String?
    private var retry: Int?
    private var sawFirstLine = false

    init(maximumDataLength: Int) {
        self.maximumDataLength = maximumDataLength
    }

    /// Reads one line (without its line ending); returns the event it
    /// completes, if it is the blank line that ends one.
    /// - Throws: ``LineTooLong`` when the event's data passes its limit.
    mutating func parse(line: [UInt8]) throws(LineTooLong) -> ServerSentEvent? {
        var line = line[...]
        if !sawFirstLine {
            sawFirstLine = true
            // A UTF-8 byte order mark at the start of the stream is dropped.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line.first == 0x3A { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: 0x3A) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == 0x20 { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        switch Self.name(of: field) {
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .data:
            guard data.count + value.count + 1 <= maximumDataLength else { throw LineTooLong(limit: maximumDataLength) }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case .id:
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case .retry:
            if !value.isEmpty, value.count <= 9, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                retry = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                reconnectionTime = retry
            }
        case nil:
            break
        }
        return nil
    }

    /// The ID the last dispatched event set, for `Last-Event-ID`: an event
    /// cut off by a dropped connection sets none. Empty when an event reset
    /// it (`id` with no value), which sends no header.
    var lastID: String? { lastEventID }
    /// The reconnection time the stream last set with `retry`, in
    /// milliseconds, whether or not an event was dispatched after it.
    private(set) var reconnectionTime: Int?

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data = []
            hasData = false
            retry = nil
        }
        // The ID is taken on dispatch, with or without data, as browsers do.
        lastEventID = idBuffer ?? lastEventID
        guard hasData else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType,
                               data: String(decoding: data, as: UTF8.self), id: lastEventID, retry: retry)
    }

    private enum Field { case event, data, id, retry }

    private static func name(of field: ArraySlice<UInt8>) -> Field? {
        switch field.count {
        case 2 where field.elementsEqual("id".utf8): .id
        case 4 where field.elementsEqual("data".utf8): .data
        case 5 where field.elementsEqual("event".utf8): .event
        case 5 where field.elementsEqual("retry".utf8): .retry
        default: nil
        }
    }
}
