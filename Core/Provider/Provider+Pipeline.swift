import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The request pipeline, step by step: endpoint, URLRequest, prepare, the
// intercept chain around willSend and the transfer stage, didReceive,
// process and validation (a download is placed by the transfer stage).
//
// The steps (here and in the transfer stage) are `nonisolated(nonsending)`:
// they run on the executor of the public call that starts them, which is
// itself nonisolated and so never the caller's actor, instead of each
// switching to the global executor on entry (half of a stub request's task
// switches).
//
// The paths a plain call does not take (a delayed stub, coalescing, a
// download, a redirect's body, spooling an upload) are `@inline(never)`: an
// async function's frame is allocated when it is called and kept until it
// returns, so a rare path inlined into a step would enlarge the frame every
// call holds while it waits on the network.

extension Provider {
    /// Runs the pipeline for `target`; with `streaming`, the transfer stage
    /// leaves the body there instead of reading it, and the response has an
    /// empty body. `extraHeaders` are set on the request before `prepare`
    /// (a reconnecting event stream's `Last-Event-ID`), `defaultHeaders`
    /// where the request has no such field.
    nonisolated(nonsending) func perform(
        _ target: Target,
        options: RequestOptions,
        streaming: StreamHandoff? = nil,
        extraHeaders: [String: String] = [:],
        defaultHeaders: [String: String] = [:]
    ) async throws(NetworkError) -> Response {
        var endpoint = endpointClosure(target)
        if endpoint.timeout == nil {
            endpoint = endpoint.replacing(timeout: transfer.timeout)
        }
        var body = UploadBody.none
        defer { body.removeTemporaryFile() }

        let destination = endpoint.task.downloadDestination
        var inputs = TransferInputs(downloadDestination: destination, progress: options.progress, deadline: endpoint.deadline,
                                    maximumResponseSize: endpoint.maximumResponseSize, validation: target.validationType)
        var context = RequestContext(target: target.unwrapped, options: options, stubBehavior: stubClosure(target),
                                     isDownload: inputs.downloadDestination != nil, isStreamed: streaming != nil)
        inputs.context = context
        inputs.handoff = streaming
        // Which hooks each plugin leaves to its default, and so skips.
        let hooks = chain.current()
        streaming?.context = context
        let result: Result<Response, NetworkError>
        do throws(NetworkError) {
            // A call cancelled before it started still runs the plugins'
            // didReceive and process, once, as every call does.
            if Task.isCancelled { throw .cancelled }
            if streaming != nil, destination != nil {
                throw .requestBuildFailed(RequestBuildFailure.streamedDownload)
            }
            var request = try await buildRequest(endpoint)
            for (name, value) in extraHeaders {
                request.setValue(value, forHTTPHeaderField: name)
            }
            for (name, value) in defaultHeaders where request.value(forHTTPHeaderField: name) == nil {
                request.setValue(value, forHTTPHeaderField: name)
            }
            body = try UploadBody.make(for: endpoint.task, request: &request)
            if let stream = body.stream, context.stubBehavior == .never {
                if transport.sendsStreamedBodies {
                    inputs.bodyStream = stream
                    context.markStreamedBody(replayable: stream.iterationBehavior == .multiple)
                } else {
                    body = try await body.spooled(request: &request)
                }
            }
            if let file = body.file {
                inputs.uploadFile = file
                context.markFileUpload()
            }
            request = try await prepare(request, context: context, hooks: hooks)
            result = .success(try await intercepted(request, context: context, inputs: inputs, sample: endpoint.sampleResponseClosure,
                                                    hooks: hooks))
        } catch {
            result = .failure(error)
        }

        for index in plugins.indices where hooks[index].calls(.didReceive) {
            await plugins[index].didReceive(result, context: context)
            if !hooks[index].knows(.didReceive) { chain.learn(.didReceive, of: index, from: context) }
        }
        var processed = result
        for index in plugins.indices where hooks[index].calls(.process) {
            processed = await plugins[index].process(processed, context: context)
            if !hooks[index].knows(.process) { chain.learn(.process, of: index, from: context) }
        }
        let response = try processed.get()
        // The validation read from the target with the call's other inputs:
        // the target is not asked again.
        guard inputs.validation.accepts(response.statusCode) else {
            throw .statusCode(response)
        }
        // A download is written to its destination only for a 2xx status: an
        // error page never replaces a file, whatever the validation type.
        if context.isDownload, context.stubBehavior == .never, !(200..<300).contains(response.statusCode) {
            throw .statusCode(response)
        }
        return response
    }

    // MARK: - Steps

    nonisolated(nonsending) private func buildRequest(_ endpoint: Endpoint) async throws(NetworkError) -> URLRequest {
        do {
            return try await requestClosure(endpoint)
        } catch let error as NetworkError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .requestBuildFailed(error)
        }
    }

    nonisolated(nonsending) private func prepare(
        _ request: URLRequest, context: RequestContext, hooks: [PluginChain.Resolution]
    ) async throws(NetworkError) -> URLRequest {
        var request = request
        for index in plugins.indices where hooks[index].calls(.prepare) {
            do {
                request = try await plugins[index].prepare(request, context: context)
            } catch {
                throw NetworkError(pluginError: error, plugin: plugins[index])
            }
            if !hooks[index].knows(.prepare) { chain.learn(.prepare, of: index, from: context) }
        }
        return request
    }

    /// Runs the intercept chain, first plugin outermost, around `transmit`.
    ///
    /// Each plugin's `next` is a closure written where it is passed, so it
    /// stays non-escaping and is made on the task's stack instead of the heap
    /// (a chain built up front as escaping closures cost an allocation for
    /// each plugin and one more on every request).
    nonisolated(nonsending) private func intercepted(
        _ request: URLRequest,
        context: RequestContext,
        inputs: TransferInputs,
        sample: Endpoint.SampleResponseClosure,
        hooks: [PluginChain.Resolution],
        from start: Int = 0
    ) async throws(NetworkError) -> Response {
        var index = start
        while index < plugins.count, !hooks[index].calls(.intercept) { index += 1 }
        guard index < plugins.count else {
            return try await transmit(request, context: context, inputs: inputs, sample: sample, hooks: hooks)
        }
        let plugin = plugins[index]
        defer { if !hooks[index].knows(.intercept) { chain.learn(.intercept, of: index, from: context) } }
        do {
            return try await plugin.intercept(request, context: context) { [index] (request) async throws(NetworkError) -> Response in
                try await self.intercepted(request, context: context, inputs: inputs, sample: sample, hooks: hooks, from: index + 1)
            }
        } catch {
            throw NetworkError(pluginError: error, plugin: plugin)
        }
    }

    /// One transmission: every plugin's `willSend`, then the stub or the
    /// transfer stage.
    nonisolated(nonsending) private func transmit(
        _ request: URLRequest,
        context: RequestContext,
        inputs: TransferInputs,
        sample: Endpoint.SampleResponseClosure,
        hooks: [PluginChain.Resolution]
    ) async throws(NetworkError) -> Response {
        if Task.isCancelled { throw .cancelled }
        _ = context.beginAttempt(request)
        // A replay's body replaces the one before; that one is never read.
        inputs.handoff?.discard()
        for index in plugins.indices where hooks[index].calls(.willSend) {
            await plugins[index].willSend(request, context: context)
            if !hooks[index].knows(.willSend) { chain.learn(.willSend, of: index, from: context) }
        }
        switch context.stubBehavior {
        case .never:
            let stage = Transfer(transport: transport, configuration: transfer, watchdog: watchdog)
            if coalescesRequests, inputs.handoff == nil, let key = InflightRegistry.Key(request, inputs: inputs) {
                return try await inflight.run(key) { () async throws(NetworkError) -> Response in
                    try await stage.run(request, inputs: inputs)
                }
            }
            return try await stage.run(request, inputs: inputs)
        case .immediate:
            return try stubResponse(sample(), for: request)
        case .delayed(let seconds):
            return try await stubResponse(sample, for: request, after: seconds)
        }
    }

    // Not inlined: a path a plain call does not take (see the note on frames
    // at the top of this file).
    /// The sample response after `seconds`.
    @inline(never)
    nonisolated(nonsending) private func stubResponse(
        _ sample: Endpoint.SampleResponseClosure, for request: URLRequest, after seconds: TimeInterval
    ) async throws(NetworkError) -> Response {
        do {
            try await Task.sleep(nanoseconds: Watchdog.nanoseconds(seconds))
        } catch {
            throw .cancelled
        }
        return try stubResponse(sample(), for: request)
    }

    private func stubResponse(_ sample: EndpointSampleResponse, for request: URLRequest) throws(NetworkError) -> Response {
        switch sample {
        case .networkResponse(let statusCode, let data):
            let url = request.url ?? URL(fileURLWithPath: "/")
            let response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: [:])
            return Response(statusCode: statusCode, data: data, request: request, response: response)
        case .response(let response, let data):
            return Response(statusCode: response.statusCode, data: data, request: request, response: response)
        case .networkError(let error):
            throw NetworkError(transportError: error)
        }
    }
}
