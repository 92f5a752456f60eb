import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The request pipeline, step by step as DESIGN.md describes it: endpoint,
// URLRequest, prepare, the intercept chain around willSend and the transport,
// didReceive, process, validation.

extension Provider {
    func perform(_ target: Target, options: RequestOptions, progress: ProgressHandler?) async throws(NetworkError) -> Response {
        if Task.isCancelled { throw .cancelled }
        let endpoint = endpointClosure(target)
        var body = UploadBody.none
        defer { body.removeTemporaryFile() }

        let result: Result<Response, NetworkError>
        var context = RequestContext(target: target.unwrapped, options: options, stubBehavior: stubClosure(target),
                                     downloadDestination: endpoint.task.downloadDestination,
                                     progress: progress, timeout: endpoint.timeout)
        do throws(NetworkError) {
            var request = try await buildRequest(endpoint)
            body = try UploadBody.make(for: endpoint.task, request: &request)
            if let file = body.file {
                context = context.attaching(uploadFile: file)
            }
            request = try await prepare(request, context: context)
            result = .success(try await intercepted(request, context: context, sample: endpoint.sampleResponseClosure))
        } catch {
            result = .failure(error)
        }

        for plugin in plugins {
            await plugin.didReceive(result, context: context)
        }
        var processed = result
        for plugin in plugins {
            processed = await plugin.process(processed, context: context)
        }
        let response = try processed.get()
        guard target.validationType.accepts(response.statusCode) else {
            throw .statusCode(response)
        }
        return response
    }

    // MARK: - Steps

    private func buildRequest(_ endpoint: Endpoint) async throws(NetworkError) -> URLRequest {
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

    private func prepare(_ request: URLRequest, context: RequestContext) async throws(NetworkError) -> URLRequest {
        var request = request
        for plugin in plugins {
            do {
                request = try await plugin.prepare(request, context: context)
            } catch {
                throw NetworkError(pluginError: error, plugin: plugin)
            }
        }
        return request
    }

    /// Runs the intercept chain, first plugin outermost, around `transmit`.
    private func intercepted(
        _ request: URLRequest,
        context: RequestContext,
        sample: @escaping Endpoint.SampleResponseClosure
    ) async throws(NetworkError) -> Response {
        var next: PluginNext = { request in
            try await self.transmit(request, context: context, sample: sample)
        }
        for plugin in plugins.reversed() {
            let inner = next
            next = { request in
                do {
                    return try await plugin.intercept(request, context: context, next: inner)
                } catch {
                    throw NetworkError(pluginError: error, plugin: plugin)
                }
            }
        }
        do {
            return try await next(request)
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    /// One transmission: every plugin's `willSend`, then the stub or the
    /// transport.
    private func transmit(
        _ request: URLRequest,
        context: RequestContext,
        sample: Endpoint.SampleResponseClosure
    ) async throws(NetworkError) -> Response {
        if Task.isCancelled { throw .cancelled }
        _ = context.beginAttempt()
        for plugin in plugins {
            await plugin.willSend(request, context: context)
        }
        switch context.stubBehavior {
        case .never:
            return try await send(request, context: context)
        case .immediate:
            return try stubResponse(sample(), for: request)
        case .delayed(let seconds):
            do {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            } catch {
                throw .cancelled
            }
            return try stubResponse(sample(), for: request)
        }
    }

    private func send(_ request: URLRequest, context: RequestContext) async throws(NetworkError) -> Response {
        let transportRequest = TransportRequest(
            urlRequest: request,
            uploadFile: context.uploadFile,
            downloadDestination: context.downloadDestination,
            timeout: context.timeout,
            progress: context.progress
        )
        do {
            if coalescesRequests, let key = InflightRegistry.Key(transportRequest) {
                return try await inflight.run(key) { try await self.transport.send(transportRequest) }
            }
            return try await transport.send(transportRequest)
        } catch {
            throw NetworkError(transportError: error)
        }
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
