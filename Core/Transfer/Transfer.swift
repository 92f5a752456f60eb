import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one call's transfer needs beyond its `URLRequest`.
struct TransferInputs: Sendable {
    var uploadFile: URL?
    /// A body the transport sends as it reads it.
    var bodyStream: RequestBodyStream?
    var downloadDestination: DownloadDestination?
    var progress: ProgressHandler?
    /// The target's deadline, or `nil` for the provider's.
    var deadline: TimeInterval?
    /// The target's size limit, or `nil` for the provider's.
    var maximumResponseSize: Int64?
    /// The statuses the target accepts: a download is placed at its
    /// destination only for one of them.
    var validation: ValidationType = .successCodes
    /// The call's context, which records every redirect followed (a context,
    /// not a closure over it: a closure would cost every call an allocation).
    var context: RequestContext?
    /// For a streamed call, where the body goes once the head is known,
    /// instead of being read here.
    var handoff: StreamHandoff?
}

/// The transfer stage: sends a request through a ``Transport`` and owns every
/// rule about moving its bytes, once for every transport — redirects,
/// time-outs and the deadline, size limits, downloads to disk, progress,
/// header fix-ups after decoding, and the classification of every failure.
struct Transfer: Sendable {
    let transport: any Transport
    let configuration: TransferConfiguration
    /// The provider's watchdog, which enforces the time-outs.
    let watchdog: Watchdog

    /// Sends `request` (as it left the plugins), follows its redirects and
    /// returns the response: the body in memory, or a download written to a
    /// temporary file next to its destination and moved there once it has
    /// arrived whole with a status the target accepts.
    nonisolated(nonsending) func run(_ request: URLRequest, inputs: TransferInputs) async throws(NetworkError) -> Response {
        guard let url = request.url, url.isPlainHTTPWithHost || url.scheme.map(Self.isHTTP) == true && url.checkedHost != nil else {
            throw .requestBuildFailed(RequestBuildFailure.unsupportedURL(request.url?.scheme ?? "a URL without a scheme"))
        }
        if let stream = inputs.bodyStream, !stream.canBeSentAgain {
            // A plugin replays a request whose one-shot body is gone.
            throw .requestBuildFailed(RequestBuildFailure.bodyStreamAlreadyRead)
        }
        let (first, temporaryBody) = try OutgoingRequest.make(request, uploadFile: inputs.uploadFile, bodyStream: inputs.bodyStream)
        defer { if let temporaryBody { try? FileManager.default.removeItem(at: temporaryBody) } }

        let requestTimeout = request.timeoutInterval
        let idleTimeout = requestTimeout > 0 ? requestTimeout : configuration.timeout
        let deadline = (inputs.deadline ?? configuration.deadline).map { seconds in
            (at: DispatchTime.now().uptimeNanoseconds &+ Watchdog.nanoseconds(seconds), seconds: seconds)
        }
        let isDownload = inputs.downloadDestination != nil
        let memoryLimit = ResponseTooLarge(limit: .memory, bytes: (isDownload ? nil : inputs.maximumResponseSize)
            ?? configuration.limits.maximumBodySize)
        let collects = !isDownload && inputs.progress == nil && inputs.handoff == nil
        let streamLimit = inputs.handoff.flatMap { handoff in
            (handoff.maximumBytes ?? inputs.maximumResponseSize).map { ResponseTooLarge(limit: .stream, bytes: $0) }
        }
        // What a transport that counts bytes as they arrive stops at: the
        // limit the body is read under (a download's depends on its status,
        // and is applied as it is written).
        let arrivalLimit = isDownload ? nil : inputs.handoff == nil ? memoryLimit : streamLimit

        var redirects = RedirectState(policy: configuration.redirects)
        var current = first
        while true {
            if Task.isCancelled { throw .cancelled }
            let control = TransferControl(bodyLimit: arrivalLimit, progress: inputs.progress, readsInChunks: !collects)
            let watch = watchdog.watch(control, idleTimeout: idleTimeout, deadline: deadline)
            // A streamed body keeps its watch until the body ends.
            var handedOff = false
            defer { if !handedOff { watchdog.unwatch(watch) } }

            let head = try await send(current, collects: collects, handsOff: inputs.handoff != nil, control: control)
            // Transports report the head themselves; one that does not is
            // covered here.
            control.didReceiveHead()
            do throws(NetworkError) {
                if let next = try redirects.next(after: head, for: current) {
                    if let context = inputs.context, let location = next.url {
                        context.record(.init(.redirect, ["status": String(head.statusCode), "location": location.absoluteString]))
                    }
                    await discard(head.body, control: control)
                    current = next
                    continue
                }
                if let destination = inputs.downloadDestination, (200..<300).contains(head.statusCode) {
                    let limit = (inputs.maximumResponseSize ?? configuration.limits.maximumDownloadSize)
                        .map { ResponseTooLarge(limit: .download, bytes: $0) }
                    return try await download(head, for: current, to: destination, limit: limit, control: control,
                                              progress: inputs.progress, validation: inputs.validation)
                }
                if let handoff = inputs.handoff {
                    handoff.hand(StreamedBody(stream: head.body, control: control, watch: (watchdog, watch), limit: streamLimit,
                                              announced: Self.announcedLength(head, method: current.urlRequest.httpMethod),
                                              context: inputs.context))
                    handedOff = true
                    return Response(statusCode: head.statusCode, data: Data(), request: current.urlRequest, url: head.url,
                                    fields: Self.fixedHeaderFields(head, bodyLength: nil))
                }
                var data = Data()
                let received = try await receive(head, for: current, limit: memoryLimit, control: control,
                                                 progress: inputs.progress) { chunk throws(NetworkError) in
                    if data.isEmpty { data = chunk } else { data.append(chunk) }
                }
                return Response(statusCode: head.statusCode, data: data, request: current.urlRequest, url: head.url,
                                fields: Self.fixedHeaderFields(head, bodyLength: received))
            } catch {
                // Whatever went wrong here, the transport stops too (the first
                // reason stays: a time-out remains a time-out).
                control.abort(.cancelled)
                throw error
            }
        }
    }

    // MARK: - Steps

    nonisolated(nonsending) private func send(
        _ request: OutgoingRequest, collects: Bool, handsOff: Bool, control: TransferControl
    ) async throws(NetworkError) -> TransportResponse {
        // `acceptEncoding` is left to the request's own rule: what the
        // transfer decodes, `identity` for a body handed to the caller.
        let transportRequest = TransportRequest(urlRequest: request.urlRequest,
                                                uploadFile: request.uploadFile,
                                                bodyStream: request.bodyStream, bodyLength: request.bodyLength, collectsBody: collects,
                                                handsBodyToCaller: handsOff, control: control,
                                                decodesContent: configuration.decodesContent)
        let result: Result<TransportResponse, NetworkError> = await withTaskCancellationHandler {
            do throws(NetworkError) {
                return .success(try await transport.send(transportRequest))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            control.abort(.cancelled)
        }
        switch result {
        case .success(let response):
            if let reason = control.reason { throw reason.error }
            return response
        case .failure(let error):
            throw control.failure(for: error)
        }
    }

    // Not inlined: a path a plain call does not take (see the note on
    // frames in Provider+Pipeline.swift).
    @inline(never)
    nonisolated(nonsending) private func download(
        _ head: TransportResponse,
        for request: OutgoingRequest,
        to destination: DownloadDestination,
        limit: ResponseTooLarge?,
        control: TransferControl,
        progress: ProgressHandler?,
        validation: ValidationType
    ) async throws(NetworkError) -> Response {
        let fields = Self.fixedHeaderFields(head, bodyLength: nil)
        let placeholder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        guard let httpResponse = HTTPURLResponse(url: head.url, statusCode: head.statusCode, httpVersion: "HTTP/1.1",
                                                 headerFields: fields.dictionary) else {
            throw .invalidResponse(URLError(.badServerResponse))
        }
        let (url, options) = destination(placeholder, httpResponse)
        let file = try DownloadFile(destination: url, options: options)
        // Whatever happens before the file is placed, nothing is left.
        defer { file.discard() }
        let received = try await receive(head, for: request, limit: limit, control: control, progress: progress) { chunk throws(NetworkError) in
            try file.write(chunk)
        }
        // Placed here, where it was written, once whole and accepted: the
        // provider fails a status the target does not accept, with no file.
        let placed = validation.accepts(head.statusCode) ? try file.place() : nil
        return Response(statusCode: head.statusCode, data: Data(), request: request.urlRequest, url: head.url,
                        fields: Self.fixedHeaderFields(head, bodyLength: received), fileURL: placed)
    }

    /// Reads the body into `sink` under `limit`, reporting download progress,
    /// and checks it arrived whole. Returns its length.
    nonisolated(nonsending) private func receive(
        _ head: TransportResponse,
        for request: OutgoingRequest,
        limit: ResponseTooLarge?,
        control: TransferControl,
        progress: ProgressHandler?,
        into sink: (Data) throws(NetworkError) -> Void
    ) async throws(NetworkError) -> Int64 {
        let announced = Self.announcedLength(head, method: request.urlRequest.httpMethod)
        var reader = BodyReader(head.body, control: control, limit: limit, announced: announced)
        while let chunk = try await reader.next() {
            try sink(chunk)
            Self.report(reader.received, of: announced, to: progress)
        }
        return reader.received
    }

    /// Whether `scheme` is http or https, in any case (the usual lower case
    /// is checked without making a lowered copy).
    static func isHTTP(_ scheme: String) -> Bool {
        if scheme == "http" || scheme == "https" { return true }
        let lowered = scheme.lowercased()
        return lowered == "http" || lowered == "https"
    }

    /// Tells `progress` that `received` bytes of the body arrived, of
    /// `announced` while the body keeps to it. (A function, not a closure made
    /// for every transfer.)
    private static func report(_ received: Int64, of announced: Int64?, to progress: ProgressHandler?) {
        guard let progress else { return }
        let total = announced.flatMap { received <= $0 ? $0 : nil }
        progress(TransferProgress(direction: .download, completedBytes: received, totalBytes: total))
    }

    // Not inlined: a path a plain call does not take (see the note on
    // frames in Provider+Pipeline.swift).
    /// Reads and drops a redirect's body, up to 1 MiB; a longer one ends the
    /// transfer instead.
    @inline(never)
    nonisolated(nonsending) private func discard(_ body: ResponseBody, control: TransferControl) async {
        guard case .stream = body.storage else { return }
        var reader = BodyReader(body, control: control, limit: nil, announced: nil)
        while (try? await reader.next()) != nil {
            if reader.received > 1 << 20 {
                control.abort(.cancelled)
                return
            }
        }
    }

    // MARK: - Header fields

    /// The `Content-Length` a body must reach, when the server announced one
    /// for a body that can have one and the client did not decode it.
    private static func announcedLength(_ head: TransportResponse, method: String?) -> Int64? {
        guard !head.contentDecoded, !HeaderFields.equalIgnoringASCIICase(method ?? "", "HEAD"),
              head.statusCode >= 200, head.statusCode != 204, head.statusCode != 304,
              let value = head.value(forHTTPHeaderField: "Content-Length")
        else { return nil }
        return contentLength(value)
    }

    /// A `Content-Length` value: 1 to 18 digits between optional spaces and
    /// tabs, read in one pass over the bytes (this runs for every response).
    static func contentLength(_ value: String) -> Int64? {
        var value = value
        return value.withUTF8 { bytes in
            var length: Int64 = 0
            var digits = 0
            var afterDigits = false
            for byte in bytes {
                switch byte {
                case 0x20, 0x09:
                    afterDigits = digits > 0
                case 0x30...0x39:
                    guard !afterDigits, digits < 18 else { return nil }
                    length = length * 10 + Int64(byte - 0x30)
                    digits += 1
                default:
                    return nil
                }
            }
            return digits > 0 ? length : nil
        }
    }

    /// The header fields handed on: for a body the client decoded, without
    /// `Content-Encoding` and with the decoded `Content-Length`, so no plugin
    /// decodes it twice or trusts the encoded length.
    static func fixedHeaderFields(_ head: TransportResponse, bodyLength: Int64?) -> HeaderFieldList {
        guard head.contentDecoded else { return head.fields }
        return head.fields.afterDecoding(decodedLength: bodyLength)
    }
}
