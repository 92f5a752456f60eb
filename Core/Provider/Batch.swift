import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs several requests together, from one provider or several.
///
/// ```swift
/// let responses = try await Batch.all([
///     users.operation(.list),
///     posts.operation(.feed),
/// ], maxConcurrent: 2)
/// ```
public enum Batch {
    /// One request of a batch.
    public struct Operation: Sendable {
        let run: @Sendable () async throws(NetworkError) -> Response

        /// An operation from any async request.
        public init(_ run: @escaping @Sendable () async throws(NetworkError) -> Response) {
            self.run = run
        }
    }

    /// Reports how many operations have finished out of how many.
    public typealias ProgressHandler = @Sendable (_ finished: Int, _ total: Int) -> Void

    /// Runs every operation, at most `maxConcurrent` at a time, and returns the
    /// responses in the operations' order. The first failure cancels the
    /// operations still running and is thrown.
    /// - Throws: The first ``NetworkError``.
    public static func all(
        _ operations: [Operation],
        maxConcurrent: Int = 4,
        progress: ProgressHandler? = nil
    ) async throws(NetworkError) -> [Response] {
        let (results, firstFailure) = await run(operations, maxConcurrent: maxConcurrent, failFast: true, progress: progress)
        if let firstFailure {
            throw firstFailure
        }
        return results.compactMap { try? $0.get() }
    }

    /// Runs every operation, at most `maxConcurrent` at a time, and returns each
    /// one's result in the operations' order; a failure does not stop the
    /// others.
    public static func settled(
        _ operations: [Operation],
        maxConcurrent: Int = 4,
        progress: ProgressHandler? = nil
    ) async -> [Result<Response, NetworkError>] {
        await run(operations, maxConcurrent: maxConcurrent, failFast: false, progress: progress).results
    }

    private static func run(
        _ operations: [Operation],
        maxConcurrent: Int,
        failFast: Bool,
        progress: ProgressHandler?
    ) async -> (results: [Result<Response, NetworkError>], firstFailure: NetworkError?) {
        var results = [Result<Response, NetworkError>](repeating: .failure(.cancelled), count: operations.count)
        var firstFailure: NetworkError?
        guard !operations.isEmpty else { return (results, nil) }
        let width = max(1, maxConcurrent)
        await withTaskGroup(of: (Int, Result<Response, NetworkError>).self) { group in
            var nextIndex = 0
            var finished = 0
            func startNext() {
                guard nextIndex < operations.count else { return }
                let index = nextIndex
                let operation = operations[index]
                nextIndex += 1
                group.addTask {
                    do throws(NetworkError) {
                        return (index, .success(try await operation.run()))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<min(width, operations.count) {
                startNext()
            }
            while let (index, result) = await group.next() {
                results[index] = result
                finished += 1
                progress?(finished, operations.count)
                if failFast, case .failure(let error) = result {
                    if firstFailure == nil { firstFailure = error }
                    group.cancelAll()
                    nextIndex = operations.count
                    continue
                }
                startNext()
            }
        }
        return (results, firstFailure)
    }
}

extension Provider {
    /// A batch operation that requests `target` from this provider.
    public func operation(_ target: Target, options: RequestOptions = RequestOptions()) -> Batch.Operation {
        Batch.Operation { () async throws(NetworkError) -> Response in
            try await self.request(target, options: options)
        }
    }

    /// Requests every target, at most `maxConcurrent` at a time, and returns the
    /// responses in order; the first failure cancels the rest and is thrown.
    ///
    /// ```swift
    /// let pages = try await provider.batch((1...5).map { .page($0) }, maxConcurrent: 3)
    /// ```
    /// - Throws: The first ``NetworkError``.
    public func batch(
        _ targets: [Target],
        maxConcurrent: Int = 4,
        progress: Batch.ProgressHandler? = nil
    ) async throws(NetworkError) -> [Response] {
        try await Batch.all(targets.map { operation($0) }, maxConcurrent: maxConcurrent, progress: progress)
    }

    /// Requests every target, at most `maxConcurrent` at a time, and returns each
    /// result in order, failures included.
    public func batchSettled(
        _ targets: [Target],
        maxConcurrent: Int = 4,
        progress: Batch.ProgressHandler? = nil
    ) async -> [Result<Response, NetworkError>] {
        await Batch.settled(targets.map { operation($0) }, maxConcurrent: maxConcurrent, progress: progress)
    }

    /// Runs `first`, hands each response to `next`, which returns the target to
    /// request next or `nil` to stop, and returns every response in order. Stops
    /// at the first failure.
    ///
    /// ```swift
    /// // Follow a paginated list to its end.
    /// let pages = try await provider.chain(.page(1)) { response in
    ///     let page = try JSONDecoder().decode(Page.self, from: response.data)
    ///     return page.next.map { .page($0) }
    /// }
    /// ```
    /// - Throws: The first request's ``NetworkError``; an error `next` throws
    ///   becomes ``NetworkError/mappingFailed(_:_:)`` with the response it was
    ///   given.
    public func chain(
        _ first: Target,
        next: @Sendable (Response) async throws -> Target?
    ) async throws(NetworkError) -> [Response] {
        var responses: [Response] = []
        var target: Target? = first
        while let current = target {
            let response = try await request(current)
            responses.append(response)
            do {
                target = try await next(response)
            } catch let error as NetworkError {
                throw error
            } catch is CancellationError {
                throw .cancelled
            } catch {
                throw .mappingFailed(response, error)
            }
        }
        return responses
    }
}
